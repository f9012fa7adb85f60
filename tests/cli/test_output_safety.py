"""What `we` shows and writes is safe from what it reads: a hostile log cannot drive the
terminal, a page or plot gets the mode a new file gets, nothing is replaced without --force,
and a megabyte-long value is never echoed whole. Real `we` processes throughout."""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "adversarial"))
from advgen import rechain, text_of  # noqa: E402

# A player name, title and note from a log written by some other program: clear screen,
# colour, carriage return and backspace (to overwrite a line), a C1 CSI, DEL, NUL, an OSC
# window title, and the bidi overrides that make text read backwards.
HOSTILE_NAMES = {
    "Ann": "\x1b[31mX\x1b[2J",
    "Ben": "B\rB\x08\x07",
    "Cat": "C\x9b2J\x7f",
    "Dev": "D\u202eved",
    "Eve": "E\x00\x9dz",
}
HOSTILE_TITLE = "T\x1b]0;pwned\x07\x1b[2J\r\u202e"
HOSTILE_NOTE = "N\x1b[2J\x1b[H\r\x08\u2066x\u2028y"
BIDI = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def we(
    *args: object, cwd: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=120,
    )


def terminal_actions(text: str) -> list[str]:
    """The characters in `text` a terminal would act on instead of showing."""
    return [
        repr(ch)
        for ch in text
        if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F or ord(ch) in BIDI
    ]


def _swap(value: object, names: dict[str, str]) -> object:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_swap(v, names) for v in value]
    if isinstance(value, dict):
        return {_swap(k, names): _swap(v, names) for k, v in value.items()}
    return value


def hostile_log(
    tmp_path: Path,
    broken: bool = False,
    names: dict[str, str] = HOSTILE_NAMES,
    title: str = HOSTILE_TITLE,
    note: str = HOSTILE_NOTE,
) -> Path:
    """A finished, correctly hashed game whose names, title and a note hold control characters
    (`broken`: with a move by a player who is not in the game, so errors list the names)."""
    we("simulate", "--seed", "hostile", "--out", tmp_path / "sim", "--force", cwd=tmp_path).check_returncode()
    (source,) = (tmp_path / "sim").glob("*.jsonl")
    envelopes = [json.loads(line) for line in source.read_text().splitlines()]
    envelopes = [dict(e, data=_swap(e["data"], names)) for e in envelopes]
    envelopes[0]["data"]["title"] = title
    envelopes.insert(4, dict(envelopes[3], type="note", data={"text": note}))
    if broken:
        envelopes[5]["data"] = dict(envelopes[5]["data"], player="Zed\x1b[2J")
    for seq, envelope in enumerate(envelopes, start=1):
        envelope["seq"] = seq
    rechain(envelopes)
    log = tmp_path / ("broken.jsonl" if broken else "hostile.jsonl")
    log.write_text(text_of(envelopes, compact=True), encoding="utf-8")
    return log


def test_no_command_lets_a_log_drive_the_terminal(tmp_path: Path) -> None:
    log = hostile_log(tmp_path)
    broken = hostile_log(tmp_path, broken=True)
    db = tmp_path / "lib.db"
    carried_on = tmp_path / "carried.jsonl"
    carried_on.write_bytes(log.read_bytes())
    runs = [
        ("import", log, "--db", db),
        ("replay", log),
        ("replay", log, "--as", HOSTILE_NAMES["Dev"]),
        ("score", log),
        ("score", log, "--explain"),
        ("audit", log),
        ("audit", tmp_path),
        ("analyse", log, "--rollouts", "1", "--top", "3"),
        ("games", "--db", db),
        ("stats", "--db", db),
        ("stats", "--db", db, "--fairness"),
        ("stats", "--db", db, "--by", "evening"),
        ("stats", "--db", db, "--versus", HOSTILE_NAMES["Ann"], HOSTILE_NAMES["Dev"]),
        ("export", "sim-hostile-1", "--db", db, "-o", tmp_path / "out.jsonl"),
        ("record", carried_on),
        # Errors: a rules error naming every (hostile) player, and an unknown player.
        ("score", broken),
        ("replay", broken),
        ("analyse", broken),
        ("import", broken, "--db", db),
        ("audit", broken),
        ("stats", "--db", db, "--versus", "Nobody\x1b[2J", HOSTILE_NAMES["Dev"]),
    ]
    shown_escaped = 0
    for args in runs:
        result = we(*args, cwd=tmp_path, stdin="status\nquit\n")
        assert "Traceback" not in result.stderr, (args, result.stderr)
        for stream in (result.stdout, result.stderr):
            assert terminal_actions(stream) == [], (args, stream)
        shown_escaped += "\\x1b[31mX\\x1b[2J" in result.stdout + result.stderr
    # Not dropped either: the names are shown, as escapes.
    assert shown_escaped >= 10
    assert "\\u202e" in we("replay", log, cwd=tmp_path).stdout


def test_the_controls_rich_drops_are_shown_too(tmp_path: Path) -> None:
    """rich silently drops BEL, BS, VT, FF and CR from the text it is given: Ben's name
    "B\\rB\\x08\\x07" was shown as "BB", another name. Each is shown as its escape instead,
    wherever a log's text reaches the terminal."""
    log = hostile_log(tmp_path)
    db = tmp_path / "lib.db"
    we("import", log, "--db", db, cwd=tmp_path).check_returncode()
    carried_on = tmp_path / "carried.jsonl"
    carried_on.write_bytes(log.read_bytes())
    ben = "B\\rB\\x08\\x07"
    title = "T\\x1b]0;pwned\\x07\\x1b[2J\\r\\u202e"
    runs = {
        ("replay", log): [ben, title, "N\\x1b[2J\\x1b[H\\r\\x08\\u2066x"],
        ("score", log): [ben, title],
        ("score", log, "--explain"): [ben],
        ("audit", log): [ben],
        ("games", "--db", db): [ben, title],
        ("record", carried_on): [ben],
    }
    for args, expected in runs.items():
        result = we(*args, cwd=tmp_path, stdin="status\nquit\n")
        assert result.returncode == 0, (args, result.stderr)
        for text in expected:
            assert text in result.stdout, (args, text, result.stdout)
        assert terminal_actions(result.stdout + result.stderr) == [], args


def test_every_control_rich_would_drop_is_escaped_in_a_table() -> None:
    from rich.table import Table
    from rich.text import Text

    from cli.render import _Console

    out = _Console(highlight=False, soft_wrap=True, width=100, color_system=None)
    table = Table("player", "score")
    table.add_row(Text("A\x07\x08\x0b\x0c\rZ"), "3")
    with out.capture() as captured:
        out.print(table)
        out.print("note: \r\x07")
    shown = captured.get()
    assert "A\\x07\\x08\\x0b\\x0c\\rZ" in shown and "note: \\r\\x07" in shown, shown
    widths = {len(line) for line in shown.splitlines()[:3]}
    assert len(widths) == 1, shown  # laid out for the escapes, not for the raw characters


def test_names_that_look_like_rich_markup_are_shown_as_they_are(tmp_path: Path) -> None:
    """A name "[/]" ended audit, games and stats with rich's MarkupError (a traceback); "[red]Ben"
    and ":smile:" were shown as something else."""
    names = {"Ann": "[/]", "Ben": "[red]Ben", "Cat": ":smile:"}
    log = hostile_log(tmp_path, names=names, title="[/bold]T[blink]", note="[link=x]n")
    db = tmp_path / "lib.db"
    we("import", log, "--db", db, cwd=tmp_path).check_returncode()
    runs = [
        ("replay", log),
        ("score", log, "--explain"),
        ("audit", log),
        ("games", "--db", db),
        ("stats", "--db", db),
        ("stats", "--db", db, "--by", "evening"),
        ("stats", "--db", db, "--versus", "[/]", "[red]Ben"),
    ]
    for args in runs:
        result = we(*args, cwd=tmp_path)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert "[/]" in result.stdout and "[red]Ben" in result.stdout, (args, result.stdout)
    assert ":smile:" in we("replay", log, cwd=tmp_path).stdout
    assert "[/bold]T[blink]" in we("games", "--db", db, cwd=tmp_path).stdout
    assert "Note: [link=x]n" in we("replay", log, cwd=tmp_path).stdout


def test_a_newline_in_a_note_title_or_name_cannot_fake_lines_of_output(tmp_path: Path) -> None:
    """A note (which `we serve` takes with newlines), a title or a name from a log with a
    newline in it was printed across lines, the second looking like an event or a row of its
    own. Each such newline is shown as `\\n`: one event, one row, one line."""
    fake_event = "   6  Ben steals R9 from Cat."
    names = {"Ann": "Ann\n   9  Zed wins"}
    log = hostile_log(tmp_path, names=names, title="Xmas\n   2  fake line", note="first\n" + fake_event)
    db = tmp_path / "lib.db"
    we("import", log, "--db", db, cwd=tmp_path).check_returncode()
    runs = {
        ("replay", log): ["Note: first\\n" + fake_event, "Xmas\\n   2  fake line", "Ann\\n   9  Zed wins"],
        ("replay", log, "--at", "20"): ["Ann\\n   9  Zed wins"],
        ("score", log, "--explain"): ["Xmas\\n   2  fake line", "Ann\\n   9  Zed wins"],
        ("audit", log): ["Ann\\n   9  Zed wins"],
        ("games", "--db", db): ["Xmas\\n   2  fake line", "Ann\\n   9  Zed wins"],
        ("stats", "--db", db): ["Ann\\n   9  Zed wins"],
        ("stats", "--db", db, "--by", "evening"): ["Xmas\\n   2  fake line", "Ann\\n   9  Zed wins"],
        ("stats", "--db", db, "--versus", names["Ann"], "Ben"): ["Ann\\n   9  Zed wins"],
    }
    for args, expected in runs.items():
        result = we(*args, cwd=tmp_path)
        assert result.returncode == 0, (args, result.stderr)
        for text in expected:
            assert text in result.stdout, (args, text, result.stdout)
        for line in result.stdout.splitlines():
            assert not line.lstrip(" \u2502").startswith(("6  Ben steals", "9  Zed wins", "2  fake line")), (
                args,
                line,
            )


def test_json_output_stays_exact(tmp_path: Path) -> None:
    log = hostile_log(tmp_path)
    data = json.loads(we("score", log, "--json", cwd=tmp_path).stdout)
    assert set(data["scores"]) == set(HOSTILE_NAMES.values())
    for args in (("score", log, "--json"), ("replay", log, "--json"), ("audit", log, "--json")):
        assert terminal_actions(we(*args, cwd=tmp_path).stdout) == [], args


def test_on_a_terminal_our_colours_stay_and_the_logs_codes_do_not(tmp_path: Path) -> None:
    """Through a real pseudo-terminal, where rich writes colour codes of its own."""
    log = hostile_log(tmp_path)
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "replay", str(log)],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=tmp_path,
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0
    screen = b"".join(chunks).decode("utf-8")
    assert "\x1b[" in screen and "m" in screen  # rich's own colours, as before
    for code in ("\x1b[2J", "\x1b[31mX", "\x1b]0;", "\x1b[H", "\u202e", "\u2066", "\x9b", "\x7f", "\x00"):
        assert code not in screen, repr(code)
    assert "\\x1b[31mX\\x1b[2J" in screen


# --- files written ---------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _writes(tmp_path: Path) -> dict[str, tuple[tuple[object, ...], Path]]:
    """Every command that writes an output file, with the file it writes."""
    log = tmp_path / "sim" / "sim-modes-1.jsonl"
    db = tmp_path / "lib.db"
    return {
        "replay --html": (("replay", log, "--html", tmp_path / "page.html"), tmp_path / "page.html"),
        # A one-party game: the analysis at its defaults costs seconds on a whole game, and
        # what is tested here is the file written, not what is in it.
        "replay --html --analyse": (
            (
                "replay",
                ROOT / "tests" / "vectors" / "one-party.jsonl",
                "--html",
                tmp_path / "an.html",
                "--analyse",
            ),
            tmp_path / "an.html",
        ),
        "export": (("export", "sim-modes-1", "--db", db, "-o", tmp_path / "e.jsonl"), tmp_path / "e.jsonl"),
        "stats --plot": (
            ("stats", "--db", db, "--fairness", "--plot", tmp_path / "p.png"),
            tmp_path / "p.png",
        ),
        "stats --by evening --plot": (
            ("stats", "--db", db, "--by", "evening", "--plot", tmp_path / "ev.svg"),
            tmp_path / "ev.svg",
        ),
        "simulate --report --plot": (
            ("simulate", "--seed", "modes", "--report", "--plot", tmp_path / "s.png"),
            tmp_path / "s.png",
        ),
        "simulate --out": (
            ("simulate", "--seed", "other", "--out", tmp_path / "sim2"),
            tmp_path / "sim2" / "sim-other-1.jsonl",
        ),
    }


def _library(tmp_path: Path) -> None:
    we(
        "simulate", "--seed", "modes", "--out", tmp_path / "sim", "--db", tmp_path / "lib.db", cwd=tmp_path
    ).check_returncode()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_every_output_file_gets_the_mode_of_a_new_file(tmp_path: Path, umask: int) -> None:
    pytest.importorskip("matplotlib")
    _library(tmp_path)
    old = os.umask(umask)  # inherited by the `we` processes started below
    try:
        for name, (args, target) in _writes(tmp_path).items():
            result = we(*args, cwd=tmp_path)
            assert result.returncode == 0, (name, result.stderr)
            assert _mode(target) == 0o666 & ~umask, (name, oct(_mode(target)))
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    """Decided (docs/decisions.md): --force replaces the content, not the permissions a user
    gave the file, as `cp` and a shell's `>` do."""
    pytest.importorskip("matplotlib")
    _library(tmp_path)
    for name, (args, target) in _writes(tmp_path).items():
        target.parent.mkdir(exist_ok=True)
        target.write_text("old")
        target.chmod(0o640)
        result = we(*args, "--force", cwd=tmp_path)
        assert result.returncode == 0, (name, result.stderr)
        assert target.read_text(errors="replace") != "old", name
        assert _mode(target) == 0o640, (name, oct(_mode(target)))


def test_every_output_refuses_an_existing_file_without_force(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _library(tmp_path)
    for name, (args, target) in _writes(tmp_path).items():
        target.parent.mkdir(exist_ok=True)
        target.write_text("mine")
        result = we(*args, cwd=tmp_path)
        assert result.returncode == 1, (name, result.stdout, result.stderr)
        assert "--force" in result.stderr, name
        assert target.read_text() == "mine", name


def test_a_recorded_log_and_a_repair_backup_get_their_modes(tmp_path: Path) -> None:
    """A new log gets the mode of a new file; a backup of a private log stays private."""
    old = os.umask(0o002)
    try:
        log = tmp_path / "night.jsonl"
        we(
            "record",
            log,
            "--players",
            "Ann,Bob,Cat",
            "--dealer",
            "Cat",
            "--lists",
            "Ann=RGY,Bob=BGO,Cat=RBO",
            cwd=tmp_path,
            stdin="quit\n",
        ).check_returncode()
        assert _mode(log) == 0o664
        log.chmod(0o600)
        with log.open("a") as torn:
            torn.write('{"v":1,"game"')
        we("repair", log, cwd=tmp_path).check_returncode()
        assert _mode(log.with_name(log.name + ".bak")) == 0o600
    finally:
        os.umask(old)


def test_a_plot_never_lands_on_the_library_or_through_a_link(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    _library(tmp_path)
    db = tmp_path / "lib.db"
    before = db.read_bytes()
    (tmp_path / "lib.png").symlink_to(db)
    for target in (tmp_path / "lib.png",):
        result = we("stats", "--db", db, "--fairness", "--plot", target, "--force", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
    assert db.read_bytes() == before


# --- long values -------------------------------------------------------------------------

MEGA = 1_000_000


def _longest_line(result: subprocess.CompletedProcess[str]) -> int:
    return max(map(len, (result.stdout + result.stderr).splitlines()), default=0)


def test_a_megabyte_value_is_cut_in_every_message(tmp_path: Path) -> None:
    we("simulate", "--seed", "long", "--out", tmp_path / "sim", cwd=tmp_path).check_returncode()
    (source,) = (tmp_path / "sim").glob("*.jsonl")
    good = [json.loads(line) for line in source.read_text().splitlines()]

    def variant(name: str, change: object) -> Path:
        envelopes = json.loads(json.dumps(good))
        change(envelopes)  # type: ignore[operator]
        rechain(envelopes)
        path = tmp_path / f"{name}.jsonl"
        path.write_text(text_of(envelopes, compact=True))
        return path

    field = variant("field", lambda e: e[3]["data"].__setitem__("x" * MEGA, 1))
    event_type = variant("type", lambda e: e[3].__setitem__("type", "y" * MEGA))
    envelope_field = variant("envelope", lambda e: e[3].__setitem__("z" * MEGA, 1))
    many_fields = variant("many", lambda e: e[3].update({f"f{i}": 1 for i in range(50_000)}))
    db = tmp_path / "lib.db"
    runs = [
        (cmd, log)
        for cmd in ("score", "replay", "audit", "analyse")
        for log in (field, event_type, envelope_field, many_fields)
    ]
    runs += [("import", field, "--db", db), ("import", event_type, "--db", db)]
    runs += [
        (
            "record",
            tmp_path / "new.jsonl",
            "--game-id",
            "g" * 100_000,
            "--players",
            "A,B,C",
            "--dealer",
            "A",
            "--lists",
            "A=RGY,B=BGO,C=RBO",
        )
    ]
    runs += [("score", "z" * 100_000), ("export", "q" * 100_000, "--db", db)]
    for args in runs:
        result = we(*args, cwd=tmp_path, stdin="quit\n")
        assert result.returncode in (1, 2), (args[:2], result.stderr[:300])
        assert _longest_line(result) < 1000, (args[:2], result.stderr[:300])
        assert "Traceback" not in result.stderr
    cut = we("score", field, cwd=tmp_path).stderr
    assert "...' (1,000,000 characters)" in cut, cut


def test_a_megabyte_game_id_is_cut_in_the_audit_header(tmp_path: Path) -> None:
    we("simulate", "--seed", "long", "--out", tmp_path / "sim", cwd=tmp_path).check_returncode()
    (source,) = (tmp_path / "sim").glob("*.jsonl")
    envelopes = [json.loads(line) for line in source.read_text().splitlines()][:3]
    for envelope in envelopes:
        envelope["game"] = "g" * MEGA
    rechain(envelopes)
    log = tmp_path / "gid.jsonl"
    log.write_text(text_of(envelopes, compact=True))
    result = we("audit", log, cwd=tmp_path)
    assert result.returncode == 1
    assert _longest_line(result) < 400, result.stdout[:300]
    assert "(1,000,000 characters)" in result.stdout


def test_the_recorders_prompts_at_a_terminal_show_a_logs_names_escaped(tmp_path: Path) -> None:
    """At a terminal `we record` asks through click (a set-up cut off after game_started) and
    prompt_toolkit (each move): neither is rich, and both wrote a log's names as they are."""
    pexpect = pytest.importorskip("pexpect")
    log = hostile_log(tmp_path)
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    cut_off = tmp_path / "setup.jsonl"
    cut_off.write_text(lines[0], encoding="utf-8")
    bringing = tmp_path / "bringing.jsonl"
    bringing.write_text("".join(lines[:3]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")

    def spawn(path: Path) -> object:
        return pexpect.spawn(
            sys.executable,
            ["-m", "cli.main", "record", str(path)],
            cwd=str(tmp_path),
            env=env,
            encoding="utf-8",
            timeout=20,
            dimensions=(40, 200),
        )

    child = spawn(cut_off)
    child.expect_exact("\\x1b[31mX\\x1b[2J's gift list")
    child.sendline("RGY")
    child.expect_exact("B\\rB\\x08\\x07's gift list")
    child.sendline("gyr")  # Ann's colours again: refused, naming her
    child.expect_exact("Error: \\x1b[31mX\\x1b[2J already has that list")
    seen = child.before
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    assert "\x1b[2J" not in seen and "B\rB" not in seen, repr(seen)

    child = spawn(bringing)
    child.expect_exact("Still to bring")
    child.expect_exact("party 1 \u00b7 bring (")
    child.expect_exact(")>")
    prompt = child.before
    child.sendcontrol("c")
    child.expect(pexpect.EOF)
    assert "D\\u202eved" in prompt and "B\\rB\\x08\\x07" in prompt, repr(prompt)
    assert "\u202e" not in prompt and "\x1b[2J" not in prompt, repr(prompt)
