"""No traceback, no loss, bounded memory: every command against the format's limits, unreadable
files, damaged libraries, outputs that are inputs or devices, and set-ups cut off.

Each test here failed before the change it guards (issue 11). Commands run in-process through
the real entry point (weharness.we), or as real processes where a signal, a resource limit or
memory is what is measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from peakmem_run import run_measured
from weharness import ROOT, VECTORS, we

ONE = VECTORS / "one-party.jsonl"
FOUR = VECTORS / "four-players-dealt.jsonl"
MIB = 1 << 20
SETUP = ["--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO"]


@pytest.fixture(autouse=True)
def no_user_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WE_DB", str(tmp_path / "default-library.db"))


def _hash(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def log_with_line_4(data: dict[str, Any], ending: bytes = b"\n") -> bytes:
    """The first three lines of a real game, then a correctly hashed note whose data is `data`."""
    head = ONE.read_bytes().splitlines(keepends=True)[:3]
    prev = json.loads(head[-1])["hash"]
    body = {"v": 1, "game": "vector-one", "seq": 4, "at": "2026-11-26T19:00:04Z", "type": "note"}
    body |= {"data": data, "prev": prev}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        body["hash"] = _hash(body)
        line = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    finally:
        sys.setrecursionlimit(limit)
    return b"".join(head) + line + ending


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def line_of(content: int) -> bytes:
    """A log whose line 4 is exactly `content` bytes long (without its newline)."""
    short = log_with_line_4({"text": ""})
    line_4 = len(short.splitlines()[3])
    log = log_with_line_4({"text": "a" * (content - line_4)})
    assert len(log.splitlines()[3]) == content
    return log


# (name, log, over the limit?) -- the envelope is level 1 and data level 2: `nested(n)` in
# data makes n + 2 levels.
LIMIT_CASES = [
    ("depth-64", lambda: log_with_line_4({"text": "x", "d": nested(62)}), False),
    ("depth-65", lambda: log_with_line_4({"text": "x", "d": nested(63)}), True),
    ("depth-400", lambda: log_with_line_4({"text": "x", "d": nested(398)}), True),
    ("int-2^63-1", lambda: log_with_line_4({"text": "x", "n": 2**63 - 1}), False),
    ("int-2^63", lambda: log_with_line_4({"text": "x", "n": 2**63}), True),
    ("int--2^63", lambda: log_with_line_4({"text": "x", "n": -(2**63)}), False),
    ("int--2^63-1", lambda: log_with_line_4({"text": "x", "n": -(2**63) - 1}), True),
    ("int-2^64", lambda: log_with_line_4({"text": "x", "n": 2**64}), True),
    ("line-1MiB-1", lambda: line_of(MIB - 1), False),
    ("line-1MiB", lambda: line_of(MIB), False),
    ("line-1MiB+1", lambda: line_of(MIB + 1), True),
]
READERS = {
    "audit": lambda p: ["audit", p],
    "audit-json": lambda p: ["audit", "--json", p],
    "audit-jobs": lambda p: ["audit", "--json", "--jobs", "2", p, ONE],
    "replay": lambda p: ["replay", p],
    "score": lambda p: ["score", p],
    "repair": lambda p: ["repair", p],
    "import": lambda p: ["import", "--db", p.parent / "lib.db", p],
    "record": lambda p: ["record", p],
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize(("case", "make", "over"), LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_every_reader_at_the_limits(tmp_path: Path, reader: str, case: str, make: Any, over: bool) -> None:
    log = tmp_path / f"{case}.jsonl"
    log.write_bytes(make())
    before = log.read_bytes()
    result = we(*READERS[reader](log), input="quit\n")
    said = result.stdout + result.stderr
    assert "Traceback" not in said and result.exit_code in (0, 1), said[-2000:]
    words = {"depth": "nested more than 64 levels", "int": "outside the signed 64-bit range"}
    limit = words.get(case.split("-")[0], "over the format's limit of 1,048,576 bytes")
    at_line_4 = [line for line in said.splitlines() if "line 4: " in line or '"seq":4,' in line]
    if over:
        assert result.exit_code == 1
        assert any(limit in line for line in at_line_4), said[-2000:]
    else:
        assert not any("integrity" in line for line in at_line_4), said[-2000:]
        assert "nested more than" not in said and "outside the signed" not in said and "limit of" not in said
    assert log.read_bytes() == before  # no reader rewrites a log


def test_a_log_with_a_line_over_the_limit_and_crlf_endings_within_it(tmp_path: Path) -> None:
    log = tmp_path / "crlf.jsonl"
    short = log_with_line_4({"text": ""}, ending=b"\r\n")
    line_4 = len(short.splitlines()[3])  # without its \r\n
    log.write_bytes(log_with_line_4({"text": "a" * (MIB - line_4)}, ending=b"\r\n"))
    result = we("audit", "--json", log)
    problems = json.loads(result.stdout)["problems"]
    assert not [p for p in problems if p["kind"] == "integrity"], problems


# --- unreadable files: one error line each, the rest go on -------------------------------


def unreadable_third(folder: Path) -> Path:
    """A directory of three logs whose third cannot be read (as root, permissions do not
    stop a read: /proc/self/mem opens as a regular file and fails on read)."""
    folder.mkdir()
    shutil.copy(ONE, folder / "a.jsonl")
    shutil.copy(FOUR, folder / "b.jsonl")
    if os.geteuid() == 0:
        os.symlink("/proc/self/mem", folder / "c.jsonl")
    else:
        shutil.copy(ONE, folder / "c.jsonl")
        (folder / "c.jsonl").chmod(0)
    return folder


def test_import_keeps_what_it_said_it_imported(tmp_path: Path) -> None:
    folder = unreadable_third(tmp_path / "logs")
    db = tmp_path / "lib.db"
    result = we("import", "--db", db, folder)
    assert result.exit_code == 1
    assert result.stdout.count("imported game") == 2
    (error,) = result.stderr.splitlines()
    assert error.startswith(f"we: error: {folder / 'c.jsonl'}: ") and "cannot read" in error
    listed = we("games", "--db", db)
    assert "vector-one" in listed.stdout and "vector-two" in listed.stdout


def test_import_and_audit_report_a_fifo_and_a_vanished_file_and_go_on(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(ONE, folder / "a.jsonl")
    os.mkfifo(folder / "b.jsonl")
    os.symlink(folder / "gone.jsonl", folder / "c.jsonl")
    shutil.copy(FOUR, folder / "d.jsonl")
    audited = we("audit", "--json", folder)
    assert audited.exit_code == 1
    assert [json.loads(line)["game"] for line in audited.stdout.splitlines()] == ["vector-one", "vector-two"]
    assert len(audited.stderr.splitlines()) == 2 and "a FIFO" in audited.stderr
    imported = we("import", "--db", tmp_path / "lib.db", folder)
    assert imported.exit_code == 1 and imported.stdout.count("imported game") == 2
    assert len(imported.stderr.splitlines()) == 2


def test_audit_of_a_directory_goes_on_past_an_unreadable_file(tmp_path: Path) -> None:
    folder = unreadable_third(tmp_path / "logs")
    for jobs in ("1", "2"):
        result = we("audit", "--jobs", jobs, folder)
        assert result.exit_code == 1
        assert result.stdout.count("OK  ") == 2
        assert len(result.stderr.splitlines()) == 1 and "c.jsonl" in result.stderr


# --- damaged libraries -------------------------------------------------------------------


DAMAGE = {
    "data-bytes": ["UPDATE events SET data = x'ffff' WHERE id % 5 = 0"],
    "players-not-json": ["UPDATE games SET players = 'x'"],
    "no-events-table": ["DROP VIEW envelopes", "DROP TABLE events"],
    "at-integer": ["UPDATE events SET at = 5 WHERE id % 3 = 0"],
    "hash-integer": ["UPDATE events SET hash = 5 WHERE id % 7 = 0"],
    "games-id-blob": ["UPDATE games SET id = x'00' WHERE key = 1", "UPDATE games SET events = 'many'"],
}


@pytest.fixture
def library(tmp_path: Path) -> Path:
    db = tmp_path / "lib.db"
    assert we("import", "--db", db, ONE, FOUR).exit_code == 0
    return db


def damage(db: Path, statements: list[str]) -> None:
    conn = sqlite3.connect(db)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_library_gives_one_line_not_a_traceback(library: Path, tmp_path: Path, how: str) -> None:
    damage(library, DAMAGE[how])
    commands = [
        ["audit", "vector-one"],
        ["audit", "--json", "vector-two"],
        ["score", "vector-two"],
        ["replay", "vector-one"],
        ["export", "vector-one", "-o", tmp_path / "out.jsonl"],
        ["stats"],
        ["games"],
    ]
    for command in commands:
        result = we(*command, "--db", library)
        said = result.stdout + result.stderr
        assert "Traceback" not in said and result.exit_code in (0, 1), (command, said[-2000:])
        if how == "no-events-table":
            assert result.stderr.strip() == f"we: error: {library}: not a game library (no events table)"
        if how == "data-bytes" and command[0] == "audit":
            assert result.exit_code == 1 and "integrity" in said


def test_a_damaged_games_row_is_flagged_in_the_listing(library: Path) -> None:
    damage(library, DAMAGE["players-not-json"])
    result = we("games", "--db", library)
    assert result.exit_code == 1
    assert "(damaged row)" in result.stdout and "2 rows of the games table are damaged" in result.stdout


def test_a_foreign_database_is_left_byte_for_byte(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('mine')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    for command in (["games"], ["stats"], ["import", ONE], ["audit", "some-game"], ["export", "x"]):
        result = we(*command, "--db", other)
        assert result.exit_code == 1 and "not a game library" in result.stderr, result.stderr
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]  # no -wal, no -shm
    conn = sqlite3.connect(other)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


# --- damaged and foreign PostgreSQL libraries ----------------------------------------------

# A column's type changed (the view `envelopes` goes first: it holds the columns' types).
_RETYPE = "DROP VIEW IF EXISTS envelopes; ALTER TABLE {table} ALTER COLUMN {column} TYPE {how}"
PG_DAMAGE = {
    "data-not-json": ["UPDATE events SET data = 'x{' WHERE seq % 5 = 0"],
    "players-not-json": ["UPDATE games SET players = 'x'"],
    "no-events-table": ["DROP TABLE events CASCADE"],
    "at-integer": [_RETYPE.format(table="events", column="at", how="integer USING 5")],
    "hash-bytes": [_RETYPE.format(table="events", column="hash", how="bytea USING hash::bytea")],
    "seq-numeric": [_RETYPE.format(table="events", column="seq", how="numeric")],
    "data-jsonb": [_RETYPE.format(table="events", column="data", how="jsonb USING '[1]'::jsonb")],
    "type-null": [
        "ALTER TABLE events ALTER COLUMN type DROP NOT NULL",
        "UPDATE events SET type = NULL WHERE seq = 3",
    ],
    "games-columns": [
        _RETYPE.format(table="games", column="players", how="""jsonb USING '{"a": 1}'::jsonb"""),
        _RETYPE.format(table="games", column="events", how="text USING 'many'"),
        _RETYPE.format(table="games", column="started_at", how="timestamptz USING now()"),
    ],
}


@pytest.fixture
def pg_library(pg_url: str) -> str:
    assert we("import", "--db", pg_url, ONE, FOUR).exit_code == 0
    return pg_url


def pg_damage(url: str, statements: list[str]) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def pg_relations(url: str) -> set[str]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace")
        return {name for (name,) in rows}


@pytest.mark.parametrize("how", list(PG_DAMAGE))
def test_a_damaged_postgresql_library_gives_one_line_not_a_traceback(
    pg_library: str, tmp_path: Path, how: str
) -> None:
    pg_damage(pg_library, PG_DAMAGE[how])
    commands = [
        ["audit", "vector-one"],
        ["audit", "--json", "vector-two"],
        ["score", "vector-two"],
        ["replay", "vector-one"],
        ["export", "vector-one", "-o", tmp_path / "out.jsonl", "--force"],
        ["stats"],
        ["games"],
        ["import", ONE],
    ]
    for command in commands:
        result = we(*command, "--db", pg_library)
        said = result.stdout + result.stderr
        assert "Traceback" not in said and result.exit_code in (0, 1), (command, said[-2000:])
        errors = [line for line in result.stderr.splitlines() if line.startswith("we: error:")]
        assert len(errors) <= 1, (command, result.stderr)
        if how == "no-events-table":
            assert errors == [f"we: error: {pg_library}: not a game library (no events table)"], command
        elif how == "games-columns" or how == "players-not-json":
            if command == ["games"]:
                assert result.exit_code == 1 and "(damaged row)" in result.stdout
        elif command[0] in ("audit", "score", "replay"):
            # The game's own rows are damaged: an integrity problem at that event.
            assert result.exit_code == 1 and "integrity" in said, (command, said[-2000:])


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_damaged_head_row_is_never_chained_onto(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """An append after a newest row holding a value that is not JSON at all is refused as an
    integrity problem (it was a TypeError)."""
    from eventstore.errors import LogIntegrityError

    if backend == "sqlite":
        from eventstore.sqlite import Library

        db: Any = request.getfixturevalue("library")
        damage(db, ["UPDATE events SET hash = x'ffff' WHERE id = (1 << 32) + 13"])
    else:
        from eventstore.postgres import Library  # type: ignore[assignment]

        db = request.getfixturevalue("pg_library")
        pg_damage(db, [_RETYPE.format(table="events", column="hash", how="bytea USING hash::bytea")])
    with Library(db) as library:
        with pytest.raises(LogIntegrityError, match="line 1"):
            library.log("vector-one").append([("note", {"text": "after a damaged head"})], 13)
        assert {row["id"]: row["events"] for row in library.games()}["vector-one"] == 13


def test_a_database_without_a_library_is_left_alone_by_readers(pg_url: str, tmp_path: Path) -> None:
    pg_damage(
        pg_url,
        ["CREATE TABLE notes (id serial PRIMARY KEY, body text)", "INSERT INTO notes (body) VALUES ('mine')"],
    )
    before = pg_relations(pg_url)
    for command in (
        ["games"],
        ["stats"],
        ["stats", "--fairness"],
        ["audit", "some-game"],
        ["score", "some-game"],
        ["replay", "some-game"],
        ["export", "some-game", "-o", tmp_path / "out.jsonl"],
    ):
        result = we(*command, "--db", pg_url)
        assert result.exit_code == 1, (command, result.stdout, result.stderr)
        assert result.stderr == f"we: error: {pg_url}: not a game library (no events table)\n", command
    assert pg_relations(pg_url) == before
    # A writer lays the library out beside the database's own tables.
    assert we("import", "--db", pg_url, ONE).exit_code == 0
    assert pg_relations(pg_url) > before | {"games", "events", "settings", "envelopes"}
    assert "1 game in" in we("games", "--db", pg_url).stdout


# --- outputs: --force never replaces an input, a device or a link target ------------------


def test_export_never_writes_over_its_own_library(library: Path, tmp_path: Path) -> None:
    before = library.read_bytes()
    other_name = tmp_path / "alias.db"
    os.link(library, other_name)
    for target in (library, other_name):
        result = we("export", "vector-one", "--db", library, "-o", target, "--force")
        assert result.exit_code == 1 and "is the library this command reads" in result.stderr
    assert library.read_bytes() == before
    assert we("games", "--db", library).exit_code == 0


def test_replay_never_writes_its_page_over_the_log(tmp_path: Path) -> None:
    log = tmp_path / "night.jsonl"
    shutil.copy(ONE, log)
    os.link(log, tmp_path / "page.html")
    result = we("replay", log, "--html", tmp_path / "page.html", "--force")
    assert result.exit_code == 1 and "is the game this command reads" in result.stderr
    assert log.read_bytes() == ONE.read_bytes()


def test_force_never_replaces_a_device_a_fifo_or_a_link_target(library: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    kept = tmp_path / "kept.txt"
    kept.write_text("mine")
    link = tmp_path / "link.jsonl"
    link.symlink_to(kept)
    for target, words in ((Path(os.devnull), "a device"), (fifo, "a FIFO"), (link, "symbolic link")):
        result = we("export", "vector-one", "--db", library, "-o", target, "--force")
        assert result.exit_code == 1 and words in result.stderr, result.stderr
        page = we("replay", ONE, "--html", target, "--force")
        assert page.exit_code == 1 and words in page.stderr
    assert Path(os.devnull).is_char_device()
    assert kept.read_text() == "mine" and link.is_symlink()


def test_force_replaces_a_plain_file_that_is_not_an_input(library: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old")
    assert we("export", "vector-one", "--db", library, "-o", out, "--force").exit_code == 0
    assert we("audit", "--json", out).exit_code == 0


def test_replay_leaves_a_users_partial_file_alone(tmp_path: Path) -> None:
    partial = tmp_path / ".page.html.partial"
    partial.write_text("my own notes")
    assert we("replay", ONE, "--html", tmp_path / "page.html").exit_code == 0
    assert partial.read_text() == "my own notes"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".page.html.partial", "page.html"]


# --- repair and record: only game logs, only regular files ------------------------------


def test_repair_leaves_a_file_that_is_not_a_game_log(tmp_path: Path) -> None:
    package = tmp_path / "package.json"
    package.write_text('{"name": "mine", "version": "1.0.0"}')
    result = we("repair", package)
    assert result.exit_code == 1
    assert "not a game log" in result.stderr and "nothing was changed" in result.stderr
    assert package.read_text() == '{"name": "mine", "version": "1.0.0"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["package.json"]


@pytest.mark.parametrize("command", ["repair", "record"])
@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "/dev/urandom"])
def test_repair_and_record_refuse_fifos_and_devices_at_once(
    tmp_path: Path, command: str, target: str
) -> None:
    path = tmp_path / "fifo.jsonl" if target == "fifo" else Path(target)
    if target == "fifo":
        os.mkfifo(path)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", command, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 1 and "not a regular file" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_record_on_a_library_does_not_send_the_user_to_repair(library: Path) -> None:
    result = we("record", library, input="quit\n")
    assert result.exit_code == 1 and "is not a game log" in result.stderr and "repair" not in result.stderr


def test_an_over_long_name_is_cut_in_the_error(tmp_path: Path) -> None:
    players = "Ann,Bob," + "Z" * 5000
    result = we("record", tmp_path / "x.jsonl", "--players", players, "--dealer", "Ann", "--lists", "x")
    assert result.exit_code == 2 and "must be 1 to" in result.stderr
    assert len(result.stderr) < 200, len(result.stderr)


# --- the recorder's set-up: one append ---------------------------------------------------


def test_the_set_up_is_written_in_one_append(tmp_path: Path) -> None:
    # The file may grow only as far as the first line: a set-up in two appends left a log of
    # game_started alone (which neither record nor repair could help); one append leaves all
    # of it or nothing.
    log = tmp_path / "night.jsonl"
    probe = tmp_path / "probe.jsonl"
    assert we("record", probe, *SETUP, "--game-id", "night", input="quit\n").exit_code == 0
    first_line = len(probe.read_bytes().splitlines(keepends=True)[0])

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (first_line + 10, first_line + 10))

    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "record", str(log), *SETUP, "--game-id", "night"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        preexec_fn=small_files,
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert not log.exists()


def test_a_set_up_cut_off_after_game_started_is_finished(tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    assert we("record", full, *SETUP, "--game-id", "night", input="quit\n").exit_code == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(full.read_bytes().splitlines(keepends=True)[0])
    refused = we("record", cut, input="quit\n")
    assert refused.exit_code == 1 and "--lists" in refused.stderr
    finished = we("record", cut, "--lists", "Ann=RGY,Bob=BGO,Cat=RBO", input="open R3\nquit\n")
    assert finished.exit_code == 0, finished.stderr
    audit = json.loads(we("audit", "--json", cut).stdout)
    assert audit["ok"] and audit["events"] >= 3


# --- bounded memory ----------------------------------------------------------------------


def peak_rss_mib(*args: object) -> tuple[int, float, str]:
    """Run `we ARGS` as a process; its exit status, peak resident memory (MiB) and stderr."""
    return run_measured(*args)


def test_a_gigabyte_without_a_newline_is_read_in_bounded_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # sparse: a gigabyte of NUL bytes and no newline, nothing on disk
    for command in (["audit", "--json"], ["repair"]):
        code, peak, err = peak_rss_mib(*command, big)
        assert code == 1 and "Traceback" not in err, err
        assert peak < 100, f"{command}: {peak:.0f} MiB"


def test_many_junk_lines_are_counted_not_piled_up(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    with open(junk, "wb") as f:
        # A game log's first line, so that this is a log full of damage, not a file of
        # something else (which is refused at its first line: not a game log).
        f.write((ROOT / "replays" / "tie-5p.jsonl").read_bytes().split(b"\n")[0] + b"\n")
        block = b"this is no JSON at all, but a line of junk of some length\n" * 10_000
        for _ in range(20):
            f.write(block)
    result = we("audit", "--json", junk)
    report = json.loads(result.stdout)
    assert len(report["problems"]) == 100 and report["problems_omitted"] == 200_000 - 100
    text = we("audit", junk)
    assert "and 199,900 more" in text.stdout
    code, peak, err = peak_rss_mib("audit", "--json", junk)
    assert code == 1 and peak < 100 and "Traceback" not in err, f"{peak:.0f} MiB"


def test_a_plot_never_lands_on_a_link_target_or_a_fifo(library: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"mine")
    link = tmp_path / "link.png"
    link.symlink_to(kept)
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    for target, words in ((link, "symbolic link"), (fifo, "a FIFO")):
        result = we("stats", "--fairness", "--plot", target, "--db", library)
        assert result.exit_code == 1 and words in result.stderr, result.stderr
    assert kept.read_bytes() == b"mine" and link.is_symlink() and fifo.is_fifo()
    partial = tmp_path / ".plot.png.partial"
    partial.write_text("my own notes")
    assert we("stats", "--fairness", "--plot", tmp_path / "plot.png", "--db", library).exit_code == 0
    assert partial.read_text() == "my own notes" and (tmp_path / "plot.png").stat().st_size > 1000
