"""iter_log / verify_log line by line: each integrity check, sources, streaming, fingerprints."""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore.canonical import fingerprint
from eventstore.envelope import seal
from eventstore.integrity import (
    LineVerifier,
    LogLine,
    ScanEnd,
    fingerprint_of,
    iter_log,
    scan_lines,
    verify_log,
)
from eventstore.problems import Problem, ProblemCode, ProblemKind

from .helpers import FIRST, ROOT, dump_line, edit, events, ref_hash


def make_log(n: int = 5, game: str = "g") -> list[bytes]:
    lines, prev = [], None
    for seq, (type_, data) in enumerate([FIRST, *events(n - 1)], start=1):
        env = seal(game, seq, f"2026-11-26T20:14:{seq:02d}Z", type_, data, prev)
        lines.append(env.to_line())
        prev = env.hash
    return lines


def problems_by_line(lines: list[bytes]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for p in verify_log(lines).problems:
        out.setdefault(p.line, []).append(p.message)
    return out


def test_good_log() -> None:
    lines = make_log()
    result = verify_log(lines)
    assert result.ok and result.events == 5 and result.game == "g"
    assert result.fingerprint == json.loads(lines[-1])["hash"][7:19]
    got = list(iter_log(lines))
    assert [ll.line for ll in got] == [1, 2, 3, 4, 5]
    assert all(ll.problems == () and ll.envelope is not None for ll in got)
    assert got[2].raw == json.loads(lines[2])


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (b"not json\n", "not valid JSON"),
        (b'{"v":1,\n', "not valid JSON"),
        (b"[1, 2]\n", "not a JSON object (got array)"),
        (b'"text"\n', "not a JSON object (got string)"),
        (b"\xef\xbb\xbf{}\n", "not valid JSON"),
        (b'{"text": "\xff"}\n', "not valid JSON"),
    ],
)
def test_unreadable_line(bad: bytes, words: str) -> None:
    lines = make_log()
    lines[2] = bad
    (ll,) = [ll for ll in iter_log(lines) if ll.problems]
    assert ll.line == 3 and ll.envelope is None
    assert words in ll.problems[0].message
    # The next line cannot be judged against a hash that is not there: no cascade.
    assert problems_by_line(lines).keys() == {3}


@pytest.mark.parametrize("field", ["v", "game", "seq", "at", "type", "data", "prev", "hash"])
def test_missing_field(field: str) -> None:
    lines = make_log()
    obj = json.loads(lines[1])
    del obj[field]
    lines[1] = dump_line(obj)
    ll = list(iter_log(lines))[1]
    assert ll.envelope is None and ll.raw is not None
    assert f"missing envelope field(s): {field}" in ll.problems[0].message


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("v", True, "`v` must be an integer, got boolean"),
        ("v", 1.0, "`v` must be an integer"),
        ("v", "1", "`v` must be an integer, got string"),
        ("seq", True, "`seq` must be an integer, got boolean"),
        ("seq", 2.0, "`seq` must be an integer"),
        ("game", 7, "`game` must be a string"),
        ("at", 20261126, "`at` must be a string"),
        ("type", None, "`type` must be a string, got null"),
        ("data", [], "`data` must be an object, got array"),
        ("data", None, "`data` must be an object"),
        ("prev", 5, "`prev` must be a string or null"),
        ("hash", None, "`hash` must be a string"),
    ],
)
def test_mistyped_field(field: str, value: object, words: str) -> None:
    lines = make_log()
    lines[1] = edit(lines[1], rehash=field != "hash", **{field: value})
    ll = list(iter_log(lines))[1]
    assert ll.envelope is None  # its type/data cannot be trusted
    assert any(words in p.message for p in ll.problems), ll.problems


def test_unknown_field_keeps_the_envelope() -> None:
    lines = make_log()
    lines[1] = edit(lines[1], rehash=True, comment="hi")
    ll = list(iter_log(lines))[1]
    assert ll.envelope is not None and ll.envelope.seq == 2
    assert [p.message for p in ll.problems] == ["unknown envelope field(s): 'comment'"]


def test_several_problems_on_one_line_all_reported() -> None:
    lines = make_log()
    lines[2] = edit(lines[2], v=3, seq=9, game="other")
    msgs = problems_by_line(lines)[3]
    assert any("`v` is 3" in m for m in msgs)
    assert any("`seq` is 9, expected 3" in m for m in msgs)
    assert any("differs from 'g' on line 1" in m for m in msgs)
    assert any("`hash` does not match" in m for m in msgs)
    # Only the hash-independent things are wrong: the envelope is still there to fold.
    assert list(iter_log(lines))[2].envelope is not None


def test_invalid_game_id_everywhere() -> None:
    lines = [edit(line, rehash=True, game="Not_An_Id") for line in make_log(1)]
    assert "not a game id" in problems_by_line(lines)[1][0]


def test_prev_must_be_null_on_line_1_and_the_previous_hash_after() -> None:
    lines = make_log()
    lines[3] = edit(lines[3], rehash=True, prev=None)
    msgs = problems_by_line(lines)
    assert msgs[4] == ["`prev` is not the hash of line 3"]
    assert msgs[5] == ["`prev` is not the hash of line 4"]  # line 4's hash changed


def test_hash_must_be_lower_case_hex() -> None:
    lines = make_log()
    obj = json.loads(lines[-1])
    obj["hash"] = obj["hash"].upper().replace("SHA256", "sha256")
    lines[-1] = dump_line(obj)
    assert "`hash` does not match" in problems_by_line(lines)[5][0]


def test_whitespace_and_crlf_do_not_matter() -> None:
    lines = make_log()
    pretty = [json.dumps(json.loads(line), indent=None, separators=(", ", ": ")).encode()
              for line in lines]  # fmt: skip
    padded = [b"  " + p + b" \t\r\n" for p in pretty]
    assert verify_log(padded).ok
    assert verify_log(padded).fingerprint == verify_log(lines).fingerprint


def test_lone_carriage_return_is_not_a_line_break() -> None:
    lines = make_log(3)
    data = lines[0].rstrip(b"\n") + b"\r" + lines[1] + lines[2]  # "\r" without "\n"
    result = verify_log(io.BytesIO(data))
    assert result.events == 2 and not result.ok
    assert result.problems[0].line == 1


def test_blank_lines() -> None:
    lines = make_log(3)
    lines.insert(1, b"\n")
    assert problems_by_line(lines)[2] == ["blank line"]
    assert list(iter_log(lines))[1].envelope is None


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    result = verify_log(path)
    assert result.events == 0 and not result.ok and result.fingerprint is None
    assert result.problems == [Problem(1, "integrity", "empty file: a log has at least one line")]
    (ll,) = iter_log(path)
    assert ll.line == 1 and ll.envelope is None and ll.problems == tuple(result.problems)


def test_only_a_newline_is_a_blank_line_1() -> None:
    result = verify_log([b"\n"])
    assert result.events == 1 and [p.message for p in result.problems] == ["blank line"]


def test_torn_last_line() -> None:
    lines = make_log()
    complete = lines[-1].rstrip(b"\n")  # valid JSON, only the newline is missing
    for torn in (complete, complete[:30]):
        log = [*lines[:-1], torn]
        got = list(iter_log(log))
        assert got[-1].envelope is None and got[-1].raw is None  # never folded
        assert [p.line for p in got[-1].problems] == [5]
        assert "torn last line" in got[-1].problems[0].message
        result = verify_log(log)
        assert result.events == 5
        assert [(p.line, p.kind) for p in result.problems] == [(5, "integrity")]
        # The fingerprint is of the last complete line.
        assert result.fingerprint == json.loads(lines[3])["hash"][7:19]


def test_fingerprint_only_from_a_well_formed_hash() -> None:
    lines = make_log()
    lines[-1] = edit(lines[-1], data={"edited": True})  # wrong, but a well-formed hash
    edited = verify_log(lines)
    # What the line claims, but the broken chain proves no fingerprint.
    assert edited.stored_fingerprint == json.loads(lines[-1])["hash"][7:19]
    assert edited.fingerprint is None and edited.broken_at == len(lines)
    lines[-1] = edit(lines[-1], hash="sha256:XYZ")
    assert verify_log(lines).fingerprint is None and verify_log(lines).stored_fingerprint is None
    lines[-1] = b"garbage\n"
    assert verify_log(lines).fingerprint is None and verify_log(lines).head_hash is None


def test_fingerprint_of() -> None:
    h = "sha256:" + "0123456789abcdef" * 4
    assert fingerprint_of(h) == "0123456789ab"
    for bad in ("0123456789ab", "sha256:" + "0" * 63, "sha256:" + "A" * 64):
        with pytest.raises(ValueError):
            fingerprint_of(bad)
        assert fingerprint(bad) is None
    assert fingerprint(h) == "0123456789ab"
    assert fingerprint(None) is None


def test_every_fingerprint_comes_from_one_function() -> None:
    # A fingerprint sliced by hand somewhere ([7:19], [:12]) is a second definition of it.
    sliced = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in ("wecore", "eventstore", "cli", "service")
        for path in sorted((ROOT / package).glob("**/*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "[7:19]" in line or 'removeprefix("sha256:")' in line
    ]
    assert sliced == []


def test_sources(tmp_path: Path) -> None:
    lines = make_log()
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"".join(lines))
    expected = verify_log(lines)
    assert verify_log(path) == expected
    assert verify_log(str(path)) == expected
    with open(path, "rb") as f:
        assert verify_log(f) == expected
    assert verify_log(io.BytesIO(path.read_bytes())) == expected
    with open(path, encoding="utf-8") as text, pytest.raises(TypeError, match="binary"):
        list(iter_log(text))  # type: ignore[arg-type]


def test_iter_log_streams() -> None:
    # An endless log: if iter_log read everything first, this would never return.
    def endless() -> Iterator[bytes]:
        prev, seq = None, 0
        while True:
            seq += 1
            env = seal("g", seq, "2026-11-26T20:14:03Z", "note", {"n": seq}, prev)
            prev = env.hash
            yield env.to_line()

    first: list[LogLine] = list(itertools.islice(iter_log(endless()), 50))
    assert [ll.line for ll in first] == list(range(1, 51))
    assert not any(ll.problems for ll in first)


def test_problems_in_line_order() -> None:
    lines = make_log(8)
    lines[6] = b"{}\n"
    lines[1] = edit(lines[1], at="yesterday")
    lines[4] = edit(lines[4], rehash=True, v=0)
    got = [p.line for p in verify_log(lines).problems]
    assert got == sorted(got) and got[0] == 2 and {2, 5, 7} <= set(got)


def make_fractional_log(n: int = 5) -> list[bytes]:
    """A log as writers write it now: `at` with microseconds."""
    lines, prev = [], None
    for seq, (type_, data) in enumerate([FIRST, *events(n - 1)], start=1):
        env = seal("g", seq, f"2026-11-26T20:14:{seq:02d}.{seq * 123457 % 1_000_000:06d}Z", type_, data, prev)
        lines.append(env.to_line())
        prev = env.hash
    return lines


def test_a_log_with_microsecond_at_is_clean() -> None:
    result = verify_log(make_fractional_log())
    assert result.ok and result.events == 5


@pytest.mark.parametrize(
    "at",
    [
        "2026-11-26T20:14:03.Z",
        "2026-11-26T20:14:03.12x456Z",
        "2026-11-26T20:14:03.١٢٣٤٥٦Z",  # non-ASCII digits
        "2026-11-26T20:14:03.１２３Z",  # full-width digits
        "2026-11-26T20:14:60.000000Z",  # a leap second only at 23:59
        "2026-11-26T20:14:03.123456",
        "2026-11-26T20:14:03.123456z",
        "2026-11-26T20:14:03,123456Z",
    ],
)
def test_a_malformed_fraction_is_an_integrity_problem(at: str) -> None:
    lines = make_fractional_log()
    lines[-1] = edit(lines[-1], rehash=True, at=at)  # the last line: nothing else is wrong
    result = verify_log(lines)
    assert [(p.line, p.kind, p.code) for p in result.problems] == [(5, "integrity", ProblemCode.TIMESTAMP)]
    assert "is not an RFC 3339 UTC timestamp ending in Z" in result.problems[0].message


def test_hash_covers_the_parsed_object() -> None:
    lines = make_log(2)
    obj = json.loads(lines[1])
    assert obj["hash"] == ref_hash(obj)
    reordered = {k: obj[k] for k in reversed(list(obj))}
    assert verify_log([lines[0], dump_line(reordered)]).ok


def test_problem_str() -> None:
    assert str(Problem(3, "integrity", "blank line")) == "line 3: integrity: blank line"


def test_null_prev_after_an_unreadable_line_is_still_wrong() -> None:
    lines = make_log()
    lines[1] = b"garbage\n"
    lines[2] = edit(lines[2], rehash=True, prev=None)
    assert problems_by_line(lines)[3] == ["`prev` is null on line 3; only line 1 has no previous"]


# --- the fast path agrees with the plain checker ---------------------------------------------

# Per field: values right and wrong in the ways that matter for that field.
FIELD_VALUES = {
    "v": [0, 1, 2, True, 1.0, "1"],
    "game": ["g", "other", "Bad_Id", "", 5],
    "seq": [-1, 0, 1, 2, 3, 4, 7, True, 2.0, "3"],
    "at": ["2026-11-26T20:14:09Z", "2026-11-26T20:15:09.5Z", "2026-11-26T20:14:60Z",
           "2016-12-31T23:59:60Z", "2026-02-30T00:00:00Z", "2026-11-26 20:14:09Z",
           "2026-11-26T20:14:09", 20261126, "2026-11-26T20:14:09.123456Z",
           "2026-11-26T20:14:09.Z", "2026-11-26T20:14:09.12x456Z", "2026-11-26T20:14:60.000000Z",
           "2026-11-26T20:14:09.١٢٣Z"],
    "type": ["note", "", None, 5],
    "data": [{}, {"a": 1}, [], None, "x"],
    "prev": [None, "sha256:00", 5, "sha256:" + "0" * 64],
    "hash": ["sha256:00", None, 5],
    "extra": [1, None],
}  # fmt: skip


@st.composite
def tampered_logs(draw: st.DrawFn) -> list[bytes]:
    lines = make_log(6)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1)) if lines else 0
        action = draw(st.sampled_from(["set", "set", "set", "drop", "delete", "dup", "swap",
                                       "blank", "garbage", "tear", "crlf", "repeat-key"]))  # fmt: skip
        if not lines:
            break
        if action in ("set", "drop"):
            try:
                obj = json.loads(lines[i])
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            field = draw(st.sampled_from(sorted(FIELD_VALUES)))
            if action == "set":
                obj[field] = draw(st.sampled_from(FIELD_VALUES[field]))
            else:
                obj.pop(field, None)
            if draw(st.booleans()) and "hash" in obj:
                obj["hash"] = ref_hash(obj)
            lines[i] = dump_line(obj)
        elif action == "delete":
            del lines[i]
        elif action == "dup":
            lines.insert(i, lines[i])
        elif action == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif action == "blank":
            lines.insert(i, b"\n")
        elif action == "garbage":
            lines[i] = b"[1]\n"
        elif action == "tear" and len(lines[-1]) > 1:
            lines[-1] = lines[-1][: draw(st.integers(1, len(lines[-1]) - 1))]
        elif action == "crlf":
            lines[i] = lines[i].rstrip(b"\n") + b"\r\n"
        elif action == "repeat-key" and lines[i].startswith(b"{"):
            # A key written twice, the first value hidden from a reader that takes the last.
            where = draw(st.sampled_from([b"{", b'"data":{']))
            lines[i] = lines[i].replace(where, where + b'"type":"game_ended",', 1)
    return [line for line in lines if line]


@settings(max_examples=500, deadline=None)
@given(tampered_logs())
def test_fast_path_agrees_with_line_checker(lines: list[bytes]) -> None:
    fast = [(n, msgs, usable) for n, _, msgs, usable in scan_lines(lines)]
    assert fast == reference_verdicts(lines)


@settings(max_examples=200, deadline=None)
@given(tampered_logs())
def test_every_integrity_problem_says_which_check_it_failed(lines: list[bytes]) -> None:
    for problem in verify_log(lines).problems:
        assert problem.kind is ProblemKind.INTEGRITY and isinstance(problem.code, ProblemCode)
    torn = verify_log([*make_log(2), b'{"v": 1'])
    assert [p.code for p in torn.problems] == [ProblemCode.TORN_LINE]
    assert [p.code for p in verify_log([]).problems] == [ProblemCode.EMPTY_LOG]


def reference_verdicts(lines: list[bytes]) -> list[tuple[int, list[str] | None, bool]]:
    checker = LineVerifier()
    out = []
    for b in lines:
        _, msgs, usable = checker.feed(b)
        out.append((checker.line, msgs, usable))
    return out


def test_fast_path_agrees_on_every_single_field_change() -> None:
    for field, values in FIELD_VALUES.items():
        for value in values:
            for i in (0, 2, 5):
                # For a float seq: the right number, of the wrong JSON type.
                new = float(i + 1) if field == "seq" and value == 2.0 else value
                for rehash in (False, True):
                    lines = make_log(6)
                    lines[i] = edit(lines[i], rehash=rehash, **{field: new})
                    fast = [(n, msgs, usable) for n, _, msgs, usable in scan_lines(lines)]
                    assert fast == reference_verdicts(lines), (field, new, i, rehash)


@settings(max_examples=300, deadline=None)
@given(tampered_logs(), st.integers(0, 12))
def test_a_folding_scan_yields_the_rest_and_folds_clean_lines_until_told_to_stop(
    lines: list[bytes], stop_after: int
) -> None:
    plain = list(scan_lines(lines))
    folded: list[int] = []

    def fold(n: int, event_type: object, data: object) -> bool:
        folded.append(n)
        return len(folded) < stop_after

    end = ScanEnd()
    yielded = [n for n, _, _, _ in scan_lines(lines, fold, end)]
    not_yielded = [n for n, _, _, _ in plain if n not in yielded]
    clean = {n for n, raw, msgs, _ in plain if msgs is None and raw is not None}
    # Line 1 and every line with a problem are yielded as before; a line that is not yielded is
    # clean and goes to the fold, in order, until the fold says stop (then nowhere).
    assert yielded == sorted(yielded) and 1 in yielded
    assert {n for n, _, msgs, _ in plain if msgs is not None} <= set(yielded)
    assert set(not_yielded) <= clean
    assert folded == not_yielded[: max(stop_after, 1)]
    assert end.lines == len(plain)
    last_n, last_raw, _, _ = plain[-1]
    assert end.last == (last_raw if last_n in not_yielded else None)


def test_a_null_game_id_is_judged_even_when_line_1_has_an_invalid_one() -> None:
    # With no valid game id from line 1, nothing may take the fast path: `"game": null` on a
    # later line is an envelope problem of its own, whatever line 1 got wrong.
    lines = make_log(4)
    lines[0] = edit(lines[0], rehash=True, game="Not An Id")
    lines[1] = edit(lines[1], rehash=True, game=None, prev=json.loads(lines[0])["hash"])
    fast = [(n, msgs, usable) for n, _, msgs, usable in scan_lines(lines)]
    assert fast == reference_verdicts(lines)
    assert any("`game` must be a string" in m for m in fast[1][1] or [])


@settings(max_examples=300, deadline=None)
@given(tampered_logs())
def test_the_audit_reads_a_log_as_verify_log_does(lines: list[bytes]) -> None:
    # read_game folds clean lines inside the scan; its tally must still see every line: the
    # same problems, event count, game id and fingerprint (a torn last line keeps the hash of
    # the line before it, which the fold consumed).
    import tempfile

    from cli.opening import read_game
    from service.reading import GameSource

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "game.jsonl"
        path.write_bytes(b"".join(lines))
        expected = verify_log(path)
        report = read_game(GameSource(label=str(path), path=path))
    if report.problems and "not a game log" in report.problems[0].message:
        # Judged before the scan: only a file whose line 1 is no JSON object at all, one verdict
        # at line 1 where the scan lists every line.
        start = lines[0].lstrip(b"\xef\xbb\xbf \t\r")
        assert expected.problems[0].line == 1 and start and not start.startswith(b"{")
        assert [(p.line, p.kind) for p in report.problems] == [(1, "integrity")]
        assert report.fingerprint is None and expected.fingerprint is None
        return
    assert report.fingerprint == expected.fingerprint
    assert report.events == expected.events
    assert report.game == expected.game
    assert [p for p in report.problems if p.kind == "integrity"] == expected.problems


def test_a_key_written_twice_is_an_integrity_problem_whatever_the_hash_says() -> None:
    # The hash is of the parsed object, and a reader that keeps the last value parses the same
    # object as before the edit: the line must still be judged, since another reader would see
    # a different event under the same fingerprint.
    lines = make_log(4)
    lines[2] = lines[2].replace(b"{", b'{"type":"game_ended",', 1)
    nested = make_log(4)
    nested[3] = nested[3].replace(b'"data":{', b'"data":{"text":"forged",', 1)
    for log, line in ((lines, 3), (nested, 4)):
        result = verify_log(log)
        [problem] = result.problems
        assert (problem.line, problem.code) == (line, ProblemCode.DUPLICATE_KEY)
        assert "appears twice in one object" in problem.message
        assert result.fingerprint is None
        assert [usable for n, _, _, usable in scan_lines(log)][line - 1] is False


def test_a_reindented_log_is_read_a_second_time_only_to_look_for_repeated_keys() -> None:
    pretty = [json.dumps(json.loads(line), indent=None, separators=(", ", ": ")).encode() + b"\n"
              for line in make_log(5)]  # fmt: skip
    assert verify_log(pretty).ok
    spaced = list(pretty)
    spaced[1] = spaced[1].replace(b'"data": {', b'"data": {"text": "forged", ', 1)
    assert [p.code for p in verify_log(spaced).problems] == [ProblemCode.DUPLICATE_KEY]
