"""Players a person cannot tell apart (log-format "Names"): a set of names in which two would
show the same on a seat link, a QR code's caption or a score board.

Two names look alike when they are the same
- after Unicode NFKC and case folding ("Ann" and "ANN", "Ａnn" in full width),
- by their confusable skeleton (UTS #39, from the Unicode confusables data that
  `confusable_homoglyphs` carries: "Ann" and "Аnn" with a Cyrillic А), or
- once the characters that draw nothing are taken out and other spaces read as spaces ("Ann"
  and "Ann\\u200b", "Ben" and "Ben\\u2800").

And one name alone cannot be told from another when it holds (`name_refusal`) a bidi control,
which reorders the text around it, or a character that draws nothing (Unicode's
Default_Ignorable_Code_Point, the blanks that are not in it, any space but U+0020); emoji keep
their joiner (U+200D) and variation selectors (U+FE0E, U+FE0F) inside an emoji sequence.

Names in a log are still compared code point for code point; this is for writers, which refuse
such names (`players_refusal`, the one rule every writer asks), and for `we audit`, which warns
about them.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence

from wecore.errors import clipped, shown

# Bidi controls (UAX #9): each reorders the text around it.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15), as ranges.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# Blanks that draw nothing yet are not default-ignorable (a Braille blank, Hangul fillers).
_BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0")
_ZWJ, _VARIATION_SELECTORS = "\u200d", frozenset("\ufe0e\ufe0f")


# The characters that draw nothing below the tags block (U+E0000-U+E0FFF, 4,096 of them, which
# `_invisible` tests as a range), as one set: a set look-up for each character of a name.
_TAGS_FIRST, _TAGS_LAST = "\U000e0000", "\U000e0fff"
_INVISIBLE = _BLANKS | frozenset(
    chr(code) for low, high in _DEFAULT_IGNORABLE if low < 0xE0000 for code in range(low, high + 1)
)


def _other_space(char: str) -> bool:
    if char < "\x80":
        return char != " " and char.isspace()
    return char.isspace() or unicodedata.category(char) in ("Zs", "Zl", "Zp")


def _invisible(char: str) -> bool:
    """A character that draws nothing: default-ignorable (bidi controls included), or a blank."""
    return char in _INVISIBLE or _TAGS_FIRST <= char <= _TAGS_LAST


def _emoji(char: str) -> bool:
    """A character an emoji sequence is made of (a pictograph, a regional indicator, a skin
    tone, a keycap's base): what a joiner or a variation selector may follow."""
    code = ord(char)
    return (
        unicodedata.category(char) == "So" or 0x1F3FB <= code <= 0x1F3FF or char in "#*0123456789\u203c\u2049"
    )


def _in_an_emoji_sequence(name: str, i: int) -> bool:
    """Whether name[i], a joiner or a variation selector, is where an emoji sequence has it:
    a variation selector right after an emoji, a joiner between two (the one before it may
    carry its own variation selector)."""
    before = name[:i].rstrip("".join(_VARIATION_SELECTORS)) if name[i] == _ZWJ else name[:i]
    if not before or not _emoji(before[-1]):
        return False
    return name[i] != _ZWJ or (i + 1 < len(name) and _emoji(name[i + 1]))


def _told(char: str) -> str:
    code = f"U+{ord(char):04X}"
    title = unicodedata.name(char, "")
    return f"{code} {title}" if title else code


def name_refusal(name: str) -> str | None:
    """Why a person could not tell this name from another, in a sentence naming the character:
    a bidi control, a character that draws nothing (or a name of nothing else); None when the
    name shows as it is."""
    if name and all(_invisible(char) or _other_space(char) for char in name):
        return (
            f"the name {shown(name)} is only characters that draw nothing ({_told(name[0])}):"
            " give a name people can read"
        )
    for i, char in enumerate(name):
        if char in BIDI_CONTROLS:
            return (
                f"the name {shown(name)} holds {_told(char)}, a bidi control, which reorders the"
                " text around the name: take it out"
            )
        if (char == _ZWJ or char in _VARIATION_SELECTORS) and _in_an_emoji_sequence(name, i):
            continue
        if _invisible(char):
            return f"the name {shown(name)} holds {_told(char)}, which draws nothing: take it out"
        if _other_space(char):
            return (
                f"the name {shown(name)} holds {_told(char)}, a space that reads as the ordinary one"
                " (U+0020): write that instead"
            )
    return None


def without_invisibles(name: str) -> str:
    """`name` without the characters that draw nothing (bidi controls included), its other
    spaces as U+0020, and no space at either end: what a person sees of it."""
    shown_text = "".join(" " if _other_space(char) else char for char in name if not _invisible(char))
    return shown_text.strip(" ")


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
            other = homoglyph["c"]
            if len(other) != 1:
                other = without_invisibles(other)
                if len(other) != 1:
                    continue
            elif other == " " or _invisible(other) or _other_space(other):
                continue  # what `without_invisibles` would make nothing of
            a, b = root(char), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {char: root(char) for char in parent}


# The ASCII characters whose prototype is another character, as `_prototypes` derives them from
# the data (a test holds the two equal): an ASCII name, NFD of itself, gets its skeleton without
# loading the data (about 300M instructions, most of an audit of a few games).
_ASCII_PROTOTYPES = str.maketrans({"`": "'", "I": "1", "O": "0", "l": "1", "|": "1"})


def skeleton(name: str) -> str:
    """The confusable skeleton of `name` (UTS #39: NFD, each character to its prototype, NFD)."""
    seen = without_invisibles(name)
    if seen.isascii():
        return seen.translate(_ASCII_PROTOTYPES)
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", seen)
    return unicodedata.normalize("NFD", "".join(prototypes.get(char, char) for char in decomposed))


_TESTS = (
    (without_invisibles, "they differ only by characters that draw nothing, spaces or bidi controls"),
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


def players_refusal(players: Sequence[str]) -> str | None:
    """The one rule every writer asks of a new game's players: the first name a person could
    not read as it is (`name_refusal`), else the first two they could not tell apart; None
    when every name can be told from every other."""
    for name in players:
        if (refusal := name_refusal(name)) is not None:
            return refusal
    return look_alike_sentence(players)


def name_warnings(players: Sequence[str]) -> list[str]:
    """What `we audit` says of a log's players (valid in a log, so said, not failed): each name
    a writer would refuse, then a look-alike pair."""
    said = [refusal for name in players if (refusal := name_refusal(name)) is not None]
    if (look_alike := look_alike_sentence(players)) is not None:
        said.append(look_alike)
    return said


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
