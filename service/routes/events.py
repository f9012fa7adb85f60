"""A game's events as a key may read them: the log after a seq (NDJSON), and the log followed as
it grows (Server-Sent Events)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from functools import partial

import orjson
from anyio import CapacityLimiter, to_thread
from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from service.keys import Role
from service.live import LiveGame, redact_envelope
from service.routes.answers import ApiError, responses
from service.routes.bodies import After
from service.routes.served import Served, ServedDep
from service.streams import LiveStream, TooManyStreams

KEEPALIVE_SECONDS = 10
# A catch-up goes out in framed chunks of about this size (one write for most games, never one
# per event), each built off the event loop and sent only once the previous one has drained:
# what a stream holds for a client that reads slowly stays this small.
CATCH_UP_CHUNK = 64 * 1024
# Catch-ups are framed on at most this many worker threads: however many streams ask at once, the
# other routes' threads stay free (GET /games/{id}, a move, a new stream's key check).
_CATCHING_UP = CapacityLimiter(2)
# What a stream that gave way to a newer one of its key says last: the page stops reconnecting.
GAVE_WAY = b"event: gave-way\ndata: {}\n\n"

router = APIRouter()


@router.get(
    "/api/v1/games/{game_id}/events",
    responses={
        200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
        **responses(401, 403, 404, 422),
    },
    response_class=Response,
)
def get_events(game_id: str, request: Request, served: ServedDep, after: After = 0) -> Response:
    role, game = served.game_for(request, game_id)
    with game.lock:
        lines = [orjson.dumps(redact_envelope(e, role)) + b"\n" for e in game.envelopes[after:]]
    return Response(b"".join(lines), media_type="application/x-ndjson")


@router.get(
    "/api/v1/games/{game_id}/stream",
    responses={
        200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
        **responses(401, 403, 404, 422, 429),
    },
    response_class=Response,
)
async def stream(game_id: str, request: Request, served: ServedDep, after: After = 0) -> Response:
    role, game = await asyncio.to_thread(served.game_for, request, game_id)
    last = after
    resume = request.headers.get("last-event-id")
    if resume is not None:
        if not resume.strip().isdigit() or len(resume.strip()) > 18:
            raise ApiError(422, "Last-Event-ID is not an event's seq")
        last = int(resume.strip())
    address = request.client.host if request.client is not None else ""
    try:
        # `we.cut` is the connection's abort, put in the scope by `we serve` (service.network).
        live = served.streams.open(role, address, request.scope.get("we.cut"))
    except TooManyStreams as exc:
        raise ApiError(429, str(exc)) from None
    follow = _follow(game, role, last, served, live)
    # Its place is given back when the stream ends, and also if it never started (the client
    # left before the answer's headers went out, so its `finally` never runs).
    weakref.finalize(follow, served.streams.close, live)
    return StreamingResponse(
        follow,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _follow(
    game: LiveGame, role: Role, last: int, served: Served, live: LiveStream
) -> AsyncIterator[bytes]:
    """Server-Sent Events, framed here (one `id:` per seq). Starlette ends this generator
    when the client goes away; a shutdown sets `stopping` and then wakes every stream, and a
    newer stream of the same key sets `live.gave_way` and wakes it (it then frames nothing more:
    a burst of newer streams leaves the older ones nothing to hold). Events already waiting go
    out together, and a comment every KEEPALIVE_SECONDS."""
    stopping = served.stopping
    sub = game.subscribe(role)
    live.wake = sub.changed.set
    beat = _Beat(sub.changed)
    try:
        while not stopping.is_set():
            sub.changed.clear()
            head = game.head
            while last < head and not live.gave_way:  # one that gave way sends no more
                if head - last == 1:  # a move: its message, built and framed by its writer
                    last = head
                    chunk = game.message(head, role)
                elif head - last > 8:  # a catch-up: framed off the event loop
                    framing = partial(_frames, game, role, last, head)
                    chunk, last = await to_thread.run_sync(framing, limiter=_CATCHING_UP)
                else:
                    chunk, last = _frames(game, role, last, head)
                if not live.gave_way:
                    yield chunk
            if live.gave_way:
                yield GAVE_WAY
                return
            if stopping.is_set():
                return
            if beat.due:
                beat.due = False
                yield b": keepalive\n\n"  # a comment, so proxies and phones keep the line open
            # A plain wait: a timeout here would cost every stream a task and a timer per move.
            await sub.changed.wait()
    finally:
        beat.stop()
        game.unsubscribe(sub)
        served.streams.close(live)


class _Beat:
    """A stream's keepalive: every KEEPALIVE_SECONDS it is `due` and wakes the stream (one timer
    a stream, set again every KEEPALIVE_SECONDS, not one per wait)."""

    def __init__(self, wake: asyncio.Event) -> None:
        self.wake = wake
        self.due = False
        self._loop = asyncio.get_running_loop()
        self._timer = self._loop.call_later(KEEPALIVE_SECONDS, self._ring)

    def _ring(self) -> None:
        self.due = True
        self.wake.set()
        self._timer = self._loop.call_later(KEEPALIVE_SECONDS, self._ring)

    def stop(self) -> None:
        self._timer.cancel()


def _frames(game: LiveGame, role: Role, last: int, head: int) -> tuple[bytes, int]:
    """The events after `last`, up to `head`, framed in one chunk of about CATCH_UP_CHUNK bytes at
    most (at least one event); the chunk and the last seq in it."""
    frames: list[bytes] = []
    size = 0
    while last < head and size < CATCH_UP_CHUNK:
        last += 1
        frame = game.message(last, role)
        frames.append(frame)
        size += len(frame)
    return b"".join(frames), last
