"""What a house rule is declared with: its option's JSON shape, its words and flag, and for a
constraint rule the behaviour the printed moves ask of it (each hook None where it has none)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wecore.state import GameState

# Why no gift at all may be stolen now under the rule (None: steals are allowed).
StealLimit = Callable[["GameState"], "str | None"]
# What a move folded under the rule counts, written into the next state's fields (`values`):
# a steal's of the gift `card`, an open's.
StealCounting = Callable[["GameState", dict[str, Any], str], None]
OpenCounting = Callable[["GameState", dict[str, Any]], None]


class Shape(StrEnum):
    """The JSON shape of an option's value."""

    POSITIVE_INT = "positive integer"  # an int (not a bool) above 0; 0 or less is a schema problem
    FLAG = "boolean"  # true or false; absent means false
    COUNTS = "object of positive integers by player count"  # {"3": 9, ...}


@dataclass(frozen=True)
class HouseRule:
    name: str  # the key in `options`
    shape: Shape
    told: Callable[[Any], str]  # the rule in a player's words, for its value
    flag: str  # on `we record` and `we simulate`
    flag_help: str
    samples: tuple[Any, ...]  # values the property tests play with
    default: Any = None  # the printed rules
    # A constraint rule's behaviour, asked by the steal and the open while the rule is played.
    limits_steals: StealLimit | None = None
    counts_steals: StealCounting | None = None
    counts_opens: OpenCounting | None = None
    # Why a gift it froze may not change hands, in words ("has been stolen 2 times this party").
    frozen_told: Callable[[GameState], str] | None = None
    # The ruleset's value from the option's (None: the option's own), and back.
    read: Callable[[Any], Any] | None = None
    written: Callable[[Any], Any] | None = None

    def shape_error(self, value: object) -> str | None:
        """Why `value` has the wrong JSON shape for this option (a schema problem), or None."""
        if self.shape is Shape.FLAG:
            return None if type(value) is bool else f"{self.name} must be true or false"
        if self.shape is Shape.POSITIVE_INT:
            if type(value) is not int:
                return f"{self.name} must be a whole number"
            return None if value > 0 else f"{self.name} must be a positive whole number, not {value}"
        if type(value) is not dict or any(type(size) is not int for size in value.values()):
            return f"{self.name} must be an object of whole numbers"
        for count, size in value.items():
            if size <= 0:
                return f"{self.name} for {count!r} players must be a positive whole number, not {size}"
        return None

    def option_from_flag(self, value: Any, player_count: int) -> Any:
        """The option value a CLI flag's value stands for in a game of `player_count`."""
        if self.shape is Shape.COUNTS:
            return {str(player_count): value}
        return value


def positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
