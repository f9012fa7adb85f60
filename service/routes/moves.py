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
from wecore.kinds import CHANCE_MOVES, MOVE_TYPE_NAMES, MoveType, Shape, kinds_of_move
from wecore.kinds import Field as KindField
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
    head = game.head
    try:
        status, body = await asyncio.to_thread(make_move, served, game, role, asked, wake=False)
    finally:
        if game.head != head:
            game.wake()  # here, on the streams' loop: no call into it from the worker
    return FastJSON(body, status_code=status)


def post_for_bot(
    served: Served, game: LiveGame, role: Role, body: dict[str, Any], answer: bool = True
) -> tuple[int, dict[str, Any]]:
    """A bot's move, through the path of every move: the body read as a request's is. Without
    `answer` (a seated bot's, which nobody reads) a move made answers its head alone."""
    try:
        asked = adapter(MoveRequest).validate_python(body)
        return make_move(served, game, role, asked, answer=answer)
    except ValidationError as exc:
        return 422, {"error": error_sentence(exc)}
    except ApiError as exc:
        return exc.status, {"error": exc.sentence}


def make_move(
    served: Served, game: LiveGame, role: Role, asked: MoveRequest, answer: bool = True, wake: bool = True
) -> tuple[int, dict[str, Any]]:
    """The move asked for, made: 201 and its answer (only its head, without `answer`). `wake`:
    as for Table.move (False: the caller wakes the game's streams)."""
    move = asked.move
    if role.kind == SEAT and move.type in RECORD_BODIES:
        raise ApiError(403, f"only the host's key can {move.type}")
    # A chance move: nobody chooses its outcome (the server draws it) but the host's key may record one.
    outcome_field = _OUTCOME_FIELD.get(move.type)
    if role.kind == SEAT and outcome_field is not None and getattr(move, outcome_field.key) is not None:
        raise ApiError(403, kinds_of_move(move.type)[0].drawn_by_server)
    table = Table(served.folder, game)
    standing = table.look()
    actor = _actor(standing.state, role, move)
    if outcome_field is not None and getattr(move, outcome_field.key) is None:
        move = move.model_copy(update={outcome_field.key: _drawn_outcome(standing.state, outcome_field)})
    try:
        # The card named, or under the gift named by place, is read in the game at `expect`;
        # at any other head the table answers 409 before the card is looked at.
        names_a_card = move.type in _CARD_FIELD and standing.head == asked.expect
        card = _named_card(standing.state, move, role) if names_a_card else None
        command = _command_for(move, actor, card)
        outcome = table.move(command, expect=asked.expect, looked=standing, wake=wake)
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
    if not answer:
        return 201, {"seq": seq}
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


def _drawn_outcome(state: Any, field: KindField) -> int:
    """A fair outcome of a chance move the server makes (a seat's, a bot's, or the host's without
    one: a die's face), from a cryptographic generator: nobody at the table can predict it. Out
    of the move's phase any outcome will do: the rules refuse the move before its outcome."""
    outcomes = chance_outcomes(state)
    if not outcomes:
        return 1
    drawn: int = getattr(secrets.choice(outcomes)[0], field.attr)
    return drawn


def _named_card(state: Any, move: Any, role: Role) -> str | None:
    """The card a bring or an open names, or the one under the face-down gift it names by
    place. For a seat, a card it has not seen gets one answer whatever the card
    (wecore.views.hidden_card_refusal): no refusal tells it what lies where."""
    from wecore.cards import parse_card
    from wecore.errors import WeError
    from wecore.views import gift_at, hidden_card_refusal

    field = _CARD_FIELD[move.type]
    named = getattr(move, field.key)
    gift = next((getattr(move, kind.by_place) for kind in kinds_of_move(move.type) if kind.by_place), None)
    if gift is not None:
        if named is not None:
            raise ApiError(422, 'name the card or the gift\'s place ("gift"), not both')
        seat = role.seat if role.kind == SEAT else None
        try:
            card = gift_at(state, seat, gift, omniscient=role.kind == HOST)
        except ValueError as exc:
            raise ApiError(422, str(exc)) from None
        if card is None:
            raise ApiError(422, f"face-down gift {gift} was brought unseen: name the card turned over")
        return card
    if named is None:
        return None
    try:
        card = parse_card(named)
    except WeError as exc:
        raise ApiError(422, str(exc)) from None
    if role.kind == SEAT and role.seat is not None:
        refusal = hidden_card_refusal(state, role.seat, move.type, card)
        if refusal is not None:
            raise ApiError(422, refusal)
    return card


_MOVE_CLASS: dict[str, Any] = {cls.TYPE: cls for cls in MOVE_CLASSES}


def _body_field(move: MoveType, shapes: tuple[Shape, ...]) -> KindField | None:
    """The field of a move's body its kinds declare with one of `shapes` (None: no such field)."""
    keys = {key for key, _, _, _ in _MOVE_CLASS[move].OBJECT}
    found = {f for kind in kinds_of_move(move) for f in kind.fields if f.key in keys and f.shape in shapes}
    if len(found) > 1:
        raise ImportError(f"service.routes.moves: a {move}'s body names more than one {shapes[0]}")
    return next(iter(found), None)


# The moves whose card the API reads itself (by name or by a face-down gift's place): those
# whose body carries a field their kinds declare a card.
_CARD_FIELD: dict[str, KindField] = {
    move: field
    for move in MOVE_TYPE_NAMES
    if (field := _body_field(move, (Shape.CARD, Shape.CARD_OR_NULL))) is not None
}
# The field a chance move's outcome fills (a die's face): its body's one field of its kind beyond
# the party and the player.
_OUTCOME_FIELD: dict[str, KindField] = {
    move: field for move in CHANCE_MOVES if (field := _body_field(move, (Shape.INT,))) is not None
}
if set(_OUTCOME_FIELD) != CHANCE_MOVES or not all(kinds_of_move(m)[0].drawn_by_server for m in CHANCE_MOVES):
    raise ImportError("service.routes.moves: a chance move must carry its outcome and say who draws it")


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
        values[_CARD_FIELD[move.type].attr] = card
    return cls(**values, player=actor)
