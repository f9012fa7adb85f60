"""Many games in one SQLite library (the standard sqlite3 module): a GameLibrary, each game a GameLog.

This module opens the library, runs its transactions (the write lock, batches) and gives
`sql_library`, where every use of a library is written once, the SQL that is SQLite's own; the
layout and its upgrade are in `sqlite_schema`. Every write is one BEGIN IMMEDIATE transaction
that re-reads the head, which serialises writers across processes; `batch` shares transactions
between many writes.
"""

from __future__ import annotations

import itertools
import os
import random
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NoReturn

import orjson

from eventstore.canonical import fingerprint
from eventstore.errors import LibraryBusyError, StoreError, WritesLostError
from eventstore.persistence import ImportResult, Summary
from eventstore.sql_library import RankRow, SqlGameLog, SqlLibrary
from eventstore.sqlite_schema import (
    GAME_COLUMNS,
    INSERT_EVENT,
    KEEP_LINE,
    KEY_LIMIT,
    ROW_VALUES,
    SELECT_EVENTS,
    SELECT_EVENTS_AND_UNPLACED,
    SELECT_HEAD,
    SELECT_KEPT_LINES,
    SEQ_LIMIT,
    as_bytes_where_text,
    decoded,
    envelope_objs,
    event_row,
    first_event_meta,
    game_base,
    lay_out,
    layout_of,
    load_sqlite_utils,
    missing_columns,
    notes_of,
    refusal,
    table_names,
    too_long,
)

_BUSY_TIMEOUT_S = 10.0
# How long a write waits for other processes' writes before it gives up (WE_LOCK_WAIT seconds).
_LOCK_WAIT_S = 30.0
# A batch holds the write lock at most this long (or a twentieth of the wait, if less) before
# it commits and lets waiting writers have a turn: a `we record` or another import waits for a
# moment, not for the whole of someone's import.
_HOLD_LOCK_S = 0.25
# While waiting for the lock, try again every few milliseconds (SQLite's own busy handler
# sleeps up to 100 ms between tries, and would keep missing a batch's short pauses).
_LOCK_POLL_S = 0.002
# After a batch lets the lock go it waits this long before taking it again, so a writer
# polling for it can take it first.
_LOCK_COURTESY_S = 0.005
# How long opening an old library waits for another process that is upgrading it.
_LAYOUT_WAIT_S = 600.0
# A batch commits after about this many rows: few fsyncs, yet a bounded WAL.
_COMMIT_EVERY = 50_000
# PRAGMA cache_size during a batch (negative: KiB).
_BATCH_CACHE_KIB = -16_384


def lock_wait_s() -> float:
    """How long a write waits for the lock: $WE_LOCK_WAIT seconds, else 30."""
    text = os.environ.get("WE_LOCK_WAIT", "")
    try:
        wait = float(text)
    except ValueError:
        return _LOCK_WAIT_S
    return wait if 0 <= wait < 1e6 else _LOCK_WAIT_S


def default_db_path() -> Path:
    """$WE_DB, else $XDG_DATA_HOME/we/games.db, else ~/.local/share/we/games.db."""
    if env := os.environ.get("WE_DB"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "we" / "games.db"


class Library(SqlLibrary[sqlite3.Connection]):
    """A SQLite file of games. Use `log(game_id)` for one game's log."""

    path: Path

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        on_upgrade: Callable[[str], None] | None = None,
        read_only: bool = False,
    ) -> None:
        """`on_upgrade` is told, before it starts, that an old library is being upgraded (a
        big one takes a while, once). `read_only`: for commands that only read, which create
        and change nothing: no file, no -wal or -shm left, no journal mode switched, no
        upgrade (a library of schema 2 is read as it is)."""
        self.path = Path(path) if path is not None else default_db_path()
        self.read_only = read_only
        self._on_upgrade = on_upgrade
        # What an upgrade of an old library said (also given to on_upgrade as it goes).
        self.upgrade_notes: list[str] = []
        self._batch_depth = 0
        self._write_depth = 0
        self._committed = 0
        self._lock_wait = lock_wait_s()
        self._hold_lock = min(_HOLD_LOCK_S, self._lock_wait / 20)
        # When this connection took the write lock, and when it may take it again.
        self._locked_at = 0.0
        self._courtesy_until = 0.0
        # Commits made inside batches so far: a caller can tell what is durable by it.
        self.commits = 0
        try:
            self._open()
        except BaseException as exc:
            if hasattr(self, "conn"):
                self.conn.close()
            if isinstance(exc, (OSError, sqlite3.Error)):
                raise StoreError(f"{self.path}: cannot open the game library: {exc}") from exc
            raise

    def _look_before_writing(self) -> None:
        """Refuse a database that is not a game library before anything is written to it:
        opened read-only, so someone else's SQLite file stays byte for byte as it was (the
        usual opening switches a database to WAL mode)."""
        try:
            size = self.path.stat().st_size
        except OSError:
            return  # nothing there yet (or unreadable: the usual opening says so)
        if size == 0:
            return
        uri = f"file:{urllib.parse.quote(os.fspath(self.path.absolute()))}?mode=ro"
        if not os.path.lexists(f"{self.path}-wal"):
            # Nobody is writing it (a writer of a database in WAL mode keeps its -wal file):
            # immutable, or even a read-only connection leaves -wal and -shm files beside a
            # database in WAL mode.
            uri += "&immutable=1"
        try:
            peek = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT_S)
        except sqlite3.Error:
            return
        try:
            why = refusal(peek, self.read_only)
        except UnicodeDecodeError as exc:  # a name in its schema that is not UTF-8
            why = f"cannot open the game library: the file is damaged ({exc.reason} in its schema)"
        except sqlite3.DatabaseError as exc:
            if "not a database" in str(exc):
                why = f"cannot open the game library: not an SQLite database ({exc})"
            elif "malformed" in str(exc):
                why = f"cannot open the game library: the file is damaged ({exc})"
            else:
                return  # cannot look read-only (a WAL file in a read-only folder): open as usual
        finally:
            peek.close()
        if why is not None:
            raise StoreError(f"{self.path}: {why}")

    def _open_read_only(self) -> None:
        """A connection that writes nothing: `immutable` where nobody may write the file (it or
        its folder is read-only), else a read-write connection that only reads (query_only),
        never creating the file: read-only mode would leave -wal and -shm files beside a
        library in WAL mode, which the last ordinary connection to close removes."""
        if not self.path.is_file():
            raise StoreError(f"{self.path}: there is no game library here")
        absolute = urllib.parse.quote(os.fspath(self.path.absolute()))
        writable = os.access(self.path, os.W_OK) and os.access(self.path.absolute().parent, os.W_OK)
        uri = f"file:{absolute}?mode=rw" if writable else f"file:{absolute}?mode=ro&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        self.conn = conn
        conn.execute("PRAGMA query_only = ON")
        conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        self._check_tables(conn)

    def _check_tables(self, conn: sqlite3.Connection) -> None:
        tables = table_names(conn)
        if missing := [name for name in ("games", "events") if name not in tables]:
            raise StoreError(f"{self.path}: not a game library (no {' or '.join(missing)} table)")
        if why := missing_columns(conn):
            raise StoreError(f"{self.path}: {why}")
        # Only a library upgraded from schema 1 with rows edited by hand has this table.
        self._has_unplaced = "events_unplaced" in tables
        # Schema 2, read as it is by a command that only reads: no search yet.
        self._searchable = "games_fts" in tables
        # Schemas 2 and 3, read as they are: no lines kept as written.
        self._keeps_lines = "event_lines" in tables

    def _open(self) -> None:
        self._look_before_writing()
        if self.read_only:
            self._open_read_only()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: this module issues BEGIN IMMEDIATE / COMMIT itself, so the
        # driver must not open transactions behind its back.
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        self.conn = conn
        conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        # Only a new, empty database takes this (before WAL and the first table): an event row
        # is a few hundred bytes, and 16 KiB pages import about a fifth faster than 4 KiB.
        conn.execute("PRAGMA page_size = 16384")
        # WAL: readers (a listing, an audit, phones following a game) never wait for a writer.
        conn.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit reported to the caller survives a power cut, as a JSONL fsync does.
        conn.execute("PRAGMA synchronous = FULL")
        if layout_of(conn) != "library":
            # Another process may be upgrading this library, which can take minutes: wait for
            # it rather than fail after the usual busy timeout.
            conn.execute(f"PRAGMA busy_timeout = {int(_LAYOUT_WAIT_S * 1000)}")
            with self._write(wait=max(_LAYOUT_WAIT_S, self._lock_wait)) as conn:
                lay_out(conn, self.path, self._tell)
            conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        self._check_tables(conn)

    def _tell(self, message: str) -> None:
        self.upgrade_notes.append(message)
        if self._on_upgrade is not None:
            self._on_upgrade(message)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def _write(self, wait: float | None = None) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write: its own transaction, or a savepoint inside a batch."""
        if self._batch_depth:
            yield from self._write_in_batch()
            return
        # IMMEDIATE takes the write lock up front, so reading the head and writing after it is
        # atomic against other processes (a deferred transaction could be refused mid-way).
        self._begin(wait)
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            self._rollback_and_raise(exc, "ROLLBACK")

    def _write_in_batch(self) -> Iterator[sqlite3.Connection]:
        # The lock is taken at a batch's first write and after each commit only when the next
        # write comes: between writes (while a caller audits its next log) others may write.
        if not self.conn.in_transaction:
            self._begin()
        self.conn.execute("SAVEPOINT write")
        self._write_depth += 1
        try:
            yield self.conn
            self.conn.execute("RELEASE write")
        except BaseException as exc:
            self._rollback_and_raise(exc, "ROLLBACK TO write", "RELEASE write")
        finally:
            self._write_depth -= 1
        if self._write_depth == 0 and (
            self.conn.total_changes - self._committed >= _COMMIT_EVERY
            or time.monotonic() - self._locked_at >= self._hold_lock
        ):
            # Between writes, so every write stays whole. Bounds the WAL, and how long other
            # writers (a recorder, another import) wait for this batch.
            self._commit_batch()
            self._courtesy_until = time.monotonic() + _LOCK_COURTESY_S

    def _commit_batch(self) -> None:
        try:
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise WritesLostError(
                f"{self.path}: could not commit ({exc}); the writes since the last commit were undone"
            ) from exc
        self.commits += 1
        self._committed = self.conn.total_changes

    def _begin(self, wait: float | None = None) -> None:
        """BEGIN IMMEDIATE, waiting up to the lock wait for other processes' writes: tried again
        every few milliseconds, so that a batch's short pauses between writes are seen."""
        pause = self._courtesy_until - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        wait = self._lock_wait if wait is None else wait
        # The time waited is the sum of the pauses, not read from a clock a test may freeze.
        waited = 0.0
        conn = self.conn
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    break
                except sqlite3.OperationalError as exc:
                    if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                        raise StoreError(f"{self.path}: cannot write to the game library: {exc}") from exc
                    if waited >= wait:
                        raise LibraryBusyError(
                            f"{self.path}: another process kept the game library locked for "
                            f"{wait:g} s, so nothing was stored (try again; WE_LOCK_WAIT sets the wait)"
                        ) from exc
                    pause = _LOCK_POLL_S * random.uniform(0.5, 1.5)
                    time.sleep(pause)
                    waited += pause
                except sqlite3.Error as exc:
                    raise StoreError(f"{self.path}: cannot write to the game library: {exc}") from exc
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
        self._locked_at = time.monotonic()

    def _rollback_and_raise(self, exc: BaseException, *undo: str) -> NoReturn:
        if self.conn.in_transaction:
            for sql in undo:
                self.conn.execute(sql)
        # SQLite's own errors (busy beyond the timeout, disk full) become StoreError, which is
        # what callers handle.
        if isinstance(exc, sqlite3.Error):
            raise StoreError(f"{self.path}: write failed, nothing stored: {exc}") from exc
        raise exc

    def _begin_batch(self) -> None:
        self._committed = self.conn.total_changes
        # A bigger page cache while bulk writing: fewer pages spill to the WAL before the
        # commit, about 2% off an import; the usual 2 MB again afterwards.
        self._cache_size = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size = {_BATCH_CACHE_KIB}")

    def _end_batch(self) -> None:
        if self.conn.in_transaction:
            self._commit_batch()

    def _abandon_batch(self, exc: BaseException) -> NoReturn:
        self._rollback_and_raise(exc, "ROLLBACK")

    def _after_batch(self) -> None:
        self._courtesy_until = 0.0
        self.conn.execute(f"PRAGMA cache_size = {self._cache_size}")

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """SQLite's errors while reading as one line naming the library (a file damaged on
        disk, say): never a traceback, and never taken for a failed write of another library
        that is being written at the time (`import --from-db`)."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._read_error(exc) from None

    def _read_error(self, exc: sqlite3.Error) -> StoreError:
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            return StoreError(f"{self.path}: cannot read the game library: the file is damaged ({exc})")
        return StoreError(f"{self.path}: cannot read the game library: {exc}")

    def _rows(
        self, conn: sqlite3.Connection, sql: str, args: Sequence[Any], columns: str, plain: int
    ) -> Iterator[tuple[Any, ...]]:
        """The rows of `sql`, where a TEXT value that is not UTF-8 (a damaged or hand-edited
        row), which the driver cannot decode, stays bytes; any other error is one line."""
        with self._reading():
            try:
                return iter(conn.execute(sql, args).fetchall())
            except sqlite3.OperationalError as exc:
                if "decode" not in str(exc) or not columns:
                    raise
            return (decoded(row, plain) for row in conn.execute(as_bytes_where_text(sql, columns), args))

    def _envelope_rows(
        self, conn: sqlite3.Connection, game_id: str, sql: str, args: Sequence[Any]
    ) -> Iterator[dict[str, Any]]:
        """A game's event rows as parsed envelopes, streamed. A TEXT value that is not UTF-8
        fails the driver's decoding: the rows are then read again with their values as bytes,
        from the one that failed on, and such a value stays bytes for the checks to flag."""

        def resume(exc: Exception, given: int) -> Iterator[tuple[Any, ...]]:
            if not isinstance(exc, sqlite3.OperationalError) or "decode" not in str(exc):
                raise self._read_error(exc) from None  # type: ignore[arg-type]
            with self._reading():
                tolerant = conn.execute(as_bytes_where_text(sql, ROW_VALUES), args)
            return (decoded(row, 1) for row in itertools.islice(tolerant, given, None))

        with self._reading():
            rows = conn.execute(sql, args)
        return envelope_objs(game_id, rows, resume)

    def _select(self, sql: str, args: Sequence[Any], text_columns: str) -> Iterator[tuple[Any, ...]]:
        return self._rows(self.conn, sql, args, text_columns, 0)

    @staticmethod
    def _update(conn: sqlite3.Connection, sql: str, args: Sequence[Any]) -> int:
        return conn.execute(sql, args).rowcount

    def log(self, game_id: str) -> LibraryLog:
        return LibraryLog(self, game_id)

    def _search_rows(self, words: list[str]) -> list[tuple[Any, ...]]:
        """By SQLite full-text search (sqlite-utils' `search`, each word quoted as a string).
        Accents aside too."""
        if not self._searchable:
            raise StoreError(
                f"{self.path}: this library was made by an older we and has no search yet: a"
                " command that writes to it (`we import LOG --db ...`) upgrades it"
            )
        if not words:
            return []
        query = " ".join(f'"{word}"' for word in words)  # every word, each as a string
        names = GAME_COLUMNS.split(", ")
        found = (
            load_sqlite_utils()
            .Database(self.conn)["games"]
            .search(query, columns=names, order_by="started_at, id")
        )
        with self._reading():
            return [tuple(row[name] for name in names) for row in found]

    def _event_objs(self, game_id: str, key: int) -> Iterator[dict[str, Any]]:
        base = game_base(key)
        args: tuple[int | str, ...]
        if self._has_unplaced:
            query, args = SELECT_EVENTS_AND_UNPLACED, (base, base + SEQ_LIMIT, game_id)
        else:
            query, args = SELECT_EVENTS, (base, base + SEQ_LIMIT)
        return self._envelope_rows(self.conn, game_id, query, args)

    def _game_key(self, conn: sqlite3.Connection, game_id: str, lock: bool = False) -> int | None:
        # `lock` asks nothing more: a write holds the whole library's lock from its start.
        with self._reading():
            row = conn.execute("SELECT key FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        key: int = row[0]
        if not 0 < key < KEY_LIMIT:
            # Edited by hand: its events' row ids would be past SQLite's integers.
            raise StoreError(
                f"{self.where(game_id)}: the library's row of this game is damaged (key {key} is"
                " out of range), so its events cannot be found"
            )
        return key

    def _newest_row(self, conn: sqlite3.Connection, key: int) -> tuple[Any, ...] | None:
        base = game_base(key)
        return next(self._rows(conn, SELECT_HEAD, (base, base + SEQ_LIMIT), ROW_VALUES, 1), None)

    def _locked_or_new_game(
        self,
        conn: sqlite3.Connection,
        first: dict[str, Any],
        last: dict[str, Any],
        summary: Summary | None = None,
    ) -> tuple[int, bool]:
        key = self._game_key(conn, first["game"])
        if key is not None:
            return key, False
        return self._insert_game(conn, first, last, summary), True

    def _insert_game(
        self,
        conn: sqlite3.Connection,
        first: dict[str, Any],
        last: dict[str, Any],
        summary: Summary | None = None,
        notes: str | None = None,
    ) -> int:
        """A new game's row, from its first and newest envelopes (parsed); returns its key."""
        title, players = first_event_meta(first["data"])
        complete, winner = summary if summary is not None else (False, None)
        key = self._next_key(conn)
        conn.execute(
            f"INSERT INTO games (key, {GAME_COLUMNS}, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, first["game"], title, players, first["at"], last["at"], last["seq"], last["hash"],
             int(complete), winner, notes),
        )  # fmt: skip
        return key

    @staticmethod
    def _next_key(conn: sqlite3.Connection) -> int:
        """The key of a new game: past every key in range that a game or an event row uses, so
        a key is never given again (even after a game's row is deleted by hand with its events
        left behind), and never beyond the range row ids hold (a key edited by hand to 2**31
        or more is passed over)."""
        (games,) = conn.execute("SELECT max(key) FROM games WHERE key < ?", (KEY_LIMIT,)).fetchone()
        below = game_base(KEY_LIMIT)
        (events,) = conn.execute("SELECT max(id) FROM events WHERE id < ?", (below,)).fetchone()
        key = max(games or 0, (events or 0) >> 32, 0) + 1
        if key >= KEY_LIMIT:
            raise StoreError("the game library has no game key left in range for a new game")
        return key

    def _insert_events(
        self, conn: sqlite3.Connection, key: int, objs: list[dict[str, Any]], label: str
    ) -> None:
        if objs[-1]["seq"] >= SEQ_LIMIT:
            raise too_long(label)
        base = game_base(key)
        conn.executemany(INSERT_EVENT, [event_row(base, obj) for obj in objs])
        if (notes := notes_of(objs)) is not None:
            # The words of notes, added to the game's for search.
            conn.execute(
                "UPDATE games SET notes = coalesce(notes || char(10), '') || ? WHERE key = ?",
                (notes, key),
            )

    def _keep_lines(self, conn: sqlite3.Connection, key: int, lines: Sequence[tuple[int, str]]) -> None:
        base = game_base(key)
        conn.executemany(KEEP_LINE, [(base + seq, line) for seq, line in lines])

    def _kept_lines(self, key: int) -> dict[int, str]:
        if not self._keeps_lines:
            return {}
        base = game_base(key)
        with self._reading():
            rows = self.conn.execute(SELECT_KEPT_LINES, (base, base + SEQ_LIMIT)).fetchall()
        kept = {}
        for seq, line in rows:
            # Read as bytes: a line edited by hand into what is not UTF-8 is no line, and its
            # row is written instead.
            with suppress(UnicodeDecodeError):
                kept[seq] = line.decode() if type(line) is bytes else line
        return kept

    def _stored_hash(self, conn: sqlite3.Connection, key: int, seq: int) -> Any:
        query = "SELECT hash FROM events WHERE id = ?"
        row = next(self._rows(conn, query, (game_base(key) + seq,), "hash", 0), None)
        return None if row is None else row[0]

    def _import_new_game(
        self,
        lines: Sequence[dict[str, Any]],
        label: str,
        summary: Summary | None,
        written: Mapping[int, str],
        ranks: Sequence[RankRow] | None = None,
    ) -> ImportResult | None:
        # Verified lines have seq 1, 2, 3, ... in order: every one is stored, with no head to
        # compare against, so this is the general path with nothing left to decide per line.
        # The rows are event_row's, built inline: this is `we import`'s hot loop.
        first, last = lines[0], lines[-1]
        with self._write() as conn:
            if self._game_key(conn, first["game"]) is not None:
                return None
            if last["seq"] >= SEQ_LIMIT:
                raise too_long(label)
            key = self._insert_game(conn, first, last, summary, notes_of(lines))
            base = game_base(key)
            dumps = orjson.dumps
            conn.executemany(
                INSERT_EVENT,
                [
                    (key, base + line["seq"], line["type"], dumps(line["data"]).decode(),
                     line["at"], line["prev"], line["hash"])
                    for line in lines
                ],
            )  # fmt: skip
            if written:
                self._keep_lines(conn, key, sorted(written.items()))
            if ranks:
                self._keep_ranks(conn, first["game"], last["seq"], ranks)
        game, added = first["game"], len(lines)
        msg = f"{label}: imported game {game!r} ({added} events)"
        return ImportResult(game, "imported", added, added, fingerprint(last["hash"]), msg)


class LibraryLog(SqlGameLog):
    """One game in a SQLite Library."""

    library: Library
