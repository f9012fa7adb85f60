"""Rulesets, and the registry of house rules a table may record in `game_started.options`.

Each house rule is declared once, in HOUSE_RULES: its JSON key and shape, its bounds, how it is
told in words, its flag on `we record` / `we simulate`, its default and a few sample values. The
event schema, the audit's fast shape check, `narrate`, the CLI flags and the property tests all
read this registry, so a rule declared here is checked, told and tested everywhere at once. What
the rule *does* lives in `wecore.rules` (its predicate) and the reducer (its effect).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from wecore.cards import ALL_CARDS
from wecore.errors import RulesetError

RULESET_2011 = "white-elephant-2011"
MIN_PLAYERS = 3
MAX_PLAYERS = 7
# As printed. The 5-player figure looks odd beside the others, but it is what the rulebook says.
PRINTED_ATTIC_SIZES: Mapping[int, int] = {3: 9, 4: 8, 5: 5, 6: 6, 7: 7}


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


def _attic_sizes_told(sizes: Mapping[str, int]) -> str:
    return "; ".join(
        f"{size} card{'s' if size != 1 else ''} each for {count} players"
        for count, size in sorted(sizes.items())
    )


def _per_gift_told(cap: int) -> str:
    if cap == 1:
        return "a gift stolen once in a party is frozen"
    return f"a gift stolen {cap} times in a party is frozen"


def _between_opens_told(cap: int) -> str:
    if cap == 1:
        return "no steal chains: after a steal the next player must open"
    return f"after {cap} steals in a row the next player must open"


def _keep_or_swap_told(on: bool) -> str:
    return "whoever opens a gift may keep it or swap it for another player's opened gift" if on else ""


def _final_swap_told(on: bool) -> str:
    return "after each party's last open its starter may swap gifts with anyone" if on else ""


def _die_told(on: bool) -> str:
    return (
        "after each party its starter rolls a die: on a 6 every kept gift passes one seat left" if on else ""
    )


HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "attic_sizes",
        Shape.COUNTS,
        _attic_sizes_told,
        "--attic-size",
        "N cards per player (and so N parties) for this player count.",
        ({"3": 3, "4": 2, "5": 2, "6": 3, "7": 1}, {"3": 16, "4": 12, "5": 10, "6": 8, "7": 7}),
    ),
    HouseRule(
        "max_steals_per_gift",
        Shape.POSITIVE_INT,
        _per_gift_told,
        "--max-steals",
        "a gift stolen N times in a party is frozen for the rest of it.",
        (1, 2, 3),
    ),
    HouseRule(
        "max_steals_between_opens",
        Shape.POSITIVE_INT,
        _between_opens_told,
        "--max-steals-between-opens",
        "after N steals in a row the player to move must open (1: no steal chains).",
        (1, 2, 3),
    ),
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

    def options(self) -> dict[str, Any]:
        """The `options` object to write in `game_started` for this ruleset."""
        written: dict[str, Any] = {}
        for rule in HOUSE_RULES:
            value = getattr(self, rule.name)
            if rule.shape is Shape.COUNTS:
                value = {
                    str(n): size for n, size in sorted(value.items()) if PRINTED_ATTIC_SIZES.get(n) != size
                } or rule.default
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


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


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
        if rule.shape is Shape.COUNTS:
            values[rule.name] = {**PRINTED_ATTIC_SIZES, **_attic_sizes(rule.name, value or {})}
        elif rule.shape is Shape.POSITIVE_INT:
            if value is not None and not _positive_int(value):
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


def _attic_sizes(option: str, raw_sizes: object) -> dict[int, int]:
    if not isinstance(raw_sizes, Mapping):
        raise RulesetError(f"{option} must map a player count to cards per player")
    sizes = {}
    for key, size in raw_sizes.items():
        count = _player_count_key(key)
        if not _positive_int(size):
            raise RulesetError(f"{option} for {count} players must be a positive whole number, not {size!r}")
        sizes[count] = size
    return sizes


def _player_count_key(key: object) -> int:
    # The log writes player counts as strings ("5"); Python callers may pass ints.
    text = str(key) if isinstance(key, int) and not isinstance(key, bool) else key
    if not isinstance(text, str) or text not in {str(n) for n in PRINTED_ATTIC_SIZES}:
        raise RulesetError(f'attic_sizes has a player count {key!r}: use "3" to "7"')
    return int(text)
