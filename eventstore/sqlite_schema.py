"""The SQLite library's layout: its tables, how a game's events are rows, and the upgrades of
libraries of older layouts.

A game is a row of `games` with an integer `key`; its events are rows of `events` whose
integer primary key is `key * 2**32 + seq`, so a game's events lie together in one range of the
table and an import appends at its end (SQLite's cheapest insert), and whose `game` is that key
(a foreign key to `games`, for other tools to see the relation). An event row holds the
envelope fields (`v` is always 1 and not stored; `game` and `seq` are in the key), with `data`
as compact JSON text in the key order it was written, so any game exports to a JSONL file with
the very same hashes and fingerprint, and a log as `we` writes it to the very same bytes.
`games.notes` holds the words of a game's notes, and `games_fts` (SQLite full-text search, kept
up by triggers) its title, players and notes, for `we games --search`. The view `envelopes`
shows every event with its `game` and `seq` as columns, for other programs.
`event_lines` keeps, by the same row id, each imported line that is not what its row would be
written as (spaces, another key order), so that an export gives the file back byte for byte
(eventstore.as_written).

The layout is made and upgraded with sqlite-utils (imported only then): a library is marked as
one by PRAGMA application_id, and nothing is written to a file that is not known to be one.
Libraries of older layouts (schema 1: events keyed by the text pair (game, seq); schema 2:
without the marker, `events.game`, notes or search; schema 3: without `event_lines`) are
upgraded in place, in one transaction, by the first command that writes to them (`lay_out`);
commands that only read read schemas 2 and 3 as they are.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import orjson

from eventstore.envelope import FORMAT_VERSION
from eventstore.errors import StoreError
from eventstore.limits import RepeatedKeyRow, beyond_orjson, repeated_key_in

# PRAGMA user_version of the layout this module writes; 0 is a new file or schema 1.
SCHEMA_VERSION = 4
# PRAGMA application_id of a game library ("weLb"): what marks a SQLite file as one.
APPLICATION_ID = 0x7765_4C62
# The table that marks a library too, and says its layout's version.
MARKER = "we_library"
# The layout before the marker, which commands that only read still read as it is.
_SCHEMA_2 = 2
# The layout before `event_lines`, read as it is too.
_SCHEMA_3 = 3
# The lines kept as written (?1: the game's base row id, ?2 its end).
SELECT_KEPT_LINES = "SELECT id - ?1, CAST(line AS BLOB) FROM event_lines WHERE id >= ?1 AND id < ?2"
KEEP_LINE = "INSERT OR REPLACE INTO event_lines (id, line) VALUES (?, ?)"
# A library game sealed into a season ledger by its id: which ledger (its absolute path), its
# line, and the sealed head. Every writer of the library's games refuses to extend it.
SEAL_FIELDS: dict[str, Any] = {
    "game": str, "ledger": str, "line": int, "events": int, "hash": str, "fingerprint": str,
}  # fmt: skip
# An event's row id is its game's key shifted by this, plus its seq.
_SEQ_BITS = 32
SEQ_LIMIT = 1 << _SEQ_BITS  # seq must stay below it, or it would reach the next game's range
EVENT_COLUMNS = "id, type, data, at, prev, hash"
INSERT_EVENT = f"INSERT INTO events (game, {EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
# Rows as (seq, type, data, at, prev, hash), given the game's base row id and its end. From
# the base on: a row at seq 0 can only be a hand edit, and the checks report it.
ROW_VALUES = "type, data, at, prev, hash"
_SELECT_ROWS = f"SELECT id - ?1, {ROW_VALUES} FROM events WHERE id >= ?1 AND id < ?2"
SELECT_EVENTS = f"{_SELECT_ROWS} ORDER BY id"
# A games key past this would put its events' row ids beyond SQLite's 64-bit integers: only a
# row edited by hand (or damaged) has one.
KEY_LIMIT = (1 << (63 - _SEQ_BITS)) - 1
GAME_COLUMNS = "id, title, players, started_at, last_at, events, head_hash, complete, winner"
# The columns each table must have for we to read it; a library missing one is damaged.
REQUIRED_COLUMNS = {
    "games": ("key", *GAME_COLUMNS.split(", ")),
    "events": ("id", "type", "data", "at", "prev", "hash"),
}
SELECT_HEAD = f"{_SELECT_ROWS} ORDER BY id DESC LIMIT 1"
# With the rows an upgrade set aside (?3: the game id), in schema 1's order of seq.
SELECT_EVENTS_AND_UNPLACED = (
    f"{_SELECT_ROWS} UNION ALL"
    " SELECT seq, type, data, at, prev, hash FROM events_unplaced WHERE game = ?3 ORDER BY 1"
)
# Schema 2, which the upgrade of schema 1 still lays out before it goes on to schema 3.
_SCHEMA = (
    "CREATE TABLE games ("
    " key INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, title TEXT, players TEXT,"
    " started_at TEXT NOT NULL, last_at TEXT NOT NULL, events INTEGER NOT NULL,"
    " head_hash TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0, winner TEXT)",
    "CREATE TABLE events ("
    " id INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL,"
    " prev TEXT, hash TEXT NOT NULL)",
    "CREATE VIEW envelopes AS"
    " SELECT games.id AS game, events.id - (games.key << 32) AS seq, events.type, events.data,"
    " events.at, events.prev, events.hash"
    " FROM games JOIN events ON events.id >= games.key << 32 AND events.id < (games.key + 1) << 32",
)
# By the row ids' ranges, as we reads a game, not by `events.game`: a row added by hand without
# it is still shown where we reads it.
_ENVELOPES = _SCHEMA[-1].removeprefix("CREATE VIEW envelopes AS ")
_GAMES_FIELDS: dict[str, Any] = {
    "key": int, "id": str, "title": str, "players": str, "started_at": str, "last_at": str,
    "events": int, "head_hash": str, "complete": int, "winner": str, "notes": str,
}  # fmt: skip
_EVENTS_FIELDS: dict[str, Any] = {
    "id": int, "game": int, "type": str, "data": str, "at": str, "prev": str, "hash": str,
}  # fmt: skip
# What search looks in: a word of any of these finds the game.
SEARCHED = ("title", "players", "notes")
_SCHEMA_1_GAMES = set(GAME_COLUMNS.split(", "))
_SCHEMA_2_GAMES = {"key", *_SCHEMA_1_GAMES}
_SCHEMA_2_EVENTS = set(EVENT_COLUMNS.split(", "))
_SCHEMA_1_EVENTS = {"game", "seq", "type", "data", "at", "prev", "hash"}
# Names the upgrade creates besides games and events.
_UPGRADE_NAMES = {"envelopes", "events_schema_1", "games_schema_1", "events_unplaced", "games_unplaced"}


def table_names(conn: sqlite3.Connection) -> set[str]:
    """The database's own tables (not SQLite's internal ones)."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    return {name for (name,) in rows}


def missing_columns(conn: sqlite3.Connection) -> str | None:
    """Why a library of this layout cannot be read, if a column we reads is gone (dropped by
    hand): "no column winner in the games table"; None when every one is there."""
    for table, needed in REQUIRED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if gone := [name for name in needed if name not in have]:
            plural = "s" if len(gone) > 1 else ""
            return f"not a game library (the {table} table has no column{plural} {', '.join(gone)})"
    return None


def as_bytes_where_text(sql: str, columns: str) -> str:
    """`sql` with each of `columns` (as they are written in it, "a, b, c") read as bytes, and
    after it whether it was TEXT: for rows whose TEXT is not UTF-8, which the driver cannot
    decode (`decoded` turns such a row back)."""
    tolerant = ", ".join(
        f"CASE typeof({c}) WHEN 'text' THEN CAST({c} AS BLOB) ELSE {c} END, typeof({c}) = 'text'"
        for c in columns.split(", ")
    )
    assert columns in sql
    return sql.replace(columns, tolerant)


def decoded(row: Sequence[Any], plain: int = 0) -> tuple[Any, ...]:
    """A row of `as_bytes_where_text`'s query (after `plain` columns read as they are) as the
    driver would give it, except that TEXT which is not UTF-8 stays bytes: a value that is
    not what we writes, for the checks and listings to flag."""
    values = list(row[:plain])
    for i in range(plain, len(row), 2):
        value, was_text = row[i], row[i + 1]
        if was_text:
            with suppress(UnicodeDecodeError):
                value = value.decode()
        values.append(value)
    return tuple(values)


def game_base(key: int) -> int:
    """The row id of a game's seq 0, just before its first event."""
    return key << _SEQ_BITS


def event_row(base: int, obj: dict[str, Any]) -> tuple[Any, ...]:
    """An envelope (parsed) as the values of INSERT_EVENT, for the game whose base is `base`."""
    data = orjson.dumps(obj["data"]).decode()  # compact, in the key order it was written
    return (base >> _SEQ_BITS, base + obj["seq"], obj["type"], data, obj["at"], obj["prev"], obj["hash"])


def envelope_objs(
    game: str,
    rows: Iterable[Sequence[Any]],
    resume: Callable[[Exception, int], Iterable[Sequence[Any]]] | None = None,
) -> Iterator[dict[str, Any]]:
    """Stored rows as the parsed envelopes they came from, for the same checks as a file.

    `resume`, given the database's error while reading the rows and how many were read, gives
    the rows after those (read another way) or raises: the fast path pays nothing for it."""
    loads, bad_json = orjson.loads, orjson.JSONDecodeError
    n = -1
    try:
        for n, (seq, type_, data, at, prev, hash_) in enumerate(rows):  # noqa: B007
            try:
                parsed = loads(data)
            except bad_json as exc:
                # Reported by the checks as `data` of the wrong type, or beyond a limit.
                parsed = beyond_orjson(data, exc)
            else:
                if (repeated := repeated_key_in(data, parsed)) is not None:
                    # SQLite's JSON functions (and PostgreSQL's jsonb) read the last value,
                    # orjson another: the same problem as such a line of a file.
                    yield RepeatedKeyRow(_envelope(game, seq, at, type_, parsed, prev, hash_), repeated)
                    continue
            yield {
                "v": FORMAT_VERSION,
                "game": game,
                "seq": seq,
                "at": at,
                "type": type_,
                "data": parsed,
                "prev": prev,
                "hash": hash_,
            }
    except sqlite3.Error as exc:
        if resume is None:
            raise
        # Resumed rows that fail too go to `resume` again, which then raises.
        yield from envelope_objs(game, resume(exc, n + 1), resume)


def _envelope(game: str, seq: Any, at: Any, type_: Any, data: Any, prev: Any, hash_: Any) -> dict[str, Any]:
    return {
        "v": FORMAT_VERSION,
        "game": game,
        "seq": seq,
        "at": at,
        "type": type_,
        "data": data,
        "prev": prev,
        "hash": hash_,
    }


def too_long(where: str) -> StoreError:
    return StoreError(f"{where}: a game in the library holds at most {SEQ_LIMIT - 1:,} events")


def first_event_meta(data: dict[str, Any]) -> tuple[str | None, str | None]:
    # Plain envelope metadata for listing games; the store does not judge whether it is valid.
    title = data.get("title")
    players = data.get("players")
    return (
        title if isinstance(title, str) else None,
        orjson.dumps(players).decode() if isinstance(players, list) else None,
    )


def layout_of(conn: sqlite3.Connection) -> str:
    """What the database behind `conn` is, by reading alone (so someone else's file can be
    judged before anything is written to it): "library" (marked as one, this layout), "newer"
    (marked, by a newer we), "empty", "schema 2" or "schema 1" (a library of an older we,
    every table as we laid it out), or "foreign" (anything else: another program's file)."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    marked = _marked_schema(conn) if MARKER in names else None
    if app == APPLICATION_ID or (app == 0 and marked is not None):
        schema = version if app == APPLICATION_ID and version else marked
        if schema is None:
            return "foreign"
        if schema > SCHEMA_VERSION:
            return "newer"
        if schema == _SCHEMA_3:
            return "schema 3"
        if schema != SCHEMA_VERSION:
            return "foreign"
        # The marker table without the PRAGMAs: restored from `sqlite3 .dump`, which drops them.
        return "library" if app == APPLICATION_ID and version == SCHEMA_VERSION else "restored"
    if app != 0:
        return "foreign"
    if not names:
        return "foreign" if version else "empty"
    games = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    events = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    # Schema 2 with its version, or without it (restored from `sqlite3 .dump`, which drops it).
    if version in (0, _SCHEMA_2) and games == _SCHEMA_2_GAMES and events == _SCHEMA_2_EVENTS:
        return "schema 2"
    if version == 0 and games >= _SCHEMA_1_GAMES and events >= _SCHEMA_1_EVENTS and "key" not in games:
        return "schema 1"
    return "foreign"


def _marked_schema(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute(f"SELECT schema FROM {MARKER}").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row is not None and type(row[0]) is int else None


def refusal(conn: sqlite3.Connection, read_only: bool = False) -> str | None:
    """Why the database behind `conn` cannot be opened as a game library, or None if it can.
    Only reads. A command that only reads reads schema 2 as it is, and upgrades nothing."""
    layout = layout_of(conn)
    if layout == "foreign":
        return "not a game library (a SQLite database of another program: no mark of a we library)"
    if layout in ("library", "restored", "schema 3"):
        tables = table_names(conn)
        missing = [name for name in ("games", "events") if name not in tables]
        if missing:
            return f"not a game library (no {' or '.join(missing)} table)"
        return missing_columns(conn)
    if read_only and layout == "schema 1":
        return (
            "a game library of the first layout, which this we reads only once it is upgraded:"
            " a command that writes to it (`we import LOG --db ...`) upgrades it"
        )
    if read_only and layout == "empty":
        return "not a game library yet (an empty database)"
    return None


def game_summary(row: dict[str, Any]) -> dict[str, Any]:
    """A games row as listings show it. A value that is not what we writes (a row edited by
    hand or damaged) becomes None, and the row is marked `damaged`: listed, flagged, never a
    crash. The game's own events decide its audit, not this row."""
    damaged = False
    for key in ("id", "title", "started_at", "last_at", "head_hash", "winner"):
        if row[key] is not None and type(row[key]) is not str:
            row[key], damaged = None, True
    if type(row["events"]) is not int:
        row["events"], damaged = None, True
    players = row["players"]
    if players is not None:
        try:
            players = orjson.loads(players)
        except (orjson.JSONDecodeError, TypeError):
            players = None
        if type(players) is not list or not all(type(p) is str for p in players):
            players, damaged = None, True
    row["players"] = players
    if row["id"] is None or row["started_at"] is None:
        damaged = True
    row["complete"] = row["complete"] == 1
    row["damaged"] = damaged
    return row


def lay_out(conn: sqlite3.Connection, path: Path, tell: Callable[[str], None]) -> None:
    """Create the tables in a new library, or upgrade one of an older layout (inside the write
    lock, so two processes opening an old library at once upgrade it once)."""
    layout = layout_of(conn)
    if layout == "library":
        return
    if layout == "newer":
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        raise StoreError(
            f"{path}: this game library has schema {version}, from a newer version of "
            f"we; this one reads schema {SCHEMA_VERSION} (upgrade we to use it)"
        )
    if layout == "foreign":
        # Someone else's database: leave it, and its user_version, alone.
        raise StoreError(f"{path}: not a game library (a SQLite database of another program)")
    db = load_sqlite_utils().Database(conn)
    if layout == "schema 3":
        _index_and_search(db)  # the table of lines as written, and the marker's new schema
    elif layout == "restored":
        # What a dump of some of the tables left out, made again.
        db.create_view("envelopes", _ENVELOPES, ignore=True)
        db["games"].create_index(["id"], unique=True, if_not_exists=True)
        db["games"].create_index(["started_at", "id"], if_not_exists=True)
        if not db["games_fts"].exists():
            db["games"].enable_fts(list(SEARCHED), create_triggers=True)
        _keep_lines_table(db)
    elif layout == "empty":
        _create(db)
    else:
        if layout == "schema 1":
            games = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            events = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
            _upgrade_from_schema_1(conn, path, tell, games - _SCHEMA_1_GAMES, events - _SCHEMA_1_EVENTS)
        else:
            tell(
                f"upgrading the game library {path} to schema {SCHEMA_VERSION} (once: it gains"
                " search and the mark of a we library)"
            )
        _upgrade_from_schema_2(db)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create(db: Any) -> None:
    """The tables of a new library, by sqlite-utils: primary keys, the foreign key from events
    to games, the indexes, search and the view."""
    db["games"].create(
        _GAMES_FIELDS,
        pk="key",
        not_null={"id", "started_at", "last_at", "events", "head_hash", "complete"},
        defaults={"complete": 0},
    )
    # A rowid table, not WITHOUT ROWID: appending in key order takes SQLite's quick-balance
    # path, which measured a third faster than a (game, seq) key.
    db["events"].create(
        _EVENTS_FIELDS,
        pk="id",
        # `game` may be null: the row id says which game a row is of; the column is there for
        # the foreign key, which shows other tools how the tables relate.
        not_null={"type", "data", "at", "hash"},
        foreign_keys=[("game", "games", "key")],
    )
    _index_and_search(db)


def _index_and_search(db: Any) -> None:
    # The mark of a library that a dump keeps (PRAGMA application_id is not in a dump).
    db[MARKER].create({"schema": int}, if_not_exists=True)
    db[MARKER].delete_where()
    db[MARKER].insert({"schema": SCHEMA_VERSION})
    db["games"].create_index(["id"], unique=True, if_not_exists=True)
    db["games"].create_index(["started_at", "id"], if_not_exists=True)
    if not db["games_fts"].exists():
        db["games"].enable_fts(list(SEARCHED), create_triggers=True)
    db.create_view("envelopes", _ENVELOPES, replace=True)
    _keep_lines_table(db)


def _keep_lines_table(db: Any) -> None:
    """Schema 4's tables: the lines kept as written, and the seals of the library's games."""
    # No foreign key: a kept line is only ever read beside its row, and checked against it.
    db["event_lines"].create({"id": int, "line": str}, pk="id", not_null={"line"}, if_not_exists=True)
    db["game_seals"].create(SEAL_FIELDS, pk="game", not_null={"ledger"}, if_not_exists=True)


def _upgrade_from_schema_2(db: Any) -> None:
    """Schema 2 to 3, in the caller's transaction: events get their game's key as a column
    with a foreign key to games (sqlite-utils' transform copies the table once), games get
    the words of their notes, and search is laid over them."""
    conn = db.conn
    conn.execute("DROP VIEW IF EXISTS envelopes")
    db["events"].add_column("game", int)
    conn.execute("UPDATE events SET game = id >> 32")
    db["events"].transform(add_foreign_keys=[("game", "games", "key")])
    db["games"].add_column("notes", str)
    conn.execute(
        "UPDATE games SET notes = (SELECT group_concat(events.data ->> '$.text', char(10)) FROM events"
        " WHERE events.game = games.key AND events.type = 'note' AND json_valid(events.data))"
    )
    _index_and_search(db)


def search_words(text: str) -> list[str]:
    """The words of a search (letters and digits; the rest separates them), as both libraries'
    full-text search splits what it indexes."""
    return re.findall(r"\w+", text)


def notes_of(lines: Iterable[dict[str, Any]]) -> str | None:
    """The words of the notes among `lines` (parsed envelopes), for search; None if none. One
    note a line: a reader of the column (Datasette) sees where one note ends."""
    texts = [line["data"].get("text") for line in lines if line["type"] == "note"]
    words = "\n".join(text for text in texts if isinstance(text, str))
    return words or None


def _upgrade_from_schema_1(
    conn: sqlite3.Connection,
    path: Path,
    tell: Callable[[str], None],
    extra_games: set[str],
    extra_events: set[str],
) -> None:
    """Copy every game and event into the schema 2 tables, unchanged, then drop the old
    ones, all in the caller's transaction: a failure (a full disk) leaves schema 1 as it
    was.

    A row that has no place in the new layout (edited by hand: a seq below 0, beyond the
    limit or not an integer, or a game the games table does not list; a game without an
    id) is kept as it was in events_unplaced or games_unplaced, and the caller is told;
    readers of a game show its set-aside rows in their old place, so an audit still
    reports them. An old table with columns of the user's own is kept (renamed). The old
    tables' pages stay in the file as free pages that new games fill, rather than being
    returned by a VACUUM that would rewrite the whole library a second time."""
    taken = sorted({name for (name,) in conn.execute("SELECT name FROM sqlite_master")} & _UPGRADE_NAMES)
    if taken:
        raise StoreError(
            f"{path}: cannot upgrade the game library: it has its own {', '.join(taken)}, "
            "a name the new layout needs (rename it, then open the library again); nothing "
            "was changed"
        )
    tell(
        f"upgrading the game library {path} to schema {SCHEMA_VERSION} (once; a library "
        "of many games takes a minute)"
    )
    own = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE sql IS NOT NULL AND ("
            " (type IN ('index', 'trigger') AND tbl_name IN ('games', 'events'))"
            " OR (type = 'view' AND (sql LIKE '%games%' OR sql LIKE '%events%'))) ORDER BY name"
        )
    ]
    # Legacy renames leave the user's views and foreign keys naming `games` and `events`,
    # which exist again below, instead of pointing them at tables about to be dropped.
    conn.execute("PRAGMA legacy_alter_table = ON")
    conn.execute("ALTER TABLE events RENAME TO events_schema_1")
    conn.execute("ALTER TABLE games RENAME TO games_schema_1")
    conn.execute("PRAGMA legacy_alter_table = OFF")
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute(
        f"INSERT INTO games ({GAME_COLUMNS}) SELECT {GAME_COLUMNS} FROM games_schema_1"
        " WHERE id IS NOT NULL ORDER BY started_at, id"
    )
    placed = (
        "coalesce(typeof(old.seq) = 'integer' AND old.seq >= 0 AND old.seq < ?"
        " AND EXISTS (SELECT 1 FROM games WHERE games.id = old.game), 0)"
    )
    conn.execute(
        f"INSERT INTO events ({EVENT_COLUMNS})"
        " SELECT (games.key << 32) + old.seq, old.type, old.data, old.at, old.prev, old.hash"
        f" FROM events_schema_1 AS old JOIN games ON games.id = old.game WHERE {placed}"
        " ORDER BY games.key, old.seq",
        (SEQ_LIMIT,),
    )
    set_aside = {
        "games_unplaced": ("game", "SELECT * FROM games_schema_1 WHERE id IS NULL", ()),
        "events_unplaced": (
            "event",
            f"SELECT * FROM events_schema_1 AS old WHERE NOT {placed}",
            (SEQ_LIMIT,),
        ),
    }
    for table, (what, query, args) in set_aside.items():
        count = conn.execute(f"SELECT count(*) FROM ({query})", args).fetchone()[0]
        if count:
            conn.execute(f"CREATE TABLE {table} AS {query}", args)
            listed = ""
            if table == "events_unplaced":
                ids = [g for (g,) in conn.execute("SELECT DISTINCT game FROM events_unplaced ORDER BY 1")]
                more = " and more" if len(ids) > 5 else ""
                listed = f" (games {', '.join(map(repr, ids[:5]))}{more})"
            tell(
                f"{count} {what} row{'s' if count != 1 else ''} of {path}{listed} had no "
                f"place in the new layout (edited by hand); kept as they were in the table {table}"
            )
        moved = conn.execute(f"SELECT count(*) FROM {what}s").fetchone()[0]
        before = conn.execute(f"SELECT count(*) FROM {what}s_schema_1").fetchone()[0]
        if moved + count != before:  # never expected; if it happens, keep schema 1
            raise StoreError(f"{path}: upgrading would lose {what} rows; nothing was changed")
    for old, extra in (("games_schema_1", extra_games), ("events_schema_1", extra_events)):
        if extra:
            tell(
                f"the old table {old} of {path} is kept: it has columns of your own "
                f"({', '.join(sorted(extra))}) that the new layout does not"
            )
        else:
            conn.execute(f"DROP TABLE {old}")
    if own:
        tell(
            f"your own indexes, triggers and views in {path} were made for the old layout "
            f"({', '.join(own)}): those on the old tables are gone, and views still name "
            "`events` and `games`, whose columns changed (the view `envelopes` has the old "
            "events columns)"
        )


def load_sqlite_utils() -> Any:
    """sqlite_utils, imported only where the schema is made or searched (reading and importing
    into an existing library never pay for it), and without pandas and numpy: it imports both
    where they are installed, only to convert their values on insert, which the library never
    passes it; they cost a library command more than its work (numpy came in with the test
    extras and made creating a library about a quarter dearer)."""
    if "sqlite_utils" in sys.modules:
        return sys.modules["sqlite_utils"]
    blocked = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # an import of it fails at once
    try:
        import sqlite_utils
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return sqlite_utils
