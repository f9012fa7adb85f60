"""The SQLite library's layout: its tables, how a game's events are rows, and the upgrade of a
library of the first layout.

A game is a row of `games` with an integer `key`; its events are rows of `events` whose
integer primary key is `key * 2**32 + seq`, so a game's events lie together in one range of the
table and an import appends at its end (SQLite's cheapest insert). An event row holds the
envelope fields (`v` is always 1 and not stored; `game` and `seq` are in the key), with `data`
as canonical JSON text, so any game exports to a JSONL file with the very same hashes and
fingerprint. The view `envelopes` shows every event with its `game` and `seq` as columns, for
other programs.

A library of the first layout (schema 1: events keyed by the text pair (game, seq)) is upgraded
in place, in one transaction, the first time it is opened (`lay_out`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import orjson

from eventstore.envelope import FORMAT_VERSION
from eventstore.errors import StoreError
from eventstore.limits import RepeatedKeyRow, beyond_orjson, repeated_key_in

_SORT = orjson.OPT_SORT_KEYS
# PRAGMA user_version of the layout this module writes; 0 is a new file or schema 1.
SCHEMA_VERSION = 2
# An event's row id is its game's key shifted by this, plus its seq.
_SEQ_BITS = 32
SEQ_LIMIT = 1 << _SEQ_BITS  # seq must stay below it, or it would reach the next game's range
EVENT_COLUMNS = "id, type, data, at, prev, hash"
INSERT_EVENT = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
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
_SCHEMA = (
    "CREATE TABLE games ("
    # AUTOINCREMENT: a key is never given again, even after a game's row is deleted by hand
    # with its events left behind in the key's range.
    " key INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, title TEXT, players TEXT,"
    " started_at TEXT NOT NULL, last_at TEXT NOT NULL, events INTEGER NOT NULL,"
    " head_hash TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0, winner TEXT)",
    # id = games.key * 2**32 + seq. A rowid table, not WITHOUT ROWID: appending in key order
    # takes SQLite's quick-balance path, which measured a third faster than a (game, seq) key.
    "CREATE TABLE events ("
    " id INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL,"
    " prev TEXT, hash TEXT NOT NULL)",
    "CREATE VIEW envelopes AS"
    " SELECT games.id AS game, events.id - (games.key << 32) AS seq, events.type, events.data,"
    " events.at, events.prev, events.hash"
    # A range, not `events.id >> 32 = games.key`, so that one game's rows are a rowid range.
    " FROM games JOIN events ON events.id >= games.key << 32 AND events.id < (games.key + 1) << 32",
)
_SCHEMA_1_GAMES = set(GAME_COLUMNS.split(", "))
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
    data = orjson.dumps(obj["data"], option=_SORT).decode()
    return (base + obj["seq"], obj["type"], data, obj["at"], obj["prev"], obj["hash"])


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


def refusal(conn: sqlite3.Connection) -> str | None:
    """Why the database behind `conn` cannot be opened as a game library, or None if it can
    (a library, an empty database, or one of the first layout, which is upgraded). Only reads,
    so it can judge someone else's file before anything is written to it."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = table_names(conn)
    if version == SCHEMA_VERSION:
        missing = [name for name in ("games", "events") if name not in tables]
        if missing:
            return f"not a game library (no {' or '.join(missing)} table)"
        return missing_columns(conn)
    if version > SCHEMA_VERSION:
        return None  # lay_out words this one (a newer we), and writes nothing first
    if not tables:
        return None
    games = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    events = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    if "key" in games and "id" in events and "game" not in events:
        return None
    if version == 0 and games >= _SCHEMA_1_GAMES and events >= _SCHEMA_1_EVENTS:
        return None
    return "not a game library (its tables are unknown to we)"


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
    """Create the tables in a new library, or upgrade one of schema 1 (inside the write
    lock, so two processes opening an old library at once upgrade it once)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: this game library has schema {version}, from a newer version of "
            f"we; this one reads schema {SCHEMA_VERSION} (upgrade we to use it)"
        )
    tables = table_names(conn)
    games = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    events = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    if not tables:
        for statement in _SCHEMA:
            conn.execute(statement)
    elif "key" in games and "id" in events and "game" not in events:
        # Schema 2 without its version: restored from `sqlite3 .dump`, which drops it (and
        # perhaps the view, if only the tables were dumped).
        conn.execute(_SCHEMA[-1].replace("CREATE VIEW", "CREATE VIEW IF NOT EXISTS"))
    elif version == 0 and games >= _SCHEMA_1_GAMES and events >= _SCHEMA_1_EVENTS:
        _upgrade_from_schema_1(conn, path, tell, games - _SCHEMA_1_GAMES, events - _SCHEMA_1_EVENTS)
    else:
        # Someone else's database: leave it, and its user_version, alone.
        raise StoreError(f"{path}: not a game library (its tables are unknown to we)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


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
