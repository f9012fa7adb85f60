"""What the two game libraries (SQLite, PostgreSQL) share: every use of a library written once.

`SqlLibrary` holds the algorithms: listing and searching games, their summaries, imports (a
file, envelopes, lines just verified; many in a batch), export, batches nested in batches, and
a game's log (`SqlGameLog`): its head, creating it, appending to it under the backend's lock,
reading it back. A backend, as the `eventsourcing` library's recorders do, gives only what is
its own: its SQL where it differs, its connection and transactions (`_write`, the batch hooks),
its locking, and how its errors become one line (`_reading`, `_write`). The SQL both speak is
here, in SQLite's `?` style; PostgreSQL's `%s` is put in by `_sql`.

The row helpers both libraries use (a stored row as an envelope, a games row as a listing
shows it) are in `sqlite_schema`, the first library's layout, which PostgreSQL's follows.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, ClassVar, Generic, NoReturn, Self, TypeVar

import orjson

from eventstore.as_written import LinesAhead, WrittenLines, as_written
from eventstore.envelope import Envelope, envelope_from_raw
from eventstore.errors import (
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    SealedGameError,
    StoreError,
)
from eventstore.integrity import (
    LogLine,
    Scanned,
    VerifyResult,
    iter_objects,
    scan_lines,
    scan_objects,
    verify_objects,
    verify_tail_line,
)
from eventstore.logfile import open_log
from eventstore.persistence import (
    NO_SUMMARY,
    ImportResult,
    Payload,
    SealingLog,
    StoreAfterHead,
    Summary,
    import_scanned,
    write_new_log,
)
from eventstore.sqlite_schema import GAME_COLUMNS, envelope_objs, game_summary, search_words

# A backend's connection: sqlite3's or psycopg's.
Conn = TypeVar("Conn")
# A stored event row as both libraries read it: (seq, type, data, at, prev, hash).
EventRow = Sequence[Any]

_GAME_NAMES = tuple(GAME_COLUMNS.split(", "))
_HAS_GAME = "SELECT 1 FROM games WHERE id = ?"
_GAMES = f"SELECT {GAME_COLUMNS} FROM games ORDER BY started_at, id"
# One finished game's place for a seat: (seat, player, score, rank).
RankRow = tuple[int, str, int, int]

_SUMMARY_OF = f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?"
_SET_SUMMARY = "UPDATE games SET complete = ?, winner = ? WHERE id = ?"
_ADVANCE = "UPDATE games SET last_at = ?, events = ?, head_hash = ? WHERE id = ?"
_SEAL = (
    "INSERT INTO game_seals (game, ledger, line, events, hash, fingerprint) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (game) DO UPDATE SET ledger = excluded.ledger, line = excluded.line,"
    " events = excluded.events, hash = excluded.hash, fingerprint = excluded.fingerprint"
)
_SEAL_OF = "SELECT ledger, line, events, fingerprint FROM game_seals WHERE game = ?"
_ADVANCE_WITH_SUMMARY = (
    "UPDATE games SET last_at = ?, events = ?, head_hash = ?, complete = ?, winner = ? WHERE id = ?"
)

# The ratings a service computed over the library's games, whole each time (`we stats
# --ratings`, an import): a table beside the games, for Datasette and SQL; nothing reads it back.
_RATINGS_TABLE = (
    "CREATE TABLE IF NOT EXISTS ratings (player TEXT PRIMARY KEY, games INTEGER NOT NULL,"
    " mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, ordinal DOUBLE PRECISION NOT NULL)"
)
_INSERT_RATING = "INSERT INTO ratings (player, games, mu, sigma, ordinal) VALUES (?, ?, ?, ?, ?)"
# The receipts players' phones signed at the end of a game (eventstore.receipts), one per
# player and game, kept beside the games: not events of them.
_RECEIPTS_TABLE = (
    "CREATE TABLE IF NOT EXISTS receipts (game TEXT NOT NULL, player TEXT NOT NULL,"
    " receipt TEXT NOT NULL, PRIMARY KEY (game, player))"
)
_KEEP_RECEIPT = (
    "INSERT INTO receipts (game, player, receipt) VALUES (?, ?, ?)"
    " ON CONFLICT (game, player) DO UPDATE SET receipt = excluded.receipt"
)
_RECEIPTS_OF = "SELECT receipt FROM receipts WHERE game = ? ORDER BY player"
# Each finished game's places, seat by seat, as of its `events` events: written in the very
# write that imports the game (from the audit the import made), so that the ratings are
# recomputed from them without folding a game again. Made on first use, like the two above.
_RANKS_TABLE = (
    "CREATE TABLE IF NOT EXISTS ranks (game TEXT NOT NULL, seat INTEGER NOT NULL, player TEXT NOT NULL,"
    " score INTEGER NOT NULL, rank INTEGER NOT NULL, events INTEGER NOT NULL, PRIMARY KEY (game, seat))"
)
_RANKS = (
    "SELECT r.game, g.started_at, r.seat, r.player, r.score, r.rank FROM ranks r"
    " JOIN games g ON g.id = r.game ORDER BY g.started_at, g.id, r.seat"
)
# Finished games whose ranks are missing or older than their events (a game finished by
# `we serve --db`, a tie_broken appended since, a library from before the ranks).
_UNRANKED = (
    "SELECT g.id FROM games g WHERE g.complete AND g.events <> COALESCE("
    "(SELECT MIN(r.events) FROM ranks r WHERE r.game = g.id), -1) ORDER BY g.started_at, g.id"
)
_FINISHED = "SELECT id FROM games WHERE complete ORDER BY started_at, id"


def _summary(values: Sequence[Any]) -> dict[str, Any]:
    """A games row (GAME_COLUMNS, in order) as `games` lists it."""
    return game_summary(dict(zip(_GAME_NAMES, values, strict=True)))


class SqlLibrary(ABC, Generic[Conn]):
    """A game library in one SQL database (see the module's docstring). Use `log(game_id)` for
    one game's log."""

    # What messages name: the SQLite file, the PostgreSQL URL without its password.
    path: object
    conn: Conn
    read_only: bool
    # What an upgrade of an old library said.
    upgrade_notes: list[str]
    # Writes inside batch() blocks, nested: 0 outside any.
    _batch_depth: int
    # How the backend's driver marks a parameter in SQL.
    _PARAM: ClassVar[str] = "?"
    # A row when the table named is there (written with `?`).
    _TABLE_THERE: ClassVar[str] = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"

    # --- what a backend gives ---------------------------------------------------------------

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _write(self) -> AbstractContextManager[Conn]:
        """One all-or-nothing write: its own transaction, or a savepoint inside a batch. Every
        error leaving it is a StoreError naming the library (or a retry, see `_retrying`)."""

    @abstractmethod
    def _reading(self) -> AbstractContextManager[None]:
        """The driver's errors while reading, as one line naming the library."""

    @abstractmethod
    def _select(self, sql: str, args: Sequence[Any], text_columns: str) -> Iterable[Sequence[Any]]:
        """The rows of a query on the library's connection (`sql` in the driver's style), read
        errors as one line; a value of `text_columns` that the driver cannot decode is read
        as bytes, for the listings to flag."""

    @abstractmethod
    def _update(self, conn: Conn, sql: str, args: Sequence[Any]) -> int:
        """Run a statement inside a write; the number of rows it changed."""

    @abstractmethod
    def _begin_batch(self) -> None:
        """Start a batch: what its first write needs (a transaction, a bigger cache)."""

    @abstractmethod
    def _end_batch(self) -> None:
        """Commit what the batch wrote since its last commit."""

    @abstractmethod
    def _abandon_batch(self, exc: BaseException) -> NoReturn:
        """Undo what the batch wrote since its last commit, and raise `exc` as a StoreError."""

    def _after_batch(self) -> None:
        """Put back what the batch changed of the connection's settings."""

    @abstractmethod
    def _game_key(self, conn: Conn, game_id: str, lock: bool = False) -> int | None:
        """The key of a game's row (`lock`: locked for this write), None if there is none."""

    @abstractmethod
    def _locked_or_new_game(
        self, conn: Conn, first: dict[str, Any], last: dict[str, Any], summary: Summary | None = None
    ) -> tuple[int, bool]:
        """Inside a write: the game's key, its row locked for the write, and whether this write
        made the row (from its first and newest envelopes, parsed, and the summary)."""

    @abstractmethod
    def _newest_row(self, conn: Conn, key: int) -> EventRow | None:
        """The game's newest stored event row, None if it has none."""

    @abstractmethod
    def _event_objs(self, game_id: str, key: int) -> Iterator[dict[str, Any]]:
        """The game's rows as parsed envelopes, in seq order, streamed."""

    @abstractmethod
    def _insert_events(self, conn: Conn, key: int, objs: list[dict[str, Any]], label: str) -> None:
        """Store a few events (parsed envelopes) of the game after its head; `label` names the
        game or the log in messages."""

    def _import_events(self, conn: Conn, key: int, objs: list[dict[str, Any]], label: str) -> None:
        """Store a chunk of an import: by default as `_insert_events` stores an append's."""
        self._insert_events(conn, key, objs, label)

    @abstractmethod
    def _stored_hash(self, conn: Conn, key: int, seq: int) -> Any:
        """The hash of the game's stored event `seq`, None if there is none."""

    @abstractmethod
    def _keep_lines(self, conn: Conn, key: int, lines: Sequence[tuple[int, str]]) -> None:
        """Keep these (seq, line as written) of the game, replacing any kept at those seqs."""

    @abstractmethod
    def _kept_lines(self, key: int) -> dict[int, str]:
        """The game's kept lines by seq; none in a library of a layout without them."""

    def _announce(self, conn: Conn, game_id: str, seq: int) -> None:
        """Tell others that the game has new events up to `seq` once this write commits; a
        backend whose readers are not told (they look again) does nothing."""

    def _import_new_game(
        self,
        lines: Sequence[dict[str, Any]],
        label: str,
        summary: Summary | None,
        written: Mapping[int, str],
        ranks: Sequence[RankRow] | None = None,
    ) -> ImportResult | None:
        """`we import`'s hot path: lines just verified (seq 1, 2, 3, ... in order) of a game
        not in the library yet, stored the backend's quickest way, with the lines `written`
        otherwise than their rows, and its `ranks` if it is finished. None where it does not
        apply (the game is there already): the general path then imports them."""
        return None

    def _retrying(self, write: Callable[[], ImportResult]) -> ImportResult:
        """`write` again while it loses to another writer, where the backend lets it."""
        return write()

    # --- the library ----------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"Library({str(self.path)!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def where(self, game_id: str) -> str:
        return f"game {game_id!r} in {self.path}"

    def _sql(self, sql: str) -> str:
        """`sql`, written with `?`, in the driver's style."""
        return sql.replace("?", self._PARAM)

    @abstractmethod
    def log(self, game_id: str) -> SqlGameLog: ...

    def has_game(self, game_id: str) -> bool:
        return any(True for _ in self._select(self._sql(_HAS_GAME), (game_id,), ""))

    def games(self) -> list[dict[str, Any]]:
        """One summary per game, oldest first; `players` parsed, `complete` a bool, `damaged`
        for a row that is not what we writes (its odd values read as None): listed and
        flagged, never a crash."""
        return [_summary(row) for row in self._select(_GAMES, (), GAME_COLUMNS)]

    def search(self, text: str) -> list[dict[str, Any]]:
        """The games (as `games` lists them, oldest first) with every word of `text` in their
        title, players' names or notes, by the database's full-text search. Letter case aside;
        what a user types is never search syntax."""
        return [_summary(row) for row in self._search_rows(search_words(text))]

    @abstractmethod
    def _search_rows(self, words: list[str]) -> Iterable[Sequence[Any]]:
        """The games rows (GAME_COLUMNS) with every one of `words`, oldest first; none for no
        words."""

    def summary_of(self, game_id: str) -> dict[str, Any] | None:
        """The games row of one game as `games` lists it, or None if there is none."""
        rows = list(self._select(self._sql(_SUMMARY_OF), (game_id,), GAME_COLUMNS))
        return _summary(rows[0]) if rows else None

    def mark_sealed(
        self, game_id: str, *, ledger: str, line: int, events: int, head_hash: str, fingerprint: str
    ) -> None:
        """Record that a season ledger sealed this game (by its library id): from then on every
        write that would add to it is refused (SealedGameError), naming the ledger."""
        with self._write() as conn:
            self._update(conn, self._sql(_SEAL), (game_id, ledger, line, events, head_hash, fingerprint))

    def _refuse_if_sealed(self, conn: Conn, game_id: str) -> None:
        """SealedGameError when a ledger sealed this game (inside a write, so after any upgrade
        that laid out `game_seals`)."""
        row = conn.execute(self._sql(_SEAL_OF), (game_id,)).fetchone()  # type: ignore[attr-defined]
        if row is not None:
            ledger, line, events, fingerprint = row
            raise SealedGameError(
                f"{self.where(game_id)} is sealed into the season ledger {ledger} (line {line},"
                f" {events} events, fingerprint {fingerprint}): its events are final, nothing can be"
                " undone or added; to change the result, play or record the game again as a new game"
            )

    def set_summary(self, game_id: str, *, complete: bool, winner: str | None) -> None:
        """Keep rules-level facts the CLI computed; the store does not judge them."""
        with self._write() as conn:
            if self._update(conn, self._sql(_SET_SUMMARY), (complete, winner, game_id)) == 0:
                raise GameNotFoundError(self.where(game_id))

    def replace_ratings(self, rows: Iterable[tuple[str, int, float, float, float]]) -> None:
        """The ratings table, (player, games, mu, sigma, ordinal) rows, replaced as a whole in
        one write; made on first use. Writers replacing it at once take turns (_make_table)."""
        with self._write() as conn:
            self._make_table(conn, _RATINGS_TABLE)
            self._update(conn, "DELETE FROM ratings", ())
            for row in rows:
                self._update(conn, self._sql(_INSERT_RATING), row)

    def keep_receipt(self, game_id: str, player: str, receipt: str) -> None:
        """A player's receipt of a game (its JSON), replacing the one before; the table is made
        on first use."""
        with self._write() as conn:
            self._make_table(conn, _RECEIPTS_TABLE)
            self._update(conn, self._sql(_KEEP_RECEIPT), (game_id, player, receipt))

    def _make_table(self, conn: Conn, create: str) -> None:
        """Inside a write: a table made on first use (`create`: CREATE TABLE IF NOT EXISTS);
        a backend whose writers may make it at once has them take turns until they commit."""
        self._update(conn, create, ())

    def _keep_ranks(self, conn: Conn, game_id: str, events: int, ranks: Sequence[RankRow]) -> None:
        """Inside a write: the game's ranks as of `events` events, replacing any kept."""
        if not getattr(self, "_ranks_there", False):
            if conn.execute(self._sql(self._TABLE_THERE), ("ranks",)).fetchone() is None:  # type: ignore[attr-defined]
                self._make_table(conn, _RANKS_TABLE)
            else:
                self._ranks_there = True
        self._update(conn, self._sql("DELETE FROM ranks WHERE game = ?"), (game_id,))
        if ranks:
            values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(ranks))
            args = [value for row in ranks for value in (game_id, *row, events)]
            self._update(conn, self._sql(f"INSERT INTO ranks VALUES {values}"), args)

    def keep_ranks(self, game_id: str, events: int, ranks: Sequence[RankRow]) -> None:
        """A finished game's ranks (seat, player, score, rank) as of `events` events, in one
        write of their own (the catch-up of a game no import ranked)."""
        with self._write() as conn:
            self._keep_ranks(conn, game_id, events, ranks)

    def ranks(self) -> list[tuple[str, str, int, str, int, int]]:
        """Every ranked game's places, (game, started_at, seat, player, score, rank), the
        games in the order played (first event's `at`, then id), seats in order."""
        if not self._has_table("ranks"):
            return []
        with self._reading():
            return [tuple(row) for row in self._select(_RANKS, (), "")]

    def unranked(self) -> list[str]:
        """The finished games whose ranks are missing or stale, in the order played."""
        sql = _UNRANKED if self._has_table("ranks") else _FINISHED
        with self._reading():
            return [row[0] for row in self._select(sql, (), "")]

    def _has_table(self, name: str) -> bool:
        with self._reading():
            return any(True for _ in self._select(self._sql(self._TABLE_THERE), (name,), ""))

    def receipts_of(self, game_id: str) -> list[str]:
        """The receipts kept for a game (JSON texts), by player; none in a library without any."""
        if not self._has_table("receipts"):
            return []
        with self._reading():
            return [row[0] for row in self._select(self._sql(_RECEIPTS_OF), (game_id,), "")]

    def _advance_game(self, conn: Conn, last: dict[str, Any], summary: Summary | None = None) -> None:
        """The game's row after new events up to `last`; with `summary`, that too."""
        head = (last["at"], last["seq"], last["hash"])
        if summary is None:
            self._update(conn, self._sql(_ADVANCE), (*head, last["game"]))
        else:
            self._update(conn, self._sql(_ADVANCE_WITH_SUMMARY), (*head, *summary, last["game"]))

    def _events_of(self, game_id: str) -> Iterator[dict[str, Any]]:
        """A game's rows as parsed envelopes, in seq order; GameNotFoundError if no such game."""
        with self._reading():
            key = self._game_key(self.conn, game_id)
        if key is None:
            raise GameNotFoundError(self.where(game_id))
        return self._event_objs(game_id, key)

    @contextmanager
    def batch(self) -> Iterator[Self]:
        """Share transactions between the writes inside the block (imports, appends, creates,
        summaries): one commit per ~50,000 rows (SQLite: or a quarter of a second) instead of
        one per write.

        Each write stays all or nothing (a savepoint each): one that fails is rolled back
        alone, and the block carries on if the caller catches its error. If an exception
        leaves the block, what was not committed yet is rolled back."""
        if self._batch_depth:
            self._batch_depth += 1
            try:
                yield self
            finally:
                self._batch_depth -= 1
            return
        self._begin_batch()
        self._batch_depth = 1
        try:
            yield self
            self._end_batch()
        except BaseException as exc:
            self._batch_depth = 0
            self._abandon_batch(exc)
        finally:
            self._batch_depth = 0
            self._after_batch()

    # --- importing and exporting ------------------------------------------------------------

    def import_log(self, path: str | os.PathLike[str]) -> ImportResult:
        """Copy a JSONL log into the library, all or nothing.

        A log that fails integrity checks is refused (LogIntegrityError). The same log again
        is a no-op ("unchanged"), as is a prefix of the stored game; a log that extends the
        stored game exactly gets its new tail appended ("extended"); anything else under an
        existing game id is an ImportConflictError.
        """
        return self._retrying(lambda: self._import_path(Path(path)))

    def _import_path(self, path: Path) -> ImportResult:
        try:
            f = open_log(path)
            written = LinesAhead(path)  # the same file again, read as the import goes
        except FileNotFoundError:
            raise GameNotFoundError(str(path)) from None
        except OSError as exc:
            raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
        with f, closing(written), self._write() as conn:
            try:
                return self._import(conn, str(path), scan_lines(f), written=written)
            except OSError as exc:
                raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None

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

    def import_envelopes(self, envelopes: Iterable[Envelope], label: str = "envelopes") -> ImportResult:
        """import_log for envelopes already in memory (a simulation's games), same rules.

        `label` names the source in messages.
        """
        objs = [e.to_dict() for e in envelopes]

        def write() -> ImportResult:
            with self._write() as conn:
                return self._import(conn, label, scan_objects(objs))

        return self._retrying(write)

    def import_verified(
        self,
        lines: Sequence[dict[str, Any]],
        label: str,
        summary: Summary | None = None,
        written: Mapping[int, str] | None = None,
        ranks: Sequence[RankRow] | None = None,
    ) -> ImportResult:
        """import_log for a log this package's reader has just verified, every line parsed and
        free of integrity problems (`we import` audits each log first): the same rules, without
        hashing every line a second time.

        `summary` (complete, winner) is stored with the game in the same write when the import
        adds events, as set_summary would. `written`: the lines as their file wrote them,
        where that differs from their rows' form (eventstore.as_written), kept for export.
        `ranks`: a finished game's places, kept in the same write."""
        written = written or {}
        if lines:
            result = self._import_new_game(lines, label, summary, written, ranks)
            if result is not None:
                return result

        def write() -> ImportResult:
            with self._write() as conn:
                scanned = ((line["seq"], line, None, True) for line in lines)
                result = self._import(conn, label, scanned, summary, written)
                if ranks and result.status != "unchanged":
                    self._keep_ranks(conn, result.game_id, result.events, ranks)
                return result

        return self._retrying(write)

    def _import(
        self,
        conn: Conn,
        label: str,
        scanned: Iterable[Scanned],
        summary: Summary | None = None,
        written: WrittenLines | None = None,
    ) -> ImportResult:
        target = SqlImport(self, conn, label, summary, written or {})
        return import_scanned(target, label, scanned, summary)

    def export(self, game_id: str, path: str | os.PathLike[str]) -> int:
        """Write a game as a JSONL log (refusing to overwrite); returns the number of events.

        The rows are written as stored, so the file verifies with the same hashes and
        fingerprint (and shows any tampering done to the rows); a row imported from a line
        written otherwise (spaces, another key order) is written as that line, byte for byte,
        while the line still reads as exactly the row (eventstore.as_written).
        """
        objs = self._events_of(game_id)
        with self._reading():
            key = self._game_key(self.conn, game_id)
            kept = {} if key is None else self._kept_lines(key)
        return write_new_log(as_written(objs, kept), path)


class SqlImport(Generic[Conn]):
    """import_scanned's target (persistence.ImportTarget): one game's rows in a library, inside
    its write. The game's row is told about the events just stored: its head, and for a game
    extended, the summary given, else NO_SUMMARY (as an append without one keeps)."""

    def __init__(
        self,
        library: SqlLibrary[Conn],
        conn: Conn,
        label: str,
        summary: Summary | None,
        written: WrittenLines,
    ) -> None:
        self.library, self.conn, self.label, self.summary = library, conn, label, summary
        self.written = written
        self.key = 0
        self.new_game = False
        self.checked_seal = False

    def locate(self, first: dict[str, Any]) -> tuple[bool, int, str]:
        # A new game's row is made now; rolled back with the rest if a later line is broken.
        self.key, new_game = self.library._locked_or_new_game(self.conn, first, first, self.summary)
        self.new_game = new_game
        if new_game:
            return True, 0, ""
        head = self.library._newest_row(self.conn, self.key)
        return (False, 0, "") if head is None else (False, head[0], head[5])

    def store(self, objs: list[dict[str, Any]]) -> None:
        if not self.new_game and not self.checked_seal:
            self.library._refuse_if_sealed(self.conn, objs[0]["game"])
            self.checked_seal = True
        self.library._import_events(self.conn, self.key, objs, self.label)
        if self.written:
            kept = [(obj["seq"], line) for obj in objs if (line := self.written.get(obj["seq"])) is not None]
            if kept:
                self.library._keep_lines(self.conn, self.key, kept)

    def finish_new(self, last: dict[str, Any]) -> None:
        self.library._advance_game(self.conn, last)

    def finish_extended(self, last: dict[str, Any], summary: Summary | None) -> None:
        self.library._advance_game(self.conn, last, NO_SUMMARY if summary is None else summary)
        self.library._announce(self.conn, last["game"], last["seq"])

    def stored_hash(self, seq: int) -> Any:
        return self.library._stored_hash(self.conn, self.key, seq)


class SqlGameLog(SealingLog):
    """One game in a library: a GameLog whose events are rows, written and read through the
    library's hooks."""

    def __init__(self, library: SqlLibrary[Any], game_id: str) -> None:
        self.library = library
        self.game_id = game_id
        self._where = library.where(game_id)

    def __repr__(self) -> str:
        return f"LibraryLog({self.library!r}, {self.game_id!r})"

    @property
    def where(self) -> str:
        return self._where

    def exists(self) -> bool:
        return self.library.has_game(self.game_id)

    def _same_game(self, game_id: str) -> None:
        if game_id != self.game_id:
            raise ValueError(f"this log is game {self.game_id!r}, not {game_id!r}")

    def create(self, first: Payload, game_id: str, at: str | None = None) -> Envelope:
        self._same_game(game_id)
        return super().create(first, game_id, at)

    def create_many(self, events: Sequence[Payload], game_id: str, at: str | None = None) -> list[Envelope]:
        self._same_game(game_id)
        return super().create_many(events, game_id, at)

    def _store_first(self, envelope: Envelope) -> None:
        self._store_new([envelope])

    def _store_new(self, envelopes: list[Envelope]) -> None:
        """A new game's first lines in one transaction: all of them or none."""
        library = self.library
        objs = [envelope.to_dict() for envelope in envelopes]
        with library._write() as conn:
            key, new = library._locked_or_new_game(conn, objs[0], objs[-1])
            if not new:
                raise LogExistsError(self.where)
            library._insert_events(conn, key, objs, self.where)
            library._announce(conn, self.game_id, objs[-1]["seq"])

    def _checked_head(self, obj: dict[str, Any]) -> Envelope:
        """The newest stored event (parsed), checked as a JSONL log's tail is: never chain new
        events onto a damaged head (a row edited by hand, a value that is not even JSON)."""
        try:
            line = orjson.dumps(obj) + b"\n"
        except TypeError:
            line = b""
        env, problems = verify_tail_line(line) if line else (None, [])
        if env is None or problems:
            raise LogIntegrityError(self.where, self.verify().problems or [])
        return env

    def _head_row(self, conn: Any, lock: bool) -> tuple[int, Envelope] | None:
        """The game's key and its newest event, checked; None if it has none."""
        key = self.library._game_key(conn, self.game_id, lock=lock)
        if key is None:
            return None
        row = self.library._newest_row(conn, key)
        if row is None:
            return None
        (obj,) = envelope_objs(self.game_id, [row])
        return key, self._checked_head(obj)

    def head(self) -> tuple[int, str | None, str | None]:
        with self.library._reading():
            located = self._head_row(self.library.conn, lock=False)
        if located is None:
            return (0, None, None)
        env = located[1]
        return (env.seq, env.hash, env.game)

    @contextmanager
    def _locked_head(self) -> Iterator[tuple[Envelope | None, StoreAfterHead]]:
        """The head inside one write, the game's row locked (writers of one game take turns);
        the rows go in with the game's new head, announced on commit."""
        library = self.library
        with library._write() as conn:
            key, head = self._head_row(conn, lock=True) or (0, None)

            def store(sealed: list[Envelope], summary: Summary | None) -> None:
                library._refuse_if_sealed(conn, self.game_id)
                objs = [e.to_dict() for e in sealed]
                library._insert_events(conn, key, objs, self.where)
                library._advance_game(conn, objs[-1], NO_SUMMARY if summary is None else summary)
                library._announce(conn, self.game_id, objs[-1]["seq"])

            yield head, store

    def _objects(self) -> Iterator[dict[str, Any]]:
        return self.library._events_of(self.game_id)

    def rows(self) -> Iterator[dict[str, Any]]:
        """The stored events as envelope objects, unchecked, for a reader that verifies them
        itself (scan_objects): the cheapest way to audit a game in the library."""
        return self._objects()

    def iter_lines(self) -> Iterator[LogLine]:
        """Every stored event with its integrity problems, like iter_log on a file; never raises
        on a problem (for audit, which reports them all)."""
        return iter_objects(self._objects(), from_json=True)

    def read_unchecked(self) -> Iterator[Envelope]:
        """The rows as envelopes, unchecked (a row always has all the fields; a tampered one is
        caught by whoever checks them next)."""
        return map(envelope_from_raw, self._objects())

    def verify(self) -> VerifyResult:
        return verify_objects(self._objects(), from_json=True)
