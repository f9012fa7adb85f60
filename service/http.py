"""`we serve`: the games of one folder over HTTP (docs/service.md).

A thin skin over service.play and service.live: it reads the key, finds the game, checks what
the key may do, parses the body, and calls the same use cases `we record` calls. Checks answer
in the spec's order: 401, 404, 403, 413, 422 (body), 409, 422 (rules). Bodies are parsed here
rather than by FastAPI, because FastAPI would judge the body before the key.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, assert_never

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from eventstore.errors import ConnectionLostError, StoreError
from service.guard import STATE_CHANGING, Guard, allowed_names
from service.keys import HOST, SEAT, TABLE, KeyRing, Role
from service.live import Folder, LiveGame, redact_envelope

if TYPE_CHECKING:
    from eventstore.postgres import LibraryPool
    from service.library_games import StoredGames
from service.play import (
    DEFAULT_TIE_REASON,
    DEFAULT_UNDO_REASON,
    Refused,
    StaleHead,
    set_up_events,
)
from service.table import AddNote, BreakTie, Bring, Open, Steal, Swap, Table, Undo, resolve_player
from wecore.names import look_alike_sentence

BODY_LIMIT = 16 * 1024
KEEPALIVE_SECONDS = 10


class FastJSON(JSONResponse):
    """JSON through orjson: views are sent hundreds of times a second."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    def __init__(self, status: int, sentence: str, **extra: Any) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence
        self.extra = extra


# --- request bodies ------------------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


class OpenMove(BaseModel):
    model_config = _STRICT
    type: Literal["open"]
    as_: str | None = Field(None, alias="as")
    card: str | None = None
    # A face-down gift by its place on the table (from 1, as the key's view shows them).
    gift: Annotated[int, Field(ge=1)] | None = None


class StealMove(BaseModel):
    model_config = _STRICT
    type: Literal["steal"]
    as_: str | None = Field(None, alias="as")
    from_: str = Field(alias="from")


class SwapMove(BaseModel):
    model_config = _STRICT
    type: Literal["swap"]
    as_: str | None = Field(None, alias="as")
    with_: str | None = Field(alias="with")


class BringMove(BaseModel):
    model_config = _STRICT
    type: Literal["bring"]
    as_: str | None = Field(None, alias="as")
    card: str | None


class UndoMove(BaseModel):
    model_config = _STRICT
    type: Literal["undo"]
    reason: str | None = None


class NoteMove(BaseModel):
    model_config = _STRICT
    type: Literal["note"]
    text: Annotated[str, Field(min_length=1)]


class TieMove(BaseModel):
    model_config = _STRICT
    type: Literal["tie"]
    winner: str
    reason: str | None = None


MoveObject = Annotated[
    OpenMove | StealMove | SwapMove | BringMove | UndoMove | NoteMove | TieMove, Field(discriminator="type")
]


class MoveRequest(BaseModel):
    model_config = _STRICT
    expect: Annotated[int, Field(ge=0)]
    move: MoveObject


class NewGame(BaseModel):
    model_config = _STRICT
    players: list[str]
    dealer: str
    lists: dict[str, str] | None = None
    deal_attics: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    title: str | None = None
    # Seats a bot plays: {"Cat": "greedy"}; only with dealt attics.
    bots: dict[str, str] = Field(default_factory=dict)


def _body_schema(model: Any, components: dict[str, Any]) -> dict[str, Any]:
    schema = TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}", by_alias=True)
    components.update(schema.pop("$defs", {}))
    return {"required": True, "content": {"application/json": {"schema": schema}}}


_COMPONENTS: dict[str, Any] = {}
_MOVE_BODY = _body_schema(MoveRequest, _COMPONENTS)
_GAME_BODY = _body_schema(NewGame, _COMPONENTS)


# The largest seq (a signed 64-bit integer, as the log format bounds integers).
_SEQ_MAX = 2**63 - 1
_After = Annotated[int, Field(ge=0, le=_SEQ_MAX)]

# What a field must be, by pydantic's error type, in the table's words: pydantic's own messages
# ("Input should be a valid integer") are for programmers, and its wording may change.
_MUST_BE = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "greater_than_equal": "a whole number, 0 or more",
    # A number past a seq's range (after=10**24): said to be out of range, not of a kind.
    "less_than_equal": "a whole number in range (that one is out of range)",
    "int_parsing_size": "a whole number in range (that one is out of range)",
    "string_type": "a string",
    "string_too_short": "a string that is not empty",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "an object",
    "list_type": "a list",
    "literal_error": "one of the values the API names",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _field_name(loc: tuple[Any, ...]) -> str:
    # pydantic puts the union member's name in the path (move.NoteMove.text): not a field.
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and p.endswith("Move")))


def _error_sentence(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = _field_name(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"unknown field {where!r} in the body"
    if kind == "missing":
        return f"the body is missing the field {where!r}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return 'the move\'s "type" must be open, steal, swap, bring, undo, note or tie'
    return f"the field {where!r} must be {_MUST_BE.get(kind, 'of another type')}"


async def read_body(request: Request, model: Any) -> Any:
    """The body as `model`: 413 beyond 16 KiB, 422 when it is not a JSON object of that shape."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > BODY_LIMIT:
        raise ApiError(413, f"the body is over {BODY_LIMIT // 1024} KiB")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > BODY_LIMIT:
                raise ApiError(413, f"the body is over {BODY_LIMIT // 1024} KiB")
    except ClientDisconnect:
        # A phone that hangs up mid-body: nobody is left to answer, and nothing to log.
        raise ApiError(400, "the client hung up before the body ended") from None
    try:
        data = orjson.loads(bytes(body))
    except orjson.JSONDecodeError:
        raise ApiError(422, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise ApiError(422, "the body is not a JSON object")
    try:
        return TypeAdapter(model).validate_python(data)
    except ValidationError as exc:
        raise ApiError(422, _error_sentence(exc)) from None


# --- the app -------------------------------------------------------------------------------


def _responses(*statuses: int, stream: bool = False, page: bool = False) -> dict[int | str, dict[str, Any]]:
    words = {
        400: "Bad request",
        401: "No key, or not a key of this service",
        403: "The key is not enough for this",
        404: "No such game",
        409: "expect is not the head",
        413: "The body is over 16 KiB",
        422: "The body or the move is refused",
        503: "The game library (a database) cannot be reached just now",
    }
    error: dict[str, Any] = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    if page:  # a page's refusal is a page to read (pages.error_page)
        error = {"text/html": {"schema": {"type": "string"}}}
    return {s: {"description": words[s], "content": error} for s in statuses}


def _listed(game: LiveGame, problem: str | None, served: bool) -> dict[str, Any]:
    """A game as GET /api/v1/games lists it."""
    state = game.state
    return {
        "id": game.game,
        "title": state.title,
        "players": list(state.players),
        "events": game.head,
        "complete": state.is_over,
        "to_move": state.player_to_move,
        "fingerprint": game.fingerprint(game.head),
        "problem": problem,
        "served": served,  # false: another file holds this game id and is the one served
    }


def _log_problem(message: str) -> None:
    """One line on the server's stderr, with the time: what it could not read, and when."""
    import sys
    import time

    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(f"{when} we serve: {message}", file=sys.stderr, flush=True)


# The bare address, opened without the host's link: where that link is.
LOBBY_WITHOUT_KEY = (
    "this is the host's lobby: open the link `we serve` printed in its terminal when it started,"
    ' after "Host (keep this link to yourself):" (it ends in ?k=...); players and the TV get'
    " their links from the host's lobby"
)


def create_app(
    directory: Path | None,
    base_url: str,
    host_key: str,
    library: LibraryPool | None = None,
    names: tuple[str, ...] = (),
) -> FastAPI:
    """The app for the games of `directory`, or of a PostgreSQL `library` (`we serve --db`)."""
    keys = KeyRing(host_key)
    folder: Folder | StoredGames
    if library is not None:
        from service.library_games import StoredGames

        folder = StoredGames(library, keys)
    else:
        assert directory is not None
        folder = Folder(directory, keys)
    # What the follower cannot read (a file, the database gone) goes to the server's log.
    folder.on_error = _log_problem
    stopping = asyncio.Event()
    from service.bots import BotPlayer, BotSeats, bot_refusal

    bot_seats = BotSeats(None if directory is None else directory / ".we" / "bots.json")

    def served(game_id: str) -> LiveGame | None:
        game = folder.get(game_id)
        if game is not None:
            folder.refresh(game)
        return game

    def bot_post(game: LiveGame, role: Role, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A bot's move, through the path of every move: the body read as a request's is."""
        try:
            asked = TypeAdapter(MoveRequest).validate_python(body)
            return _make_move(game, role, asked)
        except ValidationError as exc:
            return 422, {"error": _error_sentence(exc)}
        except ApiError as exc:
            return exc.status, {"error": exc.sentence}

    bots = BotPlayer(bot_seats, served, bot_post, _log_problem)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.loop = asyncio.get_running_loop()
        folder.start()
        bots.start()
        try:
            yield
        finally:
            stopping.set()
            bots.stop()
            folder.stop()

    app = FastAPI(
        title="we serve",
        version="1",
        description="White Elephant games of one folder: docs/service.md",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.folder = folder
    app.state.keys = keys
    # Host allow-list, JSON-only writes from our own origin, and the headers of every answer.
    app.add_middleware(Guard, names=allowed_names(base_url, names))
    app.state.stopping = stopping

    original_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = original_openapi()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(_COMPONENTS)
            components["Error"] = {
                "type": "object",
                "properties": {"error": {"type": "string"}, "head": {"type": "integer"}},
                "required": ["error"],
            }
            _guard_responses(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    # --- errors as {"error": sentence} ---
    @app.exception_handler(ConnectionLostError)
    async def library_away(request: Request, exc: ConnectionLostError) -> JSONResponse:
        return JSONResponse({"error": f"{exc}; try again in a moment"}, status_code=503)

    @app.exception_handler(StoreError)
    async def unreadable(request: Request, exc: StoreError) -> JSONResponse:
        # A log that cannot be read now (replaced by a FIFO, its permissions taken away): the
        # store's one-line sentence, as `we audit` would say it; never a 500.
        sentence = str(exc).encode("utf-8", "replace").decode("utf-8").splitlines()
        return JSONResponse({"error": sentence[0] if sentence else "the log cannot be read"}, 422)

    def refused(request: Request, status: int, sentence: str, **extra: Any) -> Response:
        """{"error": sentence} for the API; for a page (the lobby, a table), a page to read."""
        path = request.url.path
        if path == "/" or path.startswith("/t/"):
            from service.pages import error_page

            return HTMLResponse(error_page(status, sentence), status_code=status, headers=_PAGE_HEADERS)
        return JSONResponse({"error": sentence, **extra}, status_code=status)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return refused(request, exc.status, exc.sentence, **exc.extra)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and keys.role_of(_key_text(request)) is None:
            return refused(request, 401, "a key is needed (?k=KEY or Authorization: Bearer KEY)")
        sentence = "no such page" if exc.status_code == 404 else str(exc.detail)
        return refused(request, exc.status_code, sentence)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        error = exc.errors()[0]
        loc = tuple(error.get("loc", ()))
        where = _field_name(loc[1:]) if loc[:1] == ("query",) else _field_name(loc)
        must = _MUST_BE.get(error.get("type", ""), "of another kind")
        return JSONResponse({"error": f"{where} must be {must}"}, status_code=422)

    # --- keys ---
    def role_for(request: Request) -> Role:
        role = keys.role_of(_key_text(request))
        if role is None:
            if _key_text(request):
                raise ApiError(401, "that is not a key of this service")
            if request.url.path == "/":
                raise ApiError(401, LOBBY_WITHOUT_KEY)
            raise ApiError(401, "a key is needed (?k=KEY or Authorization: Bearer KEY)")
        return role

    def game_for(request: Request, game_id: str, refresh: bool = True) -> tuple[Role, LiveGame]:
        role = role_for(request)
        game = folder.get(game_id)
        if game is None:
            raise ApiError(404, f"no game {_shortened(game_id)!r} here")
        if role.kind != HOST and role.game != game.game:
            raise ApiError(403, "this key is for another game")
        if refresh:
            folder.refresh(game)
        return role, game

    def host_only(request: Request, what: str) -> Role:
        role = role_for(request)
        if role.kind != HOST:
            raise ApiError(403, f"only the host's key can {what}")
        return role

    def links(game_id: str, players: tuple[str, ...]) -> dict[str, Any]:
        """The table's link and a link per seat a person plays (a bot's seat gets none)."""
        played_by_bots = bot_seats.of(game_id)
        return {
            "table": f"{base_url}/t/{game_id}?k={keys.table_key(game_id)}",
            "seats": {
                p: f"{base_url}/t/{game_id}?k={keys.seat_key(game_id, p)}"
                for p in players
                if p not in played_by_bots
            },
        }

    app.state.links = links

    # --- the API ---
    @app.get("/healthz", responses=_responses())
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/api/v1/games", responses=_responses(401, 403))
    def list_games(request: Request) -> list[dict[str, Any]]:
        host_only(request, "list the games")
        out = []
        for game in folder.games():
            folder.refresh(game)
            # null, or why the game stops where it does, in `we audit`'s words
            out.append(_listed(game, game.stopped, served=True))
        for game, why in folder.unserved():  # a second file with a served game's id
            out.append(_listed(game, why, served=False))
        return out

    @app.post(
        "/api/v1/games",
        status_code=201,
        responses=_responses(401, 403, 413, 422),
        openapi_extra={"requestBody": _GAME_BODY},
    )
    async def create_game(request: Request) -> JSONResponse:
        host_only(request, "start a game")
        spec: NewGame = await read_body(request, NewGame)
        refusal = look_alike_sentence(spec.players) or bot_refusal(spec.bots, spec.players, spec.deal_attics)
        if refusal is not None:
            raise ApiError(422, refusal)
        events = await asyncio.to_thread(_new_game_events, spec)
        written, game = await asyncio.to_thread(folder.start_new, spec.title, events)
        game_id = written[0].game
        bot_seats.add(game_id, spec.bots)
        bots.poke()
        players = game.current.players or tuple(spec.players)
        body = {"id": game_id, "seq": written[-1].seq, "links": links(game_id, players)}
        return JSONResponse(body, status_code=201)

    @app.get("/api/v1/games/{game_id}", responses=_responses(401, 403, 404), response_class=FastJSON)
    def get_game(game_id: str, request: Request) -> FastJSON:
        role, game = game_for(request, game_id)
        with game.lock:
            return FastJSON(game.view_object(game.head, role))

    @app.get(
        "/api/v1/games/{game_id}/events",
        responses={
            200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
            **_responses(401, 403, 404, 422),
        },
        response_class=Response,
    )
    def get_events(game_id: str, request: Request, after: _After = 0) -> Response:
        role, game = game_for(request, game_id)
        with game.lock:
            lines = [orjson.dumps(redact_envelope(e, role)) + b"\n" for e in game.envelopes[after:]]
        return Response(b"".join(lines), media_type="application/x-ndjson")

    @app.get(
        "/api/v1/games/{game_id}/stream",
        responses={
            200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}},
            **_responses(401, 403, 404, 422),
        },
        response_class=Response,
    )
    async def stream(game_id: str, request: Request, after: _After = 0) -> Response:
        role, game = await asyncio.to_thread(game_for, request, game_id)
        last = after
        resume = request.headers.get("last-event-id")
        if resume is not None:
            if not resume.strip().isdigit() or len(resume.strip()) > 18:
                raise ApiError(422, "Last-Event-ID is not an event's seq")
            last = int(resume.strip())
        return StreamingResponse(
            _follow(game, role, last),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def _follow(game: LiveGame, role: Role, last: int) -> AsyncIterator[bytes]:
        """Server-Sent Events, framed here (one `id:` per seq). Starlette ends this generator
        when the client goes away; a shutdown sets `stopping` and then wakes every stream.
        Events already waiting go out in one write."""
        sub = game.subscribe()
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

    @app.post(
        "/api/v1/games/{game_id}/moves",
        status_code=201,
        responses=_responses(401, 403, 404, 409, 413, 422, 503),
        openapi_extra={"requestBody": _MOVE_BODY},
    )
    async def post_move(game_id: str, request: Request) -> JSONResponse:
        role, game = game_for(request, game_id, refresh=False)  # _make_move reads the log
        if role.kind == TABLE:
            raise ApiError(403, "a table key only watches: moves need a seat's or the host's key")
        asked: MoveRequest = await read_body(request, MoveRequest)
        status, body = await asyncio.to_thread(_make_move, game, role, asked)
        return FastJSON(body, status_code=status)

    def _make_move(game: LiveGame, role: Role, asked: MoveRequest) -> tuple[int, dict[str, Any]]:
        move = asked.move
        if role.kind == SEAT and isinstance(move, UndoMove | NoteMove | TieMove):
            raise ApiError(403, f"only the host's key can {move.type}")
        table = Table(folder, game)
        standing = table.look()
        actor = _actor(standing.state, role, move)
        try:
            # The card named, or under the gift named by place, is read in the game at `expect`;
            # at any other head the table answers 409 before the card is looked at.
            names_a_card = isinstance(move, OpenMove | BringMove) and standing.head == asked.expect
            card = _named_card(standing.state, move, role) if names_a_card else None
            outcome = table.move(_command_for(move, actor, card), expect=asked.expect)
        except Refused as exc:
            raise ApiError(422, str(exc)) from None
        except StaleHead as exc:
            sentence = f"expect is {asked.expect} but the log's head is {exc.head}: read and decide again"
            raise ApiError(409, sentence, head=exc.head) from None
        except ConnectionLostError as exc:
            raise ApiError(503, f"{exc}; try again in a moment") from None
        bots.poke()  # a bot's turn, perhaps
        seq = outcome.head
        with game.lock:
            view = game.view_object(seq, role)
        envelopes = [redact_envelope(e.to_dict(), role) for e in outcome.written]
        body = {"seq": seq, "events": envelopes, "view": view}
        if outcome.undone is not None:
            body["undone"] = outcome.undone  # the line `we record` prints for the same undo
        return 201, body

    @app.get("/api/v1/games/{game_id}/audit", responses=_responses(401, 403, 404))
    def audit(game_id: str, request: Request) -> dict[str, Any]:
        role, game = game_for(request, game_id)
        if role.kind == SEAT:
            raise ApiError(403, "a seat's key cannot audit: use the table's or the host's key")
        from service.audit import audit_one
        from service.reading import GameSource

        source = GameSource(label=game.label, path=game.path)
        result = audit_one(source, read=lambda _source, **how: folder.read_game(game, **how)).to_json()
        return result if role.kind == HOST or result["complete"] else without_hashes(result)

    # --- the end of a game: BG Stats, the season (service.bgstats, service.season) ---
    @app.get("/api/v1/games/{game_id}/play", responses=_responses(401, 403, 404, 422))
    def play(game_id: str, request: Request) -> dict[str, Any]:
        _, game = game_for(request, game_id)
        from service.bgstats import served_play

        try:
            return served_play(game)
        except ValueError as exc:
            raise ApiError(422, str(exc)) from None

    @app.post("/api/v1/games/{game_id}/seal", responses=_responses(401, 403, 404, 409, 422))
    def seal_game(game_id: str, request: Request) -> dict[str, Any]:
        host_only(request, "seal a game into the season")
        _, game = game_for(request, game_id)
        if directory is None or game.path is None:
            raise ApiError(422, "a season ledger lives beside the games of a folder: use `we season add`")
        from service.reading import GameSource
        from service.season import SEASON_FILE, seal_in_folder

        result = seal_in_folder(directory, GameSource(label=game.label, path=game.path))
        if result.refused:
            reason = result.refused[0].reason
            raise ApiError(409 if "already sealed" in reason else 422, f"{game.game}: {reason}")
        sealed, season = result.sealed[0], {"file": SEASON_FILE, "games": len(result.season.games)}
        return {
            "game": sealed.game,
            "fingerprint": sealed.fingerprint,
            "season": {**season, "fingerprint": result.fingerprint},
        }

    # --- pages ---
    @app.get("/", response_class=HTMLResponse, responses=_responses(401, 403, page=True))
    def lobby(request: Request) -> HTMLResponse:
        host_only(request, "open the lobby")
        from service.pages import lobby_page

        return HTMLResponse(lobby_page(folder, links, host_key, bot_seats.of), headers=_PAGE_HEADERS)

    @app.get("/t/{game_id}", response_class=HTMLResponse, responses=_responses(401, 403, 404, 422, page=True))
    def table_page(game_id: str, request: Request) -> HTMLResponse:
        role, game = game_for(request, game_id)
        from service.pages import live_page

        key = _key_text(request) or ""
        return HTMLResponse(live_page(game, role, key), headers=_PAGE_HEADERS)

    return app


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


# Twelve hex digits or more: a fingerprint, or a part of a line's hash a message quotes.
_HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}")


def without_hashes(audit: dict[str, Any]) -> dict[str, Any]:
    """An audit as a table key may read it before the game is complete: no fingerprint, and no
    run of a hash in a problem's words (a hash of a line with one hidden card is broken by
    trying 50 cards)."""
    problems = [{**p, "message": _HEX_RUN.sub("(a hash)", p["message"])} for p in audit["problems"]]
    return {**audit, "fingerprint": None, "stored_fingerprint": None, "problems": problems}


def _shortened(text: str, keep: int = 64) -> str:
    """What a request named, cut to be echoed in one short line."""
    return text if len(text) <= keep else text[: keep - 3] + "..."


_PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _key_text(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header and header[:7].lower() == "bearer ":
        return header[7:].strip()
    return request.query_params.get("k")


def _actor(state: Any, role: Role, move: Any) -> str | None:
    """Who moves: a seat key moves for its own seat only (403 for another); the host names them."""
    if isinstance(move, UndoMove | NoteMove | TieMove):
        return None
    named = move.as_
    if role.kind == SEAT:
        if named is not None:
            from wecore.errors import WeError

            try:
                player = resolve_player(state, named)
            except WeError:
                player = None
            if player != role.seat:
                raise ApiError(403, f"this key is {role.seat}'s: it cannot move for {named}")
        return role.seat
    if named is None:
        raise ApiError(422, f'say who moves: the host\'s key must give "as" for a {move.type}')
    return str(named)


def _named_card(state: Any, move: Any, role: Role) -> str | None:
    """The card a bring or an open names, or the one under the face-down gift it names by
    place. For a seat, a card it has not seen gets one answer whatever the card
    (wecore.views.hidden_card_refusal): no refusal tells it what lies where."""
    from wecore.cards import parse_card
    from wecore.errors import WeError
    from wecore.views import gift_at, hidden_card_refusal

    gift = getattr(move, "gift", None)
    if gift is not None:
        if move.card is not None:
            raise ApiError(422, 'name the card or the gift\'s place ("gift"), not both')
        seat = role.seat if role.kind == SEAT else None
        try:
            card = gift_at(state, seat, gift, omniscient=role.kind == HOST)
        except ValueError as exc:
            raise ApiError(422, str(exc)) from None
        if card is None:
            raise ApiError(422, f"face-down gift {gift} was brought unseen: name the card turned over")
        return card
    if move.card is None:
        return None
    try:
        card = parse_card(move.card)
    except WeError as exc:
        raise ApiError(422, str(exc)) from None
    if role.kind == SEAT and role.seat is not None:
        refusal = hidden_card_refusal(state, role.seat, move.type, card)
        if refusal is not None:
            raise ApiError(422, refusal)
    return card


def _command_for(
    move: OpenMove | StealMove | SwapMove | BringMove | UndoMove | NoteMove | TieMove,
    actor: str | None,
    card: str | None = None,
) -> Any:
    """The table's command for a move object of the API (`card`: the one `_named_card` read
    for a bring or an open, where it was read)."""
    match move:
        case OpenMove():
            return Open(card=card or move.card, player=actor)
        case StealMove():
            return Steal(from_player=move.from_, player=actor)
        case BringMove():
            return Bring(player=actor or "", card=card or move.card)
        case SwapMove():
            return Swap(with_player=move.with_, player=actor)
        case UndoMove():
            return Undo(reason=move.reason or DEFAULT_UNDO_REASON)
        case NoteMove():
            return AddNote(text=move.text)
        case TieMove():
            return BreakTie(winner=move.winner, reason=move.reason or DEFAULT_TIE_REASON)
        case _:
            assert_never(move)


def _new_game_events(spec: NewGame) -> list[Any]:
    from wecore.cards import parse_gift_list
    from wecore.dealing import deal
    from wecore.errors import WeError
    from wecore.events import AtticsDealt, GiftListsDealt

    lists: dict[str, Any] | None = None
    attics = None
    if spec.lists is None or spec.deal_attics:
        try:
            dealt = deal(
                secrets.token_hex(16), spec.players, spec.dealer, spec.options, spec.title, spec.deal_attics
            )
        except (WeError, ValueError, KeyError) as exc:
            raise ApiError(422, str(exc)) from None
        for event in dealt:
            if isinstance(event, GiftListsDealt):
                lists = {name: tuple(c) for name, c in event.lists.items()}
            if isinstance(event, AtticsDealt):
                attics = {name: tuple(cards) for name, cards in event.attics.items()}
    if spec.lists is not None:
        try:
            lists = {name: parse_gift_list(text) for name, text in spec.lists.items()}
        except WeError as exc:
            raise ApiError(422, f"lists: {exc}") from None
    try:
        return set_up_events(spec.players, spec.dealer, lists or {}, attics, spec.options, spec.title)
    except Refused as exc:
        raise ApiError(422, str(exc)) from None
