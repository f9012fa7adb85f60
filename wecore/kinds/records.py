"""The kinds that record no player's move: the set-up, a void, a tie broken, a note."""

from __future__ import annotations

from wecore.kinds.base import Field, Kind, Shape

GAME_STARTED = Kind(
    "game_started",
    (
        Field("players", "players", Shape.NAMES),
        Field("dealer", "dealer", Shape.NAME),
        Field("ruleset", "ruleset", Shape.TEXT),
        Field("options", "options", Shape.OPTIONS),
        Field("title", "title", Shape.TEXT_OR_ABSENT),
    ),
)
GIFT_LISTS_DEALT = Kind("gift_lists_dealt", (Field("lists", "lists", Shape.LISTS),))
ATTICS_DEALT = Kind("attics_dealt", (Field("attics", "attics", Shape.ATTICS),))
EVENT_VOIDED = Kind(
    "event_voided", (Field("voids", "voids", Shape.INT), Field("reason", "reason", Shape.TEXT))
)
TIE_BROKEN = Kind(
    "tie_broken", (Field("winner", "winner", Shape.NAME), Field("reason", "reason", Shape.TEXT))
)
NOTE = Kind("note", (Field("text", "text", Shape.TEXT),), style="note")
