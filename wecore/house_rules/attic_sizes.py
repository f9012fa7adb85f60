"""A constraint rule: N cards per player (and so N parties) for a player count. Its declaration,
the printed table it overrides, and its reading of the option (player counts as "3" to "7")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wecore.errors import RulesetError
from wecore.house_rules.base import HouseRule, Shape, positive_int

# As printed. The 5-player figure looks odd beside the others, but it is what the rulebook says.
PRINTED: Mapping[int, int] = {3: 9, 4: 8, 5: 5, 6: 6, 7: 7}
NAME = "attic_sizes"


def told(sizes: Mapping[str, int]) -> str:
    return "; ".join(
        f"{size} card{'s' if size != 1 else ''} each for {count} players"
        for count, size in sorted(sizes.items())
    )


def read(raw_sizes: object) -> dict[int, int]:
    """The table of sizes by player count: the printed one, with the option's entries over it."""
    if raw_sizes is None:
        raw_sizes = {}
    if not isinstance(raw_sizes, Mapping):
        raise RulesetError(f"{NAME} must map a player count to cards per player")
    sizes = dict(PRINTED)
    for key, size in raw_sizes.items():
        count = _player_count_key(key)
        if not positive_int(size):
            raise RulesetError(f"{NAME} for {count} players must be a positive whole number, not {size!r}")
        sizes[count] = size
    return sizes


def written(sizes: Mapping[int, int]) -> Any:
    """The option for a table of sizes: the entries that differ from the printed ones (None if
    none does)."""
    return {str(n): size for n, size in sorted(sizes.items()) if PRINTED.get(n) != size} or None


def _player_count_key(key: object) -> int:
    # The log writes player counts as strings ("5"); Python callers may pass ints.
    text = str(key) if isinstance(key, int) and not isinstance(key, bool) else key
    if not isinstance(text, str) or text not in {str(n) for n in PRINTED}:
        raise RulesetError(f'{NAME} has a player count {key!r}: use "3" to "7"')
    return int(text)


RULE = HouseRule(
    NAME,
    Shape.COUNTS,
    told,
    "--attic-size",
    "N cards per player (and so N parties) for this player count.",
    ({"3": 3, "4": 2, "5": 2, "6": 3, "7": 1}, {"3": 16, "4": 12, "5": 10, "6": 8, "7": 7}),
    read=read,
    written=written,
)
