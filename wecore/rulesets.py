"""Rulesets and the house rules a table may record in `game_started.options`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wecore.cards import ALL_CARDS
from wecore.errors import RulesetError

RULESET_2011 = "white-elephant-2011"
MIN_PLAYERS = 3
MAX_PLAYERS = 7
# As printed. The 5-player figure looks odd beside the others, but it is what the rulebook says.
PRINTED_ATTIC_SIZES: Mapping[int, int] = {3: 9, 4: 8, 5: 5, 6: 6, 7: 7}
KNOWN_OPTIONS = ("attic_sizes", "max_steals_per_gift")


@dataclass(frozen=True)
class Ruleset:
    name: str = RULESET_2011
    attic_sizes: Mapping[int, int] = field(default_factory=lambda: dict(PRINTED_ATTIC_SIZES))
    max_steals_per_gift: int | None = None

    def attic_size(self, player_count: int) -> int:
        return self.attic_sizes[player_count]

    def options(self) -> dict[str, Any]:
        """The `options` object to write in `game_started` for this ruleset."""
        written: dict[str, Any] = {}
        changed = {
            str(n): size for n, size in sorted(self.attic_sizes.items()) if PRINTED_ATTIC_SIZES.get(n) != size
        }
        if changed:
            written["attic_sizes"] = changed
        if self.max_steals_per_gift is not None:
            written["max_steals_per_gift"] = self.max_steals_per_gift
        return written


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def make_ruleset(
    name: str = RULESET_2011,
    options: Mapping[str, Any] | None = None,
    player_count: int | None = None,
) -> Ruleset:
    """Validate a ruleset name and its options; RulesetError names the first bad one."""
    if name != RULESET_2011:
        raise RulesetError(f"unknown ruleset {name!r}: the only ruleset is {RULESET_2011!r}")
    options = options or {}
    unknown = sorted(set(options) - set(KNOWN_OPTIONS))
    if unknown:
        raise RulesetError(
            f"unknown house rule {unknown[0]!r}: the known ones are {', '.join(KNOWN_OPTIONS)}"
        )
    sizes = dict(PRINTED_ATTIC_SIZES)
    raw_sizes = options.get("attic_sizes", {})
    if not isinstance(raw_sizes, Mapping):
        raise RulesetError("attic_sizes must map a player count to cards per player")
    for key, size in raw_sizes.items():
        count = _player_count_key(key)
        if not _positive_int(size):
            raise RulesetError(
                f"attic_sizes for {count} players must be a positive whole number, not {size!r}"
            )
        sizes[count] = size
    max_steals = options.get("max_steals_per_gift")
    if max_steals is not None and not _positive_int(max_steals):
        raise RulesetError(f"max_steals_per_gift must be a positive whole number, not {max_steals!r}")
    if player_count is not None:
        if not MIN_PLAYERS <= player_count <= MAX_PLAYERS:
            raise RulesetError(
                f"White Elephant is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {player_count}"
            )
        needed = player_count * sizes[player_count]
        if needed > len(ALL_CARDS):
            raise RulesetError(
                f"{player_count} players with {sizes[player_count]} cards each need {needed} cards,"
                f" but there are only {len(ALL_CARDS)}"
            )
    return Ruleset(name=name, attic_sizes=sizes, max_steals_per_gift=max_steals)


def _player_count_key(key: object) -> int:
    # The log writes player counts as strings ("5"); Python callers may pass ints.
    text = str(key) if isinstance(key, int) and not isinstance(key, bool) else key
    if not isinstance(text, str) or text not in {str(n) for n in PRINTED_ATTIC_SIZES}:
        raise RulesetError(f'attic_sizes has a player count {key!r}: use "3" to "7"')
    return int(text)
