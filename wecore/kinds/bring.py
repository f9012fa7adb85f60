"""A printed move: each player brings a gift from their attic (or one unseen) to the party.

The whole rule is here: the kind, its refusal, its effect on the state and its story. (The
core's machinery is bound into this module by `take_core` once the reducer is loaded: the core
imports this package, and the fold, whose inner loop this is, runs no extra call per event.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wecore.errors import RuleViolation
from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape

if TYPE_CHECKING:
    from wecore.events import GiftBrought
    from wecore.state import GameState

BRINGING, PLAYING = Phase.BRINGING, Phase.PLAYING

# The core's machinery, bound by `take_core`.
state_from_fields: Callable[[dict[str, Any]], GameState]
player_seat: Callable[[GameState, str], int]
check_party: Callable[[GameState, int], None]
set_seat: Callable[[tuple[Any, ...], int, Any], tuple[Any, ...]]
not_now: Callable[[GameState, str], str]


def take_core() -> None:
    """Bind the core's names this move folds with (called once, by the reducer)."""
    global state_from_fields, player_seat, check_party, set_seat, not_now
    from wecore import reducer, rules, state

    state_from_fields, not_now = state.state_from_fields, rules.not_now
    player_seat, check_party, set_seat = reducer.player_seat, reducer.check_party, reducer.set_seat


def bring_gift(state: GameState, party: int, player: str, card: str | None) -> GameState:
    """`gift_brought` from its fields; the audit calls it directly for payloads of a known shape.
    Refused unless the party is being brought to, `player` has not brought yet, and the gift is
    in their attic (named once the attics are dealt) or never seen before."""
    seat = state.seat_of.get(player)
    if seat is None:
        seat = player_seat(state, player)
    phase = state.phase
    if phase is not BRINGING:
        if phase is PLAYING:
            raise RuleViolation(f"party {state.party} is under way: gifts are brought before its first open")
        raise RuleViolation(not_now(state, "bring a gift"))
    if party != state.party:
        check_party(state, party)
    brought = list(state.brought)
    if brought[seat]:
        raise RuleViolation(f"{player} has already brought a gift to party {state.party}")
    attics = state.attics
    values = state.__dict__.copy()
    seq = values["seq"] + 1
    values["seq"] = seq
    values["undo"] = (seq, state)
    if attics is not None:
        if card is None:
            raise RuleViolation(f"the attics were dealt, so {player}'s gift must be named (not unseen)")
        if card not in attics[seat]:
            raise RuleViolation(f"{card} is not in {player}'s attic")
        values["attics"] = set_seat(attics, seat, attics[seat] - {card})
    if card is None:
        values["unseen_face_down"] = state.unseen_face_down + 1
    else:
        if attics is None:
            # With attics dealt every card is already among the seen ones.
            if card in state.seen:
                raise RuleViolation(f"{card} has already been seen in this game")
            values["seen"] = state.seen | {card}
        values["face_down"] = (*state.face_down, card)
        values["brought_cards"] = set_seat(state.brought_cards, seat, card)
    brought[seat] = True
    values["brought"] = tuple(brought)
    if False not in brought:
        values["phase"] = PLAYING
        values["to_move"] = state.starter
    return state_from_fields(values)


def telling(
    event: GiftBrought, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    from wecore.views import sees_private

    shown = event.card is not None and sees_private(event.player, viewer, omniscient)
    what = f"brings {event.card} face down" if shown else "brings a gift face down"
    tail = ""
    if after.phase is PLAYING:
        tail = f"; all gifts are in, {after.player_to_move} opens first"
    return f"{event.player} {what}{tail}."


def gist(event: GiftBrought, viewer: str | None, omniscient: bool) -> str:
    from wecore.views import sees_private

    shown = event.card is not None and sees_private(event.player, viewer, omniscient)
    return f"{event.player} bringing {event.card if shown else 'a gift'}"


KIND = Kind(
    "gift_brought",
    (PARTY, PLAYER, Field("card", "card", Shape.CARD_OR_NULL)),
    move="bring",
    phase=Phase.BRINGING,
    effect=bring_gift,
    telling=telling,
    gist=gist,
)
