"""How a log's lines are judged against the line limit, whether read from a file in blocks
(file_lines: never holding more of a line than the limit needs) or given in memory: a line is
over the limit when what it holds, its "\n" or "\r\n" ending aside, is longer than LINE_LIMIT.
The limits are shrunk so that short generated files cross every boundary: a line at the limit,
one byte over, a "\r\n" split by the cap or by a block's end, a long line torn at the end."""

from __future__ import annotations

import io
import itertools
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import logfile
from eventstore.logfile import LongLine, file_lines, within_limit

SMALL_LIMITS = {"LINE_LIMIT": 10, "READ_CAP": 11, "_SKIP_BLOCK": 3}


def as_the_format_says(data: bytes) -> list[object]:
    """The lines of `data`, each as it is, or ("long", what it holds, whether it ended)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    judged: list[object] = []
    for line in lines:
        ended = line.endswith(b"\n")
        holds = len(line) - ended - line.endswith(b"\r\n")
        judged.append(("long", holds, ended) if holds > logfile.LINE_LIMIT else line)
    return judged


def by_blocks(data: bytes) -> list[object]:
    return [shown(line) for line in file_lines(io.BytesIO(data).read)]


def in_memory(data: bytes) -> list[object]:
    return [shown(within_limit(line)) for line in io.BytesIO(data)]


def shown(line: object) -> object:
    if type(line) is LongLine:
        return ("long", line.size, line.ended)
    assert type(line) is bytes
    return line


def length(line: bytes) -> int:
    return line.length if type(line) is LongLine else len(line)


pieces = st.sampled_from([b"a", b"\r", b"\n", b"\r\n", b"{}", b"a" * 9, b"a" * 10, b"a" * 11])


@settings(max_examples=600, deadline=None)
@given(
    data=st.lists(pieces, max_size=30).map(b"".join),
    block=st.integers(min_value=1, max_value=10),
)
def test_lines_are_judged_as_the_format_says(data: bytes, block: int) -> None:
    with mock.patch.multiple(logfile, _READ_BLOCK=block, **SMALL_LIMITS):
        expected = as_the_format_says(data)
        assert by_blocks(data) == expected
        assert in_memory(data) == expected
        # What each line takes in the file, a long one's ending included, adds up to the file:
        # a follower reads on from there.
        assert sum(map(length, file_lines(io.BytesIO(data).read))) == len(data)
        assert sum(map(length, map(within_limit, io.BytesIO(data)))) == len(data)


def test_a_line_over_the_limit_is_never_held_whole() -> None:
    # The real limits: 3 MiB on one line, then a short line. Nothing returned holds the long
    # one, and the short line after it comes through as it is.
    data = b"x" * (3 << 20) + b"\n" + b'{"a":1}\n'
    reads: list[int] = []
    f = io.BytesIO(data)

    def read(size: int) -> bytes:
        reads.append(size)
        return f.read(size)

    lines = list(file_lines(read))
    assert [shown(line) for line in lines] == [("long", 3 << 20, True), b'{"a":1}\n']
    assert max(reads) <= logfile.READ_CAP + 1


def test_the_limits_exactly() -> None:
    limit = logfile.LINE_LIMIT
    cases = {
        b"x" * limit + b"\n": b"x" * limit + b"\n",
        b"x" * (limit - 1) + b"\r\n": b"x" * (limit - 1) + b"\r\n",
        b"x" * limit + b"\r\n": b"x" * limit + b"\r\n",
        b"x" * (limit + 1) + b"\n": ("long", limit + 1, True),
        b"x" * (limit + 1) + b"\r\n": ("long", limit + 1, True),
        b"x" * limit: b"x" * limit,  # torn, within the limit
        b"x" * (limit + 1): ("long", limit + 1, False),  # torn, over it
    }
    for data, expected in cases.items():
        assert by_blocks(b"{}\n" + data) == [b"{}\n", expected], len(data)


@settings(max_examples=600, deadline=None)
@given(
    data=st.lists(pieces, max_size=30).map(b"".join),
    block=st.integers(min_value=1, max_value=10),
    skip=st.integers(min_value=1, max_value=5),
    cuts=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=40),
)
def test_short_reads_change_nothing(data: bytes, block: int, skip: int, cuts: list[int]) -> None:
    # A read may return fewer bytes than asked (a file still being written, a network file
    # system): the lines, and how each is judged, are the same as with whole reads.
    f = io.BytesIO(data)
    turns = itertools.cycle(cuts)

    def read(size: int) -> bytes:
        return f.read(min(size, next(turns)))

    limits = {**SMALL_LIMITS, "_SKIP_BLOCK": skip}
    with mock.patch.multiple(logfile, _READ_BLOCK=block, **limits):
        lines = list(file_lines(read))
        assert [shown(line) for line in lines] == as_the_format_says(data)
        assert sum(map(length, lines)) == len(data)
