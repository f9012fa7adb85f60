"""The kinds of event and of move, declared once: the closed sets every consumer dispatches on.

`EventType` is every event type of the log format, `MoveType` every kind of move a player makes
(the `type` of the API's move objects). `KINDS` says, for each event type, what it records: the
move it is made from and the phase that move is made in, its payload's fields in order (the
arguments of its rule function in `wecore.reducer` after the state), the house rule it belongs
to, and how the replay page marks it. Consumers either read this table (the fast path, the bots,
the decider, the tests, the replay page, the recorder's help) or dispatch on the closed sets
with `match` and `typing.assert_never`, so a kind one of them forgets fails the type checker or
a test derived from this table.

The payload models are in `wecore.events`, which checks at import that it models exactly these
types. This module loads no pydantic: the conformance check folds payloads with it alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Literal, get_args


class Phase(StrEnum):
    """Where a game stands; each phase's moves are the kinds declared with it (KINDS)."""

    NOT_STARTED = "not started"
    SETTING_UP = "setting up"
    BRINGING = "bringing"
    PLAYING = "playing"
    KEEP_OR_SWAP = "keep or swap"  # keep_or_swap_on_open: a gift was just opened; its opener decides
    FINAL_SWAP = "final swap"  # starter_final_swap: the party's gifts are all open; its starter decides
    OVER = "over"


EventType = Literal[
    "game_started",
    "gift_lists_dealt",
    "attics_dealt",
    "gift_brought",
    "gift_opened",
    "gift_stolen",
    "swap_after_open",
    "final_swap",
    "event_voided",
    "tie_broken",
    "note",
]
EVENT_TYPE_NAMES: tuple[EventType, ...] = get_args(EventType)

# "swap" is a decision to keep the gift held or exchange it with another player's; which event
# records it depends on the phase it is made in (see KINDS).
MoveType = Literal["bring", "open", "steal", "swap"]
MOVE_TYPE_NAMES: tuple[MoveType, ...] = get_args(MoveType)


class Shape(StrEnum):
    """The JSON shape of a payload field."""

    PARTY = "party"  # an int: the party the event belongs to
    INT = "int"
    TEXT = "text"
    NAME = "name"  # a player's name, in NFC
    NAME_OR_NULL = "name or null"
    CARD = "card"  # a card in notation ("R7", any case in the log; canonical once read)
    CARD_OR_NULL = "card or null"
    # Set-up payloads, each read by its own code.
    NAMES = "names"
    OPTIONS = "options"
    TEXT_OR_ABSENT = "text, or absent"
    LISTS = "colour names by player"
    ATTICS = "cards by player"

    @property
    def nullable(self) -> bool:
        return self in (Shape.NAME_OR_NULL, Shape.CARD_OR_NULL)


@dataclass(frozen=True, slots=True)
class Field:
    key: str  # in the log
    attr: str  # on the event model and the move ("from" is `from_player`)
    shape: Shape


@dataclass(frozen=True, slots=True)
class Kind:
    """One event type: what it records and how its payload is laid out.

    A kind's nullable fields are null together or set together (a keep: `with` and `takes`
    both null), which the model and the fast path both hold it to.
    """

    type: EventType
    fields: tuple[Field, ...]
    move: MoveType | None = None  # the move this event records; None: not a player's move
    phase: Phase | None = None  # the phase that move is made in
    option: str | None = None  # the house rule without which it is refused
    style: str = ""  # how the replay page's timeline marks it (a CSS class)
    # What a card's history (wecore.claims) calls an exchange of this kind; {party} is its party.
    called: str = ""
    when: str = ""  # for a move shared by several kinds: when this one is made, in words

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(f.key for f in self.fields)

    @property
    def attrs(self) -> tuple[str, ...]:
        return tuple(f.attr for f in self.fields)


_PARTY = Field("party", "party", Shape.PARTY)
_PLAYER = Field("player", "player", Shape.NAME)
_EXCHANGE = (
    _PARTY,
    _PLAYER,
    Field("with", "with_player", Shape.NAME_OR_NULL),
    Field("takes", "takes", Shape.CARD_OR_NULL),
)

_DECLARED = (
    Kind(
        "game_started",
        (
            Field("players", "players", Shape.NAMES),
            Field("dealer", "dealer", Shape.NAME),
            Field("ruleset", "ruleset", Shape.TEXT),
            Field("options", "options", Shape.OPTIONS),
            Field("title", "title", Shape.TEXT_OR_ABSENT),
        ),
    ),
    Kind("gift_lists_dealt", (Field("lists", "lists", Shape.LISTS),)),
    Kind("attics_dealt", (Field("attics", "attics", Shape.ATTICS),)),
    Kind(
        "gift_brought",
        (_PARTY, _PLAYER, Field("card", "card", Shape.CARD_OR_NULL)),
        move="bring",
        phase=Phase.BRINGING,
    ),
    Kind(
        "gift_opened",
        (_PARTY, _PLAYER, Field("card", "card", Shape.CARD)),
        move="open",
        phase=Phase.PLAYING,
    ),
    Kind(
        "gift_stolen",
        (_PARTY, _PLAYER, Field("from", "from_player", Shape.NAME), Field("card", "card", Shape.CARD)),
        move="steal",
        phase=Phase.PLAYING,
    ),
    Kind(
        "swap_after_open",
        _EXCHANGE,
        move="swap",
        phase=Phase.KEEP_OR_SWAP,
        option="keep_or_swap_on_open",
        style="swap",
        when="after each open, its opener (keep_or_swap_on_open)",
        called="a swap after an open in party {party}",
    ),
    Kind(
        "final_swap",
        _EXCHANGE,
        move="swap",
        phase=Phase.FINAL_SWAP,
        option="starter_final_swap",
        style="swap",
        when="after a party's last open, its starter (starter_final_swap)",
        called="the final swap of party {party}",
    ),
    Kind("event_voided", (Field("voids", "voids", Shape.INT), Field("reason", "reason", Shape.TEXT))),
    Kind("tie_broken", (Field("winner", "winner", Shape.NAME), Field("reason", "reason", Shape.TEXT))),
    Kind("note", (Field("text", "text", Shape.TEXT),), style="note"),
)

KINDS: Mapping[EventType, Kind] = MappingProxyType({kind.type: kind for kind in _DECLARED})
MOVE_KINDS: tuple[Kind, ...] = tuple(kind for kind in _DECLARED if kind.move is not None)
# The event a move makes in a phase: (move type, phase) -> kind.
KIND_OF_MOVE: Mapping[tuple[MoveType, Phase], Kind] = MappingProxyType(
    {(kind.move, kind.phase): kind for kind in MOVE_KINDS if kind.move is not None and kind.phase is not None}
)

# The moves each phase offers, as declared: legal_moves lists them by their type.
MOVES_OF_PHASE: Mapping[Phase, tuple[MoveType, ...]] = MappingProxyType(
    {
        phase: tuple(kind.move for kind in MOVE_KINDS if kind.phase is phase and kind.move is not None)
        for phase in Phase
    }
)

# The phases in which a player decides to keep the gift held or swap it: every swap's phase.
DECIDING: frozenset[Phase] = frozenset(
    kind.phase for kind in MOVE_KINDS if kind.move == "swap" and kind.phase is not None
)

# The phases of a party under way: its gifts are being opened, stolen, or swapped (every move's
# phase but the bringing's).
IN_PLAY: frozenset[Phase] = frozenset(
    kind.phase for kind in MOVE_KINDS if kind.phase is not None and kind.phase is not Phase.BRINGING
)

if tuple(KINDS) != EVENT_TYPE_NAMES or len(KIND_OF_MOVE) != len(MOVE_KINDS):
    raise ImportError("wecore.kinds: KINDS must declare each EventType once, each move's phase once")
if {kind.move for kind in MOVE_KINDS} != set(MOVE_TYPE_NAMES):
    raise ImportError("wecore.kinds: every MoveType must be recorded by some kind")
if any(kind.move == "swap" and "{party}" not in kind.called for kind in MOVE_KINDS):
    # A card's history (wecore.claims) names every exchange by it: none may go unnamed.
    raise ImportError("wecore.kinds: every kind of swap must say what it is called, with its {party}")


def kinds_of_move(move: MoveType) -> tuple[Kind, ...]:
    """The event kinds a move of this type may make (a swap: one per phase it is made in)."""
    return _KINDS_OF_MOVE[move]


_KINDS_OF_MOVE: Mapping[MoveType, tuple[Kind, ...]] = {
    move: tuple(kind for kind in MOVE_KINDS if kind.move == move) for move in MOVE_TYPE_NAMES
}
