"""A constraint rule: a gift stolen N times in a party is frozen for the rest of it. Its
declaration, its count of each gift's steals (`PartyCounts.steals_of_gift`, reset by each
party), the freeze, and the words of a frozen gift's refusal."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from wecore.house_rules.base import HouseRule, Shape

if TYPE_CHECKING:
    from wecore.state import GameState


def told(cap: int) -> str:
    if cap == 1:
        return "a gift stolen once in a party is frozen"
    return f"a gift stolen {cap} times in a party is frozen"


def counted_steal(state: GameState, values: dict[str, Any], card: str) -> None:
    """Count a steal of `card`; at the cap it is frozen."""
    counts = values["counts"]
    steals = counts.steals_of_gift.get(card, 0) + 1
    # A PartyCounts, made by position: `_replace` costs several times more.
    values["counts"] = type(counts)(
        counts[0], MappingProxyType({**counts.steals_of_gift, card: steals}), *counts[2:]
    )
    if steals >= state.ruleset.max_steals_per_gift:  # type: ignore[union-attr]
        values["frozen"] = state.frozen | {card}


def frozen_told(state: GameState) -> str:
    return f"has been stolen {state.ruleset.max_steals_per_gift} times this party"  # type: ignore[union-attr]


RULE = HouseRule(
    "max_steals_per_gift",
    Shape.POSITIVE_INT,
    told,
    "--max-steals",
    "a gift stolen N times in a party is frozen for the rest of it.",
    (1, 2, 3),
    counts_steals=counted_steal,
    frozen_told=frozen_told,
)
