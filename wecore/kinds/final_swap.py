"""A house rule's move: once a party's gifts are all open, its starter keeps or swaps.

The whole rule is here: the kind, its effect on the state, its story and its phase's words.
(The core's modules are imported when a swap is made or told, not at import: they import this
package.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wecore.kinds.base import EXCHANGE, Kind, Phase

if TYPE_CHECKING:
    from wecore.events import FinalSwap
    from wecore.state import GameState


def final_swap(
    state: GameState, party: int, player: str, with_player: str | None, takes: str | None
) -> GameState:
    """`final_swap` from its fields: the starter takes `takes` from `with_player` for their own
    gift, or keeps (both None); then the party ends."""
    from wecore import reducer

    reducer.check_decision(state, KIND, party, player, with_player, takes)
    holding = state.holding
    if with_player is not None:
        starter, other = state.starter, state.seat_of[with_player]
        swapped = list(holding)
        swapped[starter], swapped[other] = holding[other], holding[starter]  # type: ignore[index]
        holding = tuple(swapped)
    return reducer.after_closing_step(state, KIND, holding)


def telling(
    event: FinalSwap, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    from wecore.narrate import party_ending

    ending = party_ending(before, after)
    if event.with_player is None:
        own = before.holding[before.starter] if before.starter is not None else None
        return f"{event.player} keeps {own}, no final swap: {ending}."
    own = before.holding[before.seat_of[event.player]]
    return f"{event.player} swaps {own} for {event.takes}, {event.with_player}'s gift: {ending}."


def gist(event: FinalSwap, viewer: str | None, omniscient: bool) -> str:
    if event.with_player is None:
        return f"{event.player} keeping their gift (no final swap)"
    return f"{event.player}'s final swap with {event.with_player} for {event.takes}"


KIND = Kind(
    "final_swap",
    EXCHANGE,
    move="swap",
    phase=Phase.FINAL_SWAP,
    option="starter_final_swap",
    style="swap",
    when="after a party's last open, its starter (starter_final_swap)",
    named="final swap",
    awaited="party {party} is waiting for its starter {starter}'s final swap (swap with someone, or keep)",
    called="the final swap of party {party}",
    closes_party=True,
    decision_title="Final swap",
    decision="every gift is open; {starter}, who started, may swap gifts with anyone, or keep",
    next_step="{starter}, who started party {party}, may swap gifts with anyone or keep",
    only_decider="only party {party}'s starter, {starter}, may swap now, not {player}",
    acting_label="To swap or keep",
    acting_badge="may swap",
    typed_choice="`swap PLAYER`, or `keep`",
    typed_hint="can keep their gift (`keep`)",
    typed_prompt="may swap (swap NAME / keep)",
    effect=final_swap,
    telling=telling,
    gist=gist,
)
