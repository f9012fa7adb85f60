"""A printed move: the player to move opens a face-down gift of the party.

The whole rule is here: the kind, its refusal, its effect on the state and its story. (The
core's machinery is bound into this module by `take_core` once the reducer is loaded: the core
imports this package, and the fold, whose inner loop this is, runs no extra call per event.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from wecore.errors import RuleViolation
from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape

if TYPE_CHECKING:
    from wecore.events import GiftOpened
    from wecore.state import GameState

PLAYING, KEEP_OR_SWAP = Phase.PLAYING, Phase.KEEP_OR_SWAP

# The core's machinery, bound by `take_core`.
state_from_fields: Callable[[dict[str, Any]], GameState]
refuse_mover: Callable[[GameState, str, int, str], NoReturn]
set_seat: Callable[[tuple[Any, ...], int, Any], tuple[Any, ...]]
after_open: Callable[[GameState, dict[str, Any], tuple[str | None, ...], frozenset[str], object], GameState]
nothing_locked: frozenset[str]
after_each_open: str  # the house rule under which the opener keeps or swaps first (its key)


def take_core() -> None:
    """Bind the core's names this move folds with (called once, by the reducer)."""
    global state_from_fields, refuse_mover, set_seat, after_open, nothing_locked, after_each_open
    from wecore import kinds, reducer, state

    state_from_fields = state.state_from_fields
    refuse_mover, set_seat, after_open = reducer.refuse_mover, reducer.set_seat, reducer.after_open
    nothing_locked, after_each_open = reducer.NOTHING_LOCKED, kinds.AFTER_EACH_OPEN or ""


def refusal(state: GameState, card: str | None) -> str | None:
    """Why the player to move may not open `card` now (card None: any gift brought unseen):
    whether it is a face-down gift of this party."""
    if card in state.face_down:
        return None
    if card is None:
        return None if state.unseen_face_down else "no gift was brought unseen, so name the card opened"
    # A card still in an attic is "seen" only by its owner: saying so would let any seat read
    # the attics by naming cards in refused opens (which leave no trace).
    if card in state.seen and not (state.attics and any(card in attic for attic in state.attics)):
        return f"{card} is not a face-down gift of this party: it was seen before"
    if state.unseen_face_down:
        return None
    return f"{card} is not a face-down gift of this party"


def open_gift(state: GameState, party: int, player: str, card: str) -> GameState:
    """`gift_opened` from its fields."""
    seat = state.seat_of.get(player)  # the turn; inlined, as this is the fold's inner loop
    if seat is None or state.phase is not PLAYING or party != state.party or seat != state.to_move:
        refuse_mover(state, player, party, "open a gift")
    refused = refusal(state, card)
    if refused is not None:
        raise RuleViolation(refused)
    face_down = state.face_down
    unseen = state.unseen_face_down
    seen = state.seen
    if card in face_down:
        at = face_down.index(card)
        face_down = face_down[:at] + face_down[at + 1 :]
    else:
        unseen -= 1
        seen = seen | {card}
    holding = set_seat(state.holding, seat, card)
    values = state.__dict__.copy()
    seq = values["seq"] + 1
    values["seq"] = seq
    values["undo"] = (seq, state)
    values["face_down"] = face_down
    values["unseen_face_down"] = unseen
    values["seen"] = seen
    values["holding"] = holding
    values["locked"] = nothing_locked
    for count in state.ruleset.counting_opens:  # type: ignore[union-attr]
        count(state, values)  # the constraint rules played (none: no call)
    if getattr(state.ruleset, after_each_open):
        # The opener keeps or swaps first (swap_after_open); the turn passes after that.
        values["phase"] = KEEP_OR_SWAP
        values["to_move"] = seat
        return state_from_fields(values)
    return after_open(state, values, holding, seen, face_down or unseen)


def telling(
    event: GiftOpened, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    from wecore.narrate import after_open_told

    text = f"{event.player} opens {event.card}"
    if after.phase is KEEP_OR_SWAP:
        return f"{text} and may keep it or swap it for another opened gift."
    return f"{text}{after_open_told(before, after)}."


def gist(event: GiftOpened, viewer: str | None, omniscient: bool) -> str:
    return f"{event.player} opening {event.card}"


KIND = Kind(
    "gift_opened",
    (PARTY, PLAYER, Field("card", "card", Shape.CARD)),
    move="open",
    phase=Phase.PLAYING,
    effect=open_gift,
    telling=telling,
    gist=gist,
    by_place="gift",
)
