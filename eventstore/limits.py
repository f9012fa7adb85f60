"""The limits of the format (log-format.md, "Limits"), shared by readers (which report a line
beyond them as an integrity problem) and writers (which refuse to write one)."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from eventstore.problems import Flaw, ProblemCode

# The limits of the format (log-format.md, "Limits"). A line is at most LINE_LIMIT bytes, not
# counting its "\n" and a "\r" before it; containers nest at most DEPTH_LIMIT levels (the
# envelope is level 1); integers are signed 64-bit.
LINE_LIMIT = 1 << 20
DEPTH_LIMIT = 64
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
# orjson reads an integer beyond 64 bits as a float; any float this large came from a number
# outside the range (an in-range float such as 2.0 is a schema problem, as before).
FLOAT_EDGE = float(1 << 63)
_FLAT = frozenset({str, type(None), bool})
TOO_DEEP = Flaw(ProblemCode.TOO_DEEP, f"nested more than {DEPTH_LIMIT} levels deep (the format's limit)")
# The bytes a line adds to its canonical form without `hash`: `,"hash":"sha256:<64 hex>"`.
HASH_FIELD_BYTES = len(',"hash":""') + len("sha256:") + 64


def over_limits(container: Any, depth: int) -> Flaw | None:
    """The first limit a parsed value breaks (a container at level `depth`), or None. Cheap
    on what writers write: a few strings and small integers per payload."""
    if depth > DEPTH_LIMIT:
        return TOO_DEEP
    flat = _FLAT.issuperset
    for value in container.values() if type(container) is dict else container:
        kind = type(value)
        if kind is str or (kind is int and INT_MIN <= value <= INT_MAX):
            continue
        if kind is dict or kind is list:
            # A container of strings, nulls and booleans (a gift list, an attic) is within the
            # limits unless it is too deep itself.
            if flat(map(type, value.values() if kind is dict else value)) and depth < DEPTH_LIMIT:
                continue
            if (problem := over_limits(value, depth + 1)) is not None:
                return problem
        elif kind is int or (kind is float and not -FLOAT_EDGE < value < FLOAT_EDGE):
            return Flaw(ProblemCode.INTEGER_RANGE, integer_words(value))
    return None


def integer_words(value: int | float) -> str:
    shown = str(value) if type(value) is int else f"read as {value!r}"
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"an integer outside the signed 64-bit range ({shown})"


def duplicate_key(line: bytes) -> Flaw | None:
    """The problem of a line (JSON already known to parse, within the limits) that holds a key
    twice in one object, or None. JSON leaves the meaning of such an object open (RFC 8259 4):
    one reader takes the first value, another the last, so a line could say one thing to the
    audit and another to a different program, with the same hash."""
    found: list[str] = []

    def first_repeat(pairs: list[tuple[str, Any]]) -> None:
        if not found:
            keys = [key for key, _ in pairs]
            if len(set(keys)) != len(keys):
                seen: set[str] = set()
                found.append(next(key for key in keys if key in seen or seen.add(key)))  # type: ignore[func-returns-value]

    try:
        json.loads(line, object_pairs_hook=first_repeat)
    except (ValueError, RecursionError):  # orjson read it; if this reader cannot, judge by orjson's
        return None
    if not found:
        return None
    key = found[0] if len(found[0]) <= 40 else found[0][:37] + "..."
    return Flaw(
        ProblemCode.DUPLICATE_KEY,
        f"the key {key!r} appears twice in one object: readers differ on which value counts",
    )


class RepeatedKeyRow(dict):  # type: ignore[type-arg]
    """A library row whose stored `data` text holds a key twice (see duplicate_key): the
    envelope as parsed, with the problem, for the checks to report as they report such a line
    of a file (its type is not dict, so it never takes the fast path)."""

    def __init__(self, envelope: dict[str, Any], flaw: Flaw) -> None:
        super().__init__(envelope)
        self.flaw = flaw


def repeated_key_in(data: str | bytes, parsed: Any) -> Flaw | None:
    """The repeated-key problem of a row's stored `data` text, or None. What we writes is
    canonical, as long as the compact form of what it parses to: only a longer text can hold
    a key twice, and only such a text is read a second time to look."""
    if not isinstance(parsed, dict | list):
        return None
    raw = data if isinstance(data, bytes) or data.isascii() else data.encode()
    try:
        compact = orjson.dumps(parsed)
        if len(raw) == len(compact) and not may_hold_a_longer_float(compact):
            return None
    except orjson.JSONEncodeError:
        pass
    return duplicate_key(raw if isinstance(raw, bytes) else raw.encode())


# JSON's whitespace between tokens; inside a string only the space may stand raw.
_WHITESPACE = b" \t\n\r"
# A float as orjson writes it ("1.5", "100.0", "1e+16", "1.5e-7"), a whole token between the
# punctuation a compact form puts around a value (so the hex of a hash, "sha256:3e5...", is
# not one). It may also match inside a string ("at 1:1.5,"), which only sends the line to the
# full check.
_FLOAT_LIKE = re.compile(rb"[:,\[]-?[0-9]+(?:\.[0-9]+(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)[,\]}]")


def duplicate_key_of(line: bytes, compact: bytes) -> Flaw | None:
    """duplicate_key(line), told at a glance for most lines: `compact` is orjson's compact form
    (any key order) of what the line parses to.

    Why the glance is exact: parsing drops a repeated key's pair, which had bytes of its own,
    and whitespace between tokens holds no key. In a string orjson writes each character in the
    shortest form JSON allows (raw, or a two-byte escape for quote, backslash and the short
    control escapes, "\\u00XX" for the others), so the line spends at least as many bytes on
    it; and neither side's forms hold a whitespace byte but the raw space, which both drop
    (a UTF-8 sequence's bytes are all above 0x7F). Integers too are at their shortest in the
    compact form. So, with whitespace bytes left out on both sides, the line is longer than
    its compact form whenever it repeats a key; of equal length, it repeats none. Only a float
    can be written shorter than orjson writes it ("1E2" for "100.0"): a compact form that may
    hold one gets the full check, as does a line that is longer (an escape, or a repeat).
    """
    return None if repeats_no_key_at_a_glance(line, compact) else duplicate_key(line)


def repeats_no_key_at_a_glance(line: bytes, compact: bytes, compact_size: int | None = None) -> bool:
    """True when the glance of duplicate_key_of shows that `line` repeats no key; False when
    only the full check can tell. `compact` as for duplicate_key_of; or, with `compact_size`,
    any compact form of part of the line (an envelope's canonical form without `hash`, which the
    reader has made for the hash) with `compact_size` the whole line's compact length: a pair
    left out of it changes its length by its own bytes, and keys in another order none."""
    if may_hold_a_longer_float(compact) and _FLOAT_LIKE.search(compact) is not None:
        return False
    size = len(compact) if compact_size is None else compact_size
    # Most compact forms hold no space at all (one only stands in a string).
    spaces = compact.count(b" ") if 32 in compact else 0
    # Spaces counted, not copied without them, and only them and a line's final newline left
    # out: any other whitespace left in only makes the line look longer, never a repeat shorter.
    # So an equal length is proof enough, and only a line that fails it is asked whether it
    # holds tabs or CRs, and then stripped of all whitespace. (A line given in memory that holds
    # more newlines only looks longer, and gets the full check.)
    if len(line) - line.count(b" ") - (line[-1:] == b"\n") == size - spaces:
        return True
    if 9 in line or 13 in line:
        return len(line.translate(None, _WHITESPACE)) == size - spaces
    return False


def may_hold_a_longer_float(compact: bytes) -> bool:
    """Whether orjson's compact form `compact` may hold a float that the line it was parsed
    from wrote in fewer bytes: only then can its length hide a repeated key. orjson writes a
    float with a "." ("100.0", "1.5e-7", "0.001") or with "e+" ("1e+16"); the one other form,
    a single digit and a negative exponent ("1e-7"), is already as short as JSON can write it.
    A byte is searched by its code: `b"." in line` raises and clears a TypeError inside CPython
    before it searches."""
    return 46 in compact or 43 in compact


def reads_as_json(text: str | bytes) -> bool:
    """Whether `text` is JSON, read by the standard library, which reads what orjson cannot: a
    number too large for a double, integers of any length (taken by their digits, never
    converted). NaN and Infinity are not JSON."""
    try:
        json.loads(text, parse_int=len, parse_constant=_not_json)
    except (ValueError, RecursionError):
        return False
    return True


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def beyond_orjson(text: str | bytes, error: Exception) -> Any:
    """What the checks are to see of stored JSON text orjson could not read: a stand-in beyond
    the same limit when it failed for one (nested past its 1,024 levels, or a number too large
    for a double), as the same line in a file is judged; else the text itself, a value of the
    wrong type."""
    message = str(error)
    if "depth limit" in message:
        return _NESTED_PAST_THE_LIMIT
    if "infinity" in message and reads_as_json(text):
        return [float("inf")]
    return text


def _nested(levels: int) -> Any:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


# As a payload (level 2), lists nested to level DEPTH_LIMIT + 1.
_NESTED_PAST_THE_LIMIT = _nested(DEPTH_LIMIT)
