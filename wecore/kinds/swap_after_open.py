"""A house rule's move: after each open, its opener keeps the gift or swaps it.

The whole rule is here: the kind, its effect on the state, its story and its phase's words.
(The core's modules are imported when a swap is made or told, not at import: they import this
package.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wecore.kinds.base import EXCHANGE, Kind, Phase

if TYPE_CHECKING:
    from wecore.events import SwapAfterOpen
    from wecore.state import GameState


def swap_after_open(
    state: GameState, party: int, player: str, with_player: str | None, takes: str | None
) -> GameState:
    """`swap_after_open` from its fields: the opener takes `takes` from `with_player`, who takes
    the gift just opened, or keeps it (both None); then play goes on as after the open."""
    from wecore import reducer

    reducer.check_decision(state, KIND, party, player, with_player, takes)
    values = reducer.successor(state)
    if with_player is not None and takes is not None:
        opener, other = state.seat_of[player], state.seat_of[with_player]
        swapped = list(state.holding)
        swapped[opener], swapped[other] = state.holding[other], state.holding[opener]
        values["holding"] = tuple(swapped)
        # Locked as a stolen gift is, until the next open (the swap is not a steal: no count).
        values["locked"] = frozenset({takes})
    values["phase"] = Phase.PLAYING
    return reducer.after_open(
        state, values, values["holding"], values["seen"], values["face_down"] or values["unseen_face_down"]
    )


def telling(
    event: SwapAfterOpen, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    from wecore.narrate import after_open_told

    if event.with_player is None:
        told = f"{event.player} keeps {before.holding[before.seat_of[event.player]]}"
    else:
        own = before.holding[before.seat_of[event.player]]
        told = f"{event.player} swaps {own} for {event.takes}, {event.with_player}'s gift"
        if after.phase is Phase.PLAYING:  # the lock matters only while the party goes on
            told += f"; {event.takes} is locked until a gift is opened"
    return f"{told}{after_open_told(before, after)}."


def gist(event: SwapAfterOpen, viewer: str | None, omniscient: bool) -> str:
    if event.with_player is None:
        return f"{event.player} keeping the gift just opened"
    return f"{event.player}'s swap with {event.with_player} for {event.takes}"


KIND = Kind(
    "swap_after_open",
    EXCHANGE,
    move="swap",
    phase=Phase.KEEP_OR_SWAP,
    option="keep_or_swap_on_open",
    style="swap",
    when="after each open, its opener (keep_or_swap_on_open)",
    named="swap after an open",
    awaited="{mover} has just opened a gift and must first keep it or swap it",
    called="a swap after an open in party {party}",
    decision_title="Keep or swap",
    decision="{mover} has just opened a gift and may keep it, or swap it for another opened gift",
    only_decider="only {mover}, who has just opened a gift, may keep or swap now, not {player}",
    respects_locks=True,
    acting_label="To swap or keep",
    acting_badge="may swap",
    typed_choice="`swap PLAYER`, or `keep`",
    typed_hint="can keep their gift (`keep`)",
    typed_prompt="may swap (swap NAME / keep)",
    effect=swap_after_open,
    telling=telling,
    gist=gist,
)
