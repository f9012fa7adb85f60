"""Rulesets, and the registry of house rules a table may record in `game_started.options`.

Each house rule is declared once, in HOUSE_RULES: its JSON key and shape, its bounds, how it is
told in words, its flag on `we record` / `we simulate`, its default and a few sample values. The
event schema, the audit's fast shape check, `narrate`, the CLI flags and the property tests all
read this registry, so a rule declared here is checked, told and tested everywhere at once. What
a rule *does* lives in its own module: a house rule that adds a move is a kind of move
(`wecore.kinds`: its refusal and effect); a constraint rule (`wecore.house_rules`: the attics'
size, the caps on steals) declares itself there with its refusal and its counting, which the
printed moves ask through the ruleset (`Ruleset.limiting_steals`, `counting_steals`,
`counting_opens`) for the rules it plays.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from wecore.cards import ALL_CARDS
from wecore.errors import RulesetError
from wecore.house_rules import attic_sizes, max_steals_between_opens, max_steals_per_gift
from wecore.house_rules.base import HouseRule as HouseRule
from wecore.house_rules.base import OpenCounting, StealCounting, StealLimit, positive_int
from wecore.house_rules.base import Shape as Shape

if TYPE_CHECKING:
    from wecore.state import GameState

RULESET_2011 = "white-elephant-2011"
MIN_PLAYERS = 3
MAX_PLAYERS = 7
PRINTED_ATTIC_SIZES: Mapping[int, int] = attic_sizes.PRINTED


def _keep_or_swap_told(on: bool) -> str:
    return "whoever opens a gift may keep it or swap it for another player's opened gift" if on else ""


def _final_swap_told(on: bool) -> str:
    return "after each party's last open its starter may swap gifts with anyone" if on else ""


def _die_told(on: bool) -> str:
    return (
        "after each party its starter rolls a die: on a 6 every kept gift passes one seat left" if on else ""
    )


HOUSE_RULES: tuple[HouseRule, ...] = (
    attic_sizes.RULE,
    max_steals_per_gift.RULE,
    max_steals_between_opens.RULE,
    HouseRule(
        "starter_final_swap",
        Shape.FLAG,
        _final_swap_told,
        "--starter-final-swap",
        "after a party's last open its starter may swap gifts with anyone (or keep).",
        (True, False),
        default=False,
    ),
    HouseRule(
        "keep_or_swap_on_open",
        Shape.FLAG,
        _keep_or_swap_told,
        "--keep-or-swap",
        "whoever opens a gift keeps it or swaps it for another player's opened gift.",
        (True, False),
        default=False,
    ),
    HouseRule(
        "party_die",
        Shape.FLAG,
        _die_told,
        "--party-die",
        "after each party its starter rolls a die; on a 6 every kept gift passes one seat left.",
        (True, False),
        default=False,
    ),
)
HOUSE_RULE_NAMED: Mapping[str, HouseRule] = {rule.name: rule for rule in HOUSE_RULES}
KNOWN_OPTIONS = tuple(HOUSE_RULE_NAMED)


def option_shape_error(key: object, value: object) -> str | None:
    """Why an `options` entry is a schema problem (unknown key, wrong JSON type), or None."""
    rule = HOUSE_RULE_NAMED.get(key) if isinstance(key, str) else None
    if rule is None:
        return f"unknown option {key!r}"
    return rule.shape_error(value)


def house_rules_text(options: Mapping[str, Any]) -> str:
    """The house rules of `options` as a table would say them."""
    parts = []
    for rule in HOUSE_RULES:
        value = options.get(rule.name, rule.default)
        if value is not None and value != rule.default:
            told = rule.told(value)
            if told:
                parts.append(told)
    return "; ".join(parts)


class _RulesetReadings:
    """What a Ruleset answers beyond its fields (which are the registry's, one per house rule)."""

    attic_sizes: Mapping[int, int]

    def attic_size(self, player_count: int) -> int:
        return self.attic_sizes[player_count]

    # The constraint rules' behaviour, of the rules this ruleset plays (set by __post_init__):
    # empty for the printed rules, so a move folded without them loops over nothing.
    limiting_steals: tuple[StealLimit, ...]
    counting_steals: tuple[StealCounting, ...]
    counting_opens: tuple[OpenCounting, ...]

    def __post_init__(self) -> None:
        played = [rule for rule in HOUSE_RULES if getattr(self, rule.name) not in (None, False)]
        for hooks, part in (
            ("limiting_steals", "limits_steals"),
            ("counting_steals", "counts_steals"),
            ("counting_opens", "counts_opens"),
        ):
            found = tuple(getattr(rule, part) for rule in played if getattr(rule, part) is not None)
            object.__setattr__(self, hooks, found)

    def frozen_told(self, state: GameState) -> str:
        """Why a frozen gift is frozen, in the words of the rule played that froze it."""
        for rule in HOUSE_RULES:
            if rule.frozen_told is not None and getattr(self, rule.name) is not None:
                return rule.frozen_told(state)
        return "is frozen"  # pragma: no cover - only a played rule freezes a gift

    def options(self) -> dict[str, Any]:
        """The `options` object to write in `game_started` for this ruleset."""
        written: dict[str, Any] = {}
        for rule in HOUSE_RULES:
            value = getattr(self, rule.name)
            if rule.written is not None:
                value = rule.written(value)
            if value != rule.default:
                written[rule.name] = value
        return written


@dataclass(frozen=True)
class Ruleset(_RulesetReadings):
    """A ruleset: one field per house rule of HOUSE_RULES, with that rule's default (written out
    so the type checker knows each field's type; the check below holds the two to each other)."""

    name: str = RULESET_2011
    # A table of sizes by player count: the printed one, with the option's entries over it.
    attic_sizes: Mapping[int, int] = field(default_factory=lambda: dict(PRINTED_ATTIC_SIZES))
    max_steals_per_gift: int | None = None
    max_steals_between_opens: int | None = None
    starter_final_swap: bool = False
    keep_or_swap_on_open: bool = False
    party_die: bool = False


_RULESET_FIELDS = tuple(f.name for f in fields(Ruleset))
if ("name", *KNOWN_OPTIONS) != _RULESET_FIELDS or any(
    rule.shape is not Shape.COUNTS and Ruleset.__dataclass_fields__[rule.name].default != rule.default
    for rule in HOUSE_RULES
):
    raise ImportError("wecore.rulesets: Ruleset has one field per house rule, in order, with its default")


def make_ruleset(
    name: str = RULESET_2011,
    options: Mapping[str, Any] | None = None,
    player_count: int | None = None,
) -> Ruleset:
    """Validate a ruleset name and its options; RulesetError names the first bad one."""
    if not options and type(name) is str and (player_count is None or type(player_count) is int):
        # Most games play no house rule: their few rulesets are made once (a Ruleset is frozen).
        return _ruleset_without_options(name, player_count)
    return _make_ruleset(name, options, player_count)


@functools.lru_cache(maxsize=32)
def _ruleset_without_options(name: str, player_count: int | None) -> Ruleset:
    return _make_ruleset(name, None, player_count)


def _make_ruleset(name: str, options: Mapping[str, Any] | None, player_count: int | None) -> Ruleset:
    if name != RULESET_2011:
        raise RulesetError(f"unknown ruleset {name!r}: the only ruleset is {RULESET_2011!r}")
    options = options or {}
    unknown = sorted(set(options) - set(KNOWN_OPTIONS))
    if unknown:
        raise RulesetError(
            f"unknown house rule {unknown[0]!r}: the known ones are {', '.join(KNOWN_OPTIONS)}"
        )
    values: dict[str, Any] = {}
    for rule in HOUSE_RULES:
        value = options.get(rule.name, rule.default)
        if rule.read is not None:
            values[rule.name] = rule.read(value)
        elif rule.shape is Shape.POSITIVE_INT:
            if value is not None and not positive_int(value):
                raise RulesetError(f"{rule.name} must be a positive whole number, not {value!r}")
            values[rule.name] = value
        else:
            if type(value) is not bool:
                raise RulesetError(f"{rule.name} must be true or false, not {value!r}")
            values[rule.name] = value
    ruleset = Ruleset(name=name, **values)
    if player_count is not None:
        if not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
            raise RulesetError(
                f"White Elephant is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {player_count}"
            )
        size = ruleset.attic_size(player_count)
        if player_count * size > len(ALL_CARDS):
            raise RulesetError(
                f"{player_count} players with {size} cards each need {player_count * size} cards,"
                f" but there are only {len(ALL_CARDS)}"
            )
    return ruleset
