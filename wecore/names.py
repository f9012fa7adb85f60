"""Players a person cannot tell apart (log-format "Names"): a set of names in which two would
show the same on a seat link, a QR code's caption or a score board.

Two names look alike when they are the same
- after Unicode NFKC and case folding ("Ann" and "ANN", "Ａnn" in full width),
- by their confusable skeleton (UTS #39, from the Unicode confusables data that
  `confusable_homoglyphs` carries: "Ann" and "Аnn" with a Cyrillic А), or
- once invisible and bidi control characters are taken out ("Ann" and "Ann\\u200b").

Names in a log are still compared code point for code point; this is for writers, which refuse
such a set, and for `we audit`, which warns about one.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence

from wecore.errors import clipped, shown

# Default-ignorable code points that are not format characters (Cf is taken out as a whole:
# zero-width spaces and joiners, bidi marks, embeddings, overrides and isolates, soft hyphen).
_IGNORABLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0"
    + "".join(map(chr, range(0x180B, 0x1810)))
    + "".join(map(chr, range(0xFE00, 0xFE10)))
)


def _invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or char in _IGNORABLE or 0xE0100 <= ord(char) <= 0xE01EF


def without_invisibles(name: str) -> str:
    """`name` without its invisible and bidi control characters."""
    return "".join(char for char in name if not _invisible(char))


def folded(name: str) -> str:
    """`name` after NFKC and case folding (and NFKC again, as case folding may undo it)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@functools.cache
def _prototypes() -> Mapping[str, str]:
    """Each confusable character's prototype: the least character of its class of look-alikes
    (the classes joined through the data's pairs, one character to one character)."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.get(char, char) != char:
            parent[char] = parent.get(parent[char], parent[char])
            char = parent[char]
        return char

    for char, homoglyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for homoglyph in homoglyphs:
            other = without_invisibles(homoglyph["c"])
            if len(other) != 1:
                continue
            a, b = root(char), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent}


def skeleton(name: str) -> str:
    """The confusable skeleton of `name` (UTS #39: NFD, each character to its prototype, NFD)."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", without_invisibles(name))
    return unicodedata.normalize("NFD", "".join(prototypes.get(char, char) for char in decomposed))


_TESTS = (
    (without_invisibles, "they differ only by invisible or bidi control characters"),
    (folded, "they are the same after Unicode NFKC and case folding"),
    (skeleton, "they are made of characters that look the same"),
)


def look_alike(players: Sequence[str]) -> tuple[str, str, str] | None:
    """The first two players (in seat order) a person cannot tell apart, and why; None when
    every two can be. Two names equal code point for code point are not this function's case."""
    for key, why in _TESTS:
        seen: dict[str, str] = {}
        for name in players:
            kept = key(name)
            if kept in seen and seen[kept] != name:
                return seen[kept], name, why
            seen.setdefault(kept, name)
    return None


def look_alike_sentence(players: Sequence[str]) -> str | None:
    """The refusal of a set of players with two look-alike names, naming the two; or None."""
    found = look_alike(players)
    if found is None:
        return None
    first, second, why = found
    return (
        f"the players {shown(first)} and {shown(second)} cannot be told apart ({why}):"
        " give one of them another name"
    )


def not_a_player(name: str, players: Sequence[str]) -> str:
    """The refusal of a name that is none of `players`. When it differs from one of them only in
    how its characters are encoded (Unicode normalisation), the two would print alike: both are
    spelled with escapes, so the reader sees what differs."""
    listed = ", ".join(players)
    same = [p for p in players if unicodedata.normalize("NFKC", p) == unicodedata.normalize("NFKC", name)]
    if not same:
        return f"{shown(name)} is not a player in this game ({listed})"
    return (
        f"{clipped(ascii(name))} is not a player in this game ({listed}): it differs from"
        f" {clipped(ascii(same[0]))} only in how its characters are encoded, and names are"
        " compared code point for code point"
    )
