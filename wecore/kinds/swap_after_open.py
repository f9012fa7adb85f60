"""A house rule's move: after each open, its opener keeps the gift or swaps it."""

from __future__ import annotations

from wecore.kinds.base import EXCHANGE, Kind, Phase

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
)
