"""The state of a game: an immutable value computed by folding events.

Per-seat facts are tuples indexed by seat, so an event replaces one small tuple
instead of copying the game. `GameState.replace` copies a dozen references, not data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from wecore.cards import Colour
from wecore.kinds import Phase as Phase  # declared with the kinds of move made in each
from wecore.rulesets import Ruleset

if TYPE_CHECKING:
    from wecore.scoring import Scoreboard


EMPTY_MAPPING: Mapping[str, Any] = MappingProxyType({})


class PartyCounts(NamedTuple):
    """What a party counts for the constraint rules that cap it (`wecore.house_rules`: each
    rule's module counts its own, while it is played). Every party starts from PartyCounts()
    (the reducer's fresh party), so a counter added here is reset with the others. (A named
    tuple: one is made per steal counted, and a frozen dataclass costs several times as much;
    the rules make it by position, keeping the counters after their own.)"""

    steals_since_open: int = 0
    steals_of_gift: Mapping[str, int] = EMPTY_MAPPING  # how often each gift was stolen, by card


@dataclass(frozen=True)
class GameState:
    phase: Phase = Phase.NOT_STARTED
    players: tuple[str, ...] = ()
    dealer: str | None = None
    title: str | None = None
    ruleset: Ruleset | None = None
    attic_size: int = 0
    # By seat. `attics` holds what is left in each attic, and is None when never dealt.
    lists: tuple[tuple[Colour, ...], ...] | None = None
    attics: tuple[frozenset[str], ...] | None = None
    party: int = 0
    starter: int | None = None
    # This party, by seat: who has brought, and the card when it was brought seen.
    brought: tuple[bool, ...] = ()
    brought_cards: tuple[str | None, ...] = ()
    face_down: tuple[str, ...] = ()  # seen-brought gifts still face down
    unseen_face_down: int = 0
    holding: tuple[str | None, ...] = ()
    locked: frozenset[str] = frozenset()
    frozen: frozenset[str] = frozenset()
    counts: PartyCounts | None = None  # this party's, for the house rules; None before the game starts
    kept: tuple[tuple[str, ...], ...] = ()
    to_move: int | None = None
    seen: frozenset[str] = frozenset()  # every card met in an event in effect
    tie_winner: int | None = None
    tie_reason: str | None = None
    # Bookkeeping, not part of the position: how many events were folded, and the
    # latest event still in effect with the state before it (the undo stack, linked).
    seq: int = field(default=0, compare=False)
    undo: tuple[int, GameState] | None = field(default=None, compare=False, repr=False)
    seat_of: Mapping[str, int] = field(default_factory=lambda: EMPTY_MAPPING, compare=False, repr=False)

    def replace(self, **changes: Any) -> GameState:
        values = self.__dict__.copy()
        values.update(changes)
        return state_from_fields(values)

    # --- what a person asks of the table ---
    @property
    def player_to_move(self) -> str | None:
        return None if self.to_move is None else self.players[self.to_move]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def party_count(self) -> int:
        return self.attic_size

    @property
    def starter_name(self) -> str | None:
        return None if self.starter is None else self.players[self.starter]

    @property
    def holdings(self) -> dict[str, str]:
        return {p: c for p, c in zip(self.players, self.holding, strict=True) if c is not None}

    @property
    def kept_by(self) -> dict[str, tuple[str, ...]]:
        return dict(zip(self.players, self.kept, strict=True))

    @property
    def gift_lists(self) -> dict[str, tuple[Colour, ...]]:
        if self.lists is None:
            return {}
        return dict(zip(self.players, self.lists, strict=True))

    @property
    def attics_by_player(self) -> dict[str, frozenset[str]] | None:
        if self.attics is None:
            return None
        return dict(zip(self.players, self.attics, strict=True))

    @property
    def face_down_count(self) -> int:
        return len(self.face_down) + self.unseen_face_down

    @property
    def waiting_to_bring(self) -> tuple[str, ...]:
        if self.phase is not Phase.BRINGING:
            return ()
        return tuple(p for p, done in zip(self.players, self.brought, strict=True) if not done)

    @property
    def tie_broken_by(self) -> str | None:
        return None if self.tie_winner is None else self.players[self.tie_winner]

    @property
    def latest_in_effect(self) -> int | None:
        """The seq an undo would void now."""
        return None if self.undo is None else self.undo[0]

    def seqs_in_effect(self) -> list[int]:
        """The seqs of the events still in effect, oldest first: the undo stack, read off.

        game_started, notes and voids are never on it; voided events have left it.
        """
        seqs: list[int] = []
        entry = self.undo
        while entry is not None:
            seqs.append(entry[0])
            entry = entry[1].undo
        seqs.reverse()
        return seqs

    @property
    def scoreboard(self) -> Scoreboard:
        from wecore.scoring import score

        return score(self)

    @property
    def scores(self) -> dict[str, int] | None:
        """Final scores, once the game is over."""
        return self.scoreboard.totals if self.is_over else None

    @property
    def winners(self) -> tuple[str, ...] | None:
        return self.scoreboard.winners if self.is_over else None

    def seat(self, player: str) -> int:
        return self.seat_of[player]


class _Unfrozen:
    """GameState's layout without its frozen __setattr__. A new state is made as one of these,
    given its fields, then turned into a GameState: cheaper than object.__setattr__ on a frozen
    class, and states are made once per event folded."""


def state_from_fields(values: dict[str, Any]) -> GameState:
    """A GameState whose fields are `values` (which it takes over: the caller must not keep it)."""
    state: Any = _Unfrozen()
    state.__dict__ = values
    state.__class__ = GameState
    return state  # type: ignore[no-any-return]


# A dataclass keeps each field's default as a class attribute. An instance attribute that
# shadows a class attribute is read the slow way by CPython 3.11 (no specialised lookup), and
# states are read a dozen times per event folded; __init__ holds its own copy of the defaults.
for _field in fields(GameState):
    if _field.name in GameState.__dict__:
        delattr(GameState, _field.name)
del _field

# Every state's fields are a copy of the state before it's, so the first one's dict decides the
# kind of them all. A dataclass instance keeps its fields as inline values, and a dict made of
# those shares its keys with the class (a split table), as every copy of it does: CPython 3.11
# never specialises an attribute read on an object whose dict is split, so each read of a folded
# state cost four times one of a fresh instance. The first state is given a plain dict instead.
INITIAL_STATE = state_from_fields(dict(GameState().__dict__))


def initial_state() -> GameState:
    return INITIAL_STATE
