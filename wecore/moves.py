"""Moves at the table, and every legal move in a state: what bots choose from and what a
recorder offers. Plain values; no event models, so a simulation never loads pydantic.

One class per `MoveType` of `wecore.kinds`; `move_event` is the event a move makes, read off
the kind declared for its type and the phase it is made in."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, get_args

from wecore.cards import sort_key
from wecore.kinds import (
    CHANCE_MOVES,
    KIND_OF_MOVE,
    MOVE_KINDS,
    MOVE_TYPE_NAMES,
    EventType,
    Kind,
    MoveType,
    Shape,
    kinds_of_move,
    union_refusal,
)
from wecore.rules import held_gift_refusal, no_steal_reason, swap_refusal
from wecore.state import GameState, Phase

if TYPE_CHECKING:
    # Read by the type checker only: at run time a simulation never loads typing_extensions.
    from typing_extensions import TypeIs

# Each class's TYPE is its MoveType; OBJECT, the fields its move object (docs/service.md, the
# API's bodies and `legal`) names after "type" and "as": each with the attribute holding it, its
# JSON shape, and whether a body must give it (the API's move bodies are made from these).
ObjectField = tuple[str, str, Literal["text", "text or null", "int or null"], bool]


@dataclass(frozen=True)
class Bring:
    TYPE: ClassVar[MoveType] = "bring"
    OBJECT: ClassVar[tuple[ObjectField, ...]] = (("card", "card", "text or null", True),)
    player: str
    card: str | None  # None: the gift goes on the table unseen


@dataclass(frozen=True)
class Open:
    """The player to move opens `card`; None in a legal move means "any unseen gift"."""

    TYPE: ClassVar[MoveType] = "open"
    OBJECT: ClassVar[tuple[ObjectField, ...]] = (("card", "card", "text or null", False),)

    card: str | None
    player: str | None = None  # None: whoever is to move


@dataclass(frozen=True)
class Steal:
    TYPE: ClassVar[MoveType] = "steal"
    OBJECT: ClassVar[tuple[ObjectField, ...]] = (("from", "from_player", "text", True),)
    from_player: str
    player: str | None = None  # None: whoever is to move
    card: str | None = None  # filled in by legal_moves; decide reads it from the table


@dataclass(frozen=True)
class Swap:
    """The player deciding (the starter, at a final swap) takes `takes` from `with_player`, or
    keeps (both None)."""

    TYPE: ClassVar[MoveType] = "swap"
    OBJECT: ClassVar[tuple[ObjectField, ...]] = (("with", "with_player", "text or null", True),)

    with_player: str | None
    player: str | None = None  # None: whoever decides now
    takes: str | None = None  # filled in by legal_moves; decide reads it from the table


@dataclass(frozen=True)
class ChanceMove:
    """A move nobody chooses: `value` is its outcome, drawn with its chance (`chance_outcomes`)
    by whoever plays the game (a simulation from its seeded randomness, a server from
    `secrets`), or reported by the table. Bots are never asked; search and analysis draw it.

    Each chance kind's class of move is a subclass (registered as it is declared), so `Move`
    names none of them, and a consumer asks `is_chance` once, before its `match` over the moves
    a player chooses: a new chance kind needs no branch anywhere."""

    TYPE: ClassVar[MoveType]
    OBJECT: ClassVar[tuple[ObjectField, ...]] = (("value", "value", "int or null", False),)
    # What the move did, as its mover's own action ({value}), for `we analyse`'s sentences.
    DONE: ClassVar[str]

    value: int
    player: str | None = None  # None: whoever must make it now

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        _CHANCE_DECLARED.append(cls)


_CHANCE_DECLARED: list[type[ChanceMove]] = []


@dataclass(frozen=True)
class Roll(ChanceMove):
    """The party's starter rolls the die, `value` its face."""

    TYPE: ClassVar[MoveType] = "roll"
    DONE: ClassVar[str] = "rolled a {value}"


def is_chance(move: object) -> TypeIs[ChanceMove]:
    """Whether `move` is a chance move (an isinstance test: cheap enough for any loop)."""
    return isinstance(move, ChanceMove)


# Legal moves are values, and a simulation asks for them a million times: the same move is
# handed out again instead of built again (a frozen dataclass costs ~0.3 us to construct).
_bring_move = functools.lru_cache(maxsize=4096)(Bring)
_open_move = functools.lru_cache(maxsize=4096)(Open)
_steal_move = functools.lru_cache(maxsize=4096)(Steal)


# Every move: the four a player chooses, and chance (each chance kind's class is a ChanceMove).
Move = Bring | Open | Steal | Swap | ChanceMove
# The classes of the moves nobody chooses (wecore.kinds.CHANCE_MOVES), by type: what a person
# reports of an outcome (a face rolled at the table) is made into its move through these.
CHANCE_MOVE_CLASSES: tuple[type[ChanceMove], ...] = tuple(_CHANCE_DECLARED)
CHANCE_CLASSES: dict[MoveType, type[ChanceMove]] = {cls.TYPE: cls for cls in CHANCE_MOVE_CLASSES}

# Every class of move, one per MoveType of the kinds (checked here at import): what a consumer
# asks `isinstance` of, rather than listing the classes again.
MOVE_CLASSES: tuple[type[Move], ...] = (
    *(cls for cls in get_args(Move) if cls is not ChanceMove),
    *CHANCE_MOVE_CLASSES,
)
# Checked against the kinds, naming what is left out: `Move` (with the ChanceMove classes), one
# class per MoveType; the chance classes, one per kind with outcomes, and no other.
for _refusal in (
    union_refusal("wecore.moves: Move", {cls.TYPE for cls in MOVE_CLASSES}, MOVE_TYPE_NAMES),
    union_refusal("wecore.moves: CHANCE_CLASSES", set(CHANCE_CLASSES), sorted(CHANCE_MOVES)),
):
    if _refusal is not None:
        raise ImportError(_refusal)
if len(MOVE_CLASSES) != len(MOVE_TYPE_NAMES):
    raise ImportError("wecore.moves: one class of move for each MoveType of wecore.kinds, not two")


def legal_moves(state: GameState) -> list[Move]:
    """Every legal move now.

    While gifts are being brought (simultaneously) these are the brings of everyone still
    to bring; while a party is played, the opens and steals of the player to move; at a final
    swap (or right after an open, under the keep-or-swap house rule) the swaps of the player deciding
    and `Swap(None)` (keep). An unseen face-down gift shows as
    `Open(None, player)`: its card is known only once turned.
    """
    enumerate_moves = _LEGAL_IN.get(state.phase)
    return [] if enumerate_moves is None else enumerate_moves(state)


def chance_outcomes(state: GameState) -> tuple[tuple[Move, float], ...]:
    """Each outcome of the chance move the game waits on, with its probability (each face of
    the die, 1/6): empty unless the state waits on chance. Whoever plays a game draws from these
    (a simulation from its seeded randomness, a server from `secrets`); a bot never chooses."""
    kind = _CHANCE_KIND_IN.get(state.phase)
    if kind is None:
        return ()
    return _outcomes(kind, state.player_to_move)


@functools.lru_cache(maxsize=256)
def _outcomes(kind: Kind, roller: str | None) -> tuple[tuple[Move, float], ...]:
    assert kind.move is not None  # a chance kind is a kind of move (the registry holds it to it)
    made = CHANCE_CLASSES[kind.move]
    return tuple((made(outcome, roller), 1 / len(kind.outcomes)) for outcome in kind.outcomes)


def _brings(state: GameState) -> list[Move]:
    moves: list[Move] = []
    for seat, name in enumerate(state.players):
        if state.brought[seat]:
            continue
        if state.attics is None:
            moves.append(_bring_move(name, None))
        else:
            attic = sorted(state.attics[seat], key=sort_key)
            moves.extend([_bring_move(name, card) for card in attic])
    return moves


def _swaps(state: GameState) -> list[Move]:
    """Keep, then each swap `swap_refusal` allows the player deciding."""
    decider = state.player_to_move
    if decider is None:
        return []
    swaps: list[Move] = [Swap(None, decider, None)]
    for name, card in zip(state.players, state.holding, strict=True):
        if name != decider and card is not None and swap_refusal(state, decider, name, card) is None:
            swaps.append(Swap(name, decider, card))
    return swaps


def _opens_and_steals(state: GameState) -> list[Move]:
    if state.to_move is None:
        return []
    mover = state.players[state.to_move]
    moves: list[Move] = [_open_move(card, mover) for card in state.face_down]
    if state.unseen_face_down:
        moves.append(_open_move(None, mover))
    # The opens above are the face-down gifts themselves. A steal is generated only for a gift
    # another player holds, which leaves the rules of rules.gift_refusal that can still say no:
    # a reason no steal is allowed (asked once: it refuses every steal or none), and each gift's
    # lock and freeze.
    if no_steal_reason(state) is not None:
        return moves
    players = state.players
    for seat, card in enumerate(state.holding):
        if card is not None and held_gift_refusal(state, card, players[seat]) is None:
            moves.append(_steal_move(players[seat], mover, card))
    return moves


# The kind of chance move each chance phase waits on.
_CHANCE_KIND_IN: dict[Phase, Kind] = {
    kind.phase: kind for kind in MOVE_KINDS if kind.outcomes and kind.phase is not None
}


def _chance_moves(state: GameState) -> list[Move]:
    return [move for move, _ in chance_outcomes(state)]


# How the core enumerates each kind of move a player chooses; a chance move's are its outcomes.
_ENUMERATED: dict[MoveType, Callable[[GameState], list[Move]]] = {
    "bring": _brings,
    "open": _opens_and_steals,
    "steal": _opens_and_steals,
    "swap": _swaps,
}
# Each phase's enumeration, read off the kinds declared for it (one per phase: its moves share it).
_LEGAL_IN: dict[Phase, Callable[[GameState], list[Move]]] = {}
for _kind in MOVE_KINDS:
    if _kind.phase is None or _kind.move is None:
        continue
    _enumerate = _chance_moves if _kind.outcomes else _ENUMERATED.get(_kind.move)
    if _enumerate is None or _LEGAL_IN.setdefault(_kind.phase, _enumerate) is not _enumerate:
        raise ImportError(f"wecore.moves: no one enumeration of {_kind.type}'s moves in its phase")


def move_kind(state: GameState, move: Move) -> Kind:
    """The kind of event `move` makes in `state`'s phase. Out of its phases, the first kind
    declared for its type: that kind's rule then refuses it, in its words."""
    kind = KIND_OF_MOVE.get((move.TYPE, state.phase))
    return kinds_of_move(move.TYPE)[0] if kind is None else kind


def move_event(state: GameState, move: Move) -> tuple[EventType, dict[str, Any]]:
    """The (type, data) a move makes in `state`, its fields read off the move as its kind
    declares them (the party is the state's): what bots write and tests compare."""
    known = _EVENT_OF.get((move.TYPE, state.phase))
    if known is None:
        kind = move_kind(state, move)
        known = _EVENT_OF[move.TYPE, state.phase] = (kind.type, _payload_reader(kind))
    return known[0], known[1](state, move)


PayloadReader = Callable[[GameState, Move], dict[str, Any]]


def _payload_reader(kind: Kind) -> PayloadReader:
    keys, names = kind.keys, kind.attrs[1:]
    if kind.fields[0].shape is not Shape.PARTY or len(names) < 2:
        raise TypeError(f"{kind.type}: a move's event starts with its party and names two fields more")
    # Every move a bot plays, in a game or a rollout, is read here: a dict display per arity,
    # from names the closure holds, costs about half of zipping the keys with an attrgetter's.
    match keys, names:
        case (k0, k1, k2), (a, b):
            return lambda state, move: {k0: state.party, k1: (f := move.__dict__)[a], k2: f[b]}
        case (k0, k1, k2, k3), (a, b, c):
            return lambda state, move: {k0: state.party, k1: (f := move.__dict__)[a], k2: f[b], k3: f[c]}
        case _:
            rest = operator.attrgetter(*names)
            return lambda state, move: dict(zip(keys, (state.party, *rest(move)), strict=True))


# By (move type, phase): the event type and payload reader of the kind `move_kind` names.
_EVENT_OF: dict[tuple[MoveType, Phase], tuple[EventType, PayloadReader]] = {}


def move_object(move: Move) -> dict[str, Any]:
    """A move as JSON, in the move objects of docs/service.md (the API's `legal`, `we analyse
    --json`): `"card": null` is an unseen gift, `"with": null` a player keeping their gift."""
    fields = move.__dict__
    shown = {"type": move.TYPE, "as": move.player}
    # A loop, not a comprehension merged in: the host's answer to every move lists them all.
    for key, attr, _, _ in move.OBJECT:
        shown[key] = fields[attr]
    return shown
