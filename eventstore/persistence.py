"""What a storage backend is: the interface every one implements, and the base that seals.

`GameLog` is one game's append-only log; `GameLibrary` is many games in one database (SQLite
or PostgreSQL, which share their code in `sql_library`). Callers hold these types, never a
backend's class.

`SealingLog` does the part every backend shares: it checks the game id and the caller's idea
of the head, and seals each new event onto the hash chain (`seal`). A backend only stores and
reads back lines or rows: `_store_first` writes line 1 where no game is yet, and `_locked_head`
reads the newest envelope under the backend's own write lock (a file lock, a transaction) and
hands back a function that stores envelopes after it, all or nothing. Reading checks every line
with `integrity`, so a backend only has to give its lines (`iter_lines`) and a `verify` of them.

tests/store/test_contract.py is the one suite every backend passes.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import orjson

from eventstore.canonical import fingerprint
from eventstore.envelope import Envelope, seal, utc_now, valid_game_id
from eventstore.errors import (
    ConcurrencyError,
    GameNotFoundError,
    ImportConflictError,
    LogExistsError,
    LogIntegrityError,
    StoreError,
)
from eventstore.integrity import PROBLEMS_LISTED, LogLine, Scanned, VerifyResult
from eventstore.problems import EMPTY, Problem

# An event to append, as the log writes it: (type, data).
Payload = tuple[str, dict[str, Any]]
# (seq, hash, game id) of a log's newest event; (0, None, None) when there is no log yet.
Head = tuple[int, str | None, str | None]
# What a game library keeps about a game that the store does not judge: (complete, winner).
Summary = tuple[bool, "str | None"]
# A summary that claims nothing: what a game library keeps when its writer gives none.
NO_SUMMARY: Summary = (False, None)
# Stores sealed envelopes after the head just read, all or nothing, with the game's summary
# after them (a library keeps it in the same write; a file or memory keeps none).
StoreAfterHead = Callable[[list[Envelope], "Summary | None"], None]


@runtime_checkable
class GameLog(Protocol):
    """One game's append-only log (log-format.md): a JSONL file, a game in a library, memory."""

    def exists(self) -> bool: ...

    def create(self, first: Payload, game_id: str, at: str | None = None) -> Envelope:
        """Start the log with its first event; LogExistsError if there is one already."""
        ...

    def head(self) -> Head: ...

    def append(
        self,
        events: Sequence[Payload],
        expected_seq: int,
        at: str | None = None,
        summary: Summary | None = None,
    ) -> list[Envelope]:
        """Seal and store `events` after event `expected_seq`, all or nothing, durably before it
        returns; ConcurrencyError (nothing stored) when the newest event is another. A game in
        a library keeps `summary` (complete, winner), which the caller computed from the game's
        state after these events, in the same write; without one it keeps NO_SUMMARY (the store
        does not judge the game). A file keeps no summary."""
        ...

    def read(self) -> Iterator[Envelope]:
        """The events of a log that must be good: LogIntegrityError at the first problem."""
        ...

    def iter_lines(self) -> Iterator[LogLine]:
        """Every line with its integrity problems; never raises on a problem."""
        ...

    def verify(self) -> VerifyResult: ...


@runtime_checkable
class StoredGameLog(GameLog, Protocol):
    """A game in a library: its rows can be read unchecked, for a reader that checks them
    itself (`integrity.scan_objects`), the cheapest way to audit a game in a database."""

    def rows(self) -> Iterator[dict[str, Any]]:
        """The stored events as parsed envelopes, in seq order; GameNotFoundError if none. Each
        is orjson's parse of what is stored (JSON values only: see integrity.scan_objects)."""
        ...


@runtime_checkable
class GameLibrary(Protocol):
    """Many games in one database, each a `GameLog`; what the commands ask of a library.

    A library that counts its commits (SQLite's) also has `commits`, the commits made inside
    batch() so far: what a caller said before the latest is durable. PostgreSQL's does not
    (it says what was lost when its connection goes), so a caller asks with getattr."""

    def log(self, game_id: str) -> StoredGameLog: ...

    def has_game(self, game_id: str) -> bool: ...

    def games(self) -> list[dict[str, Any]]:
        """One summary per game, oldest first (the columns of `games`, `players` parsed)."""
        ...

    def summary_of(self, game_id: str) -> dict[str, Any] | None:
        """One game's row as `games` gives it (what the library caches about the game, which
        `we audit` holds against its events), or None if there is no such game."""
        ...

    def import_log(self, path: str | Path) -> Any:
        """Copy a JSONL log in, all or nothing: imported, extended, unchanged, or refused."""
        ...

    def import_verified(
        self,
        lines: Sequence[dict[str, Any]],
        label: str,
        summary: Summary | None = None,
        written: Mapping[int, str] | None = None,
        ranks: Sequence[tuple[int, str, int, int]] | None = None,
    ) -> Any:
        """import_log for lines the caller has just verified (parsed, free of problems);
        `written`: the lines as the file wrote them, where they differ from their rows'
        form (eventstore.as_written), kept for an export to give them back."""
        ...

    def import_envelopes(self, envelopes: Iterable[Envelope], label: str = "envelopes") -> Any: ...

    def set_summary(self, game_id: str, *, complete: bool, winner: str | None) -> None: ...

    def mark_sealed(
        self, game_id: str, *, ledger: str, line: int, events: int, head_hash: str, fingerprint: str
    ) -> None:
        """Record that a season ledger sealed this game: every later write adding to it is
        refused (SealedGameError), naming the ledger."""
        ...

    def replace_ratings(self, rows: Iterable[tuple[str, int, float, float, float]]) -> None:
        """The table of ratings (player, games, mu, sigma, ordinal), replaced as a whole."""

    def keep_ranks(self, game_id: str, events: int, ranks: Sequence[tuple[int, str, int, int]]) -> None:
        """A finished game's places (seat, player, score, rank) as of `events` events."""

    def ranks(self) -> list[tuple[str, str, int, str, int, int]]:
        """Every ranked game's places (game, started_at, seat, player, score, rank), in the
        order played."""
        ...

    def unranked(self) -> list[str]:
        """The finished games whose ranks are missing or stale, in the order played."""
        ...

    def keep_receipt(self, game_id: str, player: str, receipt: str) -> None:
        """A player's receipt of a game (eventstore.receipts, as JSON), replacing the one before."""

    def receipts_of(self, game_id: str) -> list[str]:
        """The receipts kept for a game, as JSON texts."""

    def export(self, game_id: str, path: str | Path) -> int:
        """Write a game as a JSONL file with the very same lines; the number of events."""
        ...

    def batch(self) -> AbstractContextManager[Any]:
        """Share transactions between the writes inside the block; each stays all or nothing."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> None: ...


def write_new_log(objs: Iterable[dict[str, Any] | bytes], path: str | os.PathLike[str]) -> int:
    """Write envelopes (parsed, or a line as it was written: bytes without its newline) as a
    new JSONL log, refusing to overwrite (LogExistsError), fsynced; the number of lines.
    Nothing is left behind if it fails part-way. Every library exports this way."""
    path = Path(path)
    try:
        # 0o666 less the umask: the mode any new file of the user's gets.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    except FileExistsError:
        raise LogExistsError(str(path)) from None
    count = 0
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as out:
            for obj in objs:
                if type(obj) is bytes:
                    out.write(obj + b"\n")
                    count += 1
                    continue
                assert isinstance(obj, dict)
                try:
                    line = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
                except TypeError:  # a damaged row: a value that is not JSON at all
                    raise StoreError(
                        f"game {obj.get('game')!r}: event {obj.get('seq')} is damaged (a value that is"
                        " not JSON), so it cannot be written as a log; see `we audit`"
                    ) from None
                out.write(line)
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


class SealingLog(ABC):
    """The writing and checked reading every backend shares (see the module's docstring)."""

    @property
    @abstractmethod
    def where(self) -> str:
        """The log named in messages: a path, or a game in a library."""

    @abstractmethod
    def _store_first(self, envelope: Envelope) -> None:
        """Store line 1 of a new log; LogExistsError if the game exists already."""

    @abstractmethod
    def _locked_head(self) -> AbstractContextManager[tuple[Envelope | None, StoreAfterHead]]:
        """Under the backend's write lock: the newest envelope (checked as a log's tail is:
        TornTailError, LogIntegrityError), or None when there is no log, and the function that
        stores envelopes after it. An exception leaving the block stores nothing."""

    @abstractmethod
    def iter_lines(self) -> Iterator[LogLine]: ...

    def create(self, first: Payload, game_id: str, at: str | None = None) -> Envelope:
        if not valid_game_id(game_id):
            raise ValueError(f"invalid game id {game_id!r}: use 1-64 of a-z 0-9 -")
        type_, data = first
        envelope = seal(game_id, 1, at or utc_now(), type_, data, None)
        self._store_first(envelope)
        return envelope

    def create_many(self, events: Sequence[Payload], game_id: str, at: str | None = None) -> list[Envelope]:
        """A new log holding `events` (a game's set-up), stored in one write where the backend
        can, so no reader sees it half made; LogExistsError if the game exists already."""
        if not valid_game_id(game_id):
            raise ValueError(f"invalid game id {game_id!r}: use 1-64 of a-z 0-9 -")
        when = at or utc_now()
        sealed: list[Envelope] = []
        prev = None
        for seq, (type_, data) in enumerate(events, start=1):
            sealed.append(seal(game_id, seq, when, type_, data, prev))
            prev = sealed[-1].hash
        self._store_new(sealed)
        return sealed

    def _store_new(self, envelopes: list[Envelope]) -> None:
        """Store a new log's first lines. By default line 1, then the rest appended; a backend
        that can store them at once overrides this."""
        self._store_first(envelopes[0])
        if len(envelopes) > 1:
            with self._locked_head() as (_, store):
                store(envelopes[1:], None)

    def append(
        self,
        events: Sequence[Payload],
        expected_seq: int,
        at: str | None = None,
        summary: Summary | None = None,
    ) -> list[Envelope]:
        with self._locked_head() as (head, store):
            if head is None:
                raise GameNotFoundError(self.where)
            if head.seq != expected_seq:
                raise ConcurrencyError(self.where, expected_seq, head.seq)
            # All sealed before any is stored: an event refused by `seal` stores nothing.
            when = at or utc_now()
            sealed: list[Envelope] = []
            prev, seq = head.hash, head.seq
            for type_, data in events:
                seq += 1
                envelope = seal(head.game, seq, when, type_, data, prev)
                sealed.append(envelope)
                prev = envelope.hash
            if sealed:
                store(sealed, summary)
        return sealed

    def read(self) -> Iterator[Envelope]:
        # iter_lines opens the log now, so a missing game is reported here, not at the first line.
        return self._checked(self.iter_lines())

    def _checked(self, lines: Iterator[LogLine]) -> Iterator[Envelope]:
        for line in lines:
            if line.problems:
                raise LogIntegrityError(self.where, line.problems)
            yield line.envelope  # type: ignore[misc]


# --- importing a log into a library -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportResult:
    game_id: str
    status: str  # "imported" | "extended" | "unchanged"
    events_added: int
    events: int  # events of this game in the library afterwards
    fingerprint: str | None  # None only when a stored head was edited into a malformed hash
    message: str


class ImportTarget(Protocol):
    """What `import_scanned` asks of a library's write (inside its transaction) for one game."""

    def locate(self, first: dict[str, Any]) -> tuple[bool, int, str]:
        """(new, seq, hash) of the game's newest stored event, its row locked for this write;
        a game the library lacks gets its row now (new: True, 0, "")."""
        ...

    def store(self, objs: list[dict[str, Any]]) -> None:
        """Store these events (parsed envelopes) after the head."""
        ...

    def finish_new(self, last: dict[str, Any]) -> None: ...

    def finish_extended(self, last: dict[str, Any], summary: Summary | None) -> None: ...

    def stored_hash(self, seq: int) -> Any:
        """The hash of the stored event `seq`, None if there is none."""
        ...


# Events handed to ImportTarget.store at a time: large enough to amortise a call, small enough
# that a 10 GB log does not sit in memory.
IMPORT_CHUNK = 10_000


def import_scanned(
    target: ImportTarget, label: str, scanned: Iterable[Scanned], summary: Summary | None = None
) -> ImportResult:
    """Import a scanned log, all or nothing (the caller's transaction undoes a refusal): every
    library's rules. A log with integrity problems is refused (LogIntegrityError, listing the
    first PROBLEMS_LISTED). The same log again is a no-op ("unchanged"), as is a prefix of the
    stored game; a log that extends the stored game exactly gets its new tail ("extended");
    anything else under an existing game id is an ImportConflictError."""
    problems: list[Problem] = []
    omitted = 0
    chunk: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    new_game = False
    have_seq, have_hash = 0, ""
    added = 0
    for n, raw, msgs, usable in scanned:
        if msgs or not usable:
            # Keep scanning so the refusal counts every broken line, but store nothing (and
            # list only the first PROBLEMS_LISTED).
            if len(problems) < PROBLEMS_LISTED:
                problems.extend([Problem.integrity(n, m) for m in msgs or ()])  # type: ignore[arg-type]
            else:
                omitted += len(msgs or ())
            continue
        if problems:
            continue
        assert raw is not None  # usable
        if first is None:
            first = raw
            new_game, have_seq, have_hash = target.locate(raw)
        last = raw
        seq = raw["seq"]
        if seq > have_seq:
            chunk.append(raw)
            if len(chunk) >= IMPORT_CHUNK:
                target.store(chunk)
                added += len(chunk)
                chunk = []
        elif seq == have_seq and raw["hash"] != have_hash:
            # The chain makes one hash stand for everything before it: differing here
            # means the two logs differ somewhere up to this line.
            raise ImportConflictError(
                raw["game"], label, seq,
                f"event {seq} has hash {str(raw['hash'])[:19]}, the library's {str(have_hash)[:19]}",
            )  # fmt: skip
    if first is None and not problems:
        problems.append(Problem.integrity(1, EMPTY))
    if problems:
        raise LogIntegrityError(label, problems, omitted)
    assert first is not None and last is not None
    if chunk:
        target.store(chunk)
        added += len(chunk)
    game, last_seq, last_hash = first["game"], last["seq"], last["hash"]
    game_print = fingerprint(last_hash)
    if new_game:
        target.finish_new(last)
        msg = f"{label}: imported game {game!r} ({added} events)"
        return ImportResult(game, "imported", added, added, game_print, msg)
    if added:
        target.finish_extended(last, summary)
        msg = f"{label}: extended game {game!r} by {added} event{'s' if added != 1 else ''} to {last_seq}"
        return ImportResult(game, "extended", added, last_seq, game_print, msg)
    if last_seq < have_seq:
        if target.stored_hash(last_seq) != last_hash:
            raise ImportConflictError(game, label, last_seq, f"event {last_seq} differs from the library's")
        msg = (
            f"{label}: nothing to import: the library's game {game!r} already has these "
            f"{last_seq} events and {have_seq - last_seq} more"
        )
        return ImportResult(game, "unchanged", 0, have_seq, fingerprint(have_hash), msg)
    msg = f"{label}: nothing to import: game {game!r} is already in the library, unchanged"
    return ImportResult(game, "unchanged", 0, have_seq, game_print, msg)
