"""`we serve` against slow and broken clients (docs/service.md, "On a party's Wi-Fi").

uvicorn closes idle keep-alive connections but has no deadline for a request's header or body,
and accepts connections until the process runs out of file descriptors (then asyncio logs a
traceback per failed accept). Here, at the protocol level:
- a request's header must be complete within HEADER_TIMEOUT of the connection opening (or of the
  previous answer), its body within BODY_TIMEOUT of its header, or the connection is closed;
- at most `cap` connections are held, below the open-file limit (raised to the hard limit at
  start); a newcomer beyond the cap takes the place of the oldest connection still sending its
  request, so a phone asking for a page gets in while a slow client is pushed out, and is
  refused only when every held connection is a request being answered or a live stream;
- the app may cut a connection outright, through `we.cut` in its request's scope;
- network faults are counted and said once per interval ("412 connections refused in the last
  10 s: too many open connections"), never a traceback per connection.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
from collections import Counter
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

HEADER_TIMEOUT = 5.0
BODY_TIMEOUT = 5.0
FAULT_INTERVAL = 10.0
# asyncio accepts up to `backlog` connections per wake-up, and a connection is counted only a few
# loop turns after its accept (and an evicted one freed a turn after its close): a small batch
# keeps those in-flight descriptors few, while the kernel's queue stays long (KERNEL_BACKLOG) so a
# burst of connections waits there rather than being dropped (a dropped SYN is retried after 1 s).
ACCEPT_BATCH = 32
KERNEL_BACKLOG = 1024
# Descriptors kept for what is not a held connection: a few accept batches in flight, game logs,
# databases, stdio.
RESERVED_FILES = 256

_LOG = logging.getLogger("uvicorn.error")


def raise_open_file_limit() -> int:
    """Raise this process's soft open-file limit to its hard limit; the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft if soft != resource.RLIM_INFINITY else wanted
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError):
        return soft
    return wanted


def connection_cap(open_file_limit: int) -> int:
    """How many client connections to hold open with this many descriptors."""
    reserve = max(RESERVED_FILES, open_file_limit // 8)
    return max(16, open_file_limit - reserve)


class FaultReport:
    """Repeated network faults, counted and said once per interval."""

    def __init__(self, interval: float = FAULT_INTERVAL, say: Callable[[str], None] | None = None) -> None:
        self.interval = interval
        self.say = say or _LOG.warning
        self.counts: Counter[tuple[str, str, str]] = Counter()
        self._due: asyncio.TimerHandle | None = None

    def note(self, one: str, many: str, why: str) -> None:
        """One fault: `one`/`many` name what happened ("connection refused"), `why` its cause."""
        self.counts[(one, many, why)] += 1
        if self._due is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush()
                return
            self._due = loop.call_later(self.interval, self.flush)

    def flush(self) -> None:
        """Say what was counted since the last time (at the end of an interval, and at shutdown)."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        counted, self.counts = self.counts, Counter()
        for (one, many, why), number in counted.items():
            self.say(f"{number:,} {one if number == 1 else many} in the last {self.interval:g} s: {why}")

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: a failed accept or socket call is a counted fault;
        anything else is a bug and keeps its traceback."""
        exc = context.get("exception")
        if isinstance(exc, OSError):
            why = "too many open files" if exc.errno in (errno.EMFILE, errno.ENFILE) else str(exc)
            self.note("network error", "network errors", why[:200])
            return
        loop.default_exception_handler(context)


class _Repeated(logging.Filter):
    """uvicorn's per-request warnings (a malformed request), turned into counted faults."""

    def __init__(self, report: FaultReport) -> None:
        super().__init__()
        self.report = report

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message == "Invalid HTTP request received.":
            self.report.note("invalid request refused", "invalid requests refused", "not HTTP/1.1 as sent")
            return False
        return True


class Limits:
    """The connections one server holds, and the deadlines they must meet."""

    def __init__(
        self,
        cap: int,
        report: FaultReport,
        header_timeout: float = HEADER_TIMEOUT,
        body_timeout: float = BODY_TIMEOUT,
    ) -> None:
        self.cap = cap
        self.report = report
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.held: set[GuardedProtocol] = set()
        # Connections still sending a request, oldest first (dicts keep insertion order).
        self.sending: dict[GuardedProtocol, None] = {}


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with the deadlines and the cap of `limits` (set by `guarded`)."""

    limits: Limits

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: asyncio.TimerHandle | None = None
        self._awaiting: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = self.limits
        limits.held.add(self)
        if len(limits.held) > limits.cap:
            oldest = next(iter(limits.sending), None)
            if oldest is None:
                limits.report.note("connection refused", "connections refused", "too many open connections")
                self._close()
                return
            limits.report.note(
                "slow connection closed",
                "slow connections closed",
                "too many open connections (the oldest still sending a request made way for a new one)",
            )
            oldest._close()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        scope: dict[str, Any] | None = self.scope  # type: ignore[assignment]
        if scope is not None and "we.cut" not in scope:
            # How the app cuts this connection outright (a stream that gave way to a newer one
            # but whose client reads nothing: service.streams). The request's task has not run
            # yet, so it finds this in its scope.
            scope["we.cut"] = self._close
        if not self.transport.is_closing():
            self._watch()

    def _watch(self) -> None:
        """Arm the deadline of what the client owes now: a header, a body, or nothing."""
        state = self.conn.their_state
        awaiting = "header" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if awaiting == self._awaiting:
            return
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._awaiting = awaiting
        sending = self.limits.sending
        sending.pop(self, None)
        if awaiting is None:
            return
        sending[self] = None
        timeout = self.limits.header_timeout if awaiting == "header" else self.limits.body_timeout
        self._deadline = self.loop.call_later(timeout, self._too_slow, awaiting, timeout)

    def _too_slow(self, awaiting: str, timeout: float) -> None:
        self._deadline = None
        # A connection that has sent nothing of a request is idle (a browser's spare connection, a
        # kept-alive one after its answer), not at fault: closed, as uvicorn closes idle ones.
        if awaiting == "body" or self.conn.trailing_data[0]:
            why = f"request {awaiting} not complete within {timeout:g} s"
            self.limits.report.note("connection closed", "connections closed", why)
        self._close()

    def _close(self) -> None:
        # abort, not close: nothing is owed to a client that is too slow or one too many, and a
        # close would wait for it to read what is buffered.
        self._forget()
        self.transport.abort()

    def _forget(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._awaiting = None
        self.limits.held.discard(self)
        self.limits.sending.pop(self, None)


def guarded(limits: Limits) -> type[GuardedProtocol]:
    """The protocol class for uvicorn's `Config(http=...)`, bound to one server's `limits`."""
    logging.getLogger("uvicorn.error").addFilter(_Repeated(limits.report))
    return type("BoundGuardedProtocol", (GuardedProtocol,), {"limits": limits})


class GuardedServer(uvicorn.Server):
    """uvicorn's server with the protocol of `guarded`, its faults counted by the event loop too."""

    def __init__(self, app: Any, **options: Any) -> None:
        limit = raise_open_file_limit()
        self.limits = Limits(connection_cap(limit), FaultReport())
        super().__init__(Config(app, http=guarded(self.limits), backlog=ACCEPT_BATCH, **options))

    async def startup(self, sockets: list[Any] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self.limits.report.loop_exception)
        await super().startup(sockets)
        # asyncio listened with its accept batch as the kernel's queue: lengthen the queue alone.
        for sock in sockets or []:
            sock.listen(KERNEL_BACKLOG)

    async def shutdown(self, sockets: list[Any] | None = None) -> None:
        await super().shutdown(sockets)
        self.limits.report.flush()
