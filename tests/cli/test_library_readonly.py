"""Commands that only read a library create and change nothing (issue 24): someone else's
SQLite file is refused before a byte is written to it, a library is left byte for byte as it
was (no -wal or -shm, no journal mode switched), and a library in a read-only folder reads."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from weharness import ROOT, VECTORS, one_error_line, we

FOUR = VECTORS / "four-players-dealt.jsonl"
ONE = VECTORS / "one-party.jsonl"


def read_commands(db: Path, out: Path) -> list[list[object]]:
    """Every command that only reads a library (an id of a game in it where one is needed)."""
    return [
        ["games", "--db", db],
        ["games", "--search", "vector", "--db", db],
        ["stats", "--db", db],
        ["audit", "vector-two", "--db", db],
        ["score", "vector-two", "--db", db],
        ["replay", "vector-two", "--db", db],
        ["analyse", "vector-two", "--db", db],
        ["export", "vector-two", "-o", out, "--force", "--db", db],
        ["import", "--from-db", db, "--db", out.parent / "other.db"],
    ]


def beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name))


def test_a_foreign_sqlite_file_is_refused_by_every_command_and_left_byte_for_byte(tmp_path):
    foreign = tmp_path / "inventory.db"
    with sqlite3.connect(foreign) as conn:
        # Tables of our names, even with the columns a library's key and id have.
        conn.execute("CREATE TABLE games (key INTEGER PRIMARY KEY, id TEXT, what TEXT)")
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, type TEXT, data TEXT)")
        conn.execute("INSERT INTO games VALUES (1, 'vector-two', 'a chair')")
    conn.close()
    before = foreign.read_bytes()
    for args in [*read_commands(foreign, tmp_path / "out.jsonl"), ["import", ONE, "--db", foreign]]:
        result = we(*args)
        assert result.exit_code == 1, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        assert "not a game library" in result.stderr, (args, result.stderr)
        assert foreign.read_bytes() == before, args
        assert beside(foreign) == ["inventory.db"], args


@pytest.fixture
def library(tmp_path) -> Path:
    db = tmp_path / "lib" / "games.db"
    assert we("import", FOUR, ONE, "--db", db).exit_code == 0
    return db


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_read_commands_leave_a_library_byte_for_byte_with_nothing_beside_it(library, tmp_path, journal):
    with sqlite3.connect(library) as conn:
        conn.execute(f"PRAGMA journal_mode = {journal}")
    conn.close()
    before = library.read_bytes()
    for args in read_commands(library, tmp_path / "out.jsonl"):
        result = we(*args)
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        assert library.read_bytes() == before, args
        assert beside(library) == ["games.db"], args
    with sqlite3.connect(f"file:{library}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == journal


def test_read_commands_read_a_library_in_a_read_only_folder(library, tmp_path):
    """The folder is mounted read-only (the tests run as root, whom permission bits do not
    stop): SQLite can create no -wal or -shm there, so a library in WAL mode is read immutable."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare to mount a folder read-only")
    folder = library.parent
    out = tmp_path / "out"
    out.mkdir()
    commands = [args for args in read_commands(library, out / "vector-two.jsonl")]
    script = "\n".join(
        " ".join([f"'{sys.executable}'", "-m", "cli.main", *(f"'{a}'" for a in args)])
        + " >/dev/null || exit 7"
        for args in commands
    )
    mount = f"mount --bind '{folder}' '{folder}' && mount -o remount,bind,ro '{folder}' || exit 9\n"
    before = library.read_bytes()
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", mount + script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=300,
    )
    if run.returncode == 9:
        pytest.skip(f"cannot mount a folder read-only here: {run.stderr.strip()}")
    assert run.returncode == 0, run.stderr
    assert library.read_bytes() == before
    assert beside(library) == ["games.db"]
    assert (out / "vector-two.jsonl").exists()


def test_a_library_of_schema_2_is_read_as_it_is_and_upgraded_by_a_writer(tmp_path):
    from eventstore.sqlite_schema import _SCHEMA

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 2")
    conn.close()
    # An old we's library: the rows as it wrote them (a note in vector-two, by a raw copy).
    new = tmp_path / "new.db"
    assert we("import", FOUR, "--db", new).exit_code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("ATTACH ? AS new", (str(new),))
        conn.execute(
            "INSERT INTO games (key, id, title, players, started_at, last_at, events, head_hash, complete,"
            " winner) SELECT key, id, title, players, started_at, last_at, events, head_hash, complete,"
            " winner FROM new.games"
        )
        conn.execute("INSERT INTO events SELECT id, type, data, at, prev, hash FROM new.events")
    conn.close()
    before = db.read_bytes()
    assert we("audit", "vector-two", "--db", db).exit_code == 0
    line = one_error_line(we("games", "--search", "Ann", "--db", db))
    assert "has no search yet" in line
    assert db.read_bytes() == before
    imported = we("import", ONE, "--db", db)
    assert imported.exit_code == 0, imported.stderr
    assert "upgrading the game library" in imported.stderr
    assert "vector-two" in we("games", "--search", "Ann", "--db", db).stdout
    assert we("audit", "vector-two", "vector-one", "--db", db).exit_code == 0
    with sqlite3.connect(db) as conn:
        fks = conn.execute("PRAGMA foreign_key_list(events)").fetchall()
        assert [(fk[2], fk[3], fk[4]) for fk in fks] == [("games", "game", "key")]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
