"""A printed move: the player to move takes an opened gift another player holds."""

from __future__ import annotations

from wecore.kinds.base import PARTY, PLAYER, Field, Kind, Phase, Shape

KIND = Kind(
    "gift_stolen",
    (PARTY, PLAYER, Field("from", "from_player", Shape.NAME), Field("card", "card", Shape.CARD)),
    move="steal",
    phase=Phase.PLAYING,
)
