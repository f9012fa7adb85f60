"""A printed move: each player brings a gift from their attic (or one unseen) to the party."""

from __future__ import annotations

from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape

KIND = Kind(
    "gift_brought",
    (PARTY, PLAYER, Field("card", "card", Shape.CARD_OR_NULL)),
    move="bring",
    phase=Phase.BRINGING,
)
