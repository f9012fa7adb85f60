"""A log kept in memory, with the same interface as JsonlLog and LibraryLog.

For tests and simulations. It holds the very bytes a JSONL file would, so every check (torn
tail, blank line, ...) behaves as it does on disk, and `to_bytes()` is a valid log file.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from eventstore.envelope import Envelope, seal, utc_now, valid_game_id
from eventstore.errors import (
    ConcurrencyError,
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    TornTailError,
)
from eventstore.verify import LogLine, VerifyResult, check_tail_line, iter_log, verify_log


class MemoryLog:
    def __init__(self, data: bytes = b"", name: str = "<memory>") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._lines: list[bytes] = []
        # Envelope of the last line as this object wrote it, so appends skip re-checking it;
        # None means "judge the tail afresh" (after load()).
        self._head: Envelope | None = None
        self.load(data)

    def __repr__(self) -> str:
        return f"MemoryLog(name={self.name!r}, lines={len(self._lines)})"

    def load(self, data: bytes) -> None:
        """Replace the contents with these bytes, as if a file had been edited."""
        with self._lock:
            # Split on "\n" only, as reading a file in binary does ("\r" stays in the line).
            self._lines = list(io.BytesIO(data))
            self._head = None

    def to_bytes(self) -> bytes:
        with self._lock:
            return b"".join(self._lines)

    def lines(self) -> list[bytes]:
        with self._lock:
            return list(self._lines)

    def exists(self) -> bool:
        return bool(self._lines)

    def create(self, first: tuple[str, dict[str, Any]], game_id: str, at: str | None = None) -> Envelope:
        if not valid_game_id(game_id):
            raise ValueError(f"invalid game id {game_id!r}: use 1-64 of a-z 0-9 -")
        type_, data = first
        env = seal(game_id, 1, at or utc_now(), type_, data, None)
        with self._lock:
            if self._lines:
                raise LogExistsError(self.name)
            self._lines.append(env.to_line())
            self._head = env
        return env

    def _head_locked(self) -> Envelope | None:
        if self._head is not None or not self._lines:
            return self._head
        last = self._lines[-1]
        if last[-1:] != b"\n":
            raise TornTailError(self.name)
        env, problems = check_tail_line(last)
        if env is None or problems:
            raise LogIntegrityError(self.name, verify_log(self._lines).problems)
        self._head = env
        return env

    def head(self) -> tuple[int, str | None, str | None]:
        with self._lock:
            env = self._head_locked()
        return (0, None, None) if env is None else (env.seq, env.hash, env.game)

    def append(
        self,
        events: Sequence[tuple[str, dict[str, Any]]],
        expected_seq: int,
        at: str | None = None,
    ) -> list[Envelope]:
        with self._lock:
            head = self._head_locked()
            if head is None:
                raise GameNotFoundError(self.name)
            if head.seq != expected_seq:
                raise ConcurrencyError(self.name, expected_seq, head.seq)
            when = at or utc_now()
            sealed: list[Envelope] = []
            prev, seq = head.hash, head.seq
            for type_, data in events:
                seq += 1
                env = seal(head.game, seq, when, type_, data, prev)
                sealed.append(env)
                prev = env.hash
            self._lines.extend(env.to_line() for env in sealed)
            if sealed:
                self._head = sealed[-1]
        return sealed

    def _snapshot(self) -> list[bytes]:
        with self._lock:
            if not self._lines:
                raise GameNotFoundError(self.name)
            return list(self._lines)

    def iter_lines(self) -> Iterator[LogLine]:
        return iter_log(self._snapshot())

    def read(self) -> Iterator[Envelope]:
        return self._read(self._snapshot())

    def _read(self, lines: list[bytes]) -> Iterator[Envelope]:
        for ll in iter_log(lines):
            if ll.problems:
                raise LogIntegrityError(self.name, ll.problems)
            yield ll.envelope  # type: ignore[misc]

    def verify(self) -> VerifyResult:
        return verify_log(self._snapshot())
