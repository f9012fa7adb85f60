"""Review of the limits judged at a glance (eventstore.integrity._GLANCE_BYTES, _scan and
LineVerifier._check): logs where the fast path and the reference (LineVerifier, a plain walk of
the value) disagree. Cases fixed on main (9b5f38e) stay as regression tests; those still failing
were marked xfail(strict=True) until fixed (none is now).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from eventstore.integrity import LineVerifier, scan_lines, verify_log, verify_objects
from eventstore.limits import DEPTH_LIMIT
from eventstore.problems import ProblemCode
from eventstore.sqlite import Library

from .helpers import FIRST, ref_hash
from .test_limits import beyond_limits, dump_line, envelope

AT = "2026-11-26T20:14:03Z"
TOO_DEEP = f"nested more than {DEPTH_LIMIT} levels deep (the format's limit)"


def reference(lines: list[bytes]) -> list[tuple[int, list[str] | None]]:
    """LineVerifier alone, line by line: what the fast path must agree with."""
    checker = LineVerifier()
    out = []
    for b in lines:
        _, msgs, _ = checker.feed(b)
        out.append((checker.line, msgs))
    return out


def objects_deep(levels: int) -> dict[str, Any]:
    """`data` (level 2) and objects under it down to level `levels`, with empty keys."""
    value: dict[str, Any] = {}
    for _ in range(levels - 2):
        value = {"": value}
    return value


def too_deep_after_an_empty_hash() -> list[bytes]:
    """Line 1 stores `"hash": ""` (a hash problem, reported), so the chain goes on from "": line
    2's `prev` is `""`, two bytes where the glance's bound counted `null`'s four (and line 2 is
    never line 1, so the bound assumed a 71-character prev). Line 2 nests 65 levels with an
    empty type: its canonical form is 399 bytes with no "[", which the bound of 400 bytes let
    through before 9b5f38e (now 398)."""
    first = envelope(1, FIRST[0], FIRST[1], None, game="x")
    first["hash"] = ""
    second: dict[str, Any] = {"v": 1, "game": "x", "seq": 2, "at": AT, "type": "", "data": objects_deep(65)}
    second["prev"] = ""
    second["hash"] = ref_hash(second)
    assert beyond_limits(second["data"])
    body = {k: v for k, v in second.items() if k != "hash"}
    assert len(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)) <= 400
    return [dump_line(first), dump_line(second)]


def test_a_too_deep_line_after_an_empty_stored_hash_is_too_deep() -> None:
    lines = too_deep_after_an_empty_hash()
    assert reference(lines)[1] == (2, [TOO_DEEP])
    fast = [(n, msgs) for n, _, msgs, _ in scan_lines(lines)]
    assert fast == reference(lines)
    assert [(p.line, p.code) for p in verify_log(lines).problems] == [
        (1, ProblemCode.HASH),
        (2, ProblemCode.TOO_DEEP),
    ]


def test_a_too_deep_library_row_after_an_empty_stored_hash_is_too_deep() -> None:
    rows = [orjson.loads(line) for line in too_deep_after_an_empty_hash()]
    walked = verify_objects([orjson.loads(line) for line in too_deep_after_an_empty_hash()])
    assert [(p.line, p.code) for p in walked.problems] == [(1, ProblemCode.HASH), (2, ProblemCode.TOO_DEEP)]
    glanced = verify_objects(rows, from_json=True)
    assert [(p.line, p.code) for p in glanced.problems] == [(1, ProblemCode.HASH), (2, ProblemCode.TOO_DEEP)]


def test_the_same_line_after_a_real_hash_is_too_deep() -> None:
    """The claim holds when `prev` is a real 71-character hash (the margin the bound relies on)."""
    first = envelope(1, FIRST[0], FIRST[1], None, game="x")
    second: dict[str, Any] = {"v": 1, "game": "x", "seq": 2, "at": AT, "type": "", "data": objects_deep(65)}
    second["prev"] = first["hash"]
    second["hash"] = ref_hash(second)
    lines = [dump_line(first), dump_line(second)]
    assert [(p.line, p.code) for p in verify_log(lines).problems] == [(2, ProblemCode.TOO_DEEP)]


# --- a hostile SQLite library: columns without type affinity keep a REAL as it was given ---------


def no_affinity_library(tmp_path: Path, lines: list[bytes]) -> Path:
    """A library holding `lines` (game "g"), whose events table is then re-made by hand with
    columns of no declared type, as a hostile program may: SQLite keeps a REAL there as REAL
    (a TEXT column would turn it into the text 'Inf')."""
    db = tmp_path / "lib.db"
    source = tmp_path / "g.jsonl"
    source.write_bytes(b"".join(lines))
    with Library(db) as library:
        library.import_log(source)
    conn = sqlite3.connect(db)
    conn.executescript(
        "PRAGMA journal_mode = DELETE;"
        "CREATE TABLE bare (id INTEGER PRIMARY KEY, type, data, at, prev, hash);"
        "INSERT INTO bare SELECT id, type, data, at, prev, hash FROM events;"
        " DROP VIEW envelopes; DROP TABLE events;"
        "ALTER TABLE bare RENAME TO events;"
    )
    conn.close()
    return db


def good_lines(n: int) -> list[bytes]:
    out, prev = [], None
    for seq in range(1, n + 1):
        type_, data = FIRST if seq == 1 else ("note", {"text": f"event {seq}"})
        env = envelope(seq, type_, data, prev)
        out.append(dump_line(env))
        prev = env["hash"]
    return out


@pytest.mark.parametrize("column", ["hash", "at", "type", "data"])
def test_an_infinite_real_in_a_library_column_is_judged_as_the_walk_judges_it(
    tmp_path: Path, column: str
) -> None:
    db = no_affinity_library(tmp_path, good_lines(4))
    conn = sqlite3.connect(db)
    conn.execute(f"UPDATE events SET {column} = 9e999 WHERE id = (SELECT min(id) + 2 FROM events)")
    conn.commit()
    conn.close()
    with Library(db) as library:
        log = library.log("g")
        rows = list(log.rows())
    assert rows[2][column] == float("inf")
    walked = verify_objects([dict(r) for r in rows])  # objects made in Python: walked
    glanced = verify_objects([dict(r) for r in rows], from_json=True)
    assert [(p.line, p.code) for p in walked.problems][:1] == [(3, ProblemCode.INTEGER_RANGE)]
    assert [(p.line, p.code, p.message) for p in glanced.problems] == [
        (p.line, p.code, p.message) for p in walked.problems
    ]
    assert not any("null" in p.message for p in glanced.problems if p.line == 3)


def test_json_text_round_trip_for_the_rows() -> None:
    """Sanity for the helpers: a good log is clean through every reader."""
    lines = good_lines(4)
    assert verify_log(lines).ok
    assert verify_objects([json.loads(x) for x in lines], from_json=True).ok


# --- found in review, but older than the glance (the same in 6094331) -------------------------


def test_an_integer_of_four_hundred_digits_is_outside_the_range_not_bad_json() -> None:
    lines = good_lines(4)
    lines[2] = lines[2].replace(b'"text":"event 3"', b'"text":"event 3","n":1' + b"0" * 400)
    assert json.loads(lines[2])["data"]["n"] == 10**400  # valid JSON, an integer
    problems = verify_log(lines).problems
    assert [(p.line, p.code) for p in problems][:1] == [(3, ProblemCode.INTEGER_RANGE)]


def test_a_line_with_a_huge_number_and_nan_is_not_json() -> None:
    lines = good_lines(4)
    lines[2] = lines[2].replace(b'"text":"event 3"', b'"text":"event 3","n":1e400,"m":NaN')
    alone = good_lines(4)
    alone[2] = alone[2].replace(b'"text":"event 3"', b'"text":"event 3","m":NaN')
    assert [(p.line, p.code) for p in verify_log(alone).problems][:1] == [(3, ProblemCode.NOT_JSON)]
    assert [(p.line, p.code) for p in verify_log(lines).problems][:1] == [(3, ProblemCode.NOT_JSON)]


@pytest.mark.parametrize("digits", [4301, 100_000])
def test_an_integer_of_thousands_of_digits_is_outside_the_range(digits: int) -> None:
    lines = good_lines(4)
    lines[2] = lines[2].replace(b'"text":"event 3"', b'"text":"event 3","n":1' + b"0" * (digits - 1))
    problems = verify_log(lines).problems
    assert [(p.line, p.code) for p in problems][:1] == [(3, ProblemCode.INTEGER_RANGE)]


def hidden_repeat() -> list[bytes]:
    """Line 3 holds "text" twice, and the value that counts is a float written shorter than its
    canonical form (`1e15` is `1000000000000000.0`): the line is exactly as long as its canonical
    form, so the length test of _duplicate takes it for a line without a repeated key."""
    lines = good_lines(4)
    obj = json.loads(lines[2])
    obj["data"] = {"text": 1e15}
    obj["hash"] = ref_hash(obj)
    canonical = orjson.dumps(obj) + b"\n"
    for pad in range(20):
        raw = canonical.replace(b'"text":1000000000000000.0', b'"text":"' + b"a" * pad + b'","text":1e15')
        if len(raw) == len(canonical):
            break
    assert len(raw) == len(canonical) and orjson.loads(raw) == obj
    lines[2] = raw
    return lines


def test_a_repeated_key_is_found_when_a_short_float_makes_up_its_length() -> None:
    lines = hidden_repeat()
    assert [(p.line, p.code) for p in verify_log(lines).problems][:1] == [(3, ProblemCode.DUPLICATE_KEY)]
    assert reference(lines)[2][1] is not None  # and LineVerifier, which had the same shortcut


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ('{"text":' + "[" * 2000 + "]" * 2000 + "}", ProblemCode.TOO_DEEP),
        ('{"text":"x","n":1' + "0" * 400 + "}", ProblemCode.INTEGER_RANGE),
    ],
    ids=["nested-2000", "integer-400-digits"],
)
def test_a_library_row_orjson_cannot_parse_for_a_limit_is_beyond_the_limits(
    tmp_path: Path, data: str, code: ProblemCode
) -> None:
    db = no_affinity_library(tmp_path, good_lines(4))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE events SET data = ? WHERE id = (SELECT min(id) + 2 FROM events)", (data,))
    conn.commit()
    conn.close()
    with Library(db) as library:
        problems = library.log("g").verify().problems
    assert [(p.line, p.code) for p in problems][:1] == [(3, code)]
