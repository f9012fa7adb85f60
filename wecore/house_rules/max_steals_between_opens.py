"""A constraint rule: after N steals in a row the player to move must open (1: no steal chains).
Its declaration, its refusal of every steal, and its count of the steals since the last open
(`PartyCounts.steals_since_open`, reset by each open and each party)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wecore.house_rules.base import HouseRule, Shape

if TYPE_CHECKING:
    from wecore.state import GameState


def told(cap: int) -> str:
    if cap == 1:
        return "no steal chains: after a steal the next player must open"
    return f"after {cap} steals in a row the next player must open"


def refusal(state: GameState) -> str | None:
    """Why no gift may be stolen now: the cap of steals in a row is reached."""
    cap: int = state.ruleset.max_steals_between_opens  # type: ignore[union-attr, assignment]
    if state.counts.steals_since_open >= cap:  # type: ignore[union-attr]
        steals = "1 steal has" if cap == 1 else f"{cap} steals have"
        return f"{steals} been made since the last open, the most the house rule allows in a row"
    return None


def counted_steal(state: GameState, values: dict[str, Any], card: str) -> None:
    counts = values["counts"]  # a PartyCounts, its own counter first
    values["counts"] = type(counts)(counts.steals_since_open + 1, *counts[1:])


def counted_open(state: GameState, values: dict[str, Any]) -> None:
    counts: Any = state.counts
    if counts.steals_since_open:
        values["counts"] = type(counts)(0, *counts[1:])


RULE = HouseRule(
    "max_steals_between_opens",
    Shape.POSITIVE_INT,
    told,
    "--max-steals-between-opens",
    "after N steals in a row the player to move must open (1: no steal chains).",
    (1, 2, 3),
    limits_steals=refusal,
    counts_steals=counted_steal,
    counts_opens=counted_open,
)
