"""The SQLite library: location, schema, summaries, import and export."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from eventstore.errors import (
    ConcurrencyError,
    LibraryBusyError,
    LogIntegrityError,
    StoreError,
)
from eventstore.integrity import VerifyResult, verify_log, verify_objects
from eventstore.sqlite import Library, default_db_path
from eventstore.sqlite_schema import APPLICATION_ID, SCHEMA_VERSION, table_names

from .helpers import FIRST, VECTORS, events, split_lines

pytestmark = pytest.mark.usefixtures("frozen")


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib" / "games.db")
    yield lib
    lib.close()


def test_default_db_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WE_DB", str(tmp_path / "mine.db"))
    assert default_db_path() == tmp_path / "mine.db"
    monkeypatch.delenv("WE_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "we" / "games.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "we" / "games.db"
    assert not (tmp_path / "home").exists()  # created on first use, not on asking
    Library().close()
    assert (tmp_path / "home" / ".local" / "share" / "we" / "games.db").is_file()


def test_schema_and_settings(library: Library) -> None:
    conn = library.conn
    games = {row[1]: row[5] for row in conn.execute("PRAGMA table_info(games)")}
    assert games == {"key": 1, "id": 0, "title": 0, "players": 0, "started_at": 0, "last_at": 0,
                     "events": 0, "head_hash": 0, "complete": 0, "winner": 0, "notes": 0}  # fmt: skip
    cols = {row[1]: (row[2], row[5]) for row in conn.execute("PRAGMA table_info(events)")}
    assert set(cols) == {"id", "game", "type", "data", "at", "prev", "hash"}
    fks = [(fk[2], fk[3], fk[4]) for fk in conn.execute("PRAGMA foreign_key_list(events)")]
    assert fks == [("games", "game", "key")]
    assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    assert cols["id"] == ("INTEGER", 1)  # the rowid itself: rows are stored in id order
    view = [row[1] for row in conn.execute("PRAGMA table_info(envelopes)")]
    assert view == ["game", "seq", "type", "data", "at", "prev", "hash"]
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000


def test_data_is_stored_as_compact_json_in_the_order_written(library: Library) -> None:
    """Compact, UTF-8, its keys as written (decisions.md: a log as `we` writes it comes back
    from its rows byte for byte); the hash is over the canonical form either way."""
    library.log("g").create(("game_started", {"b": 1, "a": {"d": "李", "c": 2}}), "g")
    (data,) = library.conn.execute("SELECT data FROM events").fetchone()
    assert data == '{"b":1,"a":{"d":"李","c":2}}'
    assert library.log("g").verify().ok


def test_a_gap_in_the_rows_is_found(library: Library) -> None:
    log = library.log("g")
    log.create(FIRST, "g")
    log.append(events(4), expected_seq=1)
    library.conn.execute("DELETE FROM events WHERE id = (SELECT key FROM games WHERE id = 'g') << 32 | 3")
    problems = log.verify().problems
    assert problems[0].line == 3 and "`seq` is 4, expected 3" in problems[0].message
    assert sum(1 for _ in log.read_unchecked()) == 4
    assert next(ll.line for ll in log.iter_lines() if ll.problems) == 3


def test_unreadable_data_column_is_found(library: Library) -> None:
    log = library.log("g")
    log.create(FIRST, "g")
    library.conn.execute("UPDATE events SET data = '{oops'")
    assert "`data` must be an object" in log.verify().problems[0].message


# --- import and export ------------------------------------------------------------------------


def test_library_file_is_plain_sqlite(library: Library, tmp_path: Path) -> None:
    library.import_log(VECTORS / "one-party.jsonl")
    library.import_log(VECTORS / "four-players-dealt.jsonl")
    library.export("vector-one", tmp_path / "out.jsonl")
    exported = [json.loads(line) for line in split_lines((tmp_path / "out.jsonl").read_bytes())]
    with sqlite3.connect(library.path) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM envelopes WHERE game = 'vector-one' ORDER BY seq").fetchall()
    # Another program sees each event with its game and seq, as the log has them.
    assert [{**dict(row), "data": json.loads(row["data"]), "v": 1} for row in rows] == exported
    with sqlite3.connect(library.path) as conn:
        plan = conn.execute("EXPLAIN QUERY PLAN SELECT * FROM envelopes WHERE game = 'x'").fetchall()
    # One game is a range of row ids, not a scan of every event in the library.
    assert any("SEARCH events USING INTEGER PRIMARY KEY (rowid>" in step[3] for step in plan), plan


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    path.write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(StoreError, match="cannot open the game library"):
        Library(path)


def test_busy_library_is_a_store_error(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    library.log("g").create(FIRST, "g")
    monkeypatch.setenv("WE_LOCK_WAIT", "0.1")  # not the 30 s wait, for the test's sake
    impatient = Library(library.path)
    other = Library(library.path)
    other.conn.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        with pytest.raises(LibraryBusyError, match=r"kept the game library locked for 0\.1 s"):
            impatient.log("g").append(events(1), expected_seq=1)
        with pytest.raises(LibraryBusyError), impatient.batch():
            impatient.log("g").append(events(1), expected_seq=1)
    finally:
        other.conn.execute("ROLLBACK")
        other.close()
    assert library.log("g").head()[0] == 1
    with impatient.batch():  # the lock is free again: the same batch goes through
        impatient.log("g").append(events(1), expected_seq=1)
    impatient.close()
    assert library.log("g").head()[0] == 2


def count_events(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def test_batch_shares_one_transaction(library: Library) -> None:
    with library.batch():
        library.log("a").create(FIRST, "a")
        library.log("a").append(events(3), expected_seq=1)
        with pytest.raises(ConcurrencyError):  # a failed write undoes itself only
            library.log("a").append(events(2), expected_seq=1)
        library.import_log(VECTORS / "one-party.jsonl")
        library.set_summary("a", complete=True, winner="Ann")
        assert library.log("a").head()[0] == 4  # visible inside the batch
        assert count_events(library.path) == 0  # but not committed yet
    assert count_events(library.path) == 4 + 13
    assert library.log("a").verify().ok
    assert next(g for g in library.games() if g["id"] == "a")["winner"] == "Ann"


def test_batch_commits_as_it_goes(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("eventstore.sqlite._COMMIT_EVERY", 10)
    with library.batch():
        library.import_log(VECTORS / "one-party.jsonl")  # 13 events and a game row
        assert count_events(library.path) == 13  # committed: past the threshold
        library.log("b").create(FIRST, "b")
        assert count_events(library.path) == 13
    assert count_events(library.path) == 14


def test_a_new_library_uses_16k_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    with Library(tmp_path / "new.db") as library:
        assert library.conn.execute("PRAGMA page_size").fetchone() == (16384,)
        assert library.conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    small_pages = tmp_path / "small-pages.db"
    conn = sqlite3.connect(small_pages)
    conn.execute("PRAGMA page_size = 4096")
    with sqlite3.connect(old_library(tmp_path)) as schema_1:
        conn.executescript("\n".join(schema_1.iterdump()))
    conn.close()
    with Library(small_pages) as library:
        assert library.conn.execute("PRAGMA page_size").fetchone() == (4096,)
        assert library.log("vector-one").verify().ok


# --- the layout, and libraries of the first one ------------------------------------------------

# A library written by `we` before schema 2 (two vectors imported, one game made in it).
SCHEMA_1 = Path(__file__).parent / "data" / "schema-1.db"


def raw_library(path: Path) -> dict[str, object]:
    """Everything a library holds, read with plain SQLite, in a form both layouts share."""
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        events = "envelopes" if "envelopes" in tables else "events"
        return {
            "version": conn.execute("PRAGMA user_version").fetchone()[0],
            "tables": tables,
            # Schema 3's notes are the words of a game's notes, for search: not in the old layouts.
            "games": [
                dict(row) | {"key": None, "notes": None}
                for row in conn.execute("SELECT * FROM games ORDER BY id")
            ],
            "events": [
                tuple(row[k] for k in ("game", "seq", "type", "data", "at", "prev", "hash"))
                for row in conn.execute(f"SELECT * FROM {events} ORDER BY game, seq")
            ],
        }


def test_a_schema_1_library_is_upgraded_in_place_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    path.write_bytes(SCHEMA_1.read_bytes())
    before = raw_library(path)
    assert before["version"] == 0 and len(before["events"]) == 13 + 87 + 2

    with Library(path) as library:
        for game, name in (("vector-one", "one-party.jsonl"), ("vector-two", "four-players-dealt.jsonl")):
            assert library.log(game).verify().fingerprint == verify_log(VECTORS / name).fingerprint
        library.log("night-2").append(events(1), expected_seq=2)  # and it is writable
        library.export("vector-one", tmp_path / "out.jsonl")
    exported = [json.loads(line) for line in split_lines((tmp_path / "out.jsonl").read_bytes())]
    assert exported == [json.loads(line) for line in split_lines((VECTORS / "one-party.jsonl").read_bytes())]

    after = raw_library(path)
    assert after["version"] == SCHEMA_VERSION
    assert {"games", "events", "envelopes", "games_fts", "we_library"} <= after["tables"]
    night_2, *vectors = after["games"]
    assert (night_2["id"], night_2["events"]) == ("night-2", 3)
    old_head = {"events": 2, "last_at": "2025-12-20T19:01:00Z", "head_hash": before["events"][1][6]}
    assert [{**night_2, **old_head}, *vectors] == before["games"]
    assert after["events"][:2] == before["events"][:2]  # night-2's two old events
    assert after["events"][3:] == before["events"][2:]  # the vectors' events, every column
    with Library(path) as library:  # already upgraded: opening again changes nothing
        assert library.conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert raw_library(path) == after


def old_library(tmp_path: Path, *edits: str) -> Path:
    """A copy of the schema-1 library, edited by hand with `edits` (SQL)."""
    path = tmp_path / "old.db"
    path.write_bytes(SCHEMA_1.read_bytes())
    with sqlite3.connect(path) as conn:
        for sql in edits:
            conn.execute(sql)
    return path


ODD_ROWS = (
    "INSERT INTO events VALUES ('ghost', 1, 'note', '{}', '2025-01-01T00:00:00Z', NULL, 'h')",
    "UPDATE events SET seq = 0 WHERE game = 'vector-one' AND seq = 13",
    "UPDATE events SET seq = 4294967296 WHERE game = 'vector-one' AND seq = 12",
    "UPDATE events SET seq = 'x' WHERE game = 'vector-one' AND seq = 11",
    "UPDATE events SET seq = 4294967295 WHERE game = 'vector-two' AND seq = 87",
    "INSERT INTO games (id, started_at, last_at, events, head_hash) VALUES (NULL, 'a', 'b', 0, 'h')",
)


def schema_1_reading(before: dict, game: str) -> VerifyResult:
    """What reading `game` from the schema-1 library found: its rows in the old key order."""
    return verify_objects(
        {"v": 1, "game": g, "seq": seq, "at": at, "type": t, "data": json.loads(d), "prev": prev, "hash": h}
        for g, seq, t, d, at, prev, h in before["events"]
        if g == game
    )


def test_rows_edited_out_of_place_are_set_aside_and_the_rest_upgraded(tmp_path: Path) -> None:
    path = old_library(tmp_path, *ODD_ROWS)
    before = raw_library(path)
    told: list[str] = []
    with Library(path, on_upgrade=told.append) as library:
        assert told == library.upgrade_notes
        assert told[1:] == [
            f"1 game row of {path} had no place in the new layout (edited by hand); kept as they "
            "were in the table games_unplaced",
            f"3 event rows of {path} (games 'ghost', 'vector-one') had no place in the new layout "
            "(edited by hand); kept as they were in the table events_unplaced",
        ]
        # A game's set-aside rows are read in their old places: its audit finds what it found.
        for game in ("vector-one", "vector-two"):
            assert library.log(game).verify() == schema_1_reading(before, game)
        assert library.log("vector-one").verify().problems[0].message.startswith("`seq` is 0, expected 1")
        with sqlite3.connect(path) as conn:
            aside = conn.execute("SELECT * FROM events_unplaced ORDER BY game, seq").fetchall()
            games_aside = conn.execute("SELECT id, head_hash FROM games_unplaced").fetchall()
    assert [row[:2] for row in aside] == [("ghost", 1), ("vector-one", 4294967296), ("vector-one", "x")]
    old_rows = {row[:2]: row for row in before["events"]}
    assert all(old_rows[row[:2]] == row for row in aside)  # every column as it was
    assert games_aside == [(None, "h")]
    after = raw_library(path)
    assert len(after["events"]) + len(aside) == len(before["events"])


def test_a_seq_0_row_is_seen_and_reported(library: Library) -> None:
    log = library.log("g")
    log.create(FIRST, "g")
    log.append(events(2), expected_seq=1)
    (key,) = library.conn.execute("SELECT key FROM games WHERE id = 'g'").fetchone()
    library.conn.execute("UPDATE events SET id = ? WHERE id = ?", (key << 32, (key << 32) + 1))
    problems = log.verify().problems
    assert problems[0].line == 1 and "`seq` is 0, expected 1" in problems[0].message


def test_games_next_to_each_other_never_see_each_others_rows(library: Library) -> None:
    for game in ("a", "b", "c"):
        log = library.log(game)
        log.create(FIRST, game)
        log.append(events(2), expected_seq=1)
    keys = dict(library.conn.execute("SELECT id, key FROM games"))
    # b's rows at the very ends of its range: seq 0 and seq 2**32 - 1
    base = keys["b"] << 32
    library.conn.execute("UPDATE events SET id = ? WHERE id = ?", (base, base + 1))
    library.conn.execute("UPDATE events SET id = ? WHERE id = ?", (base + (1 << 32) - 1, base + 3))
    assert [e.seq for e in library.log("a").read()] == [1, 2, 3]
    assert [e.seq for e in library.log("c").read()] == [1, 2, 3]
    assert [e.seq for e in library.log("b").read_unchecked()] == [0, 2, 4294967295]
    assert library.log("a").head()[0] == 3
    with pytest.raises(LogIntegrityError):  # b's head is the row at the end of its range
        library.log("b").head()
    view = library.conn.execute("SELECT game, seq FROM envelopes ORDER BY game, seq").fetchall()
    assert view == [("a", 1), ("a", 2), ("a", 3), ("b", 0), ("b", 2), ("b", 4294967295),
                    ("c", 1), ("c", 2), ("c", 3)]  # fmt: skip


def test_an_upgrade_that_fails_half_way_changes_nothing(tmp_path: Path) -> None:
    path = old_library(tmp_path, *ODD_ROWS)
    before = raw_library(path)
    told: list[str] = []

    def interrupted(message: str) -> None:
        told.append(message)
        if len(told) == 2:  # after the copies, when the first rows are set aside
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Library(path, on_upgrade=interrupted)
    assert raw_library(path) == before
    with Library(path) as library:  # and the next open upgrades it
        assert len(library.upgrade_notes) == 3


def test_two_processes_opening_an_old_library_upgrade_it_once(tmp_path: Path) -> None:
    path = old_library(tmp_path)
    before = raw_library(path)
    notes: list[list[str]] = []

    def open_it() -> None:
        with Library(path) as library:
            notes.append(library.upgrade_notes)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(len(n) for n in notes) == [0, 0, 0, 1]
    assert len(raw_library(path)["events"]) == len(before["events"])


def test_a_library_restored_from_a_dump_is_recognised(tmp_path: Path) -> None:
    with Library(tmp_path / "games.db") as library:
        library.import_log(VECTORS / "one-party.jsonl")
        # Python's iterdump cannot write the full-text index back (a virtual table): the
        # tables alone, then, as `sqlite3 .dump TABLE...` gives them.
        dump = [line for line in library.conn.iterdump() if "games_fts" not in line]
    restored = sqlite3.connect(tmp_path / "restored.db")
    restored.executescript("\n".join(dump))  # a dump carries no PRAGMA user_version or application_id
    restored.close()
    with Library(tmp_path / "restored.db") as library:
        assert library.upgrade_notes == []
        assert library.log("vector-one").verify().ok
        assert [game["id"] for game in library.search("vector")] == ["vector-one"]
        assert library.conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


@pytest.mark.parametrize(
    "tables",
    [
        ["CREATE TABLE users (name TEXT)"],
        ["CREATE TABLE events (what TEXT, happened_at TEXT)"],
        ["CREATE TABLE games (id TEXT)", "CREATE TABLE events (game TEXT, seq INTEGER)"],
    ],
)
def test_a_database_of_other_tables_is_not_taken_for_a_library(tmp_path: Path, tables: list[str]) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        for sql in tables:
            conn.execute(sql)
        conn.execute("PRAGMA user_version = 0")
    before = raw_schema(path)
    with pytest.raises(StoreError, match="not a game library"):
        Library(path)
    assert raw_schema(path) == before  # its tables and user_version left alone


def raw_schema(path: Path) -> tuple[object, ...]:
    with sqlite3.connect(path) as conn:
        return (
            conn.execute("PRAGMA user_version").fetchone(),
            conn.execute("SELECT * FROM sqlite_master").fetchall(),
        )


def test_an_upgrade_keeps_an_old_table_with_columns_of_the_users_own(tmp_path: Path) -> None:
    path = old_library(tmp_path, "ALTER TABLE events ADD COLUMN comment TEXT",
                       "UPDATE events SET comment = 'mine' WHERE seq = 2")  # fmt: skip
    with Library(path) as library:
        assert library.upgrade_notes[-1] == (
            f"the old table events_schema_1 of {path} is kept: it has columns of your own (comment) "
            "that the new layout does not"
        )
        assert library.log("vector-one").verify().ok
        kept = library.conn.execute("SELECT count(*) FROM events_schema_1 WHERE comment = 'mine'").fetchone()
        assert kept == (3,)
        tables = table_names(library.conn)
    assert "games_schema_1" not in tables and "events_schema_1" in tables


def test_an_upgrade_that_needs_a_name_the_user_took_changes_nothing(tmp_path: Path) -> None:
    path = old_library(tmp_path, "CREATE VIEW envelopes AS SELECT * FROM events")
    before = raw_library(path)
    with pytest.raises(StoreError, match="its own envelopes, a name the new layout needs"):
        Library(path)
    assert raw_library(path) == before


def test_a_dump_of_the_tables_alone_gets_its_view_back(tmp_path: Path) -> None:
    with Library(tmp_path / "games.db") as library:
        library.import_log(VECTORS / "one-party.jsonl")
        library.conn.execute("DROP VIEW envelopes")
        library.conn.execute("PRAGMA user_version = 0")
    with Library(tmp_path / "games.db") as library:
        assert library.upgrade_notes == []
        count = library.conn.execute("SELECT count(*) FROM envelopes WHERE game = 'vector-one'").fetchone()
    assert count == (13,)


def test_a_games_key_is_never_given_twice(library: Library) -> None:
    for game in ("g1", "g2", "g3"):
        library.log(game).create(FIRST, game)
    library.conn.execute("DELETE FROM games WHERE id = 'g3'")  # by hand, its event left behind
    result = library.import_log(VECTORS / "one-party.jsonl")
    assert result.status == "imported"
    assert library.log("vector-one").verify().events == 13


def test_a_library_from_a_newer_we_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    Library(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match=f"schema {SCHEMA_VERSION + 1}, from a newer version of we"):
        Library(path)


def test_a_game_cannot_outgrow_its_range_of_row_ids(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real limit is 2**32 - 1 events; a small one stands in for it.
    for module in ("sqlite", "sqlite_schema"):
        monkeypatch.setattr(f"eventstore.{module}.SEQ_LIMIT", 13)
    with pytest.raises(StoreError, match="holds at most 12 events"):
        library.import_log(VECTORS / "one-party.jsonl")
    lines = [json.loads(line) for line in split_lines((VECTORS / "one-party.jsonl").read_bytes())]
    with pytest.raises(StoreError, match="holds at most 12 events"):
        library.import_verified(lines, "one-party.jsonl")  # what `we import` uses
    assert not library.has_game("vector-one")
    assert library.import_verified(lines[:12], "first-12").events == 12  # the limit itself fits
    log = library.log("g")
    log.create(FIRST, "g")
    log.append(events(11), expected_seq=1)
    with pytest.raises(StoreError, match="holds at most 12 events"):
        log.append(events(1), expected_seq=12)
    assert log.head()[0] == 12


def test_the_users_own_objects_on_the_old_tables_are_named(tmp_path: Path) -> None:
    path = old_library(
        tmp_path,
        "CREATE VIEW per_game AS SELECT game, count(*) AS n FROM events GROUP BY game",
        "CREATE INDEX by_type ON events (type)",
        "CREATE TABLE notes (game TEXT REFERENCES games(id), text TEXT)",
    )
    with Library(path) as library:
        assert library.upgrade_notes[-1].startswith(
            f"your own indexes, triggers and views in {path} were made for the old layout (by_type, per_game)"
        )
        sql = dict(library.conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))
    assert "by_type" not in sql  # gone with the old table
    assert "FROM events GROUP BY game" in sql["per_game"]  # still names `events`, not a dropped table
    assert "REFERENCES games(id)" in sql["notes"]  # and their foreign keys still name `games`


def test_a_batch_writes_with_a_bigger_page_cache_and_gives_it_back(library: Library) -> None:
    cache_size = library.conn.execute("PRAGMA cache_size").fetchone()[0]
    with library.batch():
        assert library.conn.execute("PRAGMA cache_size").fetchone()[0] == -16_384
    assert library.conn.execute("PRAGMA cache_size").fetchone()[0] == cache_size
    with pytest.raises(KeyboardInterrupt), library.batch():
        raise KeyboardInterrupt
    assert library.conn.execute("PRAGMA cache_size").fetchone()[0] == cache_size
