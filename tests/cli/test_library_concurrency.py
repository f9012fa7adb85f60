"""Several `we` processes writing into one SQLite library at once (real processes).

Imports take turns with each other and with a single write (a recorder adding its finished
game, another `we import`): a batch holds the write lock for a moment, commits, and lets the
others in. Everything an import said it imported is in the library and verifies; a write that
cannot get the lock in time is one line naming the game, and what was committed stays.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eventstore.envelope import seal
from wecore.bots import play_game
from wecore.events import event_payload

ROOT = Path(__file__).resolve().parents[2]
IMPORTED = re.compile(r"imported game '([a-z0-9-]+)'")


def write_games(folder: Path, prefix: str, count: int) -> list[str]:
    """`count` finished games of 3 to 7 players as logs in `folder`: a few bot games, each sealed
    again under many ids (sealing is cheap, playing is not)."""
    folder.mkdir(parents=True)
    plays = [[event_payload(e) for e in play_game(f"{prefix}-{n}", n)[0]] for n in range(3, 8)]
    ids = []
    for i in range(count):
        game_id = f"{prefix}-{i}"
        prev, lines = None, []
        for seq, (type_, data) in enumerate(plays[i % len(plays)], 1):
            envelope = seal(game_id, seq, f"2011-12-24T18:{i % 60:02d}:00Z", type_, data, prev)
            prev = envelope.hash
            lines.append(envelope.to_line())
        (folder / f"{game_id}.jsonl").write_bytes(b"".join(lines))
        ids.append(game_id)
    return ids


def we_process(
    *args: object, env: dict[str, str] | None = None, cwd: Path = ROOT, stdin: int | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", *map(str, args)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def game_keys(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT id, key FROM games"))
    finally:
        conn.close()


def test_four_imports_at_once_all_complete(tmp_path: Path) -> None:
    db = tmp_path / "lib.db"
    folders = {f"d{n}": tmp_path / f"d{n}" for n in range(4)}
    expected = {name: set(write_games(folder, name, 200)) for name, folder in folders.items()}
    procs = {name: we_process("import", folder, "--db", db) for name, folder in folders.items()}
    said: dict[str, set[str]] = {}
    for name, proc in procs.items():
        code, out, err = finish(proc)
        assert "Traceback" not in err
        assert code == 0 and err == "", (name, err[-2000:])
        said[name] = set(IMPORTED.findall(out))
        assert said[name] == expected[name], name
    keys = game_keys(db)
    assert set(keys) == set().union(*expected.values())
    audit = subprocess.run(
        [sys.executable, "-m", "cli.main", "audit", "--json", "--db", db, *sorted(keys)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert audit.returncode == 0, audit.stderr[-2000:]
    assert audit.stdout.count('"ok":true') == len(keys)


RECORDED = [
    "record", "table.jsonl", "--players", "Ann,Bob,Cat", "--dealer", "Cat",
    "--lists", "Ann=RGY,Bob=BGO,Cat=RBO", "--attic-size", "1",
]  # fmt: skip


@pytest.mark.parametrize("writer", ["import", "record"])
def test_a_single_write_gets_a_turn_while_a_long_import_runs(tmp_path: Path, writer: str) -> None:
    db = tmp_path / "lib.db"
    write_games(tmp_path / "long", "long", 1000)
    write_games(tmp_path / "one", "one", 1)
    importer = we_process("import", tmp_path / "long", "--db", db)
    # What the import has done is committed as it goes, not only at its end...
    deadline = time.monotonic() + 60
    while not (db.exists() and game_keys_or_none(db)):
        assert importer.poll() is None, "the import ended before anything it did was visible"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    # ...so another writer gets in between its games rather than wait for all of them: an
    # import of one log, or a recorder adding the game it has just finished.
    if writer == "import":
        single = we_process("import", tmp_path / "one" / "one-0.jsonl", "--db", db)
        code, out, err = finish(single)
        assert code == 0 and "imported game 'one-0'" in out, err
    else:
        single = we_process(*RECORDED, "--db", db, cwd=tmp_path, stdin=subprocess.PIPE)
        out, err = single.communicate("open R7\nopen B7\nopen Y1\ntie Ann speech\n", timeout=120)
        assert single.returncode == 0 and f"Added to the library {db} as " in out, out + err
    code, out, err = finish(importer)
    assert code == 0 and err == "", err[-2000:]
    keys = game_keys(db)
    assert len(keys) == 1001
    (single_id,) = set(keys) - {f"long-{i}" for i in range(1000)}
    assert keys[single_id] < max(keys.values()), f"the {writer} waited for the whole long import"


def game_keys_or_none(db: Path) -> dict[str, int] | None:
    try:
        return game_keys(db)
    except sqlite3.Error:  # not laid out yet
        return None


@pytest.fixture
def held_lock(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A library with one game, and another process holding its write lock until the test ends.

    The holder lets go when its stdin closes, not after a sleep: however slowly the process
    under test starts (2 loaded cores, `nice -n 19`), the lock is still held while it runs.
    """
    db = tmp_path / "lib.db"
    write_games(tmp_path / "first", "first", 1)
    code, _, err = finish(we_process("import", tmp_path / "first", "--db", db))
    assert code == 0, err
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "conn.execute('BEGIN IMMEDIATE')\n"
         "print('locked', flush=True)\n"
         "sys.stdin.read()\n"
         "conn.execute('COMMIT')\n", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "locked\n"
        yield db
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_write_that_cannot_get_the_lock_is_one_line_naming_its_game(
    held_lock: Path, tmp_path: Path
) -> None:
    write_games(tmp_path / "more", "more", 3)
    importer = we_process("import", tmp_path / "more", "--db", held_lock, env={"WE_LOCK_WAIT": "0.3"})
    code, out, err = finish(importer)
    assert code == 1 and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 3
    for line, name in zip(lines, ["more-0", "more-1", "more-2"], strict=True):
        assert line.startswith(f"we: error: {tmp_path / 'more' / name}.jsonl: not imported: "), line
        assert "locked" in line
    assert "3 not imported." in out
    assert set(game_keys(held_lock)) == {"first-0"}  # what was imported before stays
