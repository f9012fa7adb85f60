"""The integrity of a log, verified line by line as it streams (log-format.md, "Verifying a log").

Only the *integrity* kind of problem is decided here: the envelope's shape, the hash chain, `at`,
torn and blank lines, the format's limits, each a `Flaw` with its `ProblemCode` (see `problems`).
Schema and rules problems are the core's (`wecore.conformance`); `service.reading` puts both into
one verdict. Opening the file and cutting it into lines is `logfile`'s.

Over 500 lines on purpose: the reference checker (`LineVerifier`, which words every problem)
and the fast path in front of it (`_scan`) must reach the same verdicts, so they stay side by
side in one file, and tests/store/test_integrity.py checks that they agree.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager as ContextManager
from contextlib import nullcontext
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Any, BinaryIO

import orjson

from eventstore.canonical import HASH_PREFIX, fingerprint
from eventstore.envelope import (
    AT_MINUTES_SEEN,
    AT_SECONDS_POINT,
    AT_WHOLE_SECONDS,
    ENVELOPE_KEYS,
    Envelope,
    at_ok,
    envelope_from_raw,
    valid_at,
    valid_game_id,
)
from eventstore.limits import (
    DEPTH_LIMIT,
    FLOAT_EDGE,
    HASH_FIELD_BYTES,
    INT_MAX,
    INT_MIN,
    TOO_DEEP,
    RepeatedKeyRow,
    duplicate_key,
    duplicate_key_of,
    integer_words,
    may_hold_a_longer_float,
    over_limits,
    reads_as_json,
    repeats_no_key_at_a_glance,
)
from eventstore.logfile import LongLine, file_lines, long_line_message, open_log, within_limit
from eventstore.problems import EMPTY, INTEGRITY, TORN, Flaw, Problem, ProblemCode

_KEYSET = frozenset(ENVELOPE_KEYS)
_MISSING: Any = object()
_loads = orjson.loads
_dumps = orjson.dumps
_SORT = orjson.OPT_SORT_KEYS
_DecodeError = orjson.JSONDecodeError
_EncodeError = orjson.JSONEncodeError
# The limits at a glance, without walking a payload's values in Python. A line read as text
# is within them when the canonical form orjson writes for it
# - was written under OPT_STRICT_INTEGER, so every integer is within 53 bits;
# - holds no "+", which every float of 1e16 or more is written with ("9.3e+18"), so no float
#   stands for an integer beyond 64 bits;
# - and either holds no "[" and is at most _GLANCE_BYTES long, too short to nest objects
#   deeper than the limit (below), or holds at most DEPTH_LIMIT "[" and "{" in all.
# A "+", "[" or "{" inside a string only sends the line to the walk of its values.
# Bytes are searched by code (`43 in line`): bytes.find parses its arguments the slow way.
_PLUS, _OPEN_BRACKET = ord("+"), ord("[")
# A canonical envelope takes at least 82 bytes besides its payload (58 of punctuation and key
# names, `at` 20, `game` 1, `prev` 2 as "": a line's `prev` repeats whatever hash the line before
# stored, `seq` 1); the payload is level 2, and each object nested below it to level
# DEPTH_LIMIT + 1 adds at least 5 bytes (`"":{` and `}`).
_GLANCE_BYTES = 82 + 2 + 5 * (DEPTH_LIMIT - 1) - 1

# Problems listed per log; the rest are counted ("and N more").
PROBLEMS_LISTED = 100

Source = str | os.PathLike[str] | BinaryIO | Iterable[bytes]


@dataclass(frozen=True, slots=True)
class LogLine:
    line: int
    # None when the line cannot be trusted as an event at all (not JSON, not an object, an
    # envelope field missing or mistyped, blank, torn). A line with only a bad hash, chain,
    # `v`, `seq`, `game` or `at` still carries its envelope, so the rules engine can fold it.
    envelope: Envelope | None
    problems: tuple[Problem, ...]
    raw: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class VerifyResult:
    events: int  # lines in the file, a torn last line included
    problems: list[Problem] = field(default_factory=list)
    # Proven: the stored hash of the last line, only when every integrity check passed (an edit
    # that is not re-hashed leaves the last hash as it was and breaks the chain instead).
    fingerprint: str | None = None
    head_hash: str | None = None  # stored hash of the last complete line, if well-formed
    game: str | None = None  # game id of the first line that has one
    # Problems after the first PROBLEMS_LISTED: counted, not listed (a log of a million junk
    # lines must not become a million problems in memory).
    problems_omitted: int = 0
    stored_fingerprint: str | None = None  # from head_hash whether or not the chain holds

    @property
    def broken_at(self) -> int | None:
        """The first line where integrity fails, so the fingerprint is not proven; else None.
        A torn last line (an append cut off) leaves the chain of the lines before it whole."""
        return next(
            (p.line for p in self.problems if p.kind == INTEGRITY and p.code is not ProblemCode.TORN_LINE),
            None,
        )

    @property
    def ok(self) -> bool:
        return not self.problems


def fingerprint_of(hash: str) -> str:
    """`fingerprint(hash)` for a hash that must be good: ValueError otherwise."""
    fp = fingerprint(hash)
    if fp is None:
        raise ValueError(f"not a sha256:<64 hex> hash: {hash!r}")
    return fp


def _json_type(x: object) -> str:
    if isinstance(x, bytes | bytearray | memoryview):
        return "bytes (not JSON)"
    if x is None:
        return "null"
    if type(x) is bool:
        return "boolean"
    if type(x) is int:
        return "integer"
    if type(x) is float:
        return "number with a fraction or exponent"
    if type(x) is str:
        return "string"
    if type(x) is list:
        return "array"
    if type(x) is dict:
        return "object"
    return type(x).__name__


# Expected JSON type of each envelope field; `prev` may also be null. `bool` is a subclass of
# `int` in Python, so every check compares `type(x) is ...` rather than isinstance.
_FIELD_TYPES: dict[str, type] = {
    "v": int,
    "game": str,
    "seq": int,
    "at": str,
    "type": str,
    "data": dict,
    "prev": str,
    "hash": str,
}
_TYPE_NAMES = {int: "an integer", str: "a string", dict: "an object"}


class LineVerifier:
    """Every per-line integrity check, worded, with the state carried from line to line (line
    number, game id, previous stored hash). scan_lines puts a fast path for good lines in front
    of it; this is the reference that decides and words every problem."""

    __slots__ = ("game", "game_line", "game_ok", "line", "prev_hash", "standalone")

    def __init__(self, *, standalone: bool = False) -> None:
        self.line = 0
        self.game: str | None = None
        self.game_line = 0
        self.game_ok = False
        # None: the previous line had no stored hash string, so `prev` cannot be judged.
        self.prev_hash: str | None = None
        # Standalone: judging one line out of context (a log's tail), so no seq/prev checks.
        self.standalone = standalone

    def feed(self, b: bytes) -> tuple[dict[str, Any] | None, list[str] | None, bool]:
        """Check one line (with its line ending). Returns (parsed object, problems, usable)."""
        self.line += 1
        if b[-1:] != b"\n":
            self.prev_hash = None
            if type(b) is LongLine and b.ended:
                return None, [Flaw(ProblemCode.LINE_TOO_LONG, long_line_message(b.size))], False
            # Only a last line can lack its newline; never parse it, so it is never folded.
            return None, [TORN], False
        try:
            obj = _loads(b)
        except _DecodeError as exc:
            self.prev_hash = None
            if not b.strip():
                return None, [Flaw(ProblemCode.BLANK_LINE, "blank line")], False
            if "depth limit" in str(exc):  # orjson gives up at 1,024 levels: past ours anyway
                return None, [TOO_DEEP], False
            if "infinity" in str(exc) and reads_as_json(b):  # a number too large for a double
                return None, [_TOO_LARGE], False
            return None, [Flaw(ProblemCode.NOT_JSON, f"not valid JSON ({exc})")], False
        return self._check(obj, b)

    def feed_obj(
        self, obj: Any, line: bytes | None = None
    ) -> tuple[dict[str, Any] | None, list[str] | None, bool]:
        """Check one already parsed line: a library row (the library stores rows, not text), or
        a line of a file parsed already, given as `line` too."""
        self.line += 1
        return self._check(obj, line)

    def _check(self, obj: Any, line: bytes | None) -> tuple[dict[str, Any] | None, list[str] | None, bool]:
        # Each check tests the common case first; the wording of problems lives in the
        # branches a good line never enters.
        kind = type(obj)
        if kind is RepeatedKeyRow:
            # A library row whose stored text holds a key twice: as such a line of a file.
            self.prev_hash = None
            return None, [obj.flaw], False
        compact = over = None
        if kind is dict or kind is list:
            # A line of text whose compact form shows it within the limits is not walked.
            compact = _compact_within_limits(obj) if line is not None else None
            over = over_limits(obj, 1) if compact is None else None
        if over is not None:
            # Like a line that is not JSON: nothing in it is trusted (nor hashed: the canonical
            # form of something this deep may not even be computable).
            self.prev_hash = None
            return None, [over], False
        if kind is not dict:
            self.prev_hash = None
            if (kind is int and not INT_MIN <= obj <= INT_MAX) or (
                kind is float and not -FLOAT_EDGE < obj < FLOAT_EDGE
            ):
                return None, [Flaw(ProblemCode.INTEGER_RANGE, integer_words(obj))], False
            return (
                None,
                [Flaw(ProblemCode.NOT_AN_OBJECT, f"not a JSON object (got {_json_type(obj)})")],
                False,
            )
        if line is not None and (dup := _duplicate(obj, line, compact)) is not None:
            # Like a line that is not JSON: which value of the key counts is anybody's guess.
            self.prev_hash = None
            return None, [dup], False
        n = self.line
        get = obj.get
        v = get("v")
        game = get("game")
        seq = get("seq")
        at = get("at")
        prev = get("prev", _MISSING)
        h = get("hash")
        msgs: list[str] | None = None
        usable = True
        # Eight fields of the right types and eight keys means exactly the envelope keys.
        if not (
            len(obj) == 8
            and type(v) is int
            and type(game) is str
            and type(seq) is int
            and type(at) is str
            and type(get("type")) is str
            and type(get("data")) is dict
            and type(h) is str
            and (prev is None or type(prev) is str)
        ):
            msgs, usable = _shape_problems(obj)
        # Each value test runs first and short-circuits the type guard in the common case.
        if v != 1 and type(v) is int:
            msgs = _add(msgs, ProblemCode.VERSION, f"`v` is {v}, expected 1")
        if (game != self.game or not self.game_ok) and type(game) is str:
            msgs = self._game_problems(game, n, msgs)
        if type(at) is str and not at_ok(at):
            msgs = _add(
                msgs, ProblemCode.TIMESTAMP, f"`at` {_short(at)} is not an RFC 3339 UTC timestamp ending in Z"
            )
        if not self.standalone:
            if seq != n and type(seq) is int:
                msgs = _add(msgs, ProblemCode.SEQ, f"`seq` is {seq}, expected {n} (the line number)")
            # prev_hash is None on line 1 and when the previous line had no hash to compare.
            if prev != self.prev_hash and (prev is None or type(prev) is str):
                if n == 1:
                    msgs = _add(msgs, ProblemCode.PREV, "`prev` must be null on line 1")
                elif self.prev_hash is not None:
                    msgs = _add(msgs, ProblemCode.PREV, f"`prev` is not the hash of line {n - 1}")
            if prev is None and n > 1 and self.prev_hash is None:
                # The previous line gave no hash to compare with, but null is wrong anyway.
                msgs = _add(
                    msgs, ProblemCode.PREV, f"`prev` is null on line {n}; only line 1 has no previous"
                )
        if type(h) is str:
            # Hash the parsed object minus `hash`; popping and restoring is cheaper than a copy.
            del obj["hash"]
            try:
                digest = HASH_PREFIX + sha256(_dumps(obj, option=_SORT)).hexdigest()
            except TypeError:
                # Only a damaged library row gets here (a file parses to JSON values only):
                # a value that is not JSON at all, already reported as its field's type.
                digest = None
            obj["hash"] = h
            if digest is None:
                words = "`hash` cannot be checked: the event holds a value that is not JSON"
                msgs = _add(msgs, ProblemCode.HASH, words)
            elif h != digest:
                msgs = _add(msgs, ProblemCode.HASH, f"`hash` does not match the content (computed {digest})")
            self.prev_hash = h
        else:
            self.prev_hash = None
        return obj, msgs, usable

    def _game_problems(self, game: str, n: int, msgs: list[str] | None) -> list[str] | None:
        if self.game is None:
            # The first game id seen (normally line 1's) is the one every line must repeat.
            self.game, self.game_line, self.game_ok = game, n, valid_game_id(game)
        if game != self.game or not self.game_ok:
            if not valid_game_id(game):
                msgs = _add(
                    msgs, ProblemCode.GAME_ID, f"`game` {_short(game)} is not a game id (1-64 of a-z 0-9 -)"
                )
            if game != self.game:
                msgs = _add(
                    msgs,
                    ProblemCode.GAME_ID,
                    f"`game` {_short(game)} differs from {_short(self.game)} on line {self.game_line}",
                )
        return msgs


_FIELDS = ProblemCode.ENVELOPE_FIELDS
# A line as our writers write it is as long as its object's compact form plus its newline, and a
# key written twice would make it longer (no form of a value is shorter than the compact one,
# floats aside, which the format has none of): only a longer line can hide a repeated key.
_NEWLINE = 1


_TOO_LARGE = Flaw(ProblemCode.INTEGER_RANGE, "an integer outside the signed 64-bit range (too large to read)")


def _duplicate(obj: dict[str, Any] | Any, line: bytes, compact: bytes | None = None) -> Flaw | None:
    """The repeated-key problem of a parsed line, looked for only in a line longer than its
    object's compact form (a re-indented line, a line from another writer, or one hiding a key).
    `compact`: that form, if already written."""
    content = len(line) - (line[-1:] == b"\n") - (line[-2:] == b"\r\n")
    if compact is None:
        compact = _dumps(obj)
    if content == len(compact) and not may_hold_a_longer_float(compact):
        return None
    return duplicate_key_of(line, compact)


def _compact_within_limits(obj: dict[str, Any] | list[Any]) -> bytes | None:
    """The compact form of a value parsed from text, if it shows the value within the limits (as
    _GLANCE_BYTES tells, by its integers, its "+" and its count of "[" and "{"); else None, and
    the value must be walked."""
    try:
        compact = _dumps(obj, option=orjson.OPT_STRICT_INTEGER)
    except _EncodeError:
        return None
    if _PLUS in compact or compact.count(b"[") + compact.count(b"{") > DEPTH_LIMIT:
        return None
    return compact


def _shape_problems(obj: dict[str, Any]) -> tuple[list[str], bool]:
    """Missing, unknown and mistyped envelope fields; usable is False unless only extras."""
    msgs: list[str] = []
    usable = True
    missing = [k for k in ENVELOPE_KEYS if k not in obj]
    extra = [k for k in obj if k not in _KEYSET]
    if missing:
        usable = False
        msgs.append(Flaw(_FIELDS, "missing envelope field(s): " + ", ".join(missing)))
    if extra:
        more = f" and {len(extra) - 5:,} more" if len(extra) > 5 else ""  # a line may hold 100,000
        msgs.append(Flaw(_FIELDS, "unknown envelope field(s): " + ", ".join(map(_short, extra[:5])) + more))
    for key, want in _FIELD_TYPES.items():
        if key not in obj:
            continue
        x = obj[key]
        if type(x) is not want and not (key == "prev" and x is None):
            usable = False
            also = " or null" if key == "prev" else ""
            msgs.append(
                Flaw(
                    _FIELDS,
                    f"envelope field `{key}` must be {_TYPE_NAMES[want]}{also},"
                    f" got {_json_type(x)} {_short(x)}",
                )
            )
    return msgs, usable


def _add(msgs: list[str] | None, code: ProblemCode, words: str) -> list[str]:
    flaw = Flaw(code, words)
    if msgs is None:
        return [flaw]
    msgs.append(flaw)
    return msgs


def _short(x: object) -> str:
    if isinstance(x, str):
        text = repr(x[:41])
    else:
        try:
            text = orjson.dumps(x).decode()
        except TypeError:  # not a JSON value at all: a damaged library row (bytes, say)
            text = repr(x)[:41]
    return text if len(text) <= 40 else text[:37] + "..."


# Same reason as envelope_from_raw: one LogLine per line read, so skip the frozen __init__.
class _LogLineTwin:
    __slots__ = LogLine.__slots__


def _logline(n: int, raw: dict[str, Any] | None, msgs: list[str] | None, usable: bool) -> LogLine:
    ll: Any = _LogLineTwin()
    ll.line = n
    ll.envelope = envelope_from_raw(raw) if usable and raw is not None else None
    ll.problems = tuple([Problem.integrity(n, m) for m in msgs]) if msgs else ()  # type: ignore[arg-type]
    ll.raw = raw
    ll.__class__ = LogLine
    return ll  # type: ignore[no-any-return]


def _open_lines(source: Source) -> ContextManager[Iterable[bytes]]:
    if isinstance(source, str | os.PathLike):
        return open_log(source)
    given: object = source  # a text file is not a Source, but a caller may still pass one
    if isinstance(given, io.TextIOBase):
        raise TypeError("iter_log needs a binary file object (open the file with 'rb')")
    return nullcontext(source)  # the caller's to close


# (line number, parsed object or None, problems or None, usable), one per line.
Scanned = tuple[int, dict[str, Any] | None, list[str] | None, bool]
# `prev` expected after a line that had no hash to chain to: equal to nothing, so such a line
# always takes the slow path, which knows not to judge its `prev`.
_UNKNOWN: Any = object()


# Takes a clean line's (line number, type, data) and says whether to go on folding.
Fold = Callable[[int, Any, Any], bool]


@dataclass(slots=True)
class ScanEnd:
    """What a scan with `fold` leaves behind once exhausted: clean lines were not yielded."""

    lines: int = 0  # lines scanned, a torn last line included
    # The newest line handed to fold (or skipped once folding stopped) rather than yielded,
    # with `lines` its line number. Set when the scan ends, and also just before a line is
    # yielded after such lines: the caller tallies it first (and clears it), so the
    # fingerprint is right whatever comes next (a torn last line keeps the one before it).
    last: dict[str, Any] | None = None


def scan_lines(
    lines: Iterable[bytes],
    fold: Fold | None = None,
    end: ScanEnd | None = None,
    keep: list[dict[str, Any]] | None = None,
) -> Iterator[Scanned]:
    """LineVerifier over byte lines, with a fast path for lines as a good writer writes them.

    The fast path tests the common case in one expression on local variables and hashes; any
    line that fails it (or the first of a log) is judged again from scratch by LineVerifier,
    which words the problems. Both reach the same verdicts; this one is just quicker on a good
    log, which is what readers mostly see.

    With `fold`, a line that passes the fast path (clean, and never line 1) is not yielded but
    handed to `fold(line, type, data)`, until fold returns False (from then on such lines are
    neither yielded nor folded); every other line is yielded as without it, and `end` then
    tells the line count and the last line. With `keep` too, each line that is handed to fold
    (or skipped) instead of yielded is appended to it, parsed, until a line has a problem: then
    `keep` is emptied and nothing more is kept. This is the inner loop of reading a game
    (service.reading): a clean line costs one call, not a generator step, a tuple and the
    caller's tests.
    """
    return _scan(lines, False, fold, end, keep)


def scan_objects(
    objs: Iterable[dict[str, Any]],
    fold: Fold | None = None,
    end: ScanEnd | None = None,
    keep: list[dict[str, Any]] | None = None,
    *,
    from_json: bool = False,
) -> Iterator[Scanned]:
    """LineVerifier over parsed envelopes (rows from a database), with the same fast path.

    from_json: each object's `data` is what orjson parsed from JSON text (a library's rows, see
    sqlite_schema.envelope_objs), so its limits can be judged at a glance as a line's are;
    otherwise (objects made in Python, which may hold a float such as inf, which orjson writes
    as null) every payload is walked. The other fields are the database's values, judged by
    their types; a row off the fast path is walked whole."""
    return _scan(objs, True, fold, end, keep, walk=not from_json)


def _scan(
    items: Iterable[Any],
    parsed: bool,
    fold: Fold | None = None,
    end: ScanEnd | None = None,
    keep: list[dict[str, Any]] | None = None,
    walk: bool = False,
) -> Iterator[Scanned]:
    checker = LineVerifier()
    slow, slow_parsed = checker.feed, checker.feed_obj
    if not parsed:
        # A file is read so that a line over the limit is never held whole; lines given in
        # memory are judged by the same limit.
        read = getattr(items, "read", None)
        items = file_lines(read) if read is not None else map(within_limit, items)
    over, lo, hi, depth = over_limits, INT_MIN, INT_MAX, DEPTH_LIMIT
    strict, plus, bracket = _SORT | orjson.OPT_STRICT_INTEGER, _PLUS, _OPEN_BRACKET
    # Objects not known to be orjson's parse of JSON text have their values walked (see
    # scan_objects): only such a parse is known to hold no float such as inf, written as null.
    glance = -1 if walk else _GLANCE_BYTES
    hashed_line = HASH_FIELD_BYTES + _NEWLINE
    hash_field, glance_repeats_none = HASH_FIELD_BYTES, repeats_no_key_at_a_glance
    n = 0
    # Line 1's game id once known valid; until then _UNKNOWN, equal to nothing (not even a
    # `"game": null`), so every line goes to the slow path.
    game: Any = _UNKNOWN
    expect_prev: Any = _UNKNOWN
    seconds, points, minutes, valid = AT_WHOLE_SECONDS, AT_SECONDS_POINT, AT_MINUTES_SEEN, valid_at
    loads, dumps, sha, sort, prefix = _loads, _dumps, sha256, _SORT, HASH_PREFIX
    folding = fold is not None
    obj: Any = None
    # With fold: the newest line handed to it (or skipped) since the last line yielded.
    passed: dict[str, Any] | None = None
    for item in items:
        n += 1
        if parsed:
            obj = item
        elif item[-1:] == b"\n":
            try:
                obj = loads(item)
            except _DecodeError:
                obj = None
        else:
            obj = None
        # CPython 3.11 specializes a comparison (an int or str `==` at a fraction of the
        # cost) only when a short conditional jump follows it. The fast path's tests are
        # written `if not (...): pass` so that they jump to the next line, not past the
        # long body: a jump that far takes an extra instruction, and the comparisons
        # before it are never specialized.
        if not (type(obj) is dict and len(obj) == 8):
            pass  # the slow path below judges it
        else:
            try:
                # One assignment each: a tuple assignment of four builds and unpacks a tuple.
                v = obj["v"]
                g = obj["game"]
                seq = obj["seq"]
                at = obj["at"]
                t = obj["type"]
                data = obj["data"]
                prev = obj["prev"]
                h = obj["hash"]
            except KeyError:
                pass
            else:
                if not (
                    v == 1 and type(v) is int and seq == n and type(seq) is int
                    and g == game and prev == expect_prev and type(t) is str
                    and type(data) is dict and type(at) is str  # a `hash` not a str fails below
                    and ((  # at_ok, inlined
                        (at[17:] in seconds or (
                            at[17:20] in points and at[-1] == "Z" and at.isascii() and at[20:-1].isdigit()
                        ))
                        and at[:17] in minutes
                    ) or valid(at))
                ):  # fmt: skip
                    pass  # the slow path below judges it
                else:
                    # The limits (log-format.md), before the line counts as clean: judged at a
                    # glance from the canonical form (see _GLANCE_BYTES), else by walking the
                    # payload's values. A line beyond them is judged by LineVerifier below,
                    # which words the problem.
                    del obj["hash"]
                    try:
                        canonical = dumps(obj, option=strict)
                        size = len(canonical)
                    except _EncodeError:  # an integer beyond 53 bits, or nesting orjson refuses
                        canonical, size = None, glance + 1
                    obj["hash"] = h
                    # `canonical` is None only with `size` past the glance, which is tested
                    # first, and is bytes again from the hash on: mypy cannot follow that, and
                    # an assert would cost this loop (hence the ignores, here and below).
                    if (size > glance or plus in canonical or bracket in canonical) and (  # type: ignore[operator]
                        walk
                        or canonical is None
                        or plus in canonical
                        or canonical.count(b"[") + canonical.count(b"{") > depth
                    ):
                        for x in data.values():
                            tx = type(x)
                            if tx is str or x is None or (tx is int and lo <= x <= hi):
                                continue
                            beyond = over(data, 2) is not None
                            break
                        else:
                            beyond = False
                        if beyond:
                            canonical, h = b"", None  # not hashed, and no hash can match
                        elif canonical is None:
                            del obj["hash"]
                            canonical = dumps(obj, option=sort)
                            obj["hash"] = h
                            size = len(canonical)
                    digest = prefix + sha(canonical).hexdigest()  # type: ignore[arg-type]
                    # A line longer than its compact form may hide a repeated key (see
                    # limits.duplicate_key_of), and so may one of its length when a float in it
                    # was written shorter than orjson writes it (limits.may_hold_a_longer_float,
                    # inlined): the glance tells from the canonical form the hash was made of
                    # (the hash's own pair, which the check just matched, is HASH_FIELD_BYTES
                    # long), and only a line it cannot vouch for is read a second time to look.
                    if h == digest and (
                        parsed
                        or (len(item) - size == hashed_line and not (46 in canonical or 43 in canonical))  # type: ignore[operator]
                        or glance_repeats_none(item, canonical, size + hash_field)  # type: ignore[arg-type]
                        or duplicate_key(item) is None
                    ):
                        expect_prev = h
                        if fold is None:
                            yield n, obj, None, True
                        else:
                            if keep is not None:
                                keep.append(obj)
                            if folding:
                                folding = fold(n, t, data)
                            passed = obj
                        continue
        checker.line = n - 1
        checker.prev_hash = None if expect_prev is _UNKNOWN else expect_prev
        # Judge the object already parsed (and left as parsed) rather than parse it again.
        if parsed:
            raw, msgs, usable = slow_parsed(item)
        else:
            raw, msgs, usable = slow(item) if obj is None else slow_parsed(obj, item)
        game = checker.game if checker.game_ok else _UNKNOWN
        expect_prev = checker.prev_hash if checker.prev_hash is not None else _UNKNOWN
        if keep is not None and (msgs or not usable):
            # The log has a problem, so what was kept is of no use: keep nothing more (a long
            # broken log must not pile up in memory).
            keep.clear()
            keep = None
        if passed is not None and end is not None:
            # The caller tallies the line before this one first: a torn last line's
            # fingerprint is the hash of the line before it, which was folded, not yielded.
            end.lines, end.last = n - 1, passed
            passed = None
        yield n, raw, msgs, usable
    if end is not None:
        end.lines = n
        end.last = passed


def _loglines(scanned: Iterator[Scanned]) -> Iterator[LogLine]:
    n = 0
    for n, raw, msgs, usable in scanned:
        yield _logline(n, raw, msgs, usable)
    if n == 0:
        yield LogLine(1, None, (Problem.integrity(1, EMPTY),), None)


def iter_log(source: Source) -> Iterator[LogLine]:
    """Every line of a log with its integrity problems, in order, without loading the file.

    `source` is a path, a binary file object or any iterable of byte lines (each with its
    newline). An empty log yields one line-1 entry carrying the "empty file" problem.
    """
    with _open_lines(source) as lines:
        yield from _loglines(scan_lines(lines))


def iter_objects(objs: Iterable[dict[str, Any]], *, from_json: bool = False) -> Iterator[LogLine]:
    """Like iter_log, for envelopes already parsed (rows from a database; see scan_objects)."""
    return _loglines(scan_objects(objs, from_json=from_json))


class VerifyTally:
    """Adds up scanned lines into a VerifyResult: problems, event count, game id, fingerprint.

    Shared by `verify_log` and readers that do more with each line (service.reading folds it too).
    """

    __slots__ = ("game", "last_hash", "lines", "omitted", "problems")

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.omitted = 0  # problems beyond PROBLEMS_LISTED: counted, not kept
        self.last_hash: object = None
        self.lines = 0
        self.game: str | None = None

    def add(self, n: int, raw: dict[str, Any] | None, msgs: list[str] | None) -> None:
        self.lines = n
        if raw is not None:
            self.last_hash = raw.get("hash")
            if self.game is None and type(raw.get("game")) is str:
                self.game = raw["game"]
        elif msgs[0].code is not ProblemCode.TORN_LINE:  # type: ignore[index, union-attr]
            # The fingerprint is of the last *complete* line; a torn one does not count.
            self.last_hash = None
        if msgs:
            room = PROBLEMS_LISTED - len(self.problems)
            if room >= len(msgs):
                self.problems.extend([Problem.integrity(n, m) for m in msgs])  # type: ignore[arg-type]
            else:
                kept = msgs[: max(room, 0)]
                self.problems.extend([Problem.integrity(n, m) for m in kept])  # type: ignore[arg-type]
                self.omitted += len(msgs) - len(kept)

    def result(self) -> VerifyResult:
        problems = self.problems
        if self.lines == 0:
            problems = [Problem.integrity(1, EMPTY)]
        last_hash = self.last_hash
        stored = fingerprint(last_hash)
        return VerifyResult(
            events=self.lines,
            problems=problems,
            # A torn last line breaks nothing before it: the complete lines prove their hash.
            fingerprint=None if any(p.code is not ProblemCode.TORN_LINE for p in problems) else stored,
            head_hash=last_hash if stored is not None else None,  # type: ignore[arg-type]
            game=self.game,
            problems_omitted=self.omitted,
            stored_fingerprint=stored,
        )


def _verify(scanned: Iterator[Scanned]) -> VerifyResult:
    tally = VerifyTally()
    add = tally.add
    for n, raw, msgs, _ in scanned:
        add(n, raw, msgs)
    return tally.result()


def verify_log(source: Source) -> VerifyResult:
    """Check a whole log; problems in line order, the fingerprint of its last complete line."""
    with _open_lines(source) as lines:
        return _verify(scan_lines(lines))


def verify_objects(objs: Iterable[dict[str, Any]], *, from_json: bool = False) -> VerifyResult:
    """Like verify_log, for envelopes already parsed (rows from a database; see scan_objects)."""
    return _verify(scan_objects(objs, from_json=from_json))


def verify_tail_line(b: bytes) -> tuple[Envelope | None, list[str]]:
    """Judge a log's last line on its own (no seq/prev context): is it safe to append after?"""
    chain = LineVerifier(standalone=True)
    raw, msgs, usable = chain.feed(b)
    env = envelope_from_raw(raw) if usable and raw is not None else None
    return env, msgs or []
