"""Issue 47's newcomer frictions 10, 11 and 13, as a newcomer meets them at the command line."""

from __future__ import annotations

import pytest
from weharness import ROOT, we

REPLAYS = ROOT / "replays"


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["stats", "--versus"], "we stats"),
        (["stats", "--versus", "Ann"], "we stats"),
        (["record", "x.jsonl", "--players"], "we record"),
        (["season", "verify", "--fingerprint"], "we season verify"),
    ],
)
def test_an_option_missing_its_value_points_at_its_commands_help(args, command):
    """Friction 10: `we stats --versus` pointed at `we --help`, which does not list --versus."""
    result = we(*args)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{command}: error: ") and line.endswith(f"(see '{command} --help')"), line


@pytest.mark.parametrize("subcommand", ["verify", "show"])
def test_a_season_ledger_that_is_not_there_exits_1_like_any_missing_file(tmp_path, subcommand):
    """Friction 11: every other command says "no such file" with exit 1; season said 2."""
    missing = tmp_path / "nope.jsonl"
    result = we("season", subcommand, missing)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"we: error: no such file: {missing}"]
    assert we("score", missing).exit_code == 1  # the others, for comparison
    folder = we("season", subcommand, tmp_path)
    assert folder.exit_code == 1 and "is not a file" in folder.stderr


def test_stats_and_simulate_say_mean_as_the_docs_do(tmp_path):
    """Friction 13: the tables said "avg score" where the docs say "mean"."""
    db = tmp_path / "club.db"
    assert we("import", "--db", db, REPLAYS / "tie-5p.jsonl").exit_code == 0
    stats = we("stats", "--db", db)
    simulate = we("simulate", "--players", "3", "--games", "2", "--seed", "m", "--out", tmp_path / "sim")
    for result in (stats, simulate):
        assert result.exit_code == 0, result.stderr
        assert "mean score" in result.stdout and "avg" not in result.stdout
