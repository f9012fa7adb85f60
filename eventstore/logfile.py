"""A log file opened and read as lines, never holding more of a line than the format's limit.

Only a regular file is opened, and one that plainly is no game log (a season ledger, a SQLite
database, a README) is refused before it is read. A line over the limit (log-format.md,
"Limits") is skipped in blocks and stands for it as a LongLine. The integrity checks, the
follower, the library's import, `we export` and the season open and read log files here;
`jsonl` writes and repairs them.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import BinaryIO

import orjson

from eventstore.errors import NotALogError, SeasonLedgerError, StoreError, file_kind
from eventstore.limits import LINE_LIMIT

# A log file is read in blocks of this size (see file_lines): smaller than READ_CAP, so that in
# a block only a line begun in the block before can be over the limit.
_READ_BLOCK = 1 << 17

# A line that fits in this many bytes, "\n" included, is within the limit (one ending in "\r\n"
# may take one more). Readers hold no more of a line than that: the rest of one over the limit is
# skipped in blocks of _SKIP_BLOCK (file_lines, which every reader of a file reads by).
READ_CAP = LINE_LIMIT + 1
_SKIP_BLOCK = 1 << 16


class LongLine(bytes):
    """Stands for a line over LINE_LIMIT that was skipped, not held: empty itself, with the
    line's length and whether it ended with a newline (if not, it is the torn last line).
    `length`: the bytes it takes in the file, its "\n" or "\r\n" included (a follower reads on
    after it)."""

    size: int
    ended: bool
    length: int

    def __new__(cls, size: int, ended: bool, cr: bool = False) -> LongLine:
        line = super().__new__(cls)
        line.size, line.ended, line.length = size, ended, size + ended + cr
        return line


def long_line_message(size: int) -> str:
    return f"line is {size:,} bytes long, over the format's limit of {LINE_LIMIT:,} bytes"


def file_lines(read: Callable[[int], bytes]) -> Iterator[bytes]:
    """The lines of a binary file, given its `read`, as iterating it gives them, but never
    holding more than the first READ_CAP + 1 bytes of a line: one over the limit is a LongLine.

    The file is read a block at a time and each block's whole lines are cut by C code (a
    BytesIO's line iterator finds newlines with memchr): per line, this costs what iterating the
    file costs, and less than a capped `readline` call, which a log of short lines pays for every
    line."""
    return chain.from_iterable(_line_blocks(read))


def _line_blocks(read: Callable[[int], bytes]) -> Iterator[Iterable[bytes]]:
    start = b""  # the beginning of a line that the last block cut: no newline in it
    while True:
        # A block never holds more of a line begun before it than the limit needs to judge it.
        block = read(_READ_BLOCK if not start else min(_READ_BLOCK, READ_CAP + 2 - len(start)))
        if not block:
            if start:  # the torn last line
                yield (start if len(start) <= LINE_LIMIT else LongLine(len(start), False),)
            return
        if start:
            block = start + block
            start = b""
            if len(block) > READ_CAP:
                # Only a line begun in an earlier block can be this long, and only it (the
                # first) can be over the limit: a line ending in "\r\n" may take one byte more.
                first = block.find(b"\n") + 1
                if not first or first > READ_CAP + (block[first - 2 : first] == b"\r\n"):
                    long_line, block = _skip_line(block, read)
                    yield (long_line,)
        end = block.rfind(b"\n") + 1
        if end < len(block):
            start = block[end:]
            block = block[:end]
        if block:
            yield io.BytesIO(block)


def _skip_line(block: bytes, read: Callable[[int], bytes]) -> tuple[LongLine, bytes]:
    """`block` begins with a line over the limit: read on to its end, keeping none of it. The
    LongLine, and what follows its newline."""
    size = 0
    last = b""  # the byte before the block, for a "\r\n" that a block boundary split
    while block:
        end = block.find(b"\n")
        if end >= 0:
            cr = (block[end - 1 : end] if end else last) == b"\r"
            return LongLine(size + end - cr, True, cr), block[end + 1 :]
        size += len(block)
        last = block[-1:]
        block = read(_SKIP_BLOCK)
    return LongLine(size, False), b""


def within_limit(line: bytes) -> bytes:
    """A line from an iterable of lines (already in memory), judged by the same limit."""
    size = len(line)
    if size <= LINE_LIMIT:
        return line
    ended = line[-1:] == b"\n"
    cr = line[-2:] == b"\r\n"
    content = size - ended - cr
    if content <= LINE_LIMIT:
        return line
    return LongLine(content, ended, cr)


def open_log(path: str | os.PathLike[str], buffering: int = 0) -> BinaryIO:
    """Open a log for reading: only a regular file is a log. A FIFO, device or directory is
    refused at once (StoreError) rather than read, which could block or never end. Raises
    FileNotFoundError if there is nothing there, StoreError if it cannot be opened.

    Unbuffered unless `buffering` says otherwise: the scan reads it in blocks (file_lines),
    which a buffer would only copy once more. A reader by `readline` wants a buffer."""
    where = os.fspath(path)
    fd = regular_file(
        path,
        os.O_RDONLY,
        cannot=lambda exc: StoreError(f"{where}: cannot read: {exc.strerror or exc}"),
        not_regular=lambda kind: StoreError(f"{where}: not a regular file ({kind}), so not a log"),
    )
    try:
        return open(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def regular_file(
    path: str | os.PathLike[str],
    flags: int,
    cannot: Callable[[OSError], Exception],
    not_regular: Callable[[str], Exception],
) -> int:
    """A descriptor of `path` opened with `flags`, once it is known to be a regular file: it is
    opened without blocking (opening a FIFO for reading would wait for a writer) and checked
    before a byte is read. FileNotFoundError passes through; any other failure to open raises
    `cannot(error)`, and anything but a regular file `not_regular(its kind)`."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise cannot(exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(file_kind(mode))
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


# How much of a file's start is read to tell whether it is a game log at all: a season ledger's
# first line (a name and a format) and any game's first envelope start well within it.
_PEEK_BYTES = 64 * 1024
_SQLITE_HEADER = b"SQLite format 3\x00"


def refuse_what_is_no_game_log(log: BinaryIO, where: str) -> None:
    """NotALogError (one line) when the start of an open file shows it is no game log, before
    any of it is scanned: a season ledger (SeasonLedgerError), a SQLite database, or a file whose
    first line does not even start as a JSON object (a README, a CSV). Otherwise every line
    would be reported as an integrity or schema problem, which sends the reader to `we repair`
    or to a tampered game that never was one.

    A first line that starts like an envelope and is damaged is left to the scan: that is a game
    log with a problem, and the audit words it. Reads by position, so the file is not moved."""
    head = os.pread(log.fileno(), _PEEK_BYTES, 0)
    if not head:
        return  # an empty file: the scan says "empty file"
    if head.startswith(_SQLITE_HEADER):
        raise NotALogError(f"{where}: not a game log (it is a SQLite database)")
    first, newline, _ = head.partition(b"\n")
    start = first.lstrip(b"\xef\xbb\xbf \t\r")
    if start and not start.startswith(b"{"):
        raise NotALogError(f"{where}: not a game log (its first line is not a JSON object)")
    if not newline or b"season_started" not in first:
        return  # a game log, damaged or not (a line longer than the peek, or torn): the scan judges it
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return
    if type(obj) is dict and obj.get("type") == "season_started":
        raise SeasonLedgerError(where)
