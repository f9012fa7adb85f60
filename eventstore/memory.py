"""A log kept in memory (a GameLog, like JsonlLog and LibraryLog).

For tests and simulations. It holds the very bytes a JSONL file would, so every check (torn
tail, blank line, ...) behaves as it does on disk, and `to_bytes()` is a valid log file.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from eventstore.envelope import Envelope
from eventstore.errors import (
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    TornTailError,
)
from eventstore.integrity import LogLine, VerifyResult, iter_log, verify_log, verify_tail_line
from eventstore.persistence import SealingLog, StoreAfterHead, Summary


class MemoryLog(SealingLog):
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

    @property
    def where(self) -> str:
        return self.name

    def _store_first(self, envelope: Envelope) -> None:
        self._store_new([envelope])

    def _store_new(self, envelopes: list[Envelope]) -> None:
        with self._lock:
            if self._lines:
                raise LogExistsError(self.name)
            self._lines.extend(envelope.to_line() for envelope in envelopes)
            self._head = envelopes[-1]

    def _head_locked(self) -> Envelope | None:
        if self._head is not None or not self._lines:
            return self._head
        last = self._lines[-1]
        if last[-1:] != b"\n":
            raise TornTailError(self.name)
        env, problems = verify_tail_line(last)
        if env is None or problems:
            raise LogIntegrityError(self.name, verify_log(self._lines).problems)
        self._head = env
        return env

    def head(self) -> tuple[int, str | None, str | None]:
        with self._lock:
            env = self._head_locked()
        return (0, None, None) if env is None else (env.seq, env.hash, env.game)

    @contextmanager
    def _locked_head(self) -> Iterator[tuple[Envelope | None, StoreAfterHead]]:
        with self._lock:
            head = self._head_locked()

            def store(sealed: list[Envelope], summary: Summary | None) -> None:  # kept nowhere
                self._lines.extend(env.to_line() for env in sealed)
                self._head = sealed[-1]

            yield head, store

    def _snapshot(self) -> list[bytes]:
        with self._lock:
            if not self._lines:
                raise GameNotFoundError(self.name)
            return list(self._lines)

    def iter_lines(self) -> Iterator[LogLine]:
        return iter_log(self._snapshot())

    def verify(self) -> VerifyResult:
        return verify_log(self._snapshot())
