"""The log follower (eventstore.follow): a log that grows, a torn tail completed later, a file
replaced, cut back or written over, a line over the limit, a library game's rows."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest

from eventstore import logfile
from eventstore.errors import StoreError
from eventstore.follow import LogFollower, Look, RowFollower
from eventstore.jsonl import JsonlLog
from eventstore.problems import ProblemCode

SETUP = [("game_started", {"n": 1}), ("note", {"text": "two"})]


class Taken:
    """A taker that keeps (line, seq, game) of what it is handed, and refuses `refuse`."""

    def __init__(self, refuse: int | None = None) -> None:
        self.lines: list[tuple[int, int, str]] = []
        self.refuse = refuse

    def __call__(self, number: int, envelope: dict[str, Any]) -> bool:
        if number == self.refuse:
            return False
        self.lines.append((number, envelope["seq"], envelope["game"]))
        return True


def a_log(path: Path, game: str = "night", events: int = 2) -> JsonlLog:
    log = JsonlLog(path)
    log.create_many(SETUP[:1] + [("note", {"text": f"line {n}"}) for n in range(2, events + 1)], game)
    return log


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def test_a_growing_log_is_handed_over_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    log = a_log(path)
    follower, taken = LogFollower(path), Taken()
    assert follower.poll(taken) is Look.CHANGED
    assert taken.lines == [(1, 1, "night"), (2, 2, "night")]
    assert follower.poll(taken) is Look.SAME  # nothing changed: nothing read
    log.append([("note", {"text": "three"}), ("note", {"text": "four"})], 2)
    assert follower.poll(taken) is Look.CHANGED
    assert [line for line, _, _ in taken.lines] == [1, 2, 3, 4]
    assert follower.offset == path.stat().st_size and follower.problem is None


def test_a_torn_tail_waits_and_is_taken_once_complete(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    log = a_log(path, events=3)
    *setup, line_3 = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(setup))
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    append(path, line_3[:20])
    # First seen: maybe an append under way, so not yet torn, and never taken.
    assert follower.poll(taken) is Look.SAME
    assert follower.torn is None and len(taken.lines) == 2
    # The same a look later: torn, at line 3.
    assert follower.poll(taken) is Look.CHANGED
    assert follower.torn is not None and follower.torn.line == 3
    assert follower.torn.code is ProblemCode.TORN_LINE
    assert follower.poll(taken) is Look.SAME
    # The writer finishes it: taken, and torn no more.
    append(path, line_3[20:])
    assert follower.poll(taken) is Look.CHANGED
    assert follower.torn is None and taken.lines[-1] == (3, 3, "night")
    log.append([("note", {"text": "four"})], 3)
    assert follower.poll(taken) is Look.CHANGED and taken.lines[-1] == (4, 4, "night")


@pytest.mark.parametrize("how", ["replaced", "cut back", "written over"])
def test_a_log_not_appended_to_is_read_again_from_line_1(tmp_path: Path, how: str) -> None:
    path = tmp_path / "night.jsonl"
    a_log(path, events=4)
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    if how == "replaced":  # another log moved over it (its own inode)
        a_log(tmp_path / "other.jsonl", "other", 6)
        os.replace(tmp_path / "other.jsonl", path)
        expected = [(n, n, "other") for n in range(1, 7)]
    elif how == "cut back":  # as `we repair` or an editor would
        lines = path.read_bytes().splitlines(keepends=True)
        with path.open("r+b") as f:
            f.truncate(len(lines[0]) + len(lines[1]))
        expected = [(1, 1, "night"), (2, 2, "night")]
    else:  # line 1 edited in place, the same inode and length, and a line added after
        data = path.read_bytes()
        with path.open("r+b") as f:
            f.write(data.replace(b'"n":1', b'"n":2', 1))
        append(path, path.read_bytes().splitlines(keepends=True)[-1])
        expected = []  # line 1's hash no longer matches: nothing is taken
    assert follower.poll(taken) is Look.REPLACED
    assert follower.lines == 0 and follower.offset == 0
    taken.lines.clear()
    follower.poll(taken)
    assert taken.lines == expected
    if how == "written over":
        assert follower.problem is not None and follower.problem.line == 1
        assert follower.problem.code is ProblemCode.HASH


def test_the_same_size_with_a_new_time_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    a_log(path)
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # written over, same size
    assert follower.poll(taken) is Look.REPLACED


def test_a_line_refused_stops_the_follower_until_the_log_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    log = a_log(path, events=3)
    follower, taken = LogFollower(path), Taken(refuse=2)
    assert follower.poll(taken) is Look.CHANGED
    assert taken.lines == [(1, 1, "night")] and follower.halted and follower.problem is None
    log.append([("note", {"text": "four"})], 3)
    assert follower.poll(taken) is Look.SAME and len(taken.lines) == 1
    a_log(tmp_path / "again.jsonl", "again", 2)
    os.replace(tmp_path / "again.jsonl", path)
    assert follower.poll(taken) is Look.REPLACED
    follower.poll(taken)
    assert taken.lines[1:] == [(1, 1, "again")]  # line 2 refused again


def test_a_bad_line_is_the_follower_s_problem(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    a_log(path)
    append(path, b'{"v":1,"game":"night","seq":3}\n')
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    assert len(taken.lines) == 2
    assert follower.problem is not None and follower.problem.line == 3
    assert follower.problem.code is ProblemCode.ENVELOPE_FIELDS


@pytest.mark.parametrize("block", range(1, 13))
def test_a_long_line_is_measured_rightly_wherever_its_ending_is_split(tmp_path: Path, block: int) -> None:
    # The limits shrunk to 10 bytes; a line of 24 and "\r\n", read in blocks of every size, so
    # that "\r" and "\n" fall in two reads: 24 bytes long, whatever the reads.
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"a" * 24 + b"\r\n")
    follower = LogFollower(path)
    with mock.patch.multiple(logfile, LINE_LIMIT=10, READ_CAP=11, _SKIP_BLOCK=3, _READ_BLOCK=block):
        follower.poll(Taken())
        assert follower.problem is not None and follower.problem.code is ProblemCode.LINE_TOO_LONG
        assert follower.problem.message == logfile.long_line_message(24)
    assert follower.offset == 26


def test_a_long_line_without_an_end_is_torn_at_once(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    a_log(path)
    size = path.stat().st_size
    append(path, b"x" * (logfile.LINE_LIMIT + 10))
    follower, taken = LogFollower(path), Taken()
    assert follower.poll(taken) is Look.CHANGED
    assert len(taken.lines) == 2 and follower.offset == size
    assert follower.problem is not None and follower.problem.code is ProblemCode.TORN_LINE
    assert follower.problem.line == 3
    append(path, b"x")
    assert follower.poll(taken) is Look.SAME  # stopped: the rest of it is never read
    with path.open("r+b") as f:
        f.truncate(size)  # as `we repair` cuts it
    assert follower.poll(taken) is Look.REPLACED


def test_a_path_that_is_no_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.jsonl")
    with pytest.raises(StoreError, match="not a regular file"):
        LogFollower(tmp_path / "fifo.jsonl").poll(Taken())
    with pytest.raises(FileNotFoundError):
        LogFollower(tmp_path / "none.jsonl").poll(Taken())


def test_a_library_game_is_followed_by_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    a_log(path, events=3)
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    asked: list[int] = []

    def rows_after(seq: int) -> list[dict[str, Any]]:
        asked.append(seq)
        return rows[seq:]

    follower, taken = RowFollower(), Taken()
    assert follower.poll(rows_after, taken) is Look.CHANGED
    assert follower.poll(rows_after, taken) is Look.SAME
    assert asked == [0, 3] and [line for line, _, _ in taken.lines] == [1, 2, 3]
    rows.append(dict(rows[-1], seq=4))  # not chained to row 3: the follower stops there
    assert follower.poll(rows_after, taken) is Look.CHANGED
    assert follower.problem is not None and follower.problem.line == 4
    assert follower.poll(rows_after, taken) is Look.SAME and asked == [0, 3, 3]


def test_lines_this_process_appended_are_taken_without_reading_them_back(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    log = a_log(path)
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    written = log.append([("note", {"text": "three"})], 2)
    assert log.appended is not None
    size, after, lines = log.appended
    assert follower.took(size, after, lines, [e.hash for e in written])
    assert follower.offset == path.stat().st_size and follower.lines == 3
    assert follower.poll(taken) is Look.SAME  # its own line is not read again
    # The chain goes on from the line taken: another writer's next line is read and checked.
    JsonlLog(path).append([("note", {"text": "four"})], 3)
    assert follower.poll(taken) is Look.CHANGED
    assert taken.lines[-1] == (4, 4, "night") and follower.problem is None


def test_lines_after_someone_else_s_are_read_not_taken(tmp_path: Path) -> None:
    path = tmp_path / "night.jsonl"
    log = a_log(path)
    follower, taken = LogFollower(path), Taken()
    follower.poll(taken)
    JsonlLog(path).append([("note", {"text": "by another"})], 2)  # not seen by the follower yet
    written = log.append([("note", {"text": "ours"})], 3)
    assert log.appended is not None
    size, after, lines = log.appended
    assert not follower.took(size, after, lines, [e.hash for e in written])
    assert follower.poll(taken) is Look.CHANGED  # both read, in order, as any lines are
    assert [line for line, _, _ in taken.lines] == [1, 2, 3, 4]
