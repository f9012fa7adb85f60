"""`we record` at a real terminal (a pty, through pexpect): prompts, colours, a whole game
typed in two sittings with a rejected move, an undo, a quit and a resume; then `we audit`.

Timestamps here are real (a subprocess cannot be frozen); the in-process tests use freezegun.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from weharness import ROOT, read_log  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    # A pty is not a terminal emulator: nothing answers prompt_toolkit's cursor position request.
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", **extra)
    return env


def spawn(args: list[str], cwd, env) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cli.main", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 160),
    )
    child.logfile_read = io.StringIO()
    return child


def finish(child: pexpect.spawn) -> tuple[int, str]:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.logfile_read.getvalue()


def test_a_whole_game_typed_at_a_terminal_then_audited(tmp_path):
    log = tmp_path / "tonight.jsonl"
    env = terminal_env()

    # First sitting: the lists are asked for; party 1 with a rejected steal-back and an undo.
    child = spawn(
        [
            "record",
            str(log),
            "--players",
            "Ann,Bob,Cat",
            "--dealer",
            "Cat",
            "--attic-size",
            "2",
            "--title",
            "Tonight",
        ],
        ROOT,
        env,
    )
    child.expect_exact("Ann's gift list")
    child.sendline("RGY")
    child.expect_exact("Bob's gift list")
    child.sendline("gyr")  # the same three colours as Ann: asked again
    child.expect_exact("Ann already has that list")
    child.expect_exact("Bob's gift list")
    child.sendline("BGO")
    child.expect_exact("Cat's gift list")
    child.sendline("red, blue, orange")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("open r7")
    child.expect_exact("party 1 \u00b7 Bob>")
    child.sendline("steal ann")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("ann steal bob")  # R7 is locked
    child.expect_exact("just stole it")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("open G9")
    child.expect_exact("party 1 \u00b7 Cat>")
    child.sendline("open b1")  # a slip: Cat meant to steal
    child.expect_exact("party 2 \u00b7 Bob>")
    child.sendline("undo")
    child.expect_exact("Undone: event 9")
    child.expect_exact("party 1 \u00b7 Cat>")
    child.sendline("s ann")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("o r5")
    child.expect_exact("party 2 \u00b7 Bob>")
    child.sendline("quit")
    status, first = finish(child)
    assert status == 0
    plain = ANSI.sub("", first)
    assert "rejected: Ann cannot steal R7: Bob just stole it and no gift has been opened since." in plain
    assert "Undone: event 9, Cat opening B1 (undone at the table)." in plain
    assert "Party 1 ends: Ann keeps R5, Bob keeps R7, Cat keeps G9." in plain
    assert "carry on later with `we record" in plain
    # On a terminal the cards are in colour: R7 in bold red.
    assert "\x1b[1;31mR7\x1b[0m" in first
    assert len(read_log(log)) == 12

    # Second sitting: carry on where it stopped, to the end, then end of input (Ctrl-D).
    child = spawn(["record", str(log)], ROOT, env)
    child.expect_exact("Carrying on with game tonight")
    child.expect_exact("party 2 \u00b7 Bob>")
    child.sendline("status")
    child.expect_exact("Bob opens first: `open CARD`.")
    child.expect_exact("party 2 \u00b7 Bob>")
    child.sendline("Bob open O8")
    child.expect_exact("party 2 \u00b7 Cat>")
    child.sendline("bob open y3")  # not Bob's turn
    child.expect_exact("it is Cat's turn, not Bob's")
    child.expect_exact("party 2 \u00b7 Cat>")
    child.sendline("open Y3")
    child.expect_exact("party 2 \u00b7 Ann>")
    child.sendline("steal cat")
    child.expect_exact("party 2 \u00b7 Cat>")
    child.sendline("open b10")
    child.expect_exact("Final standings")
    child.expect_exact("game over>")
    child.sendeof()
    status, second = finish(child)
    assert status == 0
    plain = ANSI.sub("", second)
    # Kept: Ann R5 Y3 -> red 5 + yellow 3 = 8; Bob R7 O8 -> orange 8; Cat G9 B10 -> blue 10.
    assert "Party 2 ends: Ann keeps Y3, Bob keeps O8, Cat keeps B10." in plain
    assert "Winner: Cat." in plain
    events = read_log(log)
    fingerprint = events[-1]["hash"][7:19]
    assert f"Fingerprint: {fingerprint} (note it down; `we audit` proves a log against it)" in plain

    # The file passes the audit.
    audit = subprocess.run(
        [sys.executable, "-m", "cli.main", "audit", "--json", str(log)],
        cwd=ROOT,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    verdict = json.loads(audit.stdout.splitlines()[0])
    assert verdict["ok"] is True and verdict["complete"] is True
    assert verdict["fingerprint"] == fingerprint
    assert verdict["scores"] == {"Ann": 8, "Bob": 8, "Cat": 10}
    assert verdict["winners"] == ["Cat"]


def test_no_color_turns_colours_off_even_on_a_terminal(tmp_path):
    child = spawn(
        ["replay", str(ROOT / "tests" / "vectors" / "one-party.jsonl")], ROOT, terminal_env(NO_COLOR="1")
    )
    status, out = finish(child)
    assert status == 0
    assert "Ben steals Y4" in out
    assert "\x1b[" not in out


def test_replay_on_a_terminal_is_in_colour(tmp_path):
    child = spawn(["replay", str(ROOT / "tests" / "vectors" / "one-party.jsonl")], ROOT, terminal_env())
    status, out = finish(child)
    assert status == 0
    assert "\x1b[1;33mY4\x1b[0m" in out  # yellow
    assert re.search(r"\x1b\[(?:\d+;)*9m", out)  # the voided event struck through (SGR 9)


def test_piped_output_is_plain(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "score",
            "--explain",
            str(ROOT / "tests" / "vectors" / "four-players-dealt.jsonl"),
        ],
        cwd=ROOT,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert "\x1b[" not in done.stdout
    assert "Ann: red R8 (party 1) + orange O8 (party 8) + blue B6 (party 7) = 22" in done.stdout


def test_errors_from_the_real_command_are_one_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "replay",
            "--at",
            "99",
            str(ROOT / "tests" / "vectors" / "one-party.jsonl"),
        ],
        cwd=ROOT,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    path = ROOT / "tests" / "vectors" / "one-party.jsonl"
    assert done.stderr == f"we: error: --at 99: {path} has only 13 events\n"
    missing = subprocess.run(
        [sys.executable, "-m", "cli.main", "record", str(tmp_path / "new.jsonl")],
        cwd=ROOT,
        env=terminal_env(),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert missing.returncode == 2
    assert "needs --players, --dealer, --lists" in missing.stderr
    assert "Traceback" not in missing.stderr


UP, LEFT, TAB, CTRL_C = "\x1b[A", "\x1b[D", "\t", "\x03"
CURSOR_POSITION_REQUEST = "\x1b[6n"


class Terminal:
    """A pty that answers prompt_toolkit's cursor position requests as a terminal emulator
    would (without an answer it leaves out the bottom toolbar)."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child

    def expect(self, text: str) -> None:
        while self.child.expect_exact([CURSOR_POSITION_REQUEST, text]) == 0:
            self.child.send("\x1b[20;1R")

    def __getattr__(self, name: str):
        return getattr(self.child, name)


def test_line_editing_history_completion_toolbar_and_ctrl_c(tmp_path):
    log = tmp_path / "tonight.jsonl"
    db = tmp_path / "library.db"
    env = {k: v for k, v in terminal_env().items() if k != "PROMPT_TOOLKIT_NO_CPR"}
    new_game = ["record", str(log), "--players", "Ann,Bob,Cat", "--dealer", "Cat", "--title", "Tonight"]
    child = Terminal(spawn([*new_game, "--lists", "Ann=RGY,Bob=BGO,Cat=RBO", "--db", str(db)], ROOT, env))
    child.expect("party 1 \u00b7 Ann>")
    # The toolbar: party, whose turn, what can be opened and stolen, scores so far.
    child.expect("Party 1/9: Ann opens first; the gifts not brought yet go down unseen (Ann, Bob, Cat).")
    child.expect("Open: an unseen gift  Steal: nothing")
    child.expect("Scores: Ann 0, Bob 0, Cat 0")
    child.sendline("open R7")
    child.expect("party 1 \u00b7 Bob>")
    child.sendline("steal ann")
    child.expect("party 1 \u00b7 Ann>")
    child.expect("Locked: R7 (Bob)")  # the toolbar says what cannot be stolen back
    # Editing: a card typed without its colour, fixed by going back with Left.
    child.send("open 1" + LEFT + "B")
    child.sendline("")
    child.expect("Ann opens ")
    child.expect("party 1 \u00b7 Cat>")
    # Completion: the command, then the only player called B... whose gift can be stolen.
    child.send("ste" + TAB)
    child.send(" B" + TAB)
    child.expect("Bob")
    child.sendline("")
    child.expect("Cat steals ")
    child.expect("party 1 \u00b7 Bob>")
    # Ctrl-C is a quit: saved, exit 0.
    child.send(CTRL_C)
    status, first = finish(child.child)
    plain = ANSI.sub("", first)
    assert status == 0, plain
    assert "Saved: 9 events" in plain
    assert "Ann opens B1" in plain and "Cat steals R7 from Bob" in plain
    assert "aborted" not in plain
    assert [e["type"] for e in read_log(log)][-1] == "gift_stolen"
    assert (tmp_path / ".tonight.jsonl.history").exists()

    # Next sitting: the table is shown, and Up brings back the lines typed last time.
    child = Terminal(spawn(["record", str(log), "--db", str(db)], ROOT, env))
    child.expect("Carrying on with game tonight")
    child.expect("\u2190 to move")  # the table, not only whose turn it is
    child.expect("party 1 \u00b7 Bob>")
    child.send(UP + UP)
    child.expect("open B1")
    child.send(CTRL_C)  # also with a half-typed line
    status, _ = finish(child.child)
    assert status == 0
    assert len(read_log(log)) == 9


def test_a_finished_game_goes_into_the_library(tmp_path):
    log = tmp_path / "short.jsonl"
    db = tmp_path / "library.db"
    child = spawn(
        [
            "record",
            str(log),
            "--players",
            "Ann,Bob,Cat",
            "--dealer",
            "Cat",
            "--lists",
            "Ann=RGY,Bob=BGO,Cat=RBO",
            "--attic-size",
            "1",
            "--title",
            "Short",
            "--db",
            str(db),
        ],
        ROOT,
        terminal_env(),
    )
    for card in ("R7", "B7", "Y1"):
        child.expect_exact(">")
        child.sendline(f"open {card}")
    child.expect_exact(f"Added to the library {db} as short (see `we games`).")
    child.expect_exact("game over>")
    child.sendeof()
    status, _ = finish(child)
    assert status == 0
    from eventstore.sqlite import Library

    with Library(db) as library:
        assert library.has_game("short")


def test_long_lines_wrap_at_words_to_the_terminal_width(tmp_path):
    args = ["record", "g.jsonl", "--players", "Ann,Bob,Cat", "--dealer", "Cat", "--title", "T"]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cli.main", *args, "--lists", "Ann=RGY,Bob=BGO,Cat=RBO", "--no-library"],
        cwd=str(tmp_path),
        env=terminal_env(),
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 50),
    )
    child.logfile_read = io.StringIO()
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendeof()
    status, out = finish(child)
    assert status == 0
    lines = ANSI.sub("", out).replace("\r", "").split("\n")
    told = [
        line for line in lines if line.strip() and "party 1 \u00b7 Ann>" not in line
    ]  # the prompt redrawn
    assert all(len(line) <= 50 for line in told), [line for line in told if len(line) > 50]
    # The gift lists take several lines, each broken between words, never inside one.
    text = " ".join(line.strip() for line in told)
    assert "Ann shops for red (Mother-in-Law), green (Great Uncle Irwin), yellow (Fluffy the Cat);" in text
    assert any(line.startswith("Gift lists dealt:") for line in told)


def test_start_over_keeps_the_abandoned_file(tmp_path):
    log = tmp_path / "g.jsonl"
    child = spawn(
        [
            "record",
            "g.jsonl",
            "--players",
            "Ann,Bob,Cat",
            "--dealer",
            "Ann",
            "--title",
            "Oops",
            "--no-library",
        ],
        tmp_path,
        terminal_env(),
    )
    child.expect_exact("Ann's gift list")
    for gift_list in ("RGY", "BGO", "RBO"):
        child.sendline(gift_list)
    child.expect_exact("party 1 \u00b7 Bob>")  # the dealer was wrong: Cat dealt, so Ann starts
    child.sendline("start over")
    child.expect_exact("g.jsonl is kept as g.jsonl.abandoned; setting the game up again.")
    child.expect_exact("Title of the game")
    child.sendline("Take two")
    child.expect_exact("Players")
    child.sendline("Ann,Bob,Cat")
    child.expect_exact("Dealer")
    child.sendline("Cat")
    for gift_list in ("RGY", "BGO", "RBO"):
        child.expect_exact("gift list")
        child.sendline(gift_list)
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("open R7")
    child.expect_exact("party 1 \u00b7 Bob>")
    child.sendline("quit")
    status, _ = finish(child)
    assert status == 0
    abandoned = read_log(tmp_path / "g.jsonl.abandoned")
    assert abandoned[0]["data"]["dealer"] == "Ann" and len(abandoned) == 2
    fresh = read_log(log)
    assert fresh[0]["data"]["dealer"] == "Cat" and fresh[0]["data"]["title"] == "Take two"
    assert fresh[-1]["data"]["card"] == "R7"


def test_start_over_at_a_terminal_whose_output_is_kept_by_tee(tmp_path):
    """`we record g.jsonl | tee night.txt`: a person types at the terminal while the output is
    also kept in a file. `start over` asks them for the set-up again, as without tee."""
    log = tmp_path / "g.jsonl"
    record = (
        f"{sys.executable} -m cli.main record g.jsonl --players Ann,Bob,Cat --dealer Ann --title Oops"
        " --no-library"
    )
    child = pexpect.spawn(
        "/bin/sh",
        ["-c", f"{record} | tee night.txt"],
        cwd=str(tmp_path),
        env=terminal_env(),
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 160),
    )
    child.logfile_read = io.StringIO()
    child.expect_exact("Ann's gift list")
    for gift_list in ("RGY", "BGO", "RBO"):
        child.sendline(gift_list)
    child.expect_exact("party 1 \u00b7 Bob>")
    child.sendline("start over")
    child.expect_exact("g.jsonl is kept as g.jsonl.abandoned; setting the game up again.")
    child.expect_exact("Title of the game")
    child.sendline("")
    child.expect_exact("Players")
    child.sendline("Ann,Bob,Cat")
    child.expect_exact("Dealer")
    child.sendline("Cat")
    for gift_list in ("RGY", "BGO", "RBO"):
        child.expect_exact("gift list")
        child.sendline(gift_list)
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("open R7")
    child.expect_exact("party 1 \u00b7 Bob>")
    child.sendline("quit")
    status, _ = finish(child)
    assert status == 0
    assert read_log(log)[0]["data"]["dealer"] == "Cat" and read_log(log)[-1]["data"]["card"] == "R7"
    assert "setting the game up again" in (tmp_path / "night.txt").read_text()


def test_tab_completes_names_of_several_words(tmp_path):
    """Players called "Ann Marie" and "Ann Lee": Tab completes the whole name after its first
    word, and the move after a name given first as a check."""
    log = tmp_path / "annes.jsonl"
    env = {k: v for k, v in terminal_env().items() if k != "PROMPT_TOOLKIT_NO_CPR"}
    players = ["--players", "Ann Marie,Ann Lee,Bob", "--dealer", "Bob", "--title", "Annes"]
    lists = ["--lists", "Ann Marie=RGY,Ann Lee=BGO,Bob=RBO", "--no-library"]
    child = Terminal(spawn(["record", str(log), *players, *lists], ROOT, env))
    child.expect("party 1 \u00b7 Ann Marie>")
    child.sendline("open R7")
    child.expect("party 1 \u00b7 Ann Lee>")
    # "Ann" alone names nobody: the second word comes from Tab
    child.expect("Bob 0")  # the toolbar, drawn before anything is typed
    child.send("steal Ann " + TAB)
    child.expect("Marie")
    child.sendline("")
    child.expect("from Ann Marie, who moves next")  # (the card between is coloured)
    child.expect("party 1 \u00b7 Ann Marie>")
    # the name first, as a check: Tab completes it, then the move after it
    child.expect("Bob 0")
    child.send("Ann M" + TAB)
    child.expect("Marie")
    child.send(" o" + TAB)
    child.expect("open")
    child.sendline(" G3")
    child.expect("Ann Marie opens ")
    child.expect("party 1 \u00b7 Bob>")
    child.send(CTRL_C)
    status, text = finish(child.child)
    assert status == 0, ANSI.sub("", text)
    assert [(e["type"], e["data"].get("player")) for e in read_log(log)[-2:]] == [
        ("gift_stolen", "Ann Lee"),
        ("gift_opened", "Ann Marie"),
    ]


def test_the_prompt_follows_the_log_while_it_waits(tmp_path):
    """Another recorder moves while this one waits at its prompt: within about a second the
    move is told above the prompt, and the prompt names who is to move now."""
    log = tmp_path / "shared.jsonl"
    setup = ["--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO"]

    def recorded(*lines: str, extra: tuple[str, ...] = ()) -> None:
        """`we record LOG` given `lines` on a pipe, as another recorder on the same log."""
        args = [sys.executable, "-m", "cli.main", "record", str(log), "--no-library", *extra]
        done = subprocess.run(
            args, cwd=ROOT, env=terminal_env(), input="".join(lines), capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr

    recorded(extra=tuple(setup))
    child = spawn(["record", str(log), "--no-library"], ROOT, terminal_env())
    child.expect_exact("party 1 \u00b7 Ann>")
    recorded("open R7\n")
    # Nothing is typed here: the waiting recorder finds the move itself (it looks every 0.4 s).
    child.expect_exact("Meanwhile (events 3-6)", timeout=10)
    child.expect_exact("party 1 \u00b7 Bob>", timeout=10)
    child.sendline("steal Ann")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendline("quit")
    status, out = finish(child)
    assert status == 0
    plain = ANSI.sub("", out)
    assert "Bob steals R7 from Ann" in plain
    fingerprint = read_log(log)[-1]["hash"][7:19]
    assert f"Saved: 7 events in {log}" in plain and fingerprint in plain


def test_the_recorder_at_a_terminal_refuses_an_undo_on_a_sealed_game(tmp_path):
    game = tmp_path / "night.jsonl"
    game.write_bytes((ROOT / "replays" / "game-night-3p.jsonl").read_bytes())
    sealed = subprocess.run(
        [sys.executable, "-m", "cli.main", "season", "add", str(tmp_path / "season.jsonl"), str(game)],
        cwd=ROOT, env=terminal_env(), capture_output=True, text=True,
    )  # fmt: skip
    assert sealed.returncode == 0, sealed.stderr
    before = game.read_bytes()
    child = spawn(["record", str(game)], ROOT, terminal_env())
    child.expect(">")
    child.sendline("undo")
    child.expect("nothing can be undone or added")
    child.sendline("note one more thing")
    child.expect("nothing can be undone or added")
    child.sendline("quit")
    _, said = finish(child)
    plain = ANSI.sub("", said)
    assert "is sealed into the season (season.jsonl, line 2" in plain, plain
    assert "play or record the game again as a new game" in plain
    assert game.read_bytes() == before


def test_a_log_name_that_is_not_there_is_said_and_asked_about_before_a_game_starts(tmp_path):
    night = tmp_path / "night"
    night.mkdir()
    shutil.copy(ROOT / "replays" / "game-night-3p.jsonl", night / "mixed-night.jsonl")
    typo = night / "mixed-nite.jsonl"
    child = spawn(["record", str(typo), "--no-library"], ROOT, terminal_env())
    child.expect_exact(f"no such file: {typo}; starting a new game")
    child.expect_exact("the logs beside it: mixed-night.jsonl")
    child.expect_exact(f"Start a new game in {typo}? [y/N]")
    child.sendline("n")
    status, out = finish(child)
    assert status == 1 and f"no such file: {typo}; nothing was created" in out
    assert not typo.exists() and "Title of the game" not in out
    # Said yes to, the set-up goes on as before.
    child = spawn(["record", str(typo), "--no-library"], ROOT, terminal_env())
    child.expect_exact("[y/N]")
    child.sendline("y")
    child.expect_exact("Title of the game")
    child.sendcontrol("c")
    finish(child)


def test_a_log_name_that_is_not_there_is_said_on_a_pipe_too(tmp_path):
    typo = tmp_path / "mixed-nite.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "cli.main", "record", str(typo)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2 and f"no such file: {typo}; starting a new game needs" in result.stderr
    assert not typo.exists()


NEW_GAME = [
    "--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO",
    "--title", "T", "--no-library",
]  # fmt: skip


def test_another_writers_move_redraws_the_prompt_at_once(tmp_path):
    """The recorder is told of the other writer's append (inotify) and redraws its prompt for
    the new player to move, with nothing typed. Waits on output only; the time the second
    redraw took (the watch surely set up by then: it told the first) is printed as a figure,
    not asserted."""
    import time

    from service.table import Open, Table

    log = tmp_path / "tonight.jsonl"
    child = spawn(["record", str(log), *NEW_GAME], ROOT, terminal_env())
    child.expect_exact("party 1 \u00b7 Ann>")
    Table.of_file(log).move(Open(card="R7", player="Ann"))  # a phone's move, through the service
    child.expect_exact("Meanwhile")
    child.expect_exact("party 1 \u00b7 Bob>")
    started = time.monotonic()
    Table.of_file(log).move(Open(card="B1", player="Bob"))
    child.expect_exact("party 1 \u00b7 Cat>")
    print(f"prompt redrawn {1000 * (time.monotonic() - started):.0f} ms after the other writer's move")
    child.sendline("steal ann")  # drawn for Cat, so Cat's: no confirmation needed
    child.expect_exact("steals")
    child.expect_exact("party 1 \u00b7 Ann>")
    child.sendcontrol("c")
    status, out = finish(child)
    assert status == 0 and "Cat steals R7 from Ann" in ANSI.sub("", out)
    assert [e["type"] for e in read_log(log)][-3:] == ["gift_opened", "gift_opened", "gift_stolen"]


def test_an_unprefixed_move_typed_at_an_old_prompt_is_not_recorded_for_the_new_player(tmp_path):
    """The prompt is drawn for Ann; Ann's move comes from another writer before the line is
    read. `open B1` then would be Bob's move, which nobody typed: refused with how to say it.
    Output goes to a pipe here (`| cat`), so the prompt is drawn once, as plain text, and never
    redrawn: the race is the same every run."""
    from service.table import Open, Table

    log = tmp_path / "tonight.jsonl"
    command = " ".join([sys.executable, "-m", "cli.main", "record", str(log), *NEW_GAME]).replace(
        "Ann,Bob,Cat", "'Ann,Bob,Cat'"
    )
    child = pexpect.spawn(
        "sh",
        ["-c", f"{command} | cat"],
        cwd=str(ROOT),
        env=terminal_env(NO_COLOR="1"),
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 250),
    )
    child.logfile_read = io.StringIO()
    child.expect_exact("party 1 \u00b7 Ann>")
    Table.of_file(log).move(Open(card="R7", player="Ann"))
    child.sendline("open B1")
    child.expect_exact("not recorded: the prompt said 'party 1 \u00b7 Ann>', but the turn changed meanwhile")
    child.expect_exact("to make this Bob's move, type `Bob: open B1`")
    child.expect_exact("party 1 \u00b7 Bob>")
    written = [e["type"] for e in read_log(log)]
    assert written[-2:] == ["gift_brought", "gift_opened"] and written.count("gift_opened") == 1
    child.sendline("Bob: open B1")  # the confirmation: named, it is recorded
    child.expect_exact("party 1 \u00b7 Cat>")
    child.sendline("quit")
    _status, _out = finish(child)
    assert [e["data"].get("player") for e in read_log(log)][-2:] == ["Ann", "Bob"]
