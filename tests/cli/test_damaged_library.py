"""Damaged and foreign libraries, read-only commands that must not write, malformed PostgreSQL
URLs, and a games row that lies about its game (issue 11, a hostile user's review of main).

Each test here failed on main before the change it guards. Commands run in-process through the
real entry point (weharness.we).
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from pathlib import Path

import pytest
from weharness import VECTORS, we

ONE = VECTORS / "one-party.jsonl"
FOUR = VECTORS / "four-players-dealt.jsonl"


@pytest.fixture(autouse=True)
def no_user_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WE_DB", str(tmp_path / "default-library.db"))


@pytest.fixture
def library(tmp_path: Path) -> Path:
    db = tmp_path / "lib.db"
    assert we("import", "--db", db, ONE, FOUR).exit_code == 0
    # One file, no WAL beside it: what is damaged is all in it.
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    return db


def damage(db: Path, script: str) -> None:
    conn = sqlite3.connect(db)
    conn.executescript(script)
    conn.commit()
    conn.close()


def said(result) -> str:  # type: ignore[no-untyped-def]
    return result.stdout + result.stderr


def one_line_no_traceback(result, command, most: int = 1) -> list[str]:  # type: ignore[no-untyped-def]
    assert "Traceback" not in said(result) and result.exit_code in (0, 1), (command, said(result)[-2000:])
    errors = [line for line in result.stderr.splitlines() if line.startswith("we: error:")]
    assert len(errors) <= most, (command, result.stderr)
    return errors


READERS = [
    ["audit", "vector-one"],
    ["audit", "--json", "vector-two"],
    ["score", "vector-one"],
    ["replay", "vector-one"],
    ["analyse", "vector-one"],
    ["export", "vector-one", "-o", "OUT", "--force"],
    ["stats"],
    ["stats", "--fairness"],
    ["games"],
]


def run_readers(db: Path, tmp_path: Path) -> dict[str, object]:
    results = {}
    for command in READERS:
        args = [str(tmp_path / "out.jsonl") if a == "OUT" else a for a in command]
        result = we(*args, "--db", db)
        one_line_no_traceback(result, command)
        results[" ".join(command[:2])] = result
    return results


@pytest.mark.parametrize("column", ["type", "data", "at", "prev", "hash"])
def test_event_text_that_is_not_utf8_is_an_integrity_problem_at_that_event(
    library: Path, tmp_path: Path, column: str
) -> None:
    # vector-one is the first game: key 1, its events are rows (1 << 32) + seq.
    damage(library, f"UPDATE events SET {column} = CAST(x'ff' AS TEXT) WHERE id = (1 << 32) + 5")
    results = run_readers(library, tmp_path)
    audit = results["audit vector-one"]
    assert audit.exit_code == 1 and f"line 5: integrity: envelope field `{column}`" in audit.stdout  # type: ignore[attr-defined]
    for command in ("score vector-one", "replay vector-one", "export vector-one"):
        assert results[command].exit_code == 1  # type: ignore[attr-defined]
    # The other game is untouched and still counts.
    assert "Not counted, failed the audit (see `we audit`): vector-one." in said(results["stats"])
    importing = we("import", "--from-db", library, "--db", tmp_path / "copy.db")
    one_line_no_traceback(importing, "import --from-db")
    assert importing.exit_code == 1
    assert "we: refused vector-one: line 5: integrity" in importing.stderr
    assert "imported game 'vector-two'" in importing.stdout


@pytest.mark.parametrize("column", ["players", "id", "title", "winner"])
def test_a_games_row_that_is_not_utf8_is_flagged(library: Path, tmp_path: Path, column: str) -> None:
    damage(library, f"UPDATE games SET {column} = CAST(x'ff' AS TEXT) WHERE key = 2")
    results = run_readers(library, tmp_path)
    listing = results["games"]
    assert listing.exit_code == 1 and "(damaged row)" in listing.stdout  # type: ignore[attr-defined]
    importing = we("import", "--from-db", library, "--db", tmp_path / "copy.db")
    one_line_no_traceback(importing, "import --from-db")


@pytest.mark.parametrize(
    ("script", "why"),
    [
        ("ALTER TABLE games DROP COLUMN winner", "the games table has no column winner"),
        # The search triggers name `players`: a hostile edit drops them first.
        (
            "DROP TRIGGER games_ai; DROP TRIGGER games_ad; DROP TRIGGER games_au; DROP TABLE games_fts;"
            " ALTER TABLE games DROP COLUMN players",
            "the games table has no column players",
        ),
        ("DROP VIEW envelopes; ALTER TABLE events DROP COLUMN data", "the events table has no column data"),
        ("DROP VIEW envelopes; ALTER TABLE events DROP COLUMN at", "the events table has no column at"),
    ],
)
def test_a_library_missing_a_column_is_not_a_game_library(
    library: Path, tmp_path: Path, script: str, why: str
) -> None:
    damage(library, script)
    for command in READERS:
        args = [str(tmp_path / "out.jsonl") if a == "OUT" else a for a in command]
        result = we(*args, "--db", library)
        errors = one_line_no_traceback(result, command)
        assert errors == [f"we: error: {library}: not a game library ({why})"], command
    importing = we("import", "--from-db", library, "--db", tmp_path / "copy.db")
    assert importing.stderr == f"we: error: {library}: not a game library ({why})\n"
    assert not (tmp_path / "copy.db").exists()


def test_a_games_key_out_of_range_is_one_line_for_that_game(library: Path, tmp_path: Path) -> None:
    damage(library, "UPDATE games SET key = key + 9223372036854775000 WHERE id = 'vector-one'")
    results = run_readers(library, tmp_path)
    for command in ("audit vector-one", "score vector-one", "replay vector-one", "export vector-one"):
        assert results[command].exit_code == 1  # type: ignore[attr-defined]
        assert "the library's row of this game is damaged (key" in said(results[command])
    assert "failed the audit (see `we audit`): vector-one." in said(results["stats"])
    importing = we("import", "--from-db", library, "--db", tmp_path / "copy.db")
    one_line_no_traceback(importing, "import --from-db")
    assert "imported game 'vector-two'" in importing.stdout


def flipped(source: Path, target: Path, seed: int, flips: int = 40) -> None:
    data = bytearray(source.read_bytes())
    rng = random.Random(seed)
    for _ in range(flips):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    target.write_bytes(bytes(data))


def test_a_library_damaged_on_disk_is_one_line_naming_the_file(library: Path, tmp_path: Path) -> None:
    named = 0
    for seed in range(40):
        db = tmp_path / f"flipped-{seed}.db"
        flipped(library, db, seed)
        for command in (["stats"], ["audit", "--json", "vector-one", "vector-two"], ["games"]):
            result = we(*command, "--db", db)
            # An audit of two games may fail on each: one line per game.
            most = 2 if command[0] == "audit" else 1
            for error in one_line_no_traceback(result, (seed, command), most):
                assert str(db) in error, (seed, command, error)
                named += "damaged" in error
            if command[0] == "audit":
                assert result.stderr.count(str(db)) <= 2  # at most one line per game
    assert named  # some flips hit pages SQLite finds malformed


def test_import_from_a_damaged_library_says_the_read_failed(library: Path, tmp_path: Path) -> None:
    seen = False
    for seed in range(60):
        source = tmp_path / "source.db"
        flipped(library, source, seed)
        target = tmp_path / "target.db"
        target.unlink(missing_ok=True)
        result = we("import", "--from-db", source, "--db", target)
        assert "Traceback" not in said(result) and result.exit_code in (0, 1), said(result)
        assert "write failed" not in said(result), (seed, said(result))
        seen = seen or f"{source}: cannot read the game library: the file is damaged" in result.stderr
    assert seen


# --- read-only commands write nothing ---------------------------------------------------------


def listing(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_an_empty_file_is_left_empty_by_readers(tmp_path: Path) -> None:
    empty = tmp_path / "e.db"
    empty.touch()
    before = listing(tmp_path)
    for command in (["games"], ["stats"], ["stats", "--fairness"], ["audit", "some-game"], ["export", "x"]):
        result = we(*command, "--db", empty)
        one_line_no_traceback(result, command)
        assert "no library at" in said(result) or "not a game id in the library" in said(result), said(result)
    assert listing(tmp_path) == before
    assert empty.stat().st_size == 0


def test_import_of_missing_files_creates_no_library(tmp_path: Path) -> None:
    new = tmp_path / "new.db"
    result = we("import", tmp_path / "missing.jsonl", tmp_path / "gone.jsonl", "--db", new)
    assert result.exit_code == 1 and result.stderr.count("no such file") == 2
    assert not new.exists() and sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_foreign_wal_database_is_left_as_it_was(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO notes (body) VALUES ('mine')")
    conn.commit()
    conn.close()
    before = listing(tmp_path)
    assert list(before) == ["other.db"]
    for command in (["games"], ["stats"], ["audit", "some-game"], ["import", ONE]):
        result = we(*command, "--db", other)
        assert result.exit_code == 1 and "not a game library" in result.stderr, (command, result.stderr)
    result = we("import", "--from-db", other, "--db", tmp_path / "mine.db")
    assert result.exit_code == 1 and "not a game library" in result.stderr
    assert listing(tmp_path) == before  # no -wal, no -shm, and not mine.db


# --- PostgreSQL URLs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:secret@[::1",
        "postgresql://u:secret@[::1/db?password=secret",
        "postgres://u:sec%ret@127.0.0.1:1/db",
        "postgresql://u:secret@127.0.0.1:abc/db",
        "postgresql://[",
    ],
)
def test_a_malformed_postgresql_url_is_one_line_without_its_password(url: str) -> None:
    for command in (["games"], ["stats"], ["audit", "some-game"], ["import", ONE]):
        result = we(*command, "--db", url)
        errors = one_line_no_traceback(result, command)
        assert result.exit_code in (1, 2) and len(errors) == 1, (command, said(result))
        assert "secret" not in said(result) and "sec%ret" not in said(result), said(result)


# --- the games row's summary is held against the events ---------------------------------------


def _audit_json(game: str, db: object) -> dict[str, object]:
    result = we("audit", "--json", game, "--db", db)
    return {"exit": result.exit_code, **json.loads(result.stdout)}


def _games_row_lies(db: object, run_sql) -> None:  # type: ignore[no-untyped-def]
    before = _audit_json("vector-one", db)
    assert before["exit"] == 0 and before["ok"], before
    run_sql("UPDATE games SET winner = 'Maria' WHERE id = 'vector-one'")
    assert "Maria" in we("games", "--db", db).stdout  # the listing shows the cache
    after = _audit_json("vector-one", db)
    assert after["exit"] == 1 and not after["ok"]
    assert after["problems"] == [
        {
            "seq": 13,
            "kind": "integrity",
            "message": "the library's summary says the winner is Maria; the events say Cat",
        }
    ]
    run_sql("UPDATE games SET winner = 'Cat', events = 12, players = '[\"Ann\"]' WHERE id = 'vector-one'")
    messages = [p["message"] for p in _audit_json("vector-one", db)["problems"]]  # type: ignore[attr-defined]
    assert messages == [
        "the library's summary says the game has 12 events; it has 13",
        "the library's summary says the players are Ann; the events say Zoë, Ben, Cat",
    ]
    # A game not summarised (as `we serve` leaves one) claims nothing, so is not held against it.
    run_sql(
        "UPDATE games SET winner = NULL, complete = 0, events = 13, players = NULL WHERE id = 'vector-one'"
    )
    assert _audit_json("vector-one", db)["exit"] == 0


def test_audit_holds_the_games_row_against_the_events(library: Path) -> None:
    _games_row_lies(library, lambda sql: damage(library, sql))


def test_audit_holds_the_postgresql_games_row_against_the_events(pg_url: str) -> None:
    import psycopg

    def run_sql(sql: str) -> None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(sql.replace("complete = 0", "complete = false"))  # type: ignore[arg-type]

    assert we("import", "--db", pg_url, ONE, FOUR).exit_code == 0
    _games_row_lies(pg_url, run_sql)
