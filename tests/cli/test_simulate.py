"""`we simulate`: reproducible bot games, valid and complete, with a summary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from freezegun import freeze_time
from weharness import ROOT, one_error_line, we


def cells(line: str) -> list[str]:
    return line.replace("\u2502", " ").split()


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_the_same_seed_writes_byte_identical_logs_whatever_the_clock(tmp_path):
    args = ["simulate", "--players", "4", "--games", "3", "--seed", "xmas", "--bot", "greedy"]
    with freeze_time("2030-01-01 12:00:00"):
        first = we(*args, "--out", tmp_path / "a")
    with freeze_time("1999-07-04 03:21:00"):
        second = we(*args, "--out", tmp_path / "b")
    assert first.exit_code == second.exit_code == 0, first.stderr + second.stderr
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert list(a) == ["sim-xmas-1.jsonl", "sim-xmas-2.jsonl", "sim-xmas-3.jsonl"]
    assert a == b
    summary = first.stdout.replace(str(tmp_path / "a"), "DIR")
    assert summary == second.stdout.replace(str(tmp_path / "b"), "DIR")


def test_ids_titles_and_timestamps_are_derived_from_the_seed(tmp_path):
    assert we("simulate", "-k", "2", "--seed", "Big Night!", "--out", tmp_path).exit_code == 0
    second = [orjson.loads(line) for line in (tmp_path / "sim-big-night-2.jsonl").read_bytes().splitlines()]
    assert {e["game"] for e in second} == {"sim-big-night-2"}
    assert second[0]["data"]["title"] == "Simulated game 2 from seed Big Night!"
    # game 2 starts an hour after game 1; event n is n seconds in
    assert second[0]["at"] == "2011-12-24T19:00:01Z"
    assert second[9]["at"] == "2011-12-24T19:00:10Z"
    assert [e["type"] for e in second[:3]] == ["game_started", "gift_lists_dealt", "attics_dealt"]


def test_different_seeds_play_different_games(tmp_path):
    we("simulate", "-k", "1", "--seed", "one", "--out", tmp_path)
    we("simulate", "-k", "1", "--seed", "two", "--out", tmp_path)
    one = (tmp_path / "sim-one-1.jsonl").read_bytes().replace(b"one", b"")
    two = (tmp_path / "sim-two-1.jsonl").read_bytes().replace(b"two", b"")
    assert one != two


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_every_simulated_game_audits_ok_and_complete(tmp_path, players, bot):
    result = we(
        "simulate",
        "--players",
        players,
        "--games",
        2,
        "--seed",
        f"p{players}",
        "--bot",
        bot,
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    audit = we("audit", "--json", tmp_path)
    assert audit.exit_code == 0, audit.stdout
    reports = [json.loads(line) for line in audit.stdout.splitlines()]
    assert len(reports) == 2
    for report in reports:
        assert report["ok"] and report["complete"], report
        assert len(report["scores"]) == players
        assert report["winners"]


def test_the_summary_gives_wins_by_seat_and_by_bot(tmp_path):
    result = we(
        "simulate",
        "-n",
        "3",
        "-k",
        "6",
        "--seed",
        "s",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0
    out = result.stdout
    assert "Simulated 6 games of 3 players from seed 's' (greedy, random bots)" in out
    assert "By seat" in out and "By bot" in out
    rows = {
        cells(line)[0]: cells(line)
        for line in out.splitlines()
        if cells(line)[:1] in (["greedy"], ["random"])
    }
    # greedy sits in seats 1 and 3, random in seat 2
    assert rows["greedy"][1] == "2" and rows["random"][1] == "1"
    audit = [json.loads(line) for line in we("audit", "--json", tmp_path).stdout.splitlines()]
    wins = {"greedy": 0.0, "random": 0.0}
    for report in audit:
        for winner in report["winners"]:  # a tie nobody broke: the winners share the win
            wins["random" if winner == "Ben" else "greedy"] += 1 / len(report["winners"])
    assert float(rows["greedy"][2]) == round(wins["greedy"], 2)
    assert float(rows["random"][2]) == round(wins["random"], 2)


def test_no_progress_bar_when_not_a_terminal(tmp_path):
    result = we("simulate", "-k", "3", "--out", tmp_path)
    assert result.stderr == ""


def test_into_a_library(tmp_path):
    db = tmp_path / "sim.db"
    result = we("simulate", "-n", "5", "-k", "3", "--seed", "lib", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert f"stored in {db}" in result.stdout
    listing = we("games", "--db", db)
    assert [line.split()[0] for line in listing.stdout.splitlines() if line.startswith("sim-")] == [
        "sim-lib-1",
        "sim-lib-2",
        "sim-lib-3",
    ]
    audit = we("audit", "--json", "--db", db, "sim-lib-2")
    assert audit.exit_code == 0 and json.loads(audit.stdout)["complete"] is True
    # the same games again: nothing changes
    assert we("simulate", "-n", "5", "-k", "3", "--seed", "lib", "--db", db).exit_code == 0
    # the library holds exactly what --out writes
    we("simulate", "-n", "5", "-k", "3", "--seed", "lib", "--out", tmp_path / "files")
    file_fp = json.loads(we("audit", "--json", tmp_path / "files" / "sim-lib-2.jsonl").stdout)["fingerprint"]
    assert json.loads(audit.stdout)["fingerprint"] == file_fp


def test_it_needs_somewhere_to_write():
    assert we("simulate", "-k", "1").exit_code == 2


def test_bad_options_are_usage_errors(tmp_path):
    assert we("simulate", "-n", "8", "--out", tmp_path).exit_code == 2
    assert we("simulate", "-n", "2", "--out", tmp_path).exit_code == 2
    assert we("simulate", "--bot", "clever", "--out", tmp_path).exit_code == 2
    assert we("simulate", "--seed", "!!!", "--out", tmp_path).exit_code == 2
    assert we("simulate", "--seed", "x" * 70, "--out", tmp_path).exit_code == 2


def test_existing_logs_are_not_overwritten_without_force(tmp_path):
    assert we("simulate", "-k", "2", "--out", tmp_path).exit_code == 0
    (tmp_path / "sim-0-2.jsonl").write_bytes(b"mine\n")
    result = we("simulate", "-k", "2", "--out", tmp_path)
    assert result.exit_code == 1
    assert "sim-0-1.jsonl already exists" in one_error_line(result)
    assert (tmp_path / "sim-0-2.jsonl").read_bytes() == b"mine\n"
    assert we("simulate", "-k", "2", "--out", tmp_path, "--force").exit_code == 0
    assert (tmp_path / "sim-0-2.jsonl").read_bytes().startswith(b'{"v":1,"game":"sim-0-2"')


def test_out_must_be_a_directory(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    result = we("simulate", "--out", target)
    assert result.exit_code in (1, 2)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("count", [0, 1, 59, 60, 61, 3599, 3600, 3601, 4000])
@pytest.mark.parametrize("game", [1, 2, 500])
def test_timestamps_within_and_past_the_first_hour_match_strftime(game: int, count: int) -> None:
    from service.simulate import SIM_EPOCH, _at, _ats

    start = SIM_EPOCH + (game - 1) * 3600
    assert _ats(start, count) == [_at(start + seq) for seq in range(1, count + 1)]


def test_the_search_bot_plays_games_that_pass_the_audit(tmp_path):
    # The command, at one game: the search bot (at its default budget) and three greedy.
    bots = ["--bot", "ismcts", "--bot", "greedy", "--bot", "greedy", "--bot", "greedy"]
    result = we("simulate", "-n", "4", "-k", "1", "--seed", "search", *bots, "--out", tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "ismcts" in result.stdout
    audit = we("audit", "--json", tmp_path)
    assert audit.exit_code == 0, audit.stdout
    (report,) = [json.loads(line) for line in audit.stdout.splitlines()]
    assert report["ok"] and report["complete"]


def test_a_simulation_of_random_bots_loads_neither_the_search_bot_nor_the_progress_bar(tmp_path):
    # Start-up is most of a short simulation's cost: the search bot's module and rich's progress
    # bar (which draws nothing on a piped stderr) are loaded only when used.
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "cli.main",
            "simulate",
            "-k",
            "2",
            "--bot",
            "random",
            "-o",
            str(tmp_path / "logs"),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "WE_DB": str(tmp_path / "never.db")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "service.simulate" in loaded
    assert not {"wecore.search", "rich.progress"} & loaded
