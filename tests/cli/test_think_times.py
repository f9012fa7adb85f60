"""Think time per player, from the log's `at`s (issue 47's table clock): each move made on a
player's turn counts from the event that gave them the turn to the move's own `at`; a note in
between does not restart it. Times are set with freezegun, one `we record` line at a time."""

from __future__ import annotations

import json

from freezegun import freeze_time
from weharness import NEW3, we

T0 = "2026-12-24 19:00:00"


def at(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"2026-12-24 19:{minutes:02d}:{rest:02d}"


def played(tmp_path, lines: list[tuple[int, str]]):
    log = tmp_path / "timed.jsonl"
    with freeze_time(T0):
        # One party: the game ends with it, so the library counts it.
        assert we("record", log, *NEW3, "--attic-size", "1", "--no-library", input="").exit_code == 0
    for seconds, line in lines:
        with freeze_time(at(seconds)):
            result = we("record", log, "--no-library", input=line + "\n")
            assert result.exit_code == 0, result.stderr
    return log


# Ann starts party 1 (left of the dealer Cat); after Bob's steal Ann moves again.
PARTY_1 = [
    (30, "open R7"),  # Ann: 30 s from the set-up
    (45, "steal Ann"),  # Bob: 15 s
    (50, "note Ann went to the kitchen"),  # does not restart Ann's turn
    (80, "open G9"),  # Ann: 35 s from the steal, not 30 from the note
    (90, "open B1"),  # Cat: 10 s
]


def test_think_times_in_analyse_count_from_the_turn_not_from_a_note(tmp_path):
    log = played(tmp_path, PARTY_1)
    result = we("analyse", log, "--rollouts", "2", "--json", "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    think = json.loads(result.stdout)["think_times"]
    assert think["Ann"] == {"moves": 2, "seconds": 65.0, "longest": 35.0}
    assert think["Bob"] == {"moves": 1, "seconds": 15.0, "longest": 15.0}
    assert think["Cat"] == {"moves": 1, "seconds": 10.0, "longest": 10.0}
    text = we("analyse", log, "--rollouts", "2", "--jobs", "1").stdout
    assert "Ann 32s over 2 (longest 35s)" in text  # 65 s over 2 moves, rounded to the second


def test_think_times_in_stats_over_the_library(tmp_path):
    log = played(tmp_path, PARTY_1)
    db = tmp_path / "club.db"
    assert we("import", "--db", db, log).exit_code == 0
    stats = we("stats", "--db", db)
    assert stats.exit_code == 0, stats.stderr
    rows = {line.split()[0]: line for line in stats.stdout.splitlines() if line[:3] in ("Ann", "Bob", "Cat")}
    assert "think per move" in stats.stdout
    assert rows["Ann"].rstrip().endswith("32s")  # (30 + 35) / 2, the note not restarting it
    assert rows["Bob"].rstrip().endswith("15s") and rows["Cat"].rstrip().endswith("10s")
