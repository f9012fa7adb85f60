"""A move made over HTTP, by a request or by a bot at a seat: who moves, the card it names, the
table's command, and the answer (service.table makes it, as it does for `we record`)."""

from __future__ import annotations

import asyncio
import keyword
import secrets
from typing import Any

from fastapi import APIRouter, Request
from pydantic import ValidationError

from eventstore.errors import ConnectionLostError
from service.keys import HOST, SEAT, TABLE, Role
from service.live import LiveGame, redact_envelope
from service.play import DEFAULT_TIE_REASON, DEFAULT_UNDO_REASON, Refused, StaleHead
from service.routes.answers import ApiError, FastJSON, responses
from service.routes.bodies import (
    MOVE_BODY,
    RECORD_BODIES,
    MoveRequest,
    NoteMove,
    TieMove,
    UndoMove,
    adapter,
    error_sentence,
    read_body,
)
from service.routes.served import Served, ServedDep
from service.table import AddNote, BreakTie, Table, Undo, resolve_player
from wecore.kinds import CHANCE_MOVES
from wecore.moves import MOVE_CLASSES, chance_outcomes

router = APIRouter()


@router.post(
    "/api/v1/games/{game_id}/moves",
    status_code=201,
    responses=responses(401, 403, 404, 409, 413, 422, 503),
    openapi_extra={"requestBody": MOVE_BODY},
)
async def post_move(game_id: str, request: Request, served: ServedDep) -> FastJSON:
    return await answer_move(served, request, game_id)


async def answer_move(served: Served, request: Request, game_id: str) -> FastJSON:
    """The POST's answer (also reached without the framework's layers: service.http)."""
    role, game = served.game_for(request, game_id, refresh=False)  # make_move reads the log
    if role.kind == TABLE:
        raise ApiError(403, "a table key only watches: moves need a seat's or the host's key")
    asked: MoveRequest = await read_body(request, MoveRequest)
    status, body = await asyncio.to_thread(make_move, served, game, role, asked)
    return FastJSON(body, status_code=status)


def post_for_bot(
    served: Served, game: LiveGame, role: Role, body: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    """A bot's move, through the path of every move: the body read as a request's is."""
    try:
        asked = adapter(MoveRequest).validate_python(body)
        return make_move(served, game, role, asked)
    except ValidationError as exc:
        return 422, {"error": error_sentence(exc)}
    except ApiError as exc:
        return exc.status, {"error": exc.sentence}


def make_move(served: Served, game: LiveGame, role: Role, asked: MoveRequest) -> tuple[int, dict[str, Any]]:
    move = asked.move
    if role.kind == SEAT and move.type in RECORD_BODIES:
        raise ApiError(403, f"only the host's key can {move.type}")
    chance = move.type in CHANCE_MOVES  # nobody chooses its outcome: the server draws it
    if role.kind == SEAT and chance and move.value is not None:
        sentence = "a seat rolls without a value: the server draws the face (only the host's key records one)"
        raise ApiError(403, sentence)
    table = Table(served.folder, game)
    standing = table.look()
    actor = _actor(standing.state, role, move)
    if chance and move.value is None:
        move = move.model_copy(update={"value": _drawn_face(standing.state)})
    try:
        # The card named, or under the gift named by place, is read in the game at `expect`;
        # at any other head the table answers 409 before the card is looked at.
        names_a_card = move.type in _NAMING_A_CARD and standing.head == asked.expect
        card = _named_card(standing.state, move, role) if names_a_card else None
        outcome = table.move(_command_for(move, actor, card), expect=asked.expect, looked=standing)
    except Refused as exc:
        raise ApiError(422, str(exc)) from None
    except StaleHead as exc:
        sentence = f"expect is {asked.expect} but the log's head is {exc.head}: read and decide again"
        raise ApiError(409, sentence, head=exc.head) from None
    except ConnectionLostError as exc:
        raise ApiError(503, f"{exc}; try again in a moment") from None
    if served.bot_seats.of(game.game):
        served.bots.poke()  # a bot's turn, perhaps (a game without bots leaves their thread be)
    seq = outcome.head
    with game.lock:
        # The seal was looked for by the table just before the append.
        view = game.view_object(seq, role, unsealed=True)
    envelopes = [redact_envelope(e.to_dict(), role) for e in outcome.written]
    body = {"seq": seq, "events": envelopes, "view": view}
    if outcome.undone is not None:
        body["undone"] = outcome.undone  # the line `we record` prints for the same undo
    return 201, body


def _actor(state: Any, role: Role, move: Any) -> str | None:
    """Who moves: a seat key moves for its own seat only (403 for another); the host names them."""
    if move.type in RECORD_BODIES:
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


def _drawn_face(state: Any) -> int:
    """A fair face for a roll the server makes (a seat's, a bot's, or the host's without a value),
    from a cryptographic generator: nobody at the table can predict it. Out of a roll's phase
    any face will do: the rules refuse the roll before its face."""
    outcomes = chance_outcomes(state)
    if not outcomes:
        return 1
    face: int = getattr(secrets.choice(outcomes)[0], "value")  # noqa: B009 (every outcome is a roll)
    return face


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


# The moves whose card the API reads itself (by name or by a face-down gift's place).
_NAMING_A_CARD = ("open", "bring")
_MOVE_CLASS: dict[str, Any] = {cls.TYPE: cls for cls in MOVE_CLASSES}


def _python_name(key: str) -> str:
    return f"{key}_" if keyword.iskeyword(key) else key  # "from" is the body's `from_`


def _command_for(move: Any, actor: str | None, card: str | None = None) -> Any:
    """The table's command for a move object of the API (`card`: the one `_named_card` read
    for a bring or an open, where it was read): a move's class from its declared fields."""
    if isinstance(move, UndoMove):
        return Undo(reason=move.reason or DEFAULT_UNDO_REASON)
    if isinstance(move, NoteMove):
        return AddNote(text=move.text)
    if isinstance(move, TieMove):
        return BreakTie(winner=move.winner, reason=move.reason or DEFAULT_TIE_REASON)
    cls = _MOVE_CLASS[move.type]
    values = {
        attr: getattr(move, f"{key}_" if keyword.iskeyword(key) else key) for key, attr, _, _ in cls.OBJECT
    }
    if card is not None:
        values["card"] = card
    return cls(**values, player=actor)
