"""Exceptions raised by the event store.

Every message is one line that names what went wrong and where (file or game, line), so the
CLI can print it as it stands.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eventstore.problems import Problem


class StoreError(Exception):
    """Base class: anything the store refuses or cannot do."""


class LogIntegrityError(StoreError):
    """The log (or the part of it that was read) fails integrity checks."""

    def __init__(self, where: str, problems: Sequence[Problem], omitted: int = 0) -> None:
        self.where = where
        self.problems: list[Problem] = list(problems)
        self.omitted = omitted  # problems beyond those listed, counted only
        if self.problems:
            first = self.problems[0]
            msg = f"{where}: line {first.line}: {first.message}"
            more = len(self.problems) - 1 + omitted
            if more:
                msg += f" (and {more:,} more problem{'s' if more > 1 else ''})"
        else:
            msg = f"{where}: log failed integrity checks"
        super().__init__(msg)


class NotALogError(StoreError):
    """The file is not a game log at all (not a regular file, or not one JSONL envelope on
    its first line): nothing of it is touched."""


class SeasonLedgerError(NotALogError):
    """A season ledger (docs/season-format.md) given where a game log is wanted: it is a log
    of the same envelope and chain, so without this every game reader would call its first
    line a schema problem, which sends the reader to the wrong tool."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(f"{where}: this is a season ledger: use `we season verify`")


class NotTheFileReadError(StoreError):
    """An append onto a path whose file is not the one the caller read (`only_file`): a
    symbolic link (`link` True), or another file put in its place. Nothing was written."""

    def __init__(self, where: str, link: bool) -> None:
        self.where = where
        self.link = link
        what = "a symbolic link" if link else "not the file that was read"
        super().__init__(f"{where}: {what}; nothing was written")


class ConcurrencyError(StoreError):
    """The caller's idea of the head is stale: someone else appended first."""

    def __init__(self, where: str, expected: int, actual: int) -> None:
        self.where = where
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{where}: stale head: expected the last event to be seq {expected}, "
            f"but it is seq {actual}; re-read the log and retry"
        )


class TornTailError(StoreError):
    """The last line has no trailing newline, so nothing may be appended after it."""

    def __init__(self, path: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        at = f"line {line}" if line is not None else "the last line"
        super().__init__(
            f"{path}: {at} is torn (no trailing newline; an append was cut off); run `we repair {path}`"
        )


class LogExistsError(StoreError):
    """Refusing to create a log (or export) over one that already exists."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(f"{where}: already exists; refusing to overwrite it")


class GameNotFoundError(StoreError):
    """No such game (JSONL file missing, or no such id in the library)."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(f"{where}: no such game")


class SealedGameError(StoreError):
    """A write that would add events to a library game a season ledger sealed (its seal is
    recorded in the library: `game_seals`); the message names the ledger."""


class ImportConflictError(StoreError):
    """A different log already lives under the same game id in the library."""

    def __init__(self, game_id: str, path: str, line: int, detail: str) -> None:
        self.game_id = game_id
        self.path = path
        self.line = line
        # The chain makes one hash stand for everything before it, so a mismatch at `line`
        # only says the two logs part somewhere up to there.
        super().__init__(
            f"{path}: a different game already has the id {game_id!r} in the library ({detail});"
            " give this one another game id, or keep it in another library (--db)"
        )


class LibraryBusyError(StoreError):
    """Other processes kept the library locked for longer than a write waits: nothing of this
    write was stored (what was committed before it stays)."""


class WritesLostError(StoreError):
    """A batch's writes since its last commit were undone (a commit failed, a connection went):
    a command stops rather than say those writes were made, or refuse every write after it."""


class ConnectionLostError(WritesLostError):
    """A database server's library went away mid-write: nothing more can be written through
    this connection, so a command stops rather than refuse every game after it."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
