"""Many games in one SQLite library (through sqlite-utils), with the same log interface.

A game is a row of `games` with an integer `key`; its events are rows of `events` whose
integer primary key is `key * 2**32 + seq`, so a game's events lie together in one range of the
table and an import appends at its end (SQLite's cheapest insert). An event row holds the
envelope fields (`v` is always 1 and not stored; `game` and `seq` are in the key), with `data`
as canonical JSON text, so any game exports to a JSONL file with the very same hashes and
fingerprint. The view `envelopes` shows every event with its `game` and `seq` as columns, for
other programs. Every write is one BEGIN IMMEDIATE transaction that re-reads the head, which
serialises writers across processes.

A library of the first layout (schema 1: events keyed by the text pair (game, seq)) is upgraded
in place, in one transaction, the first time it is opened.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import orjson
import sqlite_utils

from eventstore.envelope import (
    FORMAT_VERSION,
    Envelope,
    envelope_from_raw,
    seal,
    utc_now,
    valid_game_id,
)
from eventstore.errors import (
    ConcurrencyError,
    GameNotFoundError,
    ImportConflictError,
    LogExistsError,
    LogIntegrityError,
    StoreError,
)
from eventstore.verify import (
    EMPTY_MESSAGE,
    INTEGRITY,
    LogLine,
    Problem,
    Scanned,
    VerifyResult,
    check_tail_line,
    iter_objects,
    scan_lines,
    scan_objects,
    verify_objects,
)

_SORT = orjson.OPT_SORT_KEYS
_BUSY_TIMEOUT_S = 10.0
# How long opening an old library waits for another process that is upgrading it.
_LAYOUT_WAIT_S = 600.0
# Rows per executemany call while importing: large enough to amortise the call, small enough
# that a 10 GB log does not sit in memory.
_IMPORT_BATCH = 10_000
# What the CLI knows of a game that the store does not judge: (complete, winner).
Summary = tuple[bool, "str | None"]
# A batch commits after about this many rows: few fsyncs, yet a bounded WAL.
_COMMIT_EVERY = 50_000
# PRAGMA cache_size during a batch (negative: KiB).
_BATCH_CACHE_KIB = -16_384
# PRAGMA user_version of the layout this module writes; 0 is a new file or schema 1.
SCHEMA_VERSION = 2
# An event's row id is its game's key shifted by this, plus its seq.
_SEQ_BITS = 32
SEQ_LIMIT = 1 << _SEQ_BITS  # seq must stay below it, or it would reach the next game's range
_EVENT_COLUMNS = "id, type, data, at, prev, hash"
_INSERT_EVENT = f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
# Rows as (seq, type, data, at, prev, hash), given the game's base row id and its end. From
# the base on: a row at seq 0 can only be a hand edit, and the checks report it.
_SELECT_ROWS = "SELECT id - ?1, type, data, at, prev, hash FROM events WHERE id >= ?1 AND id < ?2"
_SELECT_EVENTS = f"{_SELECT_ROWS} ORDER BY id"
_SELECT_HEAD = f"{_SELECT_ROWS} ORDER BY id DESC LIMIT 1"
# With the rows an upgrade set aside (?3: the game id), in schema 1's order of seq.
_SELECT_EVENTS_AND_UNPLACED = (
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
_GAME_COLUMNS = "id, title, players, started_at, last_at, events, head_hash, complete, winner"
_SCHEMA_1_GAMES = set(_GAME_COLUMNS.split(", "))
_SCHEMA_1_EVENTS = {"game", "seq", "type", "data", "at", "prev", "hash"}
# Names the upgrade creates besides games and events.
_UPGRADE_NAMES = {"envelopes", "events_schema_1", "games_schema_1", "events_unplaced", "games_unplaced"}


def _tables(conn: sqlite3.Connection) -> set[str]:
    """The database's own tables (not SQLite's internal ones)."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    return {name for (name,) in rows}


def default_db_path() -> Path:
    """$WE_DB, else $XDG_DATA_HOME/we/games.db, else ~/.local/share/we/games.db."""
    if env := os.environ.get("WE_DB"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "we" / "games.db"


def _base(key: int) -> int:
    """The row id of a game's seq 0, just before its first event."""
    return key << _SEQ_BITS


def _event_row(base: int, obj: dict[str, Any]) -> tuple[Any, ...]:
    """An envelope (parsed) as the values of _INSERT_EVENT, for the game whose base is `base`."""
    data = orjson.dumps(obj["data"], option=_SORT).decode()
    return (base + obj["seq"], obj["type"], data, obj["at"], obj["prev"], obj["hash"])


def _envelope_objs(game: str, rows: Iterable[Sequence[Any]]) -> Iterator[dict[str, Any]]:
    """Stored rows as the parsed envelopes they came from, for the same checks as a file."""
    loads, bad_json = orjson.loads, orjson.JSONDecodeError
    for seq, type_, data, at, prev, hash_ in rows:
        try:
            parsed = loads(data)
        except bad_json:
            parsed = data  # reported by the checks as `data` of the wrong type
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


def _too_long(where: str) -> StoreError:
    return StoreError(f"{where}: a game in the library holds at most {SEQ_LIMIT - 1:,} events")


def _first_event_meta(data: dict[str, Any]) -> tuple[str | None, str | None]:
    # Plain envelope metadata for listing games; the store does not judge whether it is valid.
    title = data.get("title")
    players = data.get("players")
    return (
        title if isinstance(title, str) else None,
        orjson.dumps(players).decode() if isinstance(players, list) else None,
    )


def write_new_log(objs: Iterable[dict[str, Any]], path: str | os.PathLike[str]) -> int:
    """Write envelopes (parsed) as a new JSONL log, refusing to overwrite, fsynced; returns the
    number of lines. Nothing is left behind if it fails part-way. Every library exports this way."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise LogExistsError(str(path)) from None
    count = 0
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as out:
            for obj in objs:
                out.write(orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE))
                count += 1
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        # A half-written export would look like a torn log; leave nothing instead.
        path.unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return count


@dataclass(frozen=True, slots=True)
class ImportResult:
    game_id: str
    status: str  # "imported" | "extended" | "unchanged"
    events_added: int
    events: int  # events of this game in the library afterwards
    fingerprint: str
    message: str


class Library:
    """A SQLite file of games. Use `log(game_id)` for one game's log."""

    def __init__(
        self, path: str | os.PathLike[str] | None = None, on_upgrade: Callable[[str], None] | None = None
    ) -> None:
        """`on_upgrade` is told, before it starts, that an old library is being upgraded (a
        big one takes a while, once)."""
        self.path = Path(path) if path is not None else default_db_path()
        self._on_upgrade = on_upgrade
        # What an upgrade of an old library said (also given to on_upgrade as it goes).
        self.upgrade_notes: list[str] = []
        self._batch_depth = 0
        self._committed = 0
        try:
            self._open()
        except BaseException as exc:
            if hasattr(self, "conn"):
                self.conn.close()
            if isinstance(exc, (OSError, sqlite3.Error)):
                raise StoreError(f"{self.path}: cannot open the game library: {exc}") from exc
            raise

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: this module issues BEGIN IMMEDIATE / COMMIT itself, so the
        # driver must not open transactions behind its back.
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        self.db = sqlite_utils.Database(conn)
        self.conn = conn
        conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        # Only a new, empty database takes this (before WAL and the first table): an event row
        # is a few hundred bytes, and 16 KiB pages import about a fifth faster than 4 KiB.
        conn.execute("PRAGMA page_size = 16384")
        self.db.enable_wal()
        # FULL: a commit reported to the caller survives a power cut, as a JSONL fsync does.
        conn.execute("PRAGMA synchronous = FULL")
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            # Another process may be upgrading this library, which can take minutes: wait for
            # it rather than fail after the usual busy timeout.
            conn.execute(f"PRAGMA busy_timeout = {int(_LAYOUT_WAIT_S * 1000)}")
            with self._write() as conn:
                self._lay_out(conn)
            conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        # Only a library upgraded from schema 1 with rows edited by hand has this table.
        self._has_unplaced = "events_unplaced" in _tables(conn)

    def _lay_out(self, conn: sqlite3.Connection) -> None:
        """Create the tables in a new library, or upgrade one of schema 1 (inside the write
        lock, so two processes opening an old library at once upgrade it once)."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: this game library has schema {version}, from a newer version of "
                f"we; this one reads schema {SCHEMA_VERSION} (upgrade we to use it)"
            )
        tables = _tables(conn)
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
            self._upgrade_from_schema_1(conn, games - _SCHEMA_1_GAMES, events - _SCHEMA_1_EVENTS)
        else:
            # Someone else's database: leave it, and its user_version, alone.
            raise StoreError(f"{self.path}: not a game library (its tables are unknown to we)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _tell(self, message: str) -> None:
        self.upgrade_notes.append(message)
        if self._on_upgrade is not None:
            self._on_upgrade(message)

    def _upgrade_from_schema_1(
        self, conn: sqlite3.Connection, extra_games: set[str], extra_events: set[str]
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
                f"{self.path}: cannot upgrade the game library: it has its own {', '.join(taken)}, "
                "a name the new layout needs (rename it, then open the library again); nothing "
                "was changed"
            )
        self._tell(
            f"upgrading the game library {self.path} to schema {SCHEMA_VERSION} (once; a library "
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
            f"INSERT INTO games ({_GAME_COLUMNS}) SELECT {_GAME_COLUMNS} FROM games_schema_1"
            " WHERE id IS NOT NULL ORDER BY started_at, id"
        )
        placed = (
            "coalesce(typeof(old.seq) = 'integer' AND old.seq >= 0 AND old.seq < ?"
            " AND EXISTS (SELECT 1 FROM games WHERE games.id = old.game), 0)"
        )
        conn.execute(
            f"INSERT INTO events ({_EVENT_COLUMNS})"
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
                self._tell(
                    f"{count} {what} row{'s' if count != 1 else ''} of {self.path}{listed} had no "
                    f"place in the new layout (edited by hand); kept as they were in the table {table}"
                )
            moved = conn.execute(f"SELECT count(*) FROM {what}s").fetchone()[0]
            before = conn.execute(f"SELECT count(*) FROM {what}s_schema_1").fetchone()[0]
            if moved + count != before:  # never expected; if it happens, keep schema 1
                raise StoreError(f"{self.path}: upgrading would lose {what} rows; nothing was changed")
        for old, extra in (("games_schema_1", extra_games), ("events_schema_1", extra_events)):
            if extra:
                self._tell(
                    f"the old table {old} of {self.path} is kept: it has columns of your own "
                    f"({', '.join(sorted(extra))}) that the new layout does not"
                )
            else:
                conn.execute(f"DROP TABLE {old}")
        if own:
            self._tell(
                f"your own indexes, triggers and views in {self.path} were made for the old layout "
                f"({', '.join(own)}): those on the old tables are gone, and views still name "
                "`events` and `games`, whose columns changed (the view `envelopes` has the old "
                "events columns)"
            )

    def __repr__(self) -> str:
        return f"Library({str(self.path)!r})"

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write: its own transaction, or a savepoint inside a batch."""
        if self._batch_depth:
            yield from self._write_in_batch()
            return
        # IMMEDIATE takes the write lock up front, so reading the head and writing after it is
        # atomic against other processes (a deferred transaction could be refused mid-way).
        self._begin()
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            self._rollback_and_raise(exc, "ROLLBACK")

    def _write_in_batch(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("SAVEPOINT write")
        try:
            yield self.conn
            self.conn.execute("RELEASE write")
        except BaseException as exc:
            self._rollback_and_raise(exc, "ROLLBACK TO write", "RELEASE write")
        if self._batch_depth == 1 and self.conn.total_changes - self._committed >= _COMMIT_EVERY:
            # Between writes, so every write stays whole; lets the WAL be checkpointed.
            self.conn.execute("COMMIT")
            self._committed = self.conn.total_changes
            self._begin()

    def _begin(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot write to the game library: {exc}") from exc

    def _rollback_and_raise(self, exc: BaseException, *undo: str) -> NoReturn:
        if self.conn.in_transaction:
            for sql in undo:
                self.conn.execute(sql)
        # SQLite's own errors (busy beyond the timeout, disk full) become StoreError, which is
        # what callers handle.
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"{self.path}: write failed, nothing stored: {exc}") from exc
        raise exc

    @contextmanager
    def batch(self) -> Iterator[Library]:
        """Share transactions between the writes inside the block (imports, appends, creates,
        summaries): one commit, so one fsync, per ~50,000 rows instead of one per write.

        Each write stays all or nothing (a savepoint each): one that fails is rolled back
        alone, and the block carries on if the caller catches its error. If an exception
        leaves the block, what was not committed yet is rolled back. The library is locked
        for writing while the block runs (other writers wait, up to the busy timeout).
        """
        if self._batch_depth:
            self._batch_depth += 1
            try:
                yield self
            finally:
                self._batch_depth -= 1
            return
        self._begin()
        self._committed = self.conn.total_changes
        self._batch_depth = 1
        # A bigger page cache while bulk writing: fewer pages spill to the WAL before the
        # commit, about 2% off an import; the usual 2 MB again afterwards.
        cache_size = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size = {_BATCH_CACHE_KIB}")
        try:
            yield self
            self.conn.execute("COMMIT")
        except BaseException as exc:
            self._rollback_and_raise(exc, "ROLLBACK")
        finally:
            self._batch_depth = 0
            self.conn.execute(f"PRAGMA cache_size = {cache_size}")

    def where(self, game_id: str) -> str:
        return f"game {game_id!r} in {self.path}"

    def log(self, game_id: str) -> LibraryLog:
        return LibraryLog(self, game_id)

    def has_game(self, game_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def games(self) -> list[dict[str, Any]]:
        """One summary per game, oldest first; `players` parsed, `complete` a bool."""
        out = []
        for row in self.db.query(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY started_at, id"):
            row["players"] = orjson.loads(row["players"]) if row["players"] else None
            row["complete"] = bool(row["complete"])
            out.append(row)
        return out

    def set_summary(self, game_id: str, *, complete: bool, winner: str | None) -> None:
        """Keep rules-level facts the CLI computed; the store does not judge them."""
        with self._write() as conn:
            self._set_summary(conn, game_id, (complete, winner))

    def _set_summary(self, conn: sqlite3.Connection, game_id: str, summary: Summary) -> None:
        complete, winner = summary
        cur = conn.execute(
            "UPDATE games SET complete = ?, winner = ? WHERE id = ?", (int(complete), winner, game_id)
        )
        if cur.rowcount == 0:
            raise GameNotFoundError(self.where(game_id))

    def _events_of(self, conn: sqlite3.Connection, game_id: str) -> Iterator[dict[str, Any]]:
        """A game's rows as parsed envelopes, in seq order; GameNotFoundError if no such game."""
        key = self._game_key(conn, game_id)
        if key is None:
            raise GameNotFoundError(self.where(game_id))
        base = _base(key)
        if self._has_unplaced:
            rows = conn.execute(_SELECT_EVENTS_AND_UNPLACED, (base, base + SEQ_LIMIT, game_id))
        else:
            rows = conn.execute(_SELECT_EVENTS, (base, base + SEQ_LIMIT))
        return _envelope_objs(game_id, rows)

    @staticmethod
    def _game_key(conn: sqlite3.Connection, game_id: str) -> int | None:
        row = conn.execute("SELECT key FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else row[0]

    def _insert_game(
        self,
        conn: sqlite3.Connection,
        first: dict[str, Any],
        last: dict[str, Any],
        summary: Summary | None = None,
    ) -> int:
        """A new game's row, from its first and newest envelopes (parsed); returns its key."""
        title, players = _first_event_meta(first["data"])
        complete, winner = summary if summary is not None else (False, None)
        cursor = conn.execute(
            f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (first["game"], title, players, first["at"], last["at"], last["seq"], last["hash"],
             int(complete), winner),
        )  # fmt: skip
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    @staticmethod
    def _advance_game(conn: sqlite3.Connection, last: dict[str, Any]) -> None:
        conn.execute(
            "UPDATE games SET last_at = ?, events = ?, head_hash = ? WHERE id = ?",
            (last["at"], last["seq"], last["hash"], last["game"]),
        )

    def import_log(self, path: str | os.PathLike[str]) -> ImportResult:
        """Copy a JSONL log into the library, all or nothing.

        A log that fails integrity checks is refused (LogIntegrityError). The same log again
        is a no-op ("unchanged"), as is a prefix of the stored game; a log that extends the
        stored game exactly gets its new tail appended ("extended"); anything else under an
        existing game id is an ImportConflictError.
        """
        with self._write() as conn:
            return self._import_path(conn, Path(path))

    def import_logs(self, paths: Iterable[str | os.PathLike[str]]) -> list[ImportResult | StoreError]:
        """import_log for many files in one batch(): one result or refusal per file, in order.

        Each log is still all or nothing; sharing transactions is what makes importing a
        directory of small games fast.
        """
        results: list[ImportResult | StoreError] = []
        with self.batch():
            for path in paths:
                try:
                    results.append(self.import_log(path))
                except StoreError as exc:
                    results.append(exc)
        return results

    def _import_path(self, conn: sqlite3.Connection, path: Path) -> ImportResult:
        try:
            f = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below
        except FileNotFoundError:
            raise GameNotFoundError(str(path)) from None
        except OSError as exc:
            raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
        with f:
            try:
                return self._import(conn, str(path), scan_lines(f))
            except OSError as exc:
                raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None

    def import_envelopes(self, envelopes: Iterable[Envelope], label: str = "envelopes") -> ImportResult:
        """import_log for envelopes already in memory (a simulation's games), same rules.

        `label` names the source in messages.
        """
        with self._write() as conn:
            return self._import(conn, label, scan_objects(e.to_dict() for e in envelopes))

    def import_verified(
        self, lines: Sequence[dict[str, Any]], label: str, summary: Summary | None = None
    ) -> ImportResult:
        """import_log for a log this package's reader has just verified, every line parsed and
        free of integrity problems (`we import` audits each log first): the same rules, without
        hashing every line a second time.

        `summary` (complete, winner) is stored with the game in the same write when the import
        adds events, as set_summary would."""
        with self._write() as conn:
            if lines and self._game_key(conn, lines[0]["game"]) is None:
                return self._import_new_game(conn, label, lines, summary)
            scanned = ((line["seq"], line, None, True) for line in lines)
            return self._import(conn, label, scanned, summary)

    def _import_new_game(
        self, conn: sqlite3.Connection, label: str, lines: Sequence[dict[str, Any]], summary: Summary | None
    ) -> ImportResult:
        # Verified lines have seq 1, 2, 3, ... in order: every one is stored, with no head to
        # compare against, so this is the general path with nothing left to decide per line.
        # The rows are _event_row's, built inline: this is `we import`'s hot loop.
        first, last = lines[0], lines[-1]
        if last["seq"] >= SEQ_LIMIT:
            raise _too_long(label)
        base = _base(self._insert_game(conn, first, last, summary))
        dumps, sort = orjson.dumps, _SORT
        conn.executemany(
            _INSERT_EVENT,
            [
                (base + line["seq"], line["type"], dumps(line["data"], option=sort).decode(),
                 line["at"], line["prev"], line["hash"])
                for line in lines
            ],
        )  # fmt: skip
        game, added = first["game"], len(lines)
        msg = f"{label}: imported game {game!r} ({added} events)"
        return ImportResult(game, "imported", added, added, last["hash"][7:19], msg)

    def _import(
        self, conn: sqlite3.Connection, label: str, scanned: Iterable[Scanned], summary: Summary | None = None
    ) -> ImportResult:
        problems: list[Problem] = []
        batch: list[tuple[Any, ...]] = []
        first: dict[str, Any] | None = None
        last: dict[str, Any] | None = None
        new_game = False
        base = 0
        have_seq, have_hash = 0, ""
        added = 0
        insert = conn.executemany
        for n, raw, msgs, usable in scanned:
            if msgs or not usable:
                # Keep scanning so the refusal lists every broken line, but store nothing.
                problems.extend([Problem(n, INTEGRITY, m) for m in msgs or ()])
                continue
            if problems:
                continue
            assert raw is not None  # usable
            if first is None:
                first = raw
                key = self._game_key(conn, raw["game"])
                if key is None:
                    # Rolled back with the rest if a later line turns out broken.
                    new_game, key = True, self._insert_game(conn, raw, raw, summary)
                base = _base(key)
                head = conn.execute(_SELECT_HEAD, (base, base + SEQ_LIMIT)).fetchone()
                if head is not None:
                    have_seq, have_hash = head[0], head[5]
            last = raw
            seq = raw["seq"]
            if seq > have_seq:
                if seq >= SEQ_LIMIT:
                    raise _too_long(label)
                batch.append(_event_row(base, raw))
                if len(batch) >= _IMPORT_BATCH:
                    insert(_INSERT_EVENT, batch)
                    added += len(batch)
                    batch.clear()
            elif seq == have_seq and raw["hash"] != have_hash:
                # The chain makes one hash stand for everything before it: differing here
                # means the two logs differ somewhere up to this line.
                raise ImportConflictError(
                    raw["game"], label, seq,
                    f"event {seq} has hash {raw['hash'][:19]}, the library's {have_hash[:19]}",
                )  # fmt: skip
        if first is None and not problems:
            problems.append(Problem(1, INTEGRITY, EMPTY_MESSAGE))
        if problems:
            raise LogIntegrityError(label, problems)
        assert first is not None and last is not None
        if batch:
            insert(_INSERT_EVENT, batch)
            added += len(batch)
        game, last_seq, last_hash = first["game"], last["seq"], last["hash"]
        fingerprint = last_hash[7:19]
        if new_game:
            self._advance_game(conn, last)
            msg = f"{label}: imported game {game!r} ({added} events)"
            return ImportResult(game, "imported", added, added, fingerprint, msg)
        if added:
            self._advance_game(conn, last)
            if summary is not None:
                self._set_summary(conn, game, summary)
            msg = f"{label}: extended game {game!r} by {added} event{'s' if added != 1 else ''} to {last_seq}"
            return ImportResult(game, "extended", added, last_seq, fingerprint, msg)
        if last_seq < have_seq:
            stored = conn.execute("SELECT hash FROM events WHERE id = ?", (base + last_seq,)).fetchone()
            if stored is None or stored[0] != last_hash:
                raise ImportConflictError(
                    game, label, last_seq, f"event {last_seq} differs from the library's"
                )
            msg = (
                f"{label}: nothing to import: the library's game {game!r} already has these "
                f"{last_seq} events and {have_seq - last_seq} more"
            )
            return ImportResult(game, "unchanged", 0, have_seq, have_hash[7:19], msg)
        msg = f"{label}: nothing to import: game {game!r} is already in the library, unchanged"
        return ImportResult(game, "unchanged", 0, have_seq, fingerprint, msg)

    def export(self, game_id: str, path: str | os.PathLike[str]) -> int:
        """Write a game as a JSONL log (refusing to overwrite); returns the number of events.

        The rows are written as stored, so the file verifies with the same hashes and
        fingerprint (and shows any tampering done to the rows).
        """
        return write_new_log(self._events_of(self.conn, game_id), path)


class LibraryLog:
    """One game in a Library, with the same interface as JsonlLog and MemoryLog."""

    def __init__(self, library: Library, game_id: str) -> None:
        self.library = library
        self.game_id = game_id
        self.where = library.where(game_id)

    def __repr__(self) -> str:
        return f"LibraryLog({self.library!r}, {self.game_id!r})"

    def exists(self) -> bool:
        return self.library.has_game(self.game_id)

    def create(self, first: tuple[str, dict[str, Any]], game_id: str, at: str | None = None) -> Envelope:
        if game_id != self.game_id:
            raise ValueError(f"this log is game {self.game_id!r}, not {game_id!r}")
        if not valid_game_id(game_id):
            raise ValueError(f"invalid game id {game_id!r}: use 1-64 of a-z 0-9 -")
        type_, data = first
        env = seal(game_id, 1, at or utc_now(), type_, data, None)
        with self.library._write() as conn:
            if self.library._game_key(conn, game_id) is not None:
                raise LogExistsError(self.where)
            obj = env.to_dict()
            base = _base(self.library._insert_game(conn, obj, obj))
            conn.execute(_INSERT_EVENT, _event_row(base, obj))
        return env

    def _head_row(self, conn: sqlite3.Connection) -> tuple[int, Envelope] | None:
        """The game's base row id and its newest event, checked; None if it has none."""
        key = self.library._game_key(conn, self.game_id)
        if key is None:
            return None
        base = _base(key)
        row = conn.execute(_SELECT_HEAD, (base, base + SEQ_LIMIT)).fetchone()
        if row is None:
            return None
        # Same tail check as a JSONL file: never chain new events onto a damaged head.
        (obj,) = _envelope_objs(self.game_id, [row])
        env, problems = check_tail_line(orjson.dumps(obj) + b"\n")
        if env is None or problems:
            raise LogIntegrityError(self.where, self.verify().problems or [])
        return base, env

    def head(self) -> tuple[int, str | None, str | None]:
        located = self._head_row(self.library.conn)
        if located is None:
            return (0, None, None)
        env = located[1]
        return (env.seq, env.hash, env.game)

    def append(
        self, events: Sequence[tuple[str, dict[str, Any]]], expected_seq: int, at: str | None = None
    ) -> list[Envelope]:
        """Append after event `expected_seq`, in one transaction; ConcurrencyError if stale."""
        with self.library._write() as conn:
            located = self._head_row(conn)
            if located is None:
                raise GameNotFoundError(self.where)
            base, head = located
            if head.seq != expected_seq:
                raise ConcurrencyError(self.where, expected_seq, head.seq)
            when = at or utc_now()
            sealed: list[Envelope] = []
            prev, seq = head.hash, head.seq
            for type_, data in events:
                seq += 1
                env = seal(self.game_id, seq, when, type_, data, prev)
                sealed.append(env)
                prev = env.hash
            if seq >= SEQ_LIMIT:
                raise _too_long(self.where)
            if sealed:
                objs = [e.to_dict() for e in sealed]
                conn.executemany(_INSERT_EVENT, [_event_row(base, obj) for obj in objs])
                self.library._advance_game(conn, objs[-1])
        return sealed

    def _objects(self) -> Iterator[dict[str, Any]]:
        return self.library._events_of(self.library.conn, self.game_id)

    def rows(self) -> Iterator[dict[str, Any]]:
        """The stored events as envelope objects, unchecked, for a reader that verifies them
        itself (scan_objects): the cheapest way to audit a game in the library."""
        return self._objects()

    def read(self) -> Iterator[Envelope]:
        """The events of a game that must be good: LogIntegrityError at the first problem."""
        return self._read(self._objects())

    def iter_lines(self) -> Iterator[LogLine]:
        """Every stored event with its integrity problems, like iter_log on a file; never raises
        on a problem (for audit, which reports them all)."""
        return iter_objects(self._objects())

    def read_unchecked(self) -> Iterator[Envelope]:
        """The rows as envelopes, unchecked (a row always has all the fields; a tampered one is
        caught by whoever checks them next)."""
        return map(envelope_from_raw, self._objects())

    def _read(self, objs: Iterator[dict[str, Any]]) -> Iterator[Envelope]:
        for ll in iter_objects(objs):
            if ll.problems:
                raise LogIntegrityError(self.where, ll.problems)
            yield ll.envelope  # type: ignore[misc]

    def verify(self) -> VerifyResult:
        return verify_objects(self._objects())
