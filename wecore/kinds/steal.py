"""A printed move: the player to move takes an opened gift another player holds.

The whole rule is here: the kind, its refusal, its effect on the state and its story. (The
core's machinery is bound into this module by `take_core` once the reducer is loaded: the core
imports this package, and the fold, whose inner loop this is, runs no extra call per event.)

The gift-level part of the refusal (`gift_refusal`) is separate so that move generation, which
already knows that the thief is to move and the owner holds the gift, can ask only it (why no
steal at all is allowed once, `no_steal_reason`, then each gift's lock and freeze,
`held_gift_refusal`); `wecore.rules.steal_refusal` is the whole rule for any steal a person may
type (the turn, then `refusal`), and the effect, which has checked the turn with the event's
party, asks `refusal` alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from wecore.errors import RuleViolation
from wecore.kinds import swap_after_open
from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape
from wecore.names import not_a_player

if TYPE_CHECKING:
    from wecore.events import GiftStolen
    from wecore.state import GameState

PLAYING = Phase.PLAYING

# The core's machinery, bound by `take_core`.
state_from_fields: Callable[[dict[str, Any]], GameState]
refuse_mover: Callable[[GameState, str, int, str], NoReturn]


def take_core() -> None:
    """Bind the core's names this move folds with (called once, by the reducer)."""
    global state_from_fields, refuse_mover
    from wecore import reducer, state

    state_from_fields, refuse_mover = state.state_from_fields, reducer.refuse_mover


def no_steal_reason(state: GameState) -> str | None:
    """Why no gift at all may be stolen now, whoever holds it, so the player to move must open:
    a constraint rule's (a cap on steals in a row). The one answer `gift_refusal`, `legal_moves`
    and the narration ask; None when steals are allowed (each gift may still refuse its own)."""
    for limit in state.ruleset.limiting_steals:  # type: ignore[union-attr]
        reason = limit(state)
        if reason is not None:
            return reason
    return None


def gift_refusal(state: GameState, card: str, holder: str) -> str | None:
    """Why `card`, an opened gift of this party that `holder` holds, cannot be stolen now: a
    reason no steal is allowed (`no_steal_reason`: then the player to move must open), the
    gift's lock, or its freeze (a constraint rule's)."""
    reason = no_steal_reason(state)
    if reason is not None:
        return f"{reason}: {state.player_to_move} must open a gift"
    return held_gift_refusal(state, card, holder)


def held_gift_refusal(state: GameState, card: str, holder: str) -> str | None:
    """`gift_refusal` without `no_steal_reason`, which is the same for every gift: the gift's own
    lock and freeze. (Move generation asks `no_steal_reason` once.)"""
    if card in state.locked:
        # Under the keep-or-swap house rule a gift taken in a swap is locked as a stolen one is.
        took = "took" if getattr(state.ruleset, _AFTER_EACH_OPEN, False) else "stole"
        return f"{holder} just {took} it and no gift has been opened since"
    if card in state.frozen:
        return f"it {state.ruleset.frozen_told(state)} and is frozen"  # type: ignore[union-attr]
    return None


# The house rule whose swap after an open locks the gift it takes, as a steal does.
_AFTER_EACH_OPEN = swap_after_open.KIND.option or ""


def refusal(state: GameState, thief: str, owner: str, card: str | None) -> str | None:
    """Why `thief`, the player to move, may not steal `card` from `owner` (card None: whatever
    `owner` holds): the steal rules proper, the turn aside."""
    victim = state.seat_of.get(owner)
    if victim is None:
        return not_a_player(owner, state.players)
    held = state.holding[victim]
    if held is None or held != card:
        if owner == thief:
            return f"{thief} cannot steal from themselves"
        if card is not None:
            if any(card in cards for cards in state.kept):
                return f"{thief} cannot steal {card}: it was kept in an earlier party and is out of play"
            if card in state.face_down or (card not in state.seen and state.unseen_face_down):
                return f"{thief} cannot steal {card}: it has not been opened yet"
        if held is None:
            kept = state.kept[victim]
            out_of_play = ""
            if kept:
                verb = "is" if len(kept) == 1 else "are"
                out_of_play = (
                    f" (what {owner} kept in earlier parties, {', '.join(kept)}, {verb} out of play)"
                )
            return f"{thief} cannot steal from {owner}: {owner} holds no gift now{out_of_play}"
        if card is not None:
            return f"{thief} cannot steal {card} from {owner}: {owner} holds {held}"
    refused = gift_refusal(state, held, owner)
    if refused is not None:
        return f"{thief} cannot steal {held}: {refused}"
    return None


def steal_gift(state: GameState, party: int, thief: str, owner: str, card: str) -> GameState:
    """`gift_stolen` from its fields: `thief` takes `card` from `owner`."""
    seat = state.seat_of.get(thief)  # the turn; inlined, as this is the fold's inner loop
    if seat is None or state.phase is not PLAYING or party != state.party or seat != state.to_move:
        refuse_mover(state, thief, party, "steal")
    refused = refusal(state, thief, owner, card)
    if refused is not None:
        raise RuleViolation(refused)
    victim = state.seat_of[owner]
    holding_list = list(state.holding)
    holding_list[victim] = None
    holding_list[seat] = card
    values = state.__dict__.copy()
    seq = values["seq"] + 1
    values["seq"] = seq
    values["undo"] = (seq, state)
    values["holding"] = tuple(holding_list)
    values["locked"] = state.locked | {card}
    values["to_move"] = victim
    for count in state.ruleset.counting_steals:  # type: ignore[union-attr]
        count(state, values, card)  # the constraint rules played (none: no call)
    return state_from_fields(values)


def telling(
    event: GiftStolen, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    frozen = event.card in after.frozen
    held = "is frozen for the rest of the party" if frozen else "is locked until a gift is opened"
    return (
        f"{event.player} steals {event.card} from {event.from_player}, who moves next;"
        f" {event.card} {held}{_must_open(after)}."
    )


def _must_open(after: GameState) -> str:
    """After a steal that leaves no steal allowed (a house rule): who must open, and why."""
    reason = no_steal_reason(after) if after.phase is PLAYING else None
    if reason is None:
        return ""
    return f"; {after.player_to_move} must open a gift: {reason}"


def gist(event: GiftStolen, viewer: str | None, omniscient: bool) -> str:
    return f"{event.player} stealing {event.card} from {event.from_player}"


KIND = Kind(
    "gift_stolen",
    (PARTY, PLAYER, Field("from", "from_player", Shape.NAME), Field("card", "card", Shape.CARD)),
    move="steal",
    phase=Phase.PLAYING,
    effect=steal_gift,
    telling=telling,
    gist=gist,
)
