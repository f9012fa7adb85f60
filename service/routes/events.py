"""A game's events as a key may read them: the log after a seq (NDJSON), and the log followed as
it grows (Server-Sent Events)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse

from service.keys import Role
from service.live import LiveGame, redact_envelope
from service.routes.answers import ApiError, responses
from service.routes.bodies import After
from service.routes.served import ServedDep

KEEPALIVE_SECONDS = 10

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
        **responses(401, 403, 404, 422),
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
    return StreamingResponse(
        _follow(game, role, last, served.stopping),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _follow(game: LiveGame, role: Role, last: int, stopping: asyncio.Event) -> AsyncIterator[bytes]:
    """Server-Sent Events, framed here (one `id:` per seq). Starlette ends this generator
    when the client goes away; a shutdown sets `stopping` and then wakes every stream.
    Events already waiting go out in one write."""
    sub = game.subscribe(role)
    try:
        while not stopping.is_set():
            sub.changed.clear()
            head = game.head
            frames: list[bytes] = []
            while last < head:
                last += 1
                if head - last > 50:  # a long catch-up: build it off the event loop
                    data = await asyncio.to_thread(game.message, last, role)
                else:
                    data = game.message(last, role)
                frames.append(b"id: %d\nevent: envelope\ndata: %s\n\n" % (last, data))
                if len(frames) >= 64:
                    yield b"".join(frames)
                    frames = []
            if frames:
                yield b"".join(frames)
            if stopping.is_set():
                return
            try:
                await asyncio.wait_for(sub.changed.wait(), timeout=KEEPALIVE_SECONDS)
            except TimeoutError:
                yield b": keepalive\n\n"  # a comment, so proxies and phones keep the line open
    finally:
        game.unsubscribe(sub)
