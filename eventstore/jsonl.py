"""One game per JSON Lines file, as log-format.md describes it.

Concurrency: every writer takes an exclusive `flock` on the file itself and re-reads the head
from the file's tail under it, so two processes can append to one game safely; the loser of a
race gets ConcurrencyError and nothing written. Durability: nothing is reported written until
it is fsynced, and a line is written with a single os.write, so a crash leaves at most one
torn last line, which readers report and `repair` removes.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from eventstore.envelope import Envelope
from eventstore.errors import (
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    NotALogError,
    NotTheFileReadError,
    StoreError,
    TornTailError,
)
from eventstore.integrity import LogLine, VerifyResult, iter_log, verify_log, verify_tail_line
from eventstore.limits import LINE_LIMIT
from eventstore.logfile import LongLine, regular_file
from eventstore.persistence import SealingLog, StoreAfterHead, Summary
from eventstore.problems import EMPTY, INTEGRITY, Problem, ProblemCode

_TAIL_BLOCK = 64 * 1024
# A last line is most often a few hundred bytes: the tail is read in a small block first (a
# copy of 64 KiB on every append costs more than the rest of the head's check).
_FIRST_TAIL_BLOCK = 4 * 1024
_COPY_BLOCK = 1 << 20

# Last lines judged sound, by their exact bytes (without the newline), with their envelopes.
# The judgement reads nothing but the line, so a line met again is not judged twice: the line a
# writer of this process appended is the tail the next append re-reads under the lock.
_SOUND_TAILS: dict[bytes, Envelope] = {}
_SOUND_TAILS_KEPT = 4096


def _sound_tail(line: bytes, envelope: Envelope) -> None:
    if len(line) > _FIRST_TAIL_BLOCK:
        return  # kept lines are small, so the memory they hold is too (a line may be 1 MiB)
    if len(_SOUND_TAILS) >= _SOUND_TAILS_KEPT:
        _SOUND_TAILS.clear()  # a bound, not a policy: a line forgotten is judged again
    _SOUND_TAILS[line] = envelope


def _fsync_dir(path: Path) -> None:
    # A new or renamed file only survives a crash once its directory entry is on disk.
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    # A regular file rarely takes less than asked (disk full, quota); loop rather than assume.
    written = os.write(fd, data)
    if written == len(data):
        return
    view = memoryview(data)[written:]
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _last_line(fd: int, size: int) -> bytes:
    """The last line (without its final newline), scanning backward from the end; a LongLine
    if it is over the format's limit, which is measured but not held.

    The caller has checked that the file ends in a newline. Reads only the tail, in blocks, so
    appending to a long game costs the same as to a short one.
    """
    end = size - 1  # offset of the final newline
    pos = end
    chunks: list[bytes] = []
    held = 0
    block = _FIRST_TAIL_BLOCK
    while pos > 0:
        start = max(0, pos - block)
        block = min(block * 4, _TAIL_BLOCK)
        chunk = os.pread(fd, pos - start, start)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            chunks.append(chunk[cut + 1 :])
            break
        held += len(chunk)
        if held > LINE_LIMIT + 1:
            # Over the format's limit: the line is not held, only measured.
            return LongLine(end - _last_newline(fd, start), True)
        chunks.append(chunk)
        pos = start
    chunks.reverse()
    return b"".join(chunks)


class Appended(NamedTuple):
    """What one append wrote: the file's size before it, its stat after, and the lines."""

    size_before: int
    after: os.stat_result
    lines: list[bytes]


class JsonlLog(SealingLog):
    """A game stored as one JSONL file."""

    keeps_summary = False  # a library keeps a game's summary with its events; a file does not

    def __init__(self, path: str | os.PathLike[str], only_file: tuple[int, int] | None = None) -> None:
        # A Path is kept as given: it is immutable, and it has worked out its string already.
        self.path = path if isinstance(path, Path) else Path(path)
        # (device, inode) of the file the caller read: an append goes onto that file only,
        # never through a symbolic link nor onto a file put in its place since
        # (NotTheFileReadError, nothing written). Checked on the file opened, under its lock,
        # with the stat the head's check makes anyway: no look at the path beforehand.
        self.only_file = only_file
        # After an append: the file's size before it, its stat after the fsync (still under the
        # lock) and the lines written, so that whoever follows the file in this process can
        # take its own lines without reading them back (eventstore.follow.LogFollower.took).
        self.appended: Appended | None = None

    def __repr__(self) -> str:
        return f"JsonlLog({str(self.path)!r})"

    @property
    def where(self) -> str:
        return str(self.path)

    def exists(self) -> bool:
        return self.path.exists()

    def _store_first(self, envelope: Envelope) -> None:
        self._store_new([envelope])

    def _store_new(self, envelopes: list[Envelope]) -> None:
        """A new file holding `envelopes`, in one write: a set-up is never seen half made."""
        try:
            # O_EXCL: two recorders starting the same file cannot both win.
            # 0o666 less the umask: the mode any new file of the user's gets.
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            raise LogExistsError(str(self.path)) from None
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot create: {exc.strerror or exc}") from exc
        try:
            # Locked before the first byte, so an appender never sees a half-made first line.
            fcntl.flock(fd, fcntl.LOCK_EX)
            _write_all(fd, b"".join(envelope.to_line() for envelope in envelopes))
            os.fsync(fd)
            _fsync_dir(self.path)
        except BaseException as exc:
            # The file is ours and holds nothing acknowledged: leave no half-made log behind.
            self.path.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise StoreError(f"{self.path}: cannot create: {exc.strerror or exc}") from exc
            raise
        finally:
            os.close(fd)

    def _open_locked(self, flags: int, lock: int) -> int:
        try:
            fd = os.open(self.path, flags | os.O_CLOEXEC)
        except FileNotFoundError:
            raise GameNotFoundError(str(self.path)) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP and flags & os.O_NOFOLLOW:
                raise NotTheFileReadError(str(self.path), link=True) from None
            raise StoreError(f"{self.path}: cannot open: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, lock)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _head_locked(self, fd: int) -> tuple[int, Envelope]:
        """(file size, last envelope), judged from the tail alone. The caller holds the lock."""
        st = os.fstat(fd)
        if self.only_file is not None and (st.st_dev, st.st_ino) != self.only_file:
            raise NotTheFileReadError(str(self.path), link=False)
        size = st.st_size
        if size == 0:
            raise LogIntegrityError(str(self.path), [Problem.integrity(1, EMPTY)])
        # One read for the final newline and, most often, the whole last line before it.
        tail = os.pread(fd, min(size, _FIRST_TAIL_BLOCK), max(0, size - _FIRST_TAIL_BLOCK))
        if tail[-1:] != b"\n":
            raise TornTailError(str(self.path))
        cut = tail.rfind(b"\n", 0, len(tail) - 1)
        last = tail[cut + 1 : -1] if cut >= 0 or len(tail) == size else _last_line(fd, size)
        known = _SOUND_TAILS.get(last) if type(last) is bytes else None
        if known is not None:
            return size, known
        env, problems = verify_tail_line(last if type(last) is LongLine else last + b"\n")
        if env is not None and not problems and type(last) is bytes:
            _sound_tail(last, env)
        if env is None or problems:
            # Rare, so worth a full read: it names the exact line(s) instead of "the tail".
            result = verify_log(self.path)
            raise LogIntegrityError(
                str(self.path),
                result.problems
                or [Problem(0, INTEGRITY, "last line: " + "; ".join(problems), problems[0].code)],  # type: ignore[attr-defined]
            )
        return size, env

    def head(self) -> tuple[int, str | None, str | None]:
        """(seq, hash, game id) of the last event; (0, None, None) if the file does not exist."""
        try:
            fd = self._open_locked(os.O_RDONLY, fcntl.LOCK_SH)
        except GameNotFoundError:
            return 0, None, None
        try:
            _, env = self._head_locked(fd)
        finally:
            os.close(fd)
        return env.seq, env.hash, env.game

    @contextmanager
    def _locked_head(self) -> Iterator[tuple[Envelope | None, StoreAfterHead]]:
        """The head under an exclusive flock; the lines go out in one write each, fsynced."""
        nofollow = os.O_NOFOLLOW if self.only_file is not None else 0
        fd = self._open_locked(os.O_RDWR | os.O_APPEND | nofollow, fcntl.LOCK_EX)
        try:
            size, head = self._head_locked(fd)

            def store(sealed: list[Envelope], summary: Summary | None) -> None:  # a file keeps none
                try:
                    lines = [env.to_line() for env in sealed]
                    for line in lines:
                        _write_all(fd, line)
                    os.fsync(fd)
                    self.appended = Appended(size, os.fstat(fd), lines)
                    if sealed:  # sealed here, so sound: the next append's tail is not judged again
                        _sound_tail(lines[-1][:-1], sealed[-1])
                except BaseException as exc:
                    # Nothing is acknowledged, so nothing may stay: cut back to where we began
                    # rather than leave a torn or unsynced tail for the next writer to trip on.
                    try:
                        os.ftruncate(fd, size)
                        os.fsync(fd)
                    except OSError:
                        pass
                    if isinstance(exc, OSError):
                        raise StoreError(f"{self.path}: append failed, nothing written: {exc}") from exc
                    raise

            yield head, store
        finally:
            os.close(fd)

    def iter_lines(self) -> Iterator[LogLine]:
        """Every line with its integrity problems (iter_log); never raises on a problem."""
        try:
            f = open(self.path, "rb", buffering=_COPY_BLOCK)  # noqa: SIM115 - closed by _lines
        except FileNotFoundError:
            raise GameNotFoundError(str(self.path)) from None
        return self._lines(f)

    @staticmethod
    def _lines(f: Any) -> Iterator[LogLine]:
        with f:
            yield from iter_log(f)

    def verify(self) -> VerifyResult:
        try:
            f = open(self.path, "rb", buffering=_COPY_BLOCK)  # noqa: SIM115
        except FileNotFoundError:
            raise GameNotFoundError(str(self.path)) from None
        with f:
            return verify_log(f)


@dataclass(frozen=True, slots=True)
class RepairResult:
    path: Path
    repaired: bool
    backup: Path | None  # the file as it was, before the torn tail was cut
    bytes_removed: int
    head_seq: int  # last event now in the log (0: nothing was complete; the file was removed)
    message: str


def _backup_copy(fd: int, path: Path) -> Path:
    bak, out = _side_file(fd, path, ".bak")
    try:
        _copy_from(fd, 0, out)
        os.fsync(out)
    finally:
        os.close(out)
    _fsync_dir(bak)
    return bak


def _side_file(fd: int, path: Path, suffix: str) -> tuple[Path, int]:
    """A new file beside the log, FILE.suffix or else FILE.suffix.1, ..., opened for writing with
    the log's mode (a private log's copy stays private). O_EXCL picks a free name even if two
    writers race."""
    n = 0
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    while True:
        side = path.with_name(path.name + (suffix if n == 0 else f"{suffix}.{n}"))
        try:
            return side, os.open(side, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        except FileExistsError:
            n += 1


def _copy_from(fd: int, offset: int, out: int) -> int:
    """Copy the log from `offset` to its end into `out`, in blocks; the lines copied (newlines)."""
    lines = 0
    while block := os.pread(fd, _COPY_BLOCK, offset):
        _write_all(out, block)
        lines += block.count(b"\n")
        offset += len(block)
    return lines


def _last_newline(fd: int, size: int) -> int:
    """Offset just past the file's last newline (0 if it has none), scanning back in blocks."""
    pos = size
    while pos > 0:
        start = max(0, pos - _COPY_BLOCK)
        cut = os.pread(fd, pos - start, start).rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        pos = start
    return 0


def _is_the_next_event(fd: int, offset: int, size: int, result: VerifyResult) -> bool:
    """Whether the torn last line (`size` bytes at `offset`) is, but for its newline, a whole
    event that follows the log's lines: good on its own, next in seq, chained to the last."""
    if size > LINE_LIMIT:
        return False
    envelope, problems = verify_tail_line(os.pread(fd, size, offset) + b"\n")
    return (
        envelope is not None
        and not problems
        and envelope.seq == result.events
        and envelope.game == result.game
        and envelope.prev == result.head_hash
    )


def _refuse_what_is_not_a_log(f: Any, path: Path) -> None:
    """NotALogError as soon as line 1 shows the file is no game log, having read that line
    alone (at most the line limit): a gigabyte of something else is refused at once, not
    after reading it all."""
    first = f.readline(LINE_LIMIT + 2)
    if not first.endswith(b"\n"):
        if len(first) > LINE_LIMIT:
            raise NotALogError(f"{path}: not a game log (line 1 is longer than {LINE_LIMIT:,} bytes)")
        return  # the whole file is one line without its newline: judged with the rest
    verdict = verify_log([first])
    if problems := [p for p in verdict.problems if p.line == 1]:
        raise NotALogError(f"{path}: not a game log (line 1: {problems[0].message})")


def repair(path: str | os.PathLike[str]) -> RepairResult:
    """Cut a torn last line off a game log, keeping a backup of the file as it was.

    Only a torn tail after at least one complete line that verifies is repaired: if any other
    line is bad, LogIntegrityError; a file that is not a game log at all (its first line is not
    a good envelope, or it has no complete line), NotALogError; never "repair" corruption. A
    log that is not torn is left alone. Only a regular file is a log: a FIFO or device is
    refused before a byte is read.
    """
    path = Path(path)
    fd = _open_to_rewrite(path)
    try:
        # Writers lock the same file, so none can append while we judge and cut.
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(os.dup(fd), "rb", buffering=_COPY_BLOCK) as f:
            _refuse_what_is_not_a_log(f, path)
            f.seek(0)
            result = verify_log(f)
        if result.ok:
            return RepairResult(path, False, None, 0, result.events, f"{path}: not torn; nothing to repair")
        last = result.problems[-1]
        torn = last.code is ProblemCode.TORN_LINE and last.line == result.events
        if torn and result.events == 1:
            raise NotALogError(f"{path}: not a game log (it has no complete line)")
        first_line = [p for p in result.problems if p.line == 1]
        if first_line:
            raise NotALogError(f"{path}: not a game log (line 1: {first_line[0].message})")
        others = [p for p in result.problems if p.code is not ProblemCode.TORN_LINE]
        if others or not torn:
            raise LogIntegrityError(str(path), others or result.problems)
        size = os.fstat(fd).st_size
        complete = _last_newline(fd, size)  # bytes up to and including the last newline
        backup = _backup_copy(fd, path)
        removed = size - complete
        head_seq = result.events - 1
        whole_event = _is_the_next_event(fd, complete, removed, result)
        os.ftruncate(fd, complete)
        os.fsync(fd)
        msg = f"{path}: removed torn line {result.events} ({removed:,} bytes); "
        if whole_event:
            # The spec calls it torn all the same: the newline is what finishes an append, so
            # whoever wrote it was never told the event was in. Say so, and where it is kept.
            msg += (
                "it was a complete, correctly hashed event, but without its newline the append"
                " never finished, so it was never acknowledged; the log now ends at seq"
                f" {head_seq}; the line is kept in the backup: {backup}"
            )
        else:
            msg += f"the log now ends at seq {head_seq}; backup: {backup}"
        return RepairResult(path, True, backup, removed, head_seq, msg)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class CutResult:
    lines: int  # lines cut off after the first `events` (0: nothing to cut)
    kept_in: Path | None  # the side file holding them, byte for byte


def cut_after(path: str | os.PathLike[str], events: int, head_hash: str) -> CutResult:
    """Cut a log back to its first `events` lines, keeping the lines after them, byte for byte,
    in a side file beside it (FILE.cut, FILE.cut.1, ...: never a `*.jsonl`, for its lines are no
    log on their own). Only when those first lines verify and the last of them has `head_hash`
    (they are the events once sealed, unchanged); else LogIntegrityError and nothing is cut.
    Under the writers' lock, so none appends meanwhile; the side file is fsynced before the
    log is cut."""
    import itertools

    from eventstore.logfile import file_lines

    path = Path(path)
    fd = _open_to_rewrite(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(os.dup(fd), "rb", buffering=_COPY_BLOCK) as f:
            kept = list(itertools.islice(file_lines(f.read), events))
        result = verify_log(kept)
        if not result.ok or result.events != events or result.head_hash != head_hash:
            why = (
                result.problems[0].message
                if result.problems
                else f"its event {result.events} is not the one sealed ({head_hash})"
                if result.events == events
                else f"it holds {result.events} events, fewer than the {events} sealed"
            )
            raise LogIntegrityError(
                str(path), [Problem(max(result.events, 1), INTEGRITY, f"not the events sealed: {why}")]
            )
        offset = sum(len(line) for line in kept)
        size = os.fstat(fd).st_size
        if size == offset:
            return CutResult(0, None)
        side, out = _side_file(fd, path, ".cut")
        try:
            cut = _copy_from(fd, offset, out)
            os.fsync(out)
        finally:
            os.close(out)
        _fsync_dir(side)
        if not os.pread(fd, 1, size - 1).endswith(b"\n"):
            cut += 1  # a torn last line is a line cut too
        os.ftruncate(fd, offset)
        os.fsync(fd)
        return CutResult(cut, side)
    finally:
        os.close(fd)


def _open_to_rewrite(path: Path) -> int:
    """A game log opened to be cut (repair, put-back): only a regular file, read and written."""
    try:
        return regular_file(
            path,
            os.O_RDWR,
            cannot=lambda exc: StoreError(f"{path}: cannot open: {exc.strerror or exc}"),
            not_regular=lambda kind: NotALogError(f"{path}: not a regular file ({kind}), so not a game log"),
        )
    except FileNotFoundError:
        raise GameNotFoundError(str(path)) from None
