"""The table clock and think times, read from the `at`s of a game's log (wecore.clock folds
them): the think time per player that `we stats` and `we analyse` report, and, for a served
game, the clock setting kept beside the game.

Kept apart from service/live.py (the hot path that follows a log): the clock is read from what
that path already holds, the events and their `at`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from wecore.clock import TableTimes, ThinkTime, table_times
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
