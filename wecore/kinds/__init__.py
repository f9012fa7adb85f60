"""The kinds of event and of move, declared once: the closed sets every consumer dispatches on.

`EventType` is every event type of the log format, `MoveType` every kind of move a player makes
(the `type` of the API's move objects). `KINDS` says, for each event type, what it records: the
move it is made from and the phase that move is made in, its payload's fields in order (the
arguments of its rule function after the state), the house rule it belongs to, and how the
replay page marks it. Every kind of move carries its behaviour too, written in its own module
(its refusal and effect on the state, its story, its phase's words; see `Kind`), which this
registry requires at import: the reducer, the narration, the turns and `legal_moves` read the
kinds. The kinds that record no move (the set-up, voids, ties, notes) are the core's: the reducer
and `wecore.narrate` check at import that every kind's behaviour is there once. What still
dispatches on the closed sets (the decider, the bots) does so with `match` and
`typing.assert_never`, so a kind one of them forgets fails the type checker or a test derived
from this table.

Each kind is declared in its own module of this package (`bring`, `open`, `steal`,
`swap_after_open`, `final_swap`, `die`; the set-up, voids, ties and notes in `records`),
on the shapes of `wecore.kinds.base`; this module is the registry: the one list of them, in the
log format's order.

The payload models are in `wecore.events`, which checks at import that it models exactly these
types. This module loads no pydantic: the conformance check folds payloads with it alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from wecore.kinds import bring, die, final_swap, open, records, steal, swap_after_open
from wecore.kinds.base import (
    CHOSEN_MOVE_NAMES,
    EVENT_TYPE_NAMES,
    MOVE_TYPE_NAMES,
    ChosenMoveType,
    EventType,
    Field,
    Kind,
    MoveType,
    Phase,
    Shape,
)

__all__ = [
    "AFTER_EACH_OPEN",
    "CHANCE_MOVES",
    "CHANCE_PHASES",
    "CHOSEN_MOVE_NAMES",
    "CLOSING",
    "DECIDING",
    "EVENT_TYPE_NAMES",
    "IN_PLAY",
    "KINDS",
    "KIND_OF_MOVE",
    "MOVES_OF_PHASE",
    "MOVE_KINDS",
    "MOVE_TYPE_NAMES",
    "ChosenMoveType",
    "EventType",
    "Field",
    "Kind",
    "MoveType",
    "Phase",
    "Shape",
    "kinds_of_move",
    "union_refusal",
]


def union_refusal(union: str, listed: set[str], declared: Iterable[str]) -> str | None:
    """What a hand-written union gets wrong against the registry's kinds, naming each kind it
    leaves out or names without a kind; None when it lists exactly the kinds declared."""
    declared = list(declared)
    left_out = [name for name in declared if name not in listed]
    unknown = sorted(listed - set(declared))
    if not (left_out or unknown):
        return None
    wrong = [f"leaves out {', '.join(left_out)}"] if left_out else []
    wrong += [f"names {', '.join(unknown)}, which wecore.kinds does not declare"] if unknown else []
    return f"{union} {' and '.join(wrong)}"


# The registry: every kind, in the log format's order.
_DECLARED = (
    records.GAME_STARTED,
    records.GIFT_LISTS_DEALT,
    records.ATTICS_DEALT,
    bring.KIND,
    open.KIND,
    steal.KIND,
    swap_after_open.KIND,
    final_swap.KIND,
    die.KIND,
    records.EVENT_VOIDED,
    records.TIE_BROKEN,
    records.NOTE,
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

# The moves nobody chooses: each outcome is drawn with its chance (wecore.moves.chance_outcomes).
CHANCE_MOVES: frozenset[MoveType] = frozenset(kind.move for kind in MOVE_KINDS if kind.move and kind.outcomes)
# Their phases, as a tuple: `phase in CHANCE_PHASES` is an identity test per move of a simulation
# (a frozenset would hash the enum member through Python code).
CHANCE_PHASES: tuple[Phase, ...] = tuple(kind.phase for kind in MOVE_KINDS if kind.phase and kind.outcomes)

# The house rule under which each open is followed at once by its opener's keep or swap.
AFTER_EACH_OPEN: str | None = swap_after_open.KIND.option

# The steps of a party's end, in order: each is made by the starter once the last gift is open,
# while its house rule is on (a final swap, then the die).
CLOSING: tuple[Kind, ...] = tuple(kind for kind in MOVE_KINDS if kind.closes_party)

for _kind in MOVE_KINDS:
    # A move a player chooses (an action of weai, a bot's choice) or chance, as declared.
    if (_kind.move in CHOSEN_MOVE_NAMES) == bool(_kind.outcomes):
        _declared = "a chance move (ChanceMoveType)" if _kind.outcomes else "a move a player chooses"
        raise ImportError(f"wecore.kinds: {_kind.type}'s move {_kind.move} must be declared {_declared}")

_registry_refusal = union_refusal(
    "wecore.kinds: the registry", {kind.type for kind in _DECLARED}, EVENT_TYPE_NAMES
)
if _registry_refusal is not None:
    raise ImportError(_registry_refusal)
if tuple(KINDS) != EVENT_TYPE_NAMES or len(KIND_OF_MOVE) != len(MOVE_KINDS):
    raise ImportError("wecore.kinds: KINDS must declare each EventType once, each move's phase once")
if {kind.move for kind in MOVE_KINDS} != set(MOVE_TYPE_NAMES):
    raise ImportError("wecore.kinds: every MoveType must be recorded by some kind")
if any(kind.move in ("swap", "roll") and "{party}" not in kind.called for kind in MOVE_KINDS):
    # A card's history (wecore.claims) names every exchange by it: none may go unnamed.
    raise ImportError(
        "wecore.kinds: every kind that moves gifts must say what it is called, with its {party}"
    )
if any(kind.option is not None and not kind.named for kind in MOVE_KINDS):
    # A refusal names a house rule's move in words (wecore.rules), never by its key.
    raise ImportError("wecore.kinds: a house rule's kind of move must say what it is named")
for _kind in MOVE_KINDS:
    # A kind of move is one file: it carries its effect on the state and its story.
    _missing = [part for part in ("effect", "telling", "gist") if getattr(_kind, part) is None]
    if _missing:
        raise ImportError(f"wecore.kinds: the kind {_kind.type} must carry its {', '.join(_missing)}")
if any(kind.outcomes and kind.chance_refusal is None for kind in MOVE_KINDS):
    raise ImportError("wecore.kinds: a chance move's kind must carry its refusal of an outcome")
if any(kind.phase in DECIDING and not kind.decision for kind in MOVE_KINDS) or any(
    kind.outcomes and not kind.decision for kind in MOVE_KINDS
):
    raise ImportError("wecore.kinds: a decision's or chance's phase must say who acts and why (decision)")
# The words a phase is worded by where someone acts in it (wecore.turns.worded's `acting`).
ACTING_WORDS = ("acting_label", "acting_badge", "typed_choice", "typed_hint", "typed_prompt")
for _kind in MOVE_KINDS:
    _missing = [word for word in ACTING_WORDS if _kind.decision and not getattr(_kind, word)]
    if _missing:
        raise ImportError(
            f"wecore.kinds: {_kind.type} must say how its phase is worded ({', '.join(_missing)})"
        )
if any(kind.closes_party and not kind.next_step for kind in MOVE_KINDS):
    raise ImportError("wecore.kinds: a step of a party's end must say what it is (next_step)")
if any(kind.option is None or kind.phase is None for kind in CLOSING):
    raise ImportError("wecore.kinds: a step of a party's end is a house rule's, in a phase of its own")


def kinds_of_move(move: MoveType) -> tuple[Kind, ...]:
    """The event kinds a move of this type may make (a swap: one per phase it is made in)."""
    return _KINDS_OF_MOVE[move]


_KINDS_OF_MOVE: Mapping[MoveType, tuple[Kind, ...]] = {
    move: tuple(kind for kind in MOVE_KINDS if kind.move == move) for move in MOVE_TYPE_NAMES
}
