"""`we serve`: the games of one folder over HTTP (docs/service.md).

A thin skin over service.play and service.live: it reads the key, finds the game, checks what
the key may do, parses the body, and calls the same use cases `we record` calls. Checks answer
in the spec's order: 401, 404, 403, 413, 422 (body), 409, 422 (rules). Bodies are parsed by
the routes rather than by FastAPI, because FastAPI would judge the body before the key.

Here the app is put together: what it serves (service.routes.served), the guard in front, the
refusals as one sentence, the schema's shared parts, and the routes, a concern a module under
service/routes/.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from eventstore.errors import ConnectionLostError, StoreError
from service.guard import STATE_CHANGING, Guard, Receive, Scope, Send, allowed_names
from service.routes import clock, events, games, health, moves, pages, receipts, results
from service.routes.answers import ApiError, key_text, refused
from service.routes.bodies import COMPONENTS, parameter_sentence
from service.routes.served import MAX_GAMES, Served, served_of
from service.streams import STREAMS_PER_ADDRESS, STREAMS_PER_KEY, LiveStreams, StreamLimits

if TYPE_CHECKING:
    from eventstore.postgres import LibraryPool

# In this order: the API reference (docs_hooks.py) lists the routes as the app holds them.
ROUTERS = (
    health.router,
    games.router,
    events.router,
    moves.router,
    clock.router,
    results.router,
    receipts.router,
    pages.router,
)


def create_app(
    directory: Path | None,
    base_url: str,
    host_key: str,
    library: LibraryPool | None = None,
    names: tuple[str, ...] = (),
    streams_per_key: int = STREAMS_PER_KEY,
    streams_per_address: int = STREAMS_PER_ADDRESS,
    max_games: int = MAX_GAMES,
    clock: float = 0,
) -> FastAPI:
    """The app for the games of `directory`, or of a PostgreSQL `library` (`we serve --db`)."""
    # The bots move through the path of every move, their bodies read as a request's are.
    served = Served.open(directory, base_url, host_key, library, bot_post=moves.post_for_bot, clock=clock)
    served.streams = LiveStreams(StreamLimits(streams_per_key, streams_per_address))
    served.max_games = max_games
    app = _App(
        title="we serve",
        version="1",
        description="White Elephant games of one folder: docs/service.md",
        lifespan=_lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.served = served
    # What `we serve`'s signal handler reaches (cli/serve.py), with the loop the lifespan sets.
    app.state.folder = served.folder
    app.state.stopping = served.stopping
    # Host allow-list, JSON-only writes from our own origin, and the headers of every answer.
    app.add_middleware(Guard, names=allowed_names(base_url, names))
    # Errors as {"error": sentence}.
    app.exception_handler(ConnectionLostError)(_library_away)
    app.exception_handler(StoreError)(_unreadable)
    app.exception_handler(ApiError)(_api_error)
    app.exception_handler(StarletteHTTPException)(_http_error)
    app.exception_handler(RequestValidationError)(_invalid)
    for router in ROUTERS:
        app.include_router(router)
    traced = health.traced_memory_if_asked()
    if traced is not None:
        app.include_router(traced)
    app.hot = Guard(HotRoutes(served), names=allowed_names(base_url, names))
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    served: Served = app.state.served
    app.state.loop = asyncio.get_running_loop()
    served.folder.start()
    served.bots.start()
    try:
        yield
    finally:
        served.stopping.set()
        served.bots.stop()
        served.folder.stop()


class _App(FastAPI):
    """FastAPI, with the schema's shared parts: the bodies the routes read themselves, the
    error object, and the guard's refusals in every operation's answers; and the hot routes
    (a move's POST, a game's stream) answered behind the guard alone (HotRoutes)."""

    hot: Any = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.hot is not None and scope["type"] == "http" and hot_route(scope) is not None:
            scope["app"] = self
            await self.hot(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            schema = super().openapi()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(COMPONENTS)
            components["Error"] = {
                "type": "object",
                "properties": {"error": {"type": "string"}, "head": {"type": "integer"}},
                "required": ["error"],
            }
            _guard_responses(schema)
            self.openapi_schema = schema
        return self.openapi_schema


def _guard_responses(schema: dict[str, Any]) -> None:
    """The guard's refusals (service/guard.py) in every operation's documented answers."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for operations in schema.get("paths", {}).values():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            answers.setdefault("421", {"description": "Not this server's host name", "content": error})
            if method.upper() in STATE_CHANGING:
                answers.setdefault("403", {"description": "From another site's page", "content": error})
                answers.setdefault("415", {"description": "Not application/json", "content": error})


async def _library_away(request: Request, exc: ConnectionLostError) -> JSONResponse:
    return JSONResponse({"error": f"{exc}; try again in a moment"}, status_code=503)


async def _unreadable(request: Request, exc: StoreError) -> JSONResponse:
    # A log that cannot be read now (replaced by a FIFO, its permissions taken away): the
    # store's one-line sentence, as `we audit` would say it; never a 500.
    sentence = str(exc).encode("utf-8", "replace").decode("utf-8").splitlines()
    return JSONResponse({"error": sentence[0] if sentence else "the log cannot be read"}, 422)


async def _api_error(request: Request, exc: ApiError) -> Response:
    return refused(request, exc.status, exc.sentence, **exc.extra)


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    if exc.status_code == 404 and served_of(request).keys.role_of(key_text(request)) is None:
        return refused(request, 401, "a key is needed (?k=KEY or Authorization: Bearer KEY)")
    sentence = "no such page" if exc.status_code == 404 else str(exc.detail)
    return refused(request, exc.status_code, sentence)


async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"error": parameter_sentence(exc)}, status_code=422)


# --- the hot routes -------------------------------------------------------------------------

_HOT_PATH = re.compile(r"/api/v1/games/([^/]+)/(moves|stream)")
_PLAIN_SEQ = re.compile(rb"[0-9]{1,18}")


def hot_route(scope: Scope) -> tuple[str, str] | None:
    """(game id, "moves" or "stream") for a request the hot path answers as the routes would:
    a POST of a move, or a GET of a stream whose query holds nothing the framework would have
    to judge (`after` at most once, as a plain number). None: the framework answers it."""
    found = _HOT_PATH.fullmatch(scope["path"])
    if found is None:
        return None
    method = scope["method"]
    if found.group(2) == "moves":
        return (found.group(1), "moves") if method == "POST" else None
    if method != "GET":
        return None
    afters = [p for p in scope.get("query_string", b"").split(b"&") if p.startswith(b"after=")]
    if len(afters) > 1 or (afters and _PLAIN_SEQ.fullmatch(afters[0][6:]) is None):
        return None
    return found.group(1), "stream"


class HotRoutes:
    """A move's POST and a game's stream, reached behind the guard without FastAPI's layers
    (its error middleware, dependencies, routers and send wrappers cost more per move than
    they give these two). The routes stay declared in the app, so the published schema is
    unchanged, and what they answer is the same functions' (service.routes), refusals as the
    app's handlers word them."""

    def __init__(self, served: Served) -> None:
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        route = hot_route(scope)
        assert route is not None
        game_id, what = route
        response: Response
        try:
            if what == "moves":
                response = await moves.answer_move(self.served, request, game_id)
            else:
                after = int(request.query_params.get("after", 0))
                response = await events.stream(game_id, request, self.served, after)
        except ApiError as exc:
            response = await _api_error(request, exc)
        except ConnectionLostError as exc:
            response = await _library_away(request, exc)
        except StoreError as exc:
            response = await _unreadable(request, exc)
        await response(scope, receive, send)
