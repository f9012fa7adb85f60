"""The table clock of a served game (service.clock): how long the player to move has left,
and, once it ran out, the host letting a bot make that one move for the seat (recorded as the
seat's move, followed by a note saying the clock ran out and who decided)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from service.clock import clock_object, now, ran_out_note, times_of_events
from service.keys import SEAT, Role
from service.live import LiveGame, WrittenAt, redact_envelope
from service.routes.answers import ApiError, FastJSON, responses
from service.routes.moves import post_for_bot
from service.routes.served import Served, ServedDep
from service.table import AddNote, Table
from wecore.bots import bot_move
from wecore.levels import BOTS
from wecore.views import seat_move_object

router = APIRouter()

# The bot the host's button lets move, unless the body names another level.
CLOCK_BOT = "greedy"


def game_clock(served: Served, game: LiveGame) -> dict[str, Any] | None:
    """The clock of `game` as it stands now (None: the table has no clock)."""
    seconds = served.clocks.of(game.game or "")
    if not seconds:
        return None
    with game.lock:
        times = times_of_events(list(game.events), WrittenAt(game.envelopes)[:])
    return clock_object(times, seconds, now())


@router.get("/api/v1/games/{game_id}/clock", responses=responses(401, 403, 404), response_class=FastJSON)
def get_clock(game_id: str, request: Request, served: ServedDep) -> FastJSON:
    """`{"clock": null}` without a clock; else who is on it, since and until when, seconds left."""
    _, game = served.game_for(request, game_id)
    return FastJSON({"clock": game_clock(served, game)})


@router.post(
    "/api/v1/games/{game_id}/clock/bot-move",
    status_code=201,
    responses=responses(401, 403, 404, 409, 422, 503),
)
async def bot_move_on_ran_out_clock(game_id: str, request: Request, served: ServedDep) -> FastJSON:
    """The host's key lets a bot make the move of the player whose clock ran out (only where the
    attics were dealt, as bots need): that seat's move, then a note saying so."""
    host = served.host_only(request, "let a bot move when the clock runs out")
    _, game = served.game_for(request, game_id)
    status, body = await asyncio.to_thread(_bot_moves, served, game, host)
    return FastJSON(body, status_code=status)


def _bot_moves(served: Served, game: LiveGame, host: Role) -> tuple[int, dict[str, Any]]:
    clock = game_clock(served, game)
    if clock is None:
        raise ApiError(
            422, "this table has no clock (start the game with one, or `we serve --clock SECONDS`)"
        )
    with game.lock:
        state, head = game.state, game.head
    player = clock["player"]
    if player is None:
        raise ApiError(409, "nobody alone is on the clock now")
    if not clock["ran_out"]:
        raise ApiError(409, f"{player}'s clock has not run out: {clock['left']:.0f} seconds are left")
    if state.attics is None:
        raise ApiError(422, "a bot can move only where the attics were dealt: it brings from them")
    move = bot_move(state, player, BOTS[CLOCK_BOT](), f"{game.game}/clock")
    if move is None:
        raise ApiError(409, f"{player} has no move to make now")
    body = {"expect": head, "move": seat_move_object(state, player, move)}
    status, answer = post_for_bot(served, game, Role(SEAT, game.game, player), body)
    if status != 201:
        return status, answer
    # The note follows at once, whatever head the log has by then: the next seat's bot may have
    # moved already, and a note is never refused for that (the table reads and appends again).
    noted = Table(served.folder, game).move(AddNote(text=ran_out_note(player, clock["seconds"])))
    answer["events"] = answer["events"] + [redact_envelope(e.to_dict(), host) for e in noted.written]
    with game.lock:
        answer["seq"], answer["view"] = noted.head, game.view_object(noted.head, host)
    return 201, answer
