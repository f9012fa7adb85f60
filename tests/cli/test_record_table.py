"""`we record` at a busy table: the grammar people actually type, suggestions for slips,
refusals that say what is true, the library at the end, and quitting with Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from weharness import NEW3, ROOT, read_log, rejections, we


def record(tmp_path, script: str, *extra: str):
    log = tmp_path / "g.jsonl"
    result = we("record", log, *NEW3, *extra, input=script)
    return log, result


def refusals(result) -> list[str]:
    return [line.split("): ", 1)[1] for line in rejections(result)]


def test_a_card_can_be_said_with_a_space_or_its_colour_name(tmp_path):
    log, result = record(tmp_path, "open r 7\nopen Red 8\nopen blue9\n", "--attic-size", "2")
    assert result.exit_code == 0, result.stderr
    assert rejections(result) == []
    assert [e["data"]["card"] for e in read_log(log) if e["type"] == "gift_opened"] == ["R7", "R8", "B9"]


def test_what_is_not_a_card_is_named_as_such(tmp_path):
    log, result = record(tmp_path, "open purple 7\nopen R7 R8\n")
    assert refusals(result)[0].startswith("'purple 7' is not a card: write a colour letter")
    assert refusals(result)[1] == "one card is opened at a time: 'R7 R8' is more than a card"
    assert len(read_log(log)) == 2


def test_words_after_a_command_that_takes_none_are_refused(tmp_path):
    log, result = record(tmp_path, "status foo\nhelp me\nquit now\nopen R7\n")
    assert refusals(result) == [
        "`status` takes nothing after it, but 'foo' followed",
        "`help` takes nothing after it, but 'me' followed",
        "`quit` takes nothing after it, but 'now' followed",
    ]
    assert "Ann to move" not in result.stdout.split("Party 1 of 9")[1].split("Ann opens")[0]
    assert read_log(log)[-1]["data"]["card"] == "R7"  # `quit now` did not quit


def test_slips_get_a_suggestion(tmp_path):
    _, result = record(tmp_path, "opn R7\nsteal Bbo\n", "--attic-size", "1")
    assert refusals(result)[0] == "'opn' is not a command (did you mean `open`?): type `help` for the list"
    assert refusals(result)[1].startswith("'Bbo' is not a player here")
    assert "did you mean" not in refusals(result)[1] or "Bob" in refusals(result)[1]


def test_a_misspelt_name_gets_a_suggestion(tmp_path):
    _, result = record(tmp_path, "open R7\nsteal Ana\n")
    assert refusals(result) == ["'Ana' is not a player here (Ann, Bob, Cat); did you mean Ann?"]


def test_a_misspelt_subcommand_gets_a_suggestion(tmp_path):
    result = we("recrod", tmp_path / "g.jsonl")
    assert result.exit_code == 2
    assert "did you mean `we record`?" in result.stderr


def test_names_that_are_commands_or_cards_are_refused_at_set_up(tmp_path):
    for names, why in (
        ("Open,Bob,Cat", "'Open' starts with the command word 'open'"),
        ("Ann,Status,Cat", "'Status' starts with the command word 'status'"),
        ("Ann,B2,Cat", "'B2' starts like the card B2"),
    ):
        log = tmp_path / f"{names}.jsonl"
        result = we("record", log, "--players", names, "--dealer", "Cat", "--lists", "x", input="")
        assert result.exit_code == 2  # a usage error, as every flag that cannot start a game
        (line,) = result.stderr.splitlines()
        assert line.startswith("we record: error: --players: ") and why in line, line
        assert not log.exists()


def test_in_unseen_mode_a_steal_before_the_first_open_says_who_opens(tmp_path):
    _, result = record(tmp_path, "steal Bob\n")
    assert refusals(result) == [
        "nobody can steal yet: no gift has been opened in party 1 (Ann opens first)."
        " Ann opens first: `open CARD`."
    ]
    assert "waiting for gifts" not in result.stderr


def test_stealing_from_a_player_with_nothing_in_hand_says_kept_gifts_are_out_of_play(tmp_path):
    # Party 1 (one card each): Ann keeps R7, Bob B7, Cat Y1. Party 2: Bob starts and opens G2;
    # Cat would steal from Ann, who holds nothing yet: her R7 was kept and is out of play.
    _, result = record(tmp_path, "open R7\nopen B7\nopen Y1\nopen G2\nsteal Ann\n", "--attic-size", "2")
    assert refusals(result)[0].startswith(
        "Cat cannot steal from Ann: Ann holds no gift now"
        " (what Ann kept in earlier parties, R7, is out of play)."
    )


def test_a_finished_game_is_added_to_the_library(tmp_path):
    db = tmp_path / "library.db"
    log, result = record(
        tmp_path, "open R7\nopen B7\nopen Y1\nopen Y2\ntie Ann speech\n", "--attic-size", "1", "--db", str(db)
    )
    assert result.exit_code == 1, result.stderr
    assert f"Added to the library {db} as " in result.stdout
    assert f"The library {db} has the new events of " in result.stdout  # the tie-break too
    exported = we("export", read_log(log)[0]["game"], "--db", db, "-o", tmp_path / "copy.jsonl")
    assert exported.exit_code == 0, exported.stderr
    assert read_log(tmp_path / "copy.jsonl") == read_log(log)


def test_no_library_skips_it(tmp_path):
    db = tmp_path / "library.db"
    _, result = record(
        tmp_path, "open R7\nopen B7\nopen Y1\n", "--attic-size", "1", "--db", str(db), "--no-library"
    )
    assert result.exit_code == 0, result.stderr
    assert "Added to the library" not in result.stdout
    assert not db.exists()


def test_resuming_shows_the_table(tmp_path):
    log, _ = record(tmp_path, "open R7\nsteal Ann\n")
    result = we("record", log, input="")
    out = result.stdout
    assert "Carrying on with game" in out
    assert "Ann \u2190 to move" in out  # the table, with who holds what
    assert "Locked: R7" in out
    assert "Ann can open a gift (`open CARD`); nothing can be stolen now" in out
    # One locked gift is named, as each is when several are held.
    assert "nothing can be stolen now (R7: Bob just stole it and no gift has been opened since)" in out


def test_ctrl_c_is_a_quit_with_exit_0(tmp_path):
    log = tmp_path / "g.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "record", str(log), *NEW3],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    child.stdin.write("open R7\n")
    child.stdin.flush()
    deadline = time.monotonic() + 30
    while len(log.read_text().splitlines() if log.exists() else []) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    assert "Saved: 6 events" in out
    assert "aborted" not in err and "Traceback" not in err
