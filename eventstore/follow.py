"""A log followed as it grows: the lines added since the last look, checked as every reader
checks them, handed over one at a time.

`LogFollower` follows a JSONL file. Each look costs one `stat` while nothing changed. When the
file changed it is read from where the last look stopped, with the store's own line reading
(`logfile.file_lines`: a line over the format's limit is skipped in blocks, never held) and the
store's line checker (`integrity.LineVerifier`: envelope, seq, game id, hash chain). Three things
are told apart:

- an append: the complete lines after the last one taken are handed over;
- a torn tail, the bytes after the last newline: never taken. It is waited on for one look
  (an append is one write, so it may be under way); when the same bytes are still there at the
  next look with the file unchanged, the log's last line is torn (`torn`), until it changes;
- a replaced file (another file put at the path, by `mv` or `os.replace`; a file cut back, by
  `we repair` or an editor; a file written over in place, its first or last line taken no
  longer what it was): the look says REPLACED and the follower starts over, so that the next
  look reads the file from line 1.

`RowFollower` does the same for a game of a library, read by its rows after the last one taken.

Either stops at the first line that fails a check (`problem`), or the first one its taker
refuses (a rule of the game: the store knows none), and reads nothing more until the log is
replaced.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from eventstore.errors import StoreError, file_kind
from eventstore.integrity import LineVerifier
from eventstore.logfile import LongLine, file_lines, open_log
from eventstore.problems import TORN, Flaw, Problem, ProblemCode

# Takes one good line: its line number and envelope (parsed, as written). False stops the
# follower there (the game cannot go on from that line).
Take = Callable[[int, dict[str, Any]], bool]
# How much of the first and of the last line taken is compared to tell a file written over
# from one appended to: enough to hold a line's hash, which every edit of it changes.
_COMPARED = 4096


class Look(Enum):
    SAME = "same"  # nothing new
    CHANGED = "changed"  # lines taken, or a problem or a torn tail found or gone
    REPLACED = "replaced"  # not the log read so far: start over, and look again to read it


class _Follower:
    """What both followers share: the checker carried from line to line, and the stop."""

    def __init__(self) -> None:
        self._start_over()

    def _start_over(self) -> None:
        self.checker = LineVerifier()
        self.problem: Problem | None = None  # the integrity problem the follower stopped at
        self.halted = False  # stopped (a problem, or the taker said so): nothing more is read

    @property
    def lines(self) -> int:
        """Lines read and checked so far (the one stopped at included)."""
        return self.checker.line

    def _hand(self, checked: tuple[dict[str, Any] | None, list[Any] | None, bool], take: Take) -> bool:
        """One checked line to the taker, if it is good; False when the follower stops there."""
        raw, flaws, usable = checked
        if flaws or not usable or raw is None:
            flaw = flaws[0] if flaws else Flaw(ProblemCode.ENVELOPE_FIELDS, "unusable line")
            self.problem = Problem.integrity(self.checker.line, flaw)
            self.halted = True
            return False
        if not take(self.checker.line, raw):
            self.halted = True
            return False
        return True


class LogFollower(_Follower):
    """A JSONL log at `path`, followed by `poll`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path
        super().__init__()

    def _start_over(self) -> None:
        super()._start_over()
        self.offset = 0  # bytes taken: the complete lines handed over (or stopped at)
        # (device, inode, size, mtime) at the last look; None before the first.
        self.signature: tuple[int, int, int, int] | None = None
        self.first = b""  # the start of line 1, as taken
        self.last = b""  # the end of the last line taken (none of one over the limit: not held)
        self.pending = False  # bytes after the last newline at the last look
        self.torn: Problem | None = None  # a torn last line, until the log changes

    @property
    def identity(self) -> tuple[int, int] | None:
        """(device, inode) of the file read so far, to tell it from one put in its place since;
        None before the first look."""
        return None if self.signature is None else (self.signature[0], self.signature[1])

    def poll(self, take: Take) -> Look:
        """Look at the log once, handing each new good line to `take`.

        Raises FileNotFoundError when the log is gone, StoreError when its path is no regular
        file (a FIFO, a device, a directory: reading one could wait for ever) or cannot be
        opened; OSError when it cannot be read."""
        st = os.stat(self.path)  # a stat first: nothing is opened while nothing changed
        if not stat.S_ISREG(st.st_mode):
            kind = file_kind(st.st_mode)
            raise StoreError(f"{os.fspath(self.path)}: not a regular file ({kind}), so not a log")
        if _signature(st) == self.signature:
            if self.pending and self.torn is None and not self.halted:
                # The same bytes after the last newline a look later: no append is under way
                # (one is a single write), so the last line is torn, as `we audit` says.
                self.torn = Problem.integrity(self.checker.line + 1, TORN)
                return Look.CHANGED
            return Look.SAME
        # The kind is checked again on what was opened: the path may have been replaced by a
        # FIFO since the stat.
        with open_log(self.path) as f:
            fd = f.fileno()
            st = os.fstat(fd)
            if self.signature is not None and self._replaced(fd, st):
                self._start_over()
                return Look.REPLACED
            changed = self.torn is not None
            self.torn = None
            self.signature = _signature(st)
            if self.halted:
                return Look.CHANGED if changed else Look.SAME
            return Look.CHANGED if self._read(fd, st.st_size, take) or changed else Look.SAME

    def took(self, size_before: int, after: os.stat_result, lines: list[bytes], hashes: list[str]) -> bool:
        """Take the lines this process has just appended, under the file's lock, without reading
        them back: they were sealed (envelope, seq, `prev`, hash) by the writer, fsynced, and
        `after` is the file's stat with them. Only when they follow exactly what was taken (the
        same file, at the size this follower stopped at, nothing pending or stopped); False,
        and nothing taken, otherwise: the next `poll` reads them as any line is read."""
        if (
            self.signature is None
            or (after.st_dev, after.st_ino) != self.signature[:2]
            or size_before != self.offset
            or self.pending
            or self.halted
            or self.torn is not None
            or not lines
        ):
            return False
        for line, digest in zip(lines, hashes, strict=True):
            self.checker.line += 1
            self.checker.prev_hash = digest
            self.offset += len(line)
            self.last = line[-_COMPARED:]
        self.signature = _signature(after)
        return True

    def _replaced(self, fd: int, st: os.stat_result) -> bool:
        """Anything but an append since the last look: an append only adds after `offset`."""
        assert self.signature is not None
        if (st.st_dev, st.st_ino) != self.signature[:2] or st.st_size < self.offset:
            return True
        if st.st_size == self.offset:
            return True  # the same size and a new time: something was written over what was read
        tail = self.last
        if tail and os.pread(fd, len(tail), self.offset - len(tail)) != tail:
            return True
        return bool(self.first) and os.pread(fd, len(self.first), 0) != self.first

    def _read(self, fd: int, size: int, take: Take) -> bool:
        """Hand over the complete lines after `offset`, up to `size` (the size the signature
        was taken at, so that a line appended meanwhile waits for the next look). True when
        anything was taken or found wrong."""
        # At least one byte is tried, even where the size says 0: some files (in /proc, say)
        # say 0 and then cannot be read, and that is worth saying.
        end = max(size, self.offset + 1)
        position = self.offset

        def read(n: int) -> bytes:
            nonlocal position
            n = min(n, end - position)
            if n <= 0:
                return b""
            data = os.pread(fd, n, position)
            position += len(data)
            return data

        self.pending = False
        taken = False
        for line in file_lines(read):
            long = type(line) is LongLine
            if not (long and line.ended) and line[-1:] != b"\n":  # type: ignore[attr-defined]
                if long:
                    # Over the limit and unended: no writer writes such a line, so it is torn.
                    self.problem = Problem.integrity(self.checker.line + 1, TORN)
                    self.halted = taken = True
                else:
                    self.pending = True  # an append under way, or a torn line: see the next look
                break
            self.offset += line.length if long else len(line)  # type: ignore[attr-defined]
            self.last = line[-_COMPARED:]  # a line of at most that is not copied
            if not self.checker.line:
                self.first = line[:_COMPARED]
            taken = True
            if not self._hand(self.checker.feed(line), take):
                break
        return taken


class RowFollower(_Follower):
    """A game of a library, followed by `poll` on its rows."""

    def poll(self, rows_after: Callable[[int], Iterable[dict[str, Any]]], take: Take) -> Look:
        """Hand each good row stored since the last look to `take`; `rows_after(n)` gives the
        game's rows after seq n, in order."""
        if self.halted:
            return Look.SAME
        taken = False
        for row in rows_after(self.checker.line):
            taken = True
            if not self._hand(self.checker.feed_obj(row), take):
                break
        return Look.CHANGED if taken else Look.SAME


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
