"""The format's limits (log-format.md, "Limits"), at their edges, through every store reader:
64/65 levels of nesting, integers at +-2^63, lines of 1 MiB +- 1 byte; and lines over the
limit read in bounded pieces, never held whole.

Lines are hashed with the standard library's json (helpers.ref_hash), so a line over a limit
has a correct hash: only the limit can be what the readers object to.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore.integrity import PROBLEMS_LISTED, iter_log, verify_log, verify_objects
from eventstore.jsonl import JsonlLog, repair
from eventstore.limits import DEPTH_LIMIT, LINE_LIMIT
from eventstore.sqlite import Library

from .helpers import FIRST, events, ref_hash
from .helpers import dump_line as _dump_line


def dump_line(obj: Any) -> bytes:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))  # the standard library recurses per level
    try:
        return _dump_line(obj)
    finally:
        sys.setrecursionlimit(limit)


AT = "2026-11-26T20:14:03Z"


def envelope(seq: int, type_: str, data: dict[str, Any], prev: str | None, game: str = "g") -> dict[str, Any]:
    env: dict[str, Any] = {"v": 1, "game": game, "seq": seq, "at": AT, "type": type_, "data": data}
    env["prev"] = prev
    try:
        env["hash"] = ref_hash(env)
    except RecursionError:  # too deep for the standard library too: any hash will do
        env["hash"] = "sha256:" + "0" * 64
    return env


def log_with(extra: dict[str, Any], good_lines: int = 3) -> list[bytes]:
    """A good log of `good_lines`, then one line whose data is `extra`, then one good line."""
    lines: list[bytes] = []
    prev = None
    payloads = [FIRST, *events(good_lines - 1)]
    for seq, (type_, data) in enumerate(payloads, start=1):
        env = envelope(seq, type_, data, prev)
        lines.append(dump_line(env))
        prev = env["hash"]
    env = envelope(good_lines + 1, "note", extra, prev)
    lines.append(dump_line(env))
    after = envelope(good_lines + 2, "note", {"text": "after"}, env["hash"])
    lines.append(dump_line(after))
    return lines


def nested(levels: int) -> Any:
    """`levels` nested arrays around a number: the outermost counts as one level."""
    value: Any = 7
    for _ in range(levels):
        value = [value]
    return value


def depth_data(total_depth: int) -> dict[str, Any]:
    # The envelope is level 1, `data` level 2: the arrays inside make up the rest.
    return {"text": "x", "deep": nested(total_depth - 2)}


def problems_at(lines: list[bytes], line: int) -> list[str]:
    return [p.message for p in verify_log(lines).problems if p.line == line]


@pytest.mark.parametrize("depth", [DEPTH_LIMIT, DEPTH_LIMIT + 1, 254, 255, 600, 1024])
def test_nesting_at_and_over_the_limit(depth: int) -> None:
    lines = log_with(depth_data(depth))
    at_line_4 = problems_at(lines, 4)
    if depth <= DEPTH_LIMIT:
        assert at_line_4 == []
    else:
        assert at_line_4 == [f"nested more than {DEPTH_LIMIT} levels deep (the format's limit)"]
    # The next line chains to a line that cannot be trusted: judged, not crashed on.
    got = list(iter_log(lines))
    assert len(got) == 5 and (got[3].envelope is None) == (depth > DEPTH_LIMIT)


def test_objects_count_as_levels_like_arrays() -> None:
    value: Any = 1
    for _ in range(DEPTH_LIMIT - 1):  # with the envelope: 64 levels of objects
        value = {"a": value}
    env = envelope(1, "game_started", value, None)
    assert verify_log([dump_line(env)]).problems == []
    env = envelope(1, "game_started", {"a": value}, None)
    assert "nested more than" in verify_log([dump_line(env)]).problems[0].message


@pytest.mark.parametrize(
    ("number", "over"),
    [
        (2**63 - 1, False),
        (-(2**63), False),
        (2**63, True),
        (-(2**63) - 1, True),
        (2**64 - 1, True),
        (2**64, True),  # orjson reads it as a float: it used to pass as a "hash mismatch"
        (10**30, True),
        (-(10**30), True),
    ],
)
def test_integers_at_the_edges_of_64_bits(number: int, over: bool) -> None:
    lines = log_with({"text": "x", "n": number})
    at_line_4 = problems_at(lines, 4)
    if over:
        assert len(at_line_4) == 1 and "outside the signed 64-bit range" in at_line_4[0]
    else:
        assert at_line_4 == []


def test_a_big_integer_anywhere_in_the_envelope_is_the_same_problem() -> None:
    lines = log_with({"text": "x"})
    lines[3] = lines[3].replace(b'"seq":4', b'"seq":18446744073709551616')
    read_as = "read as 1.8446744073709552e+19"
    assert problems_at(lines, 4) == [f"an integer outside the signed 64-bit range ({read_as})"]


def test_an_in_range_float_is_still_left_to_the_schema() -> None:
    assert problems_at(log_with({"text": "x", "n": 2.0}), 4) == []


def line_of_length(content: int, ending: bytes = b"\n") -> list[bytes]:
    """A log whose line 4 is exactly `content` bytes before its line ending."""
    head = log_with({"text": ""})[:3]
    prev = json.loads(head[-1])["hash"]
    pad = content - (len(dump_line(envelope(4, "note", {"text": ""}, prev))) - 1)
    line = dump_line(envelope(4, "note", {"text": "a" * pad}, prev))[:-1] + ending
    assert len(line) - len(ending) == content
    return [*head, line]


@pytest.mark.parametrize("content", [LINE_LIMIT - 1, LINE_LIMIT, LINE_LIMIT + 1])
@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_lines_of_one_mebibyte_plus_or_minus_one(tmp_path: Path, content: int, ending: bytes) -> None:
    lines = line_of_length(content, ending)
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"".join(lines))
    for source in (lines, path, io.BytesIO(path.read_bytes())):
        found = problems_at(source, 4)  # type: ignore[arg-type]
        if content <= LINE_LIMIT:
            assert found == [], source
        else:
            assert found == [f"line is {content:,} bytes long, over the format's limit of 1,048,576 bytes"]


def test_a_huge_line_is_skipped_in_pieces_not_held(tmp_path: Path) -> None:
    # 64 MiB in one line between good lines: reported, and the lines after it still read.
    good = log_with({"text": "x"})
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as f:
        f.write(b"".join(good[:3]))
        f.write(b"x" * (64 << 20) + b"\n")
        f.write(good[4])
    result = verify_log(path)
    assert [(p.line, p.message[:40]) for p in result.problems][:1] == [
        (4, "line is 67,108,864 bytes long, over the ")
    ]
    assert result.events == 5


def test_a_long_torn_last_line_is_torn(tmp_path: Path) -> None:
    good = log_with({"text": "x"})
    path = tmp_path / "torn.jsonl"
    path.write_bytes(b"".join(good[:4]) + b"y" * (LINE_LIMIT * 3))
    result = verify_log(path)
    assert [p.line for p in result.problems] == [5] and "torn" in result.problems[0].message
    outcome = repair(path)
    assert outcome.repaired and outcome.bytes_removed == LINE_LIMIT * 3
    assert path.read_bytes() == b"".join(good[:4])


def test_problems_are_listed_up_to_a_hundred_and_the_rest_counted() -> None:
    lines = log_with({"text": "x"})[:1] + [b"junk\n"] * 1000
    result = verify_log(lines)
    assert len(result.problems) == PROBLEMS_LISTED and result.problems_omitted == 1000 - PROBLEMS_LISTED


def test_the_library_import_refuses_over_limit_lines(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b"".join(log_with(depth_data(300))))
    with Library(tmp_path / "lib.db") as library:
        with pytest.raises(Exception, match="nested more than 64 levels"):
            library.import_log(path)
        assert library.games() == []


def test_appending_after_an_over_limit_last_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    lines = log_with(depth_data(900))[:4]
    path.write_bytes(b"".join(lines))
    with pytest.raises(Exception, match="nested more than 64 levels"):
        JsonlLog(path).append([("note", {"text": "hi"})], expected_seq=4)


def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(Exception, match="not a regular file"):
        verify_log(fifo)
    with pytest.raises(Exception, match="not a regular file"):
        repair(fifo)


# --- the limits at a glance, against a walk of the value -------------------------------------
# The readers judge most lines within the limits from their canonical form, without walking
# the payload (eventstore.integrity, _GLANCE_BYTES). Held here to a plain walk of the value, on
# payloads built to sit on the glance's edges: integers about 2^53 and 2^63, floats of 1e16 and
# more, "+", "[" and "{" inside strings, nesting about 64 levels in lines about 400 bytes long.


LIMIT_WORDS = {f"nested more than {DEPTH_LIMIT} levels deep (the format's limit)"}


def beyond_limits(value: Any, level: int = 2) -> bool:
    """The payload at `level` (2: `data`) nests or holds a number beyond the format's limits."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, int):
        return not -(2**63) <= value < 2**63
    if isinstance(value, float):
        return abs(value) >= 2.0**63
    if level > DEPTH_LIMIT:
        return True
    children = value.values() if isinstance(value, dict) else value
    return any(beyond_limits(child, level + 1) for child in children)


def holds_a_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict | list):
        return any(map(holds_a_float, value.values() if isinstance(value, dict) else value))
    return False


EDGE_NUMBERS = [2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**20,
                1e15, 1e16, 9.2e18, 2.0**63, -(2.0**63), 1e300, 1.5, -0.0]  # fmt: skip
LEAVES = st.one_of(
    st.sampled_from(EDGE_NUMBERS),
    st.integers(-(2**66), 2**66),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet='ab+[{}]e1 \\"', max_size=6),
    st.booleans(),
    st.none(),
)
TREES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text("k+[", max_size=2), children, max_size=3)
    ),
    max_leaves=12,
)


@st.composite
def deep_values(draw: st.DrawFn) -> Any:
    """Nesting just under, at or over the limit, in as few bytes as the format allows, or padded."""
    value: Any = draw(LEAVES)
    shape = draw(st.sampled_from(["objects", "arrays", "mixed"]))
    for _ in range(draw(st.integers(DEPTH_LIMIT - 4, DEPTH_LIMIT + 2))):
        objects = shape == "objects" or (shape == "mixed" and draw(st.booleans()))
        value = {"": value} if objects else [value]
    return value


@st.composite
def payloads(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(st.sampled_from(["", "x", "x" * 300])) if draw(st.booleans()) else draw(st.text("x+[{e"))
    return {"text": text, "v": draw(st.one_of(LEAVES, TREES, deep_values()))}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payloads())
def test_every_reader_judges_the_limits_as_a_walk_of_the_value(data: dict[str, Any]) -> None:
    lines = log_with(data)
    at_line_4 = problems_at(lines, 4)
    limits = [m for m in at_line_4 if m in LIMIT_WORDS or "signed 64-bit" in m]
    if beyond_limits(data):
        assert len(limits) == 1, at_line_4
    elif not holds_a_float(data):
        assert at_line_4 == []  # and its hash, written by the standard library, holds
    else:
        assert limits == []  # (a float the standard library writes otherwise fails the hash)
    # Line 1, which the readers judge without their fast path (LineVerifier alone).
    alone = verify_log([dump_line(envelope(1, "game_started", data, None))]).problems
    assert [p.message for p in alone if p.message in LIMIT_WORDS or "signed 64-bit" in p.message] == limits
    # The same from the lines already parsed: a library's rows (orjson's parse, judged at a
    # glance too), and objects made in Python (walked).
    for from_json in (True, False):
        objects = [orjson.loads(line) for line in lines]
        parsed = [p.message for p in verify_objects(objects, from_json=from_json).problems if p.line == 4]
        assert [m for m in parsed if m in limits] == limits and len(parsed) >= len(limits)


@pytest.mark.parametrize("levels", range(DEPTH_LIMIT - 3, DEPTH_LIMIT + 3))
@pytest.mark.parametrize("shape", ["objects", "arrays"])
def test_the_shortest_lines_nested_about_the_limit(levels: int, shape: str) -> None:
    """The glance's length bound against the tightest line a reader can meet after line 1: an
    empty type, a one-letter game, a payload of nothing but nesting."""
    value: Any = None
    for _ in range(levels - 2):  # `data` is level 2: the nesting inside it makes up the rest
        value = {"": value} if shape == "objects" else [value]
    first = envelope(1, FIRST[0], FIRST[1], None)
    tight = envelope(2, "", {"": value}, first["hash"])
    lines = [dump_line(first), dump_line(tight)]
    assert beyond_limits(tight["data"]) == (levels > DEPTH_LIMIT)
    too_deep = f"nested more than {DEPTH_LIMIT} levels deep (the format's limit)"
    expected = [too_deep] if levels > DEPTH_LIMIT else []
    assert problems_at(lines, 2) == expected
    for from_json in (True, False):
        rows = [json.loads(x) for x in lines]
        problems = verify_objects(rows, from_json=from_json).problems
        assert [p.message for p in problems if p.line == 2] == expected
