"""Edges of the shell that people hit: pipes closed early, --version, a page over a saved game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli import __version__
from cli.opening import read_game
from service.reading import GameSource

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def _we(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "replays/game-night-3p.jsonl"),
        ("score", "replays/tie-5p.jsonl", "--explain"),
        ("audit", "replays/tie-5p.jsonl", "replays/bots-7p.jsonl", "--json"),
    ],
)
def test_output_cut_short_by_a_pipe_is_not_an_invalid_game(args: tuple[str, ...]) -> None:
    # `we ... | head -1`: the reader closes the pipe after one line; that is no failure of ours.
    command = [sys.executable, "-m", "cli.main", *args]
    producer = subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert producer.stdout is not None
    producer.stdout.readline()
    producer.stdout.close()
    _, err = producer.communicate(timeout=60)
    assert producer.returncode == 0, err
    assert b"Traceback" not in err and b"error" not in err


def test_version_without_installing() -> None:
    result = _we("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"we, version {__version__}"


def test_html_never_replaces_an_existing_file_unless_forced(tmp_path: Path) -> None:
    log = tmp_path / "night.jsonl"
    shutil.copy(ROOT / "replays" / "tie-5p.jsonl", log)
    before = log.read_bytes()
    for force in ([], ["--force"]):  # the game itself is never the page, forced or not
        refused = _we("replay", str(log), "--html", str(log), *force)
        assert refused.returncode == 1
        assert "is the game this command reads" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
        assert log.read_bytes() == before
    page = tmp_path / "night.html"
    page.write_text("old page")
    assert _we("replay", str(log), "--html", str(page)).returncode == 1
    assert page.read_text() == "old page"
    forced = _we("replay", str(log), "--html", str(page), "--force")
    assert forced.returncode == 0, forced.stderr
    assert page.read_text(encoding="utf-8").lower().startswith("<!doctype html>")


def test_a_second_recorder_on_the_same_file_does_not_end_the_first(tmp_path: Path) -> None:
    log = tmp_path / "two.jsonl"
    setup = ["--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO"]
    assert _we("record", str(log), *setup, "--attic-size", "2").returncode == 0
    first = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "record", str(log)],
        cwd=ROOT,
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert first.stdin is not None and first.stdout is not None
    first.stdin.write("open R7\n")
    first.stdin.flush()
    while "Ann opens R7" not in first.stdout.readline():
        pass
    # Meanwhile a second recorder on another laptop records Bob's steal.
    second = subprocess.run(
        [sys.executable, "-m", "cli.main", "record", str(log)],
        cwd=ROOT,
        env=ENV,
        input="steal Ann\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert second.returncode == 0, second.stderr
    out, err = first.communicate("open G5\n", timeout=60)
    # Its G5 line is still legal after Bob's steal (Ann moves again): taken, after one line
    # saying what the second recorder did meanwhile.
    assert first.returncode == 0, err
    assert "Meanwhile (event 7): Bob steals R7 from Ann" in out
    assert "Ann opens G5" in out
    report = read_game(GameSource(label=str(log), path=log))
    assert report.ok
    assert report.state.holdings == {"Bob": "R7", "Ann": "G5"}


def test_plain_we_shows_the_commands() -> None:
    result = _we()
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: we [OPTIONS] COMMAND")
    assert "record" in result.stdout and "audit" in result.stdout and result.stderr == ""


def test_an_empty_file_is_not_a_game_and_the_error_says_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "night.jsonl"
    empty.write_bytes(b"")
    result = _we("record", str(empty), "--players", "Ann,Bob,Cat")
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == f"we: error: {empty} is empty, so it holds no game: delete it, then start the game again"
    )
    assert empty.read_bytes() == b""


def test_a_batch_command_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    from cli.batch import collector_settled_for_a_batch

    before = gc.get_threshold()
    with collector_settled_for_a_batch():
        assert gc.get_threshold()[0] > before[0]
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    # What a caller froze for its own reasons stays frozen.
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_settled_for_a_batch():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    # And after a real command run in-process, which uses it.
    from weharness import we

    result = we("audit", ROOT / "replays" / "game-night-3p.jsonl", "--json")
    assert result.exit_code == 0, result.output
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


OUTPUTS = [
    ("replay", "replays/game-night-3p.jsonl"),
    ("audit", "replays/tie-5p.jsonl", "tests/vectors/four-players-edited.jsonl"),
    ("audit", "replays/tie-5p.jsonl", "--json", "--jobs", "2", "replays/bots-7p.jsonl"),
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", OUTPUTS, ids=["replay", "audit", "audit-json-jobs"])
def test_a_full_disk_under_stdout_is_one_line_and_exit_1(args: tuple[str, ...]) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", *args],
            cwd=ROOT,
            env=ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 1
    assert done.stderr == "we: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("args", OUTPUTS, ids=["replay", "audit", "audit-json-jobs"])
def test_a_closed_stdout_is_a_reader_gone_the_exit_status_the_commands_own(args: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),  # started with its stdout closed: `we ... >&-`
    )
    assert done.stderr == ""
    # The edited vector fails its audit: a closed stdout must not hide that.
    assert done.returncode == (1 if "tests/vectors/four-players-edited.jsonl" in args else 0)


@pytest.mark.parametrize(
    "args",
    [
        ("replay", "tests/vectors/one-party.jsonl"),
        ("score", "tests/vectors/one-party.jsonl", "--explain"),
        ("audit", "tests/vectors/one-party.jsonl", "replays/tie-5p.jsonl", "--jobs", "2", "--tables"),
    ],
    ids=["replay", "score", "audit-jobs"],
)
def test_a_stdout_that_cannot_hold_a_name_shows_it_escaped_not_a_traceback(args: tuple[str, ...]) -> None:
    # A Latin-1 terminal, or PYTHONIOENCODING=ascii in someone's profile: "Zoë" and the game's
    # curly quotes cannot be written as they are.
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env={**ENV, "PYTHONIOENCODING": "ascii"},
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    text = done.stdout.decode("ascii")
    assert "Zo\\xeb" in text
    if args[0] == "replay":
        assert 'Game "Test vector one" starts' in text
        assert "-- Party 1 of 1 - Zo\\xeb starts --" in text


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
@pytest.mark.parametrize("args", [("score", "--json"), ("replay", "--json")], ids=["score", "replay"])
def test_json_is_utf8_whatever_the_terminal_holds(encoding: str, args: tuple[str, ...]) -> None:
    # A program reads --json, not the terminal: "Zoë" stays "Zoë", in UTF-8, as valid JSON.
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "tests/vectors/one-party.jsonl"],
        cwd=ROOT,
        env={**ENV, "PYTHONIOENCODING": encoding},
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Zoë" in json.dumps(json.loads(done.stdout.decode("utf-8")), ensure_ascii=False)


def test_names_that_differ_by_a_character_the_terminal_lacks_stay_told_apart() -> None:
    from cli import exits

    def shown(text: str) -> str:
        return text.encode("ascii", exits._unfailing("strict")).decode("ascii")

    names = ["O’Brien", "O'Brien", "Zoë", "Zoé", "Gal·la", "Gal-la", "Ann—Bo", "Ann-Bo"]
    assert len({shown(name) for name in names}) == len(names)
    # Our own punctuation, written plainly.
    ours = "party 1 · Ann> “New Year” — winner ── ±0.8 →"
    assert shown(ours) == 'party 1 - Ann> "New Year" - winner -- +/-0.8 ->'
    # A file name's byte that was not UTF-8, as error messages show it.
    assert shown("bad\udcffname") == "bad\\xffname"
