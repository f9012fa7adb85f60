"""A house rule's move: once a party's gifts are all open, its starter keeps or swaps."""

from __future__ import annotations

from wecore.kinds.base import EXCHANGE, Kind, Phase

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
)
