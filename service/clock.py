"""The table clock and think times, read from the `at`s of a game's log (wecore.clock folds
them): the think time per player that `we stats` and `we analyse` report, and, for a served
game, the clock setting kept beside the game.

Kept apart from service/live.py (the hot path that follows a log): the clock is read from what
that path already holds, the events and their `at`s.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from wecore.clock import TableTimes, ThinkTime, seconds_left, table_times
from wecore.events import AnyEvent, parse_event


def times_of_lines(lines: Iterable[dict[str, Any]]) -> TableTimes:
    """A log's parsed lines (`type`, `data`, `at`), folded for time."""
    return table_times((parse_event(line["type"], line["data"]), line.get("at")) for line in lines)


def times_of_events(events: Sequence[AnyEvent], written_at: Sequence[str | None]) -> TableTimes:
    """The events a table holds, with the `at` each was written at, folded for time."""
    return table_times(zip(events, written_at, strict=True))


def think_text(times: ThinkTime | None) -> str:
    """A player's mean think per move, as a table cell: "42s", "1m 05s", or "-" (no move timed)."""
    if times is None or not times.moves:
        return "-"
    return duration_text(times.mean)


def duration_text(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


# --- the table clock of a served game -------------------------------------------------------

# The longest clock a table may set: a day (a typed 36000000 is a slip, not a setting).
LONGEST_CLOCK = 24 * 60 * 60


class TableClocks:
    """Each served game's clock in seconds (0: none), a setting of the table and not a rule in
    its log: chosen in the lobby when a game starts, else the server's `--clock`. Kept beside
    the games, so that a restarted server, and every server on one library, has the same:
    GAMES_DIR/.we/clocks.json for a folder, the library's settings ("clock:GAME") for `--db`."""

    def __init__(self, default: float, path: Path | None = None, library: Any = None) -> None:
        self.default = default
        self.path = path
        self.library = library
        self.lock = threading.Lock()
        self.by_game: dict[str, float] = {}
        if path is not None and path.is_file():
            with contextlib.suppress(OSError, orjson.JSONDecodeError):
                found = orjson.loads(path.read_bytes())
                if isinstance(found, dict):
                    self.by_game = {
                        str(game): float(seconds)
                        for game, seconds in found.items()
                        if isinstance(seconds, int | float) and 0 <= seconds <= LONGEST_CLOCK
                    }

    def set(self, game: str, seconds: float) -> None:
        with self.lock:
            self.by_game[game] = seconds
            if self.library is not None:
                with self.library.library() as library:
                    library.set_setting(f"clock:{game}", repr(float(seconds)))
            elif self.path is not None:
                self._save()

    def of(self, game: str) -> float:
        if self.library is not None:
            with self.library.library() as library:
                stored = library.setting(f"clock:{game}")
            with contextlib.suppress(TypeError, ValueError):
                return float(stored)
            return self.default
        with self.lock:
            return self.by_game.get(game, self.default)

    def _save(self) -> None:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=self.path.parent, prefix=".clocks-")
        with os.fdopen(fd, "wb") as out:
            out.write(orjson.dumps(self.by_game, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, self.path)


def now() -> datetime:
    """The server's clock (freezegun sets it in the tests)."""
    return datetime.now(UTC)


def clock_object(times: TableTimes, seconds: float, at: datetime) -> dict[str, Any] | None:
    """The clock as the pages and the API give it: who is on the clock, since when, until when,
    and how many seconds are left at `at` (negative: it ran out). None without a clock."""
    if not seconds:
        return None
    left = seconds_left(times.turn, seconds, at.timestamp())
    since = None if times.turn.since is None else datetime.fromtimestamp(times.turn.since, UTC)
    return {
        "seconds": seconds,
        "player": times.turn.player,
        "since": None if since is None else since.isoformat(),
        "ends": None if since is None else (since + timedelta(seconds=seconds)).isoformat(),
        "left": None if left is None else round(left, 3),
        "ran_out": left is not None and left <= 0,
    }


def ran_out_note(player: str, seconds: float, host: str = "the host") -> str:
    """The note written after a bot's move for a player whose clock ran out."""
    return f"The clock ran out for {player} ({duration_text(seconds)}); {host} let a bot make that move."
