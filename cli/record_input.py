"""How the recorder reads its input apart from the terminal's line editor: plain lines of a
pipe, each bounded in length, and Ctrl-C held off while a line is written; where an abandoned
set-up is kept.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# The longest input line taken, in characters. A typed move is a few words; a set-up line of
# gift lists for a big table is well under this. A longer line (a file piped in by mistake,
# /dev/zero) is refused and skipped in pieces this size, so it is never held in memory whole.
MAX_INPUT_LINE = 4096


class OverlongLine(str):
    """What the plain reader hands on for an input line over MAX_INPUT_LINE: its start only."""


def read_bounded_line(stream: Any, limit: int = MAX_INPUT_LINE) -> str:
    """One line of `stream` (a text file), "" at its end. A line over `limit` characters comes
    back as an OverlongLine of its first `limit`, the rest of it read and dropped piece by piece."""
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith("\n"):
        return line
    start = OverlongLine(line[:limit])
    while True:
        rest = stream.readline(limit)
        if not rest or rest.endswith("\n"):
            return start


def shorten(text: str, width: int = 60) -> str:
    """`text` as an error message shows it: at most `width` characters."""
    return text if len(text) <= width else text[: width - 3] + "..."


def backup_path(path: Path) -> Path:
    """Where an abandoned set-up is kept: FILE.abandoned, FILE.abandoned-2, ... never overwritten."""
    candidate = path.with_name(f"{path.name}.abandoned")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.abandoned-{number}")
    return candidate


@contextmanager
def ctrl_c_after_this() -> Iterator[None]:
    """Ctrl-C while a line is being written waits until it is written and told, so the
    goodbye counts what is in the file."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def stdout_is_a_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False
