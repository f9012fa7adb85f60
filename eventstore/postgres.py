"""Many games in one PostgreSQL database (psycopg 3), with the same interface as the SQLite library.

For a convention or a league: several machines import and record into one shared library. The
tables follow the SQLite library's: `games` (one row per game, with an integer `key`),
`events` (one row per event, primary key (game, seq): a second writer of the same seq loses
cleanly, it never forks a game), `data` as compact JSON text in the key order it was written,
so an exported game has the very same hashes and fingerprint (`event_lines`: the lines an
import kept as written, see eventstore.as_written), and the view `envelopes` for users' own SQL. `settings`
holds the layout's version and what a server keeps there (its host key).

Every write is one transaction (a savepoint inside a batch) that locks the game's row before it
reads the head, so writers of one game take turns, in one process or many.

What a library does is written once in `sql_library`, for both backends; this module gives it
PostgreSQL's own: the SQL that differs, the transactions, the COPY imports with their retry on
a deadlock, and announcing new events (NOTIFY). Over 500 lines on purpose: the layout, the
library, the LISTEN/NOTIFY follower and the server's pool share one connection discipline
(reconnecting, passwords never in a message) that splitting would spread over several files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn
from urllib.parse import unquote, urlsplit

import orjson
import psycopg
from psycopg import errors as pg_errors

from eventstore.canonical import fingerprint
from eventstore.envelope import Envelope
from eventstore.errors import ConcurrencyError, ConnectionLostError, StoreError
from eventstore.persistence import ImportResult, Summary
from eventstore.sql_library import _RANKS_TABLE, RankRow, SqlGameLog, SqlLibrary
from eventstore.sqlite_schema import GAME_COLUMNS, envelope_objs, first_event_meta

# The layout this module writes, kept in settings as 'schema' (2: with the index of notes that
# search reads; 3: with `event_lines`, the lines imported as their file wrote them, see
# eventstore.as_written; a library of schema 1 or 2 is upgraded by the first command that
# writes to it, and read as it is by one that only reads).
SCHEMA_VERSION = 3
# A batch commits after about this many rows, as the SQLite library does: a crash or a lost
# connection costs at most this much work, and other importers wait at most this long.
_COMMIT_EVERY = 50_000
# Rows per COPY while importing one game, and per page when reading one.
_IMPORT_BATCH = 10_000
_READ_PAGE = 10_000
# How often a write that lost a deadlock to another importer is tried again.
_WRITE_ATTEMPTS = 5
# Sent by every append with the new head, for servers on the same database.
NOTIFY_CHANNEL = "we_events"
_EVENT_COLUMNS = ("game", "seq", "type", "data", "at", "prev", "hash")
_COPY_EVENTS = f"COPY events ({', '.join(_EVENT_COLUMNS)}) FROM STDIN"
_INSERT_EVENT = f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) VALUES (%s, %s, %s, %s, %s, %s, %s)"
_SELECT_HEAD = "SELECT seq, type, data, at, prev, hash FROM events WHERE game = %s ORDER BY seq DESC LIMIT 1"
_SELECT_FIRST_PAGE = (
    f"SELECT seq, type, data, at, prev, hash FROM events WHERE game = %s ORDER BY seq LIMIT {_READ_PAGE}"
)
_SELECT_NEXT_PAGE = _SELECT_FIRST_PAGE.replace("game = %s", "game = %s AND seq > %s")
_INSERT_GAME = (
    f"INSERT INTO games ({GAME_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    # Another importer may be storing the same game right now: wait for it, then read its row.
    " ON CONFLICT (id) DO NOTHING RETURNING key"
)
_SAVEPOINT_INSERT_GAME = f"SAVEPOINT write; {_INSERT_GAME}; RELEASE write"
# Search finds a game by the words of its notes: this index holds only the note rows.
_NOTES_INDEX = "CREATE INDEX IF NOT EXISTS events_notes ON events (game) WHERE type = 'note'"
# A game's words for search: its title, its players and the text of its notes (a note's data is
# compact JSON, {"text":"..."}, its one key: its text is what follows that opening), by PostgreSQL's own
# full-text search with the `simple` configuration (every word as it is, in lower case).
_SEARCH = (
    f"SELECT {GAME_COLUMNS} FROM games WHERE to_tsvector('simple', concat_ws(' ', title, players,"
    " (SELECT string_agg(CASE WHEN left(e.data, 9) = '{\"text\":\"' THEN substr(e.data, 10) END, ' ')"
    "  FROM events e WHERE e.game = games.key AND e.type = 'note')))"
    " @@ plainto_tsquery('simple', %s) ORDER BY started_at, id"
)
# No foreign key (as events have none): a kept line is only ever read beside its row, and checked against it.
_KEPT_LINES = (
    "CREATE TABLE IF NOT EXISTS event_lines"
    " (game bigint NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (game, seq))"
)
# One statement for a game's lines (not executemany, whose pipeline a lost connection leaves
# complaining on stderr).
_KEEP_LINES = (
    "INSERT INTO event_lines (game, seq, line) SELECT %s, seq, line FROM unnest(%s::bigint[], %s::text[])"
    " AS kept (seq, line) ON CONFLICT (game, seq) DO UPDATE SET line = excluded.line"
)
# The seals of library games (eventstore.sql_library.mark_sealed).
_SEALS = (
    "CREATE TABLE IF NOT EXISTS game_seals (game text PRIMARY KEY, ledger text NOT NULL,"
    " line bigint, events bigint, hash text, fingerprint text)"
)
_SCHEMA = (
    "CREATE TABLE games ("
    " key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text NOT NULL UNIQUE, title text,"
    " players text, started_at text NOT NULL, last_at text NOT NULL, events bigint NOT NULL,"
    " head_hash text NOT NULL, complete boolean NOT NULL DEFAULT false, winner text)",
    # No foreign key to games: it would check every row of an import again, and the store
    # never writes an event without its game's row in the same transaction.
    "CREATE TABLE events ("
    " game bigint NOT NULL, seq bigint NOT NULL, type text NOT NULL, data text NOT NULL,"
    " at text NOT NULL, prev text, hash text NOT NULL, PRIMARY KEY (game, seq))",
    "CREATE VIEW envelopes AS"
    " SELECT games.id AS game, events.seq, events.type, events.data, events.at, events.prev, events.hash"
    " FROM games JOIN events ON events.game = games.key",
    "CREATE TABLE settings (name text PRIMARY KEY, value text NOT NULL)",
    _NOTES_INDEX,
    _KEPT_LINES,
    _SEALS,
)
_OUR_NAMES = ("games", "events", "envelopes", "settings")
# Any constant: the advisory lock that makes two processes opening a new database lay it out once.
_LAYOUT_LOCK = 0x7765_6C69_6272


def display_url(url: str) -> str:
    """The URL as messages show it: without its password (user:PASSWORD@ or ?password=). A
    URL too malformed to be split (an unclosed [ of an IPv6 host, say) is masked all the same."""
    # user:PASSWORD@ first, by libpq's reading rather than urlsplit's: a `?` or `#` in a
    # password does not end it (urlsplit would take it for the query and show the password).
    url = _USERINFO.sub(r"\1***@", url, count=1)
    try:
        parts = urlsplit(url)
    except ValueError:
        return _mask_secrets(url, url)
    query = "&".join(
        "password=***" if field.lower().startswith("password=") else field for field in parts.query.split("&")
    )
    # Not urlunsplit: it drops the `//` of a URL with no host (postgresql:///db?host=/socket).
    shown = f"{parts.scheme}://{parts.netloc}{parts.path}"
    return shown + (f"?{query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")


# The password of user:PASSWORD@: from the first `:` after `//` to the last `@` before the
# path's `/` (libpq reads up to the first `@` or `/`; an `@` typed raw in a password, which
# libpq would take for the end of it, is masked with the rest rather than shown).
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://[^/@:]*:)([^/]*)@", re.IGNORECASE)
# ... and password=PASSWORD in the query.
_QUERY_PASSWORD = re.compile(r"[?&]password=([^&#]*)", re.IGNORECASE)


def _mask_secrets(text: str, url: str) -> str:
    """`text` (a URL, or an error message that may quote it) with the URL's passwords, as
    written and percent-decoded, replaced by ***."""
    secrets: dict[str, str] = {}
    found = [m.group(2) for m in _USERINFO.finditer(url)] + _QUERY_PASSWORD.findall(url)
    for secret in found:
        if secret:
            secrets.update(dict.fromkeys((secret, unquote(secret)), "***"))
            # libpq ends a password at its first `@` and takes the rest for the host, which it
            # quotes ("failed to resolve host 'rest@db.example'"): mask that rest too.
            secrets.update({f"{rest}@": "***@" for rest in secret.split("@")[1:] if rest})
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, secrets[secret])
    return text


def _one_line(exc: BaseException, url: str | None = None) -> str:
    """An error's first line; with `url`, its passwords masked (libpq quotes what it cannot
    parse of a URL)."""
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return _mask_secrets(line, url) if url else line


def _schema_version(conn: psycopg.Connection[Any], where: str) -> int | None:
    """The layout's version; None for a database with none of our tables; StoreError for a
    database whose tables of those names are someone else's, or a library missing its games or
    events table (the view `envelopes` is for users' own SQL: a library works without it)."""
    found = {
        name
        for (name,) in conn.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relname = ANY(%s)"
            " AND c.relnamespace = current_schema()::regnamespace",
            (list(_OUR_NAMES),),
        )
    }
    if not found:
        return None
    row = None
    if "settings" in found:
        try:
            row = conn.execute("SELECT value FROM settings WHERE name = 'schema'").fetchone()
        except psycopg.Error:
            row = None
    if row is None or not isinstance(row[0], str) or not row[0].isdigit():
        raise StoreError(f"{where}: not a game library (its tables are unknown to we)")
    if missing := [name for name in ("games", "events") if name not in found]:
        raise StoreError(f"{where}: not a game library (no {' or '.join(missing)} table)")
    if why := _missing_columns(conn):
        raise StoreError(f"{where}: this library is damaged: {why}")
    return int(row[0])


# The columns each table must have for we to read it; a library missing one was altered by hand.
_REQUIRED_COLUMNS = {"games": ("key", *GAME_COLUMNS.split(", ")), "events": _EVENT_COLUMNS}


def _missing_columns(conn: psycopg.Connection[Any]) -> str | None:
    """ "the games table has no column winner" when a column we reads is gone, else None."""
    have = set(
        conn.execute(
            "SELECT table_name::text, column_name::text FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name IN ('games', 'events')"
        )
    )
    for table, needed in _REQUIRED_COLUMNS.items():
        if gone := [name for name in needed if (table, name) not in have]:
            plural = "s" if len(gone) > 1 else ""
            return f"the {table} table has no column{plural} {', '.join(gone)}"
    return None


def _has_tables_of_its_own(conn: psycopg.Connection[Any]) -> bool:
    """Whether the current schema holds tables or views (someone else's, when none is ours)."""
    row = conn.execute(
        "SELECT 1 FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
        " AND relkind IN ('r', 'v', 'm', 'p', 'f') LIMIT 1"
    ).fetchone()
    return row is not None


def has_library(url: str) -> bool:
    """Whether the database holds a game library (its tables), without creating one: what a
    command that only reads asks first. False for an empty database (a writer lays it out);
    StoreError if it cannot be reached, if its tables of our names are someone else's, or if
    it holds tables of its own and no library: a command that only reads changes nothing."""
    where = display_url(url)
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10, application_name="we")
    except psycopg.Error as exc:
        raise StoreError(f"{where}: cannot open the game library: {_one_line(exc, url)}") from None
    with conn:
        try:
            if _schema_version(conn, where) is not None:
                return True
            if _has_tables_of_its_own(conn):
                raise StoreError(f"{where}: not a game library (no events table)")
        except psycopg.Error as exc:
            raise StoreError(f"{where}: cannot open the game library: {_one_line(exc)}") from None
        return False


class _Retry(Exception):
    """A write lost to another writer (a deadlock, or the same event stored first) and was
    undone: do it again, from the head as it is now."""


class Library(SqlLibrary[psycopg.Connection[Any]]):
    """A PostgreSQL database of games. Use `log(game_id)` for one game's log."""

    path: str
    _PARAM = "%s"
    _TABLE_THERE = "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?"

    def __init__(
        self,
        url: str,
        on_upgrade: Callable[[str], None] | None = None,
        connection: psycopg.Connection[Any] | None = None,
        read_only: bool = False,
    ) -> None:
        """`on_upgrade` is there for the same signature as the SQLite library; this layout has
        had no upgrade yet. `connection`: one of a LibraryPool's, on a database already laid
        out (used as it is, and not closed by close())."""
        self.url = url
        # A command that only reads lays out and upgrades nothing.
        self.read_only = read_only
        # What messages name, as the SQLite library names its file.
        self.path = display_url(url)
        self.upgrade_notes: list[str] = []
        self._on_upgrade = on_upgrade
        self._batch_depth = 0
        self._since_commit = 0
        # Rows of new games imported in this batch, not sent yet: COPY'd together, a few
        # thousand at a time, instead of one COPY per game.
        self._pending: list[tuple[Any, ...]] = []
        self._borrowed = connection is not None
        if connection is not None:
            self.conn = connection
            return
        options: dict[str, Any] = {"autocommit": True, "application_name": "we"}
        if "connect_timeout" not in url:
            options["connect_timeout"] = 10
        try:
            self.conn = psycopg.connect(url, **options)
        except psycopg.Error as exc:
            raise StoreError(f"{self.path}: cannot open the game library: {_one_line(exc, url)}") from None
        try:
            self._lay_out()
        except BaseException:
            self.conn.close()
            raise

    def _lay_out(self) -> None:
        """Create the tables in a database that has none of them; refuse someone else's."""
        try:
            if self.read_only:
                if self._schema_version() is None:
                    raise StoreError(f"{self.path}: there is no game library here")
                return
            if self._schema_version() in (1, 2):
                with self.conn.transaction():
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LAYOUT_LOCK,))
                    self.conn.execute(_NOTES_INDEX)
                    self.conn.execute(_KEPT_LINES)
                    self.conn.execute(_SEALS)
                    self.conn.execute(
                        "UPDATE settings SET value = %s WHERE name = 'schema' AND value IN ('1', '2')",
                        (str(SCHEMA_VERSION),),
                    )
            if self._schema_version() is None:
                with self.conn.transaction():
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LAYOUT_LOCK,))
                    if self._schema_version() is None:
                        for statement in _SCHEMA:
                            self.conn.execute(statement)
                        self.conn.execute(
                            "INSERT INTO settings VALUES ('schema', %s)", (str(SCHEMA_VERSION),)
                        )
            # The ranks are written inside an import's batch, which holds its games' rows: made
            # there on first use, two importers would wait on each other (one on the layout's
            # lock, the other on a game the first holds), so a writer makes them here, alone.
            with self.conn.transaction():
                if self.conn.execute("SELECT to_regclass('ranks')").fetchone() == (None,):
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LAYOUT_LOCK,))
                    self.conn.execute(_RANKS_TABLE)
        except psycopg.Error as exc:
            raise StoreError(f"{self.path}: cannot open the game library: {_one_line(exc)}") from None
        version = self._schema_version()
        assert version is not None
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: this game library has schema {version}, from a newer version of "
                f"we; this one reads schema {SCHEMA_VERSION} (upgrade we to use it)"
            )

    def _schema_version(self) -> int | None:
        return _schema_version(self.conn, self.path)

    def close(self) -> None:
        if not self._borrowed:
            self.conn.close()

    # --- transactions ---------------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        """One all-or-nothing write: its own transaction, or a savepoint inside a batch."""
        conn = self.conn
        if self._batch_depth:
            # Before the savepoint: these rows belong to games already written in this batch.
            self._flush()
            self._execute("SAVEPOINT write")
            try:
                yield conn
                self._execute("RELEASE write")
            except BaseException as exc:
                self._undo(exc, "ROLLBACK TO write", "RELEASE write")
            self._commit_now_and_then()
            return
        self._execute("BEGIN")
        try:
            yield conn
            self._execute("COMMIT")
        except BaseException as exc:
            self._undo(exc, "ROLLBACK")

    def _commit_now_and_then(self) -> None:
        """Inside a batch, between writes (so every write stays whole): commit every
        _COMMIT_EVERY rows."""
        if self._since_commit + len(self._pending) >= _COMMIT_EVERY:
            self._flush()
            self._execute("COMMIT")
            self._execute("BEGIN")
            self._since_commit = 0

    def _flush(self) -> None:
        """Send the rows of new games waiting in this batch. A failure here loses the batch's
        uncommitted games with them, never a game's rows without its game: the transaction is
        rolled back whole."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        try:
            self._copy_events(self.conn, rows)
        except psycopg.Error as exc:
            self._since_commit = 0
            if self.conn.closed or self.conn.broken:
                raise ConnectionLostError(
                    f"{self.path}: lost the connection to the game library ({_one_line(exc)}); what "
                    "was not committed yet is not stored (run it again: what is stored is kept)"
                ) from None
            self.conn.execute("ROLLBACK")
            self.conn.execute("BEGIN")  # so that the batch can end as usual
            raise StoreError(
                f"{self.path}: write failed; the games imported since the last commit were not "
                f"stored: {_one_line(exc)}"
            ) from None

    def _execute(self, sql: str) -> None:
        try:
            self.conn.execute(sql)
        except psycopg.Error as exc:
            if self.conn.closed or self.conn.broken:
                raise ConnectionLostError(
                    f"{self.path}: lost the connection to the game library ({_one_line(exc)}); what "
                    "was not committed yet is not stored (run it again: what is stored is kept)"
                ) from None
            raise StoreError(f"{self.path}: cannot write to the game library: {_one_line(exc)}") from None

    def _undo(self, exc: BaseException, *undo: str) -> NoReturn:
        if not self.conn.closed and not self.conn.broken:
            try:
                for sql in undo:
                    self.conn.execute(sql)
            except psycopg.Error:
                pass
        if isinstance(exc, pg_errors.DeadlockDetected | pg_errors.UniqueViolation):
            # Another writer got there first (only a writer of rows by hand can make the
            # unique key speak, past the game's row lock): undone, try again from the head.
            if self._batch_depth:
                # The other writer waits for rows this batch holds: let them go, then retry.
                self._flush()
                self._execute("COMMIT")
                self._execute("BEGIN")
                self._since_commit = 0
            raise _Retry from exc
        if isinstance(exc, psycopg.OperationalError) and (self.conn.closed or self.conn.broken):
            since = " nor what this command wrote since its last commit" if self._batch_depth else ""
            raise ConnectionLostError(
                f"{self.path}: lost the connection to the game library ({_one_line(exc)}); "
                f"nothing of this write was stored{since} (run it again: what is stored is kept)"
            ) from None
        if isinstance(exc, psycopg.Error):
            raise StoreError(f"{self.path}: write failed, nothing stored: {_one_line(exc)}") from None
        raise exc

    def _retrying(self, write: Callable[[], ImportResult]) -> ImportResult:
        for _ in range(_WRITE_ATTEMPTS - 1):
            try:
                return write()
            except _Retry:
                continue
        try:
            return write()
        except _Retry as exc:
            raise StoreError(
                f"{self.path}: write failed after {_WRITE_ATTEMPTS} deadlocks, nothing stored"
            ) from exc

    def _begin_batch(self) -> None:
        self._execute("BEGIN")
        self._since_commit = 0

    def _end_batch(self) -> None:
        self._flush()
        self._execute("COMMIT")

    def _abandon_batch(self, exc: BaseException) -> NoReturn:
        self._pending = []
        self._undo(exc, "ROLLBACK")

    # --- games ------------------------------------------------------------------------

    def log(self, game_id: str) -> LibraryLog:
        return LibraryLog(self, game_id)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        self._flush()
        try:
            yield
        except psycopg.Error as exc:
            raise self._read_failed(exc) from None

    def _read(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        with self._reading():
            return self.conn.execute(sql, args)

    def _select(self, sql: str, args: Sequence[Any], text_columns: str) -> psycopg.Cursor[Any]:
        # Text in a PostgreSQL database is always in its encoding: nothing to read as bytes.
        return self._read(sql, args)

    @staticmethod
    def _update(conn: psycopg.Connection[Any], sql: str, args: Sequence[Any]) -> int:
        return conn.execute(sql, args).rowcount

    def _read_failed(self, exc: psycopg.Error) -> StoreError:
        if self.conn.closed or self.conn.broken:
            return ConnectionLostError(
                f"{self.path}: lost the connection to the game library ({_one_line(exc)})"
            )
        if isinstance(exc, pg_errors.UndefinedColumn | pg_errors.UndefinedTable):
            return StoreError(f"{self.path}: this library is damaged: {_one_line(exc)}")
        return StoreError(f"{self.path}: cannot read the game library: {_one_line(exc)}")

    def _search_rows(self, words: list[str]) -> Iterable[Sequence[Any]]:
        """By PostgreSQL's full-text search."""
        return self._read(_SEARCH, (" ".join(words),)) if words else []

    def setting(self, name: str) -> str | None:
        row = self._read("SELECT value FROM settings WHERE name = %s", (name,)).fetchone()
        return None if row is None else row[0]

    def host_key(self) -> str:
        """The key of `we serve`'s host for the games of this library: made (128+ random bits)
        by the first server to ask, then the same for every server on the database."""
        import secrets

        return self.setting_or_default("host_key", secrets.token_urlsafe(32))

    def set_setting(self, name: str, value: str) -> None:
        """The setting made `value`, whatever it was (a served game's clock, say)."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO settings VALUES (%s, %s)"
                " ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                (name, value),
            )

    def setting_or_default(self, name: str, default: str) -> str:
        """The setting, stored as `default` first if it has none (once, whoever comes first)."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO settings VALUES (%s, %s) ON CONFLICT (name) DO NOTHING", (name, default)
            )
        value = self.setting(name)
        assert value is not None
        return value

    def _event_objs(self, game_id: str, key: int) -> Iterator[dict[str, Any]]:
        # Read a page at a time, so a huge game costs bounded memory and the connection stays
        # free between pages.
        return envelope_objs(game_id, self._rows_of(key))

    def _rows_of(self, key: int, after: int | None = None) -> Iterator[tuple[Any, ...]]:
        if after is None:
            # The first page from any seq, so that a row edited to seq 0 or below shows too.
            page = self._read(_SELECT_FIRST_PAGE, (key,)).fetchall()
        else:
            page = self._read(_SELECT_NEXT_PAGE, (key, after)).fetchall()
        while True:
            yield from page
            if len(page) < _READ_PAGE:
                return
            page = self._read(_SELECT_NEXT_PAGE, (key, page[-1][0])).fetchall()

    def _game_key(self, conn: psycopg.Connection[Any], game_id: str, lock: bool = False) -> int | None:
        sql = "SELECT key FROM games WHERE id = %s" + (" FOR UPDATE" if lock else "")
        row = conn.execute(sql, (game_id,)).fetchone()
        return None if row is None else row[0]

    def _locked_or_new_game(
        self,
        conn: psycopg.Connection[Any],
        first: dict[str, Any],
        last: dict[str, Any],
        summary: Summary | None = None,
    ) -> tuple[int, bool]:
        """The game's key, its row locked for this write, and whether this write created it."""
        key = self._game_key(conn, first["game"], lock=True)
        if key is not None:
            return key, False
        title, players = first_event_meta(first["data"])
        complete, winner = summary if summary is not None else (False, None)
        row = conn.execute(
            _INSERT_GAME,
            (first["game"], title, players, first["at"], last["at"], last["seq"], last["hash"],
             complete, winner),
        ).fetchone()  # fmt: skip
        if row is not None:
            return row[0], True
        # Stored meanwhile by another writer, who has committed it by now.
        key = self._game_key(conn, first["game"], lock=True)
        assert key is not None
        return key, False

    def _newest_row(self, conn: psycopg.Connection[Any], key: int) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = conn.execute(_SELECT_HEAD, (key,)).fetchone()
        return row

    def _insert_events(
        self, conn: psycopg.Connection[Any], key: int, objs: list[dict[str, Any]], label: str
    ) -> None:
        with conn.cursor() as cur:
            cur.executemany(_INSERT_EVENT, [_event_row(key, obj) for obj in objs])

    def _import_events(
        self, conn: psycopg.Connection[Any], key: int, objs: list[dict[str, Any]], label: str
    ) -> None:
        self._copy_events(conn, [_event_row(key, obj) for obj in objs])

    def _keep_lines(self, conn: psycopg.Connection[Any], key: int, lines: Sequence[tuple[int, str]]) -> None:
        conn.execute(_KEEP_LINES, (key, [seq for seq, _ in lines], [line for _, line in lines]))

    def _kept_lines(self, key: int) -> dict[int, str]:
        if self._schema_version() != SCHEMA_VERSION:
            return {}  # an older library read as it is: no lines kept
        rows = self._read("SELECT seq, line FROM event_lines WHERE game = %s", (key,)).fetchall()
        return {seq: line for seq, line in rows}

    def _stored_hash(self, conn: psycopg.Connection[Any], key: int, seq: int) -> Any:
        row = conn.execute("SELECT hash FROM events WHERE game = %s AND seq = %s", (key, seq)).fetchone()
        return None if row is None else row[0]

    def _make_table(self, conn: psycopg.Connection[Any], create: str) -> None:
        # Two writers creating one table at once: CREATE TABLE IF NOT EXISTS is not safe
        # against that in PostgreSQL (the loser fails on pg_type's unique key), so they take
        # turns, until each commits: two replacing the ratings at once then never collide either.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LAYOUT_LOCK,))
        conn.execute(create)

    def _announce(self, conn: psycopg.Connection[Any], game_id: str, seq: int) -> None:
        """Tell servers on this database (`Notifications`), once the write commits."""
        conn.execute("SELECT pg_notify(%s, %s)", (NOTIFY_CHANNEL, f"{game_id} {seq}"))

    def _copy_events(self, conn: psycopg.Connection[Any], rows: Sequence[tuple[Any, ...]]) -> None:
        with conn.cursor() as cur, cur.copy(_COPY_EVENTS) as copy:
            write = copy.write_row
            for row in rows:
                write(row)
        self._since_commit += len(rows)

    # --- importing --------------------------------------------------------------------

    def _import_new_game(
        self,
        lines: Sequence[dict[str, Any]],
        label: str,
        summary: Summary | None,
        written: Mapping[int, str],
        ranks: Sequence[RankRow] | None = None,
    ) -> ImportResult | None:
        """`we import`'s hot path, in a batch: a game not in the library yet, its lines
        verified (seq 1, 2, 3, ... in order), stored in one round trip (its row, final from
        the start) while its events wait for the next COPY. None if the game is there already,
        or outside a batch."""
        if not self._batch_depth:
            return None
        first, last = lines[0], lines[-1]
        title, players = first_event_meta(first["data"])
        complete, winner = summary if summary is not None else (False, None)
        values = (first["game"], title, players, first["at"], last["at"], last["seq"], last["hash"],
                  complete, winner)  # fmt: skip
        conn = self.conn
        try:
            # Three statements in one round trip (parameters bound here, so that the server
            # takes them as one simple query): cheaper than a pipeline's, per game.
            with psycopg.ClientCursor(conn) as cursor:
                cursor.execute(_SAVEPOINT_INSERT_GAME, values)
                cursor.nextset()
                row = cursor.fetchone()
        except psycopg.Error as exc:
            try:
                self._undo(exc, "ROLLBACK TO write", "RELEASE write")
            except _Retry:
                return None  # the general path tries again
        if row is None:
            return None
        key = row[0]
        dumps = orjson.dumps
        self._pending.extend(
            (key, line["seq"], line["type"], dumps(line["data"]).decode(), line["at"],
             line["prev"], line["hash"])
            for line in lines
        )  # fmt: skip
        if written:
            self._keep_lines(conn, key, sorted(written.items()))
        if ranks:
            self._keep_ranks(conn, first["game"], last["seq"], ranks)
        if len(self._pending) >= _IMPORT_BATCH:
            self._flush()
        self._commit_now_and_then()
        game, added = first["game"], len(lines)
        msg = f"{label}: imported game {game!r} ({added} events)"
        return ImportResult(game, "imported", added, added, fingerprint(last["hash"]), msg)


class LibraryLog(SqlGameLog):
    """One game in a PostgreSQL Library."""

    library: Library

    def rows_after(self, seq: int) -> Iterator[dict[str, Any]]:
        """The stored events after event `seq`, unchecked, in seq order: what a follower that
        has read up to `seq` reads when told the game grew. Nothing if there is no such game."""
        library = self.library
        row = library._read("SELECT key FROM games WHERE id = %s", (self.game_id,)).fetchone()
        if row is None:
            return iter(())
        return envelope_objs(self.game_id, library._rows_of(row[0], after=seq))

    def append(
        self,
        events: Sequence[tuple[str, dict[str, Any]]],
        expected_seq: int,
        at: str | None = None,
        summary: Summary | None = None,
    ) -> list[Envelope]:
        try:
            return super().append(events, expected_seq, at, summary)
        except _Retry:
            # Another writer's event at the same seq (the unique key), or a deadlock: stale.
            raise ConcurrencyError(self.where, expected_seq, self.head()[0]) from None


def _event_row(key: int, obj: dict[str, Any]) -> tuple[Any, ...]:
    data = orjson.dumps(obj["data"]).decode()  # compact, in the key order it was written
    return (key, obj["seq"], obj["type"], data, obj["at"], obj["prev"], obj["hash"])


class Notifications:
    """Follows what every writer on the database announces (`we serve` on several machines):
    LISTEN on a connection of its own, in a thread, calling `on_event(game_id, seq)` for each
    "game G has new events up to seq N".

    If the connection is lost (the server restarted, the network went), `on_lost(message)` is
    called once, and connecting is tried again every `retry_s` seconds; when it listens again,
    `on_back()` is called: whatever was announced meanwhile is gone, so the caller reads again
    what it follows (the events are in the table, nothing is missed)."""

    def __init__(
        self,
        url: str,
        on_event: Callable[[str, int], None],
        on_lost: Callable[[str], None] | None = None,
        on_back: Callable[[], None] | None = None,
        retry_s: float = 0.5,
    ) -> None:
        import threading

        self.url = url
        self.where = display_url(url)
        self._on_event = on_event
        self._on_lost = on_lost
        self._on_back = on_back
        self._retry_s = retry_s
        self._stopping = threading.Event()
        self.listening = threading.Event()  # set while LISTEN is in place
        self._thread = threading.Thread(target=self._run, name="we-notifications", daemon=True)

    def start(self) -> Notifications:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        lost = False
        while not self._stopping.is_set():
            try:
                with psycopg.connect(
                    self.url, autocommit=True, connect_timeout=5, application_name="we"
                ) as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listening.set()
                    if lost:
                        lost = False
                        if self._on_back is not None:
                            self._on_back()
                    while not self._stopping.is_set():
                        for note in conn.notifies(timeout=0.5):
                            game, _, seq = note.payload.rpartition(" ")
                            if game and seq.isdigit():
                                self._on_event(game, int(seq))
            except psycopg.Error as exc:
                self.listening.clear()
                if not lost:
                    lost = True
                    if self._on_lost is not None:
                        where, why = self.where, _one_line(exc, self.url)
                        self._on_lost(f"{where}: lost the database ({why}); trying again")
                self._stopping.wait(self._retry_s)


class LibraryPool:
    """Libraries on pooled connections, for a server's many threads: each
    `with pool.library() as library:` has a connection of its own for the block, taken from
    the idle ones or made then, and kept for the next block unless it broke.

    Not psycopg_pool: after an outage it reconnects with a growing back-off (1, 2, 4 s ...), so
    a server whose database came back went on answering "cannot be reached" for seconds. Here a
    connection is made when one is asked for, so the first request after the database is back
    gets one; while it is away, asking fails at once (ConnectionLostError), not after a wait. A
    connection idle for a while is checked (one round trip) before it is handed out, so one that
    died with a restarted server is replaced, not used."""

    _CHECK_AFTER_S = 1.0

    def __init__(self, url: str, size: int = 8, wait_s: float = 30.0) -> None:
        import threading

        Library(url).close()  # the tables laid out (or someone else's database refused), once
        self.url = url
        self.where = display_url(url)
        self._idle: list[tuple[psycopg.Connection[Any], float]] = []
        self._lock = threading.Lock()
        # At most `size` connections at once; a request beyond them waits for one to be free.
        self._slots = threading.BoundedSemaphore(size)
        self._wait_s = wait_s
        self._closed = False

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=5, application_name="we serve")
        except psycopg.Error as exc:
            raise ConnectionLostError(
                f"{self.where}: the game library cannot be reached ({_one_line(exc, self.url)})"
            ) from None

    def _take(self) -> psycopg.Connection[Any]:
        import time

        while True:
            with self._lock:
                if not self._idle:
                    break
                conn, since = self._idle.pop()
            if conn.broken or conn.closed:
                conn.close()
                continue
            if time.monotonic() - since < self._CHECK_AFTER_S:
                return conn
            try:
                conn.execute("SELECT 1")
                return conn
            except psycopg.Error:
                conn.close()  # died while idle (the server restarted): make another
        return self._connect()

    @contextmanager
    def library(self) -> Iterator[Library]:
        import time

        if not self._slots.acquire(timeout=self._wait_s):
            raise StoreError(f"{self.where}: every connection to the game library is busy; try again")
        try:
            conn = self._take()
            try:
                yield Library(self.url, connection=conn)
            finally:
                outside = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
                if conn.broken or conn.closed or not outside or self._closed:
                    conn.close()
                else:
                    with self._lock:
                        self._idle.append((conn, time.monotonic()))
        finally:
            self._slots.release()

    def close(self) -> None:
        self._closed = True
        with self._lock:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()
