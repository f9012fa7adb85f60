"""A game log file's own use cases, apart from the game it holds: a torn tail cut off
(`we repair`), and a private copy of a log, to be checked and written out (`we export FILE`).

Both read the file as the store reads a log (eventstore): only a regular file is one, so a
FIFO or device is refused (StoreError, one line) before a byte is read, never waited on.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from eventstore.jsonl import RepairResult, repair
from eventstore.logfile import open_log


def repair_log(path: Path) -> RepairResult:
    """Cut a torn last line off the log at `path`, keeping a backup of the file as it was
    (eventstore.jsonl.repair): StoreError, with nothing changed, for a log damaged anywhere
    else or a file that is no log."""
    return repair(path)


def copy_log(path: Path, target: Path) -> None:
    """The log at `path` copied byte for byte to `target` (a new file). FileNotFoundError if
    it is not there, OSError if it cannot be read or written."""
    with open_log(path) as log, open(target, "wb") as out:
        shutil.copyfileobj(log, out)
