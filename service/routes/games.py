"""The served games: the host's list of them, a new game, and one game as a key may view it."""

from __future__ import annotations

import asyncio
import secrets
import threading
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.bots import bot_refusal
from service.live import LiveGame
from service.play import Refused, set_up_events
from service.routes.answers import ApiError, FastJSON, responses
from service.routes.bodies import GAME_BODY, NewGame, read_body
from service.routes.clock import game_clock
from service.routes.served import Served, ServedDep
from wecore.names import players_refusal

router = APIRouter()


@router.get("/api/v1/games", responses=responses(401, 403))
def list_games(request: Request, served: ServedDep) -> list[dict[str, Any]]:
    served.host_only(request, "list the games")
    folder = served.folder
    out = []
    for game in folder.games():
        folder.refresh(game)
        # null, or why the game stops where it does, in `we audit`'s words
        out.append(_listed(game, game.stopped, the_one_served=True))
    for game, why in folder.unserved():  # a second file with a served game's id
        out.append(_listed(game, why, the_one_served=False))
    return out


@router.post(
    "/api/v1/games",
    status_code=201,
    responses={
        **responses(401, 403, 413, 422),
        409: {
            "description": "The folder holds as many games as this server starts (`we serve --max-games`)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        },
    },
    openapi_extra={"requestBody": GAME_BODY},
)
async def create_game(request: Request, served: ServedDep) -> JSONResponse:
    served.host_only(request, "start a game")
    spec: NewGame = await read_body(request, NewGame)
    refusal = players_refusal(spec.players) or bot_refusal(spec.bots, spec.players, spec.deal_attics)
    if refusal is not None:
        raise ApiError(422, refusal)
    events = await asyncio.to_thread(_new_game_events, spec)
    written, game = await asyncio.to_thread(_start_within_the_cap, served, spec.title, events)
    game_id = written[0].game
    served.bot_seats.add(game_id, spec.bots)
    if spec.clock is not None:
        served.clocks.set(game_id, spec.clock)
    served.bots.poke()
    players = game.current.players or tuple(spec.players)
    body = {"id": game_id, "seq": written[-1].seq, "links": served.links(game_id, players)}
    return JSONResponse(body, status_code=201)


@router.get("/api/v1/games/{game_id}", responses=responses(401, 403, 404), response_class=FastJSON)
def get_game(game_id: str, request: Request, served: ServedDep) -> FastJSON:
    role, game = served.game_for(request, game_id)
    with game.lock:
        answer = game.view_object(game.head, role)
    answer["clock"] = game_clock(served, game)  # a setting of the table, read beside its log
    return FastJSON(answer)


_STARTING = threading.Lock()  # one new game at a time, so two cannot both take the last place


def _start_within_the_cap(served: Served, title: str | None, events: list[Any]) -> tuple[list[Any], LiveGame]:
    with _STARTING:
        held = served.folder.count()
        if held >= served.max_games:
            raise ApiError(
                409,
                f"the folder holds {held:,} games, the most this server starts"
                f" (`we serve --max-games {served.max_games:,}`); nothing was started",
            )
        return served.folder.start_new(title, events)


def _listed(game: LiveGame, problem: str | None, the_one_served: bool) -> dict[str, Any]:
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
        "served": the_one_served,  # false: another file holds this game id and is the one served
    }


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
