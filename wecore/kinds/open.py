"""A printed move: the player to move opens a face-down gift of the party."""

from __future__ import annotations

from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape

KIND = Kind(
    "gift_opened",
    (PARTY, PLAYER, Field("card", "card", Shape.CARD)),
    move="open",
    phase=Phase.PLAYING,
    by_place="gift",
)
