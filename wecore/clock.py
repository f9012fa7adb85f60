"""Time at the table, read from the log's `at`s: when the player to move was given the turn,
how long they have left on a table clock, and how long each player thought over their moves.

A turn starts at the `at` of the last event that changed whose turn it is (who is to move, in
which phase and party); a note changes nothing, so it does not restart the count, and neither
does a gift brought unseen (no card in the log: it is put down with an open, or from a phone
where no attics were dealt). Pure: the
`at`s are data, and "now" is the caller's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wecore.events import AnyEvent, FinalSwap, GiftBrought, GiftOpened, GiftStolen, Note, SwapAfterOpen
from wecore.reducer import evolve
from wecore.rules import brought_with_first_open
from wecore.state import INITIAL_STATE, GameState

# The moves a player makes on their own turn: what a table clock times.
TIMED_MOVES = (GiftOpened, GiftStolen, SwapAfterOpen, FinalSwap)


def on_the_clock(state: GameState) -> str | None:
    """Who alone is to move: the player to move, or the starter who opens a party's first gift
    while the others' gifts go down unseen with it (no dealt attics)."""
    if state.player_to_move is None and brought_with_first_open(state):
        return state.starter_name
    return state.player_to_move


def whose_turn(state: GameState) -> tuple[object, ...]:
    """What a turn is: who is to move, in which phase of which party."""
    return (on_the_clock(state), state.phase, state.party)


def moment(at: str | None) -> float | None:
    """An `at` (RFC 3339 UTC, `Z`, fractional seconds allowed) as seconds since 1970 UTC; None
    when the log has none, or one that cannot be read. Read by hand, as plain arithmetic: the
    core loads no clock module (tests/core/test_isolation.py)."""
    if not at or len(at) < 20 or at[-1] not in "Zz" or at[4] != "-" or at[7] != "-" or at[10] not in "Tt":
        return None
    if at[13] != ":" or at[16] != ":":
        return None
    try:
        year, month, day = int(at[0:4]), int(at[5:7]), int(at[8:10])
        hour, minute, second = int(at[11:13]), int(at[14:16]), int(at[17:19])
        fraction = float("0" + at[19:-1]) if len(at) > 20 else 0.0
    except ValueError:
        return None
    if len(at) > 20 and at[19] != ".":
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    return _days_since_1970(year, month, day) * 86400.0 + hour * 3600 + minute * 60 + second + fraction


def _days_since_1970(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
    days_from_civil)."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_era_days - 719468


@dataclass(frozen=True)
class Turn:
    """The turn as the log stands: who is to move (None: nobody alone, as while gifts are
    brought, or the game is over) and since when."""

    player: str | None
    since: float | None  # seconds since 1970 UTC


@dataclass
class ThinkTime:
    """One player's moves made on their turn, and the seconds they took over them."""

    player: str
    moves: int = 0
    seconds: float = 0.0
    longest: float = 0.0

    @property
    def mean(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0


@dataclass
class TableTimes:
    """The log folded for time: the current turn, and every player's think time."""

    state: GameState
    turn: Turn
    think: dict[str, ThinkTime]


def table_times(
    events: Iterable[tuple[AnyEvent, str | None]], state: GameState = INITIAL_STATE
) -> TableTimes:
    """Fold `(event, at)` pairs, in log order. A move counts for the player who made it on
    their turn, from that turn's start to its own `at`."""
    think: dict[str, ThinkTime] = {}
    since: float | None = None
    for event, at in events:
        before, state = state, evolve(state, event)
        when = moment(at)
        if isinstance(event, Note) or (isinstance(event, GiftBrought) and event.card is None):
            # A remark, or a gift put down unseen (written with the open it comes with, or by a
            # phone without dealt attics): neither gives anyone the turn.
            continue
        player = getattr(event, "player", None)
        if (
            isinstance(event, TIMED_MOVES)
            and player is not None
            and player == on_the_clock(before)
            and since is not None
            and when is not None
        ):
            seconds = max(0.0, when - since)
            times = think.setdefault(player, ThinkTime(player))
            times.moves += 1
            times.seconds += seconds
            times.longest = max(times.longest, seconds)
        if whose_turn(state) != whose_turn(before) or since is None:
            since = when
    for name in state.players:
        think.setdefault(name, ThinkTime(name))
    ordered = {name: think[name] for name in state.players}
    player = on_the_clock(state)
    return TableTimes(state, Turn(player, since if player else None), ordered)


def seconds_left(turn: Turn, clock_seconds: float, now: float) -> float | None:
    """What is left of a `clock_seconds` clock for the player to move at `now` (seconds since
    1970 UTC, the caller's clock; negative once
    it ran out); None when nobody alone is to move."""
    if turn.player is None or turn.since is None:
        return None
    return clock_seconds - (now - turn.since)


def think_time_totals(games: Sequence[dict[str, ThinkTime]]) -> dict[str, ThinkTime]:
    """Many games' think times added up per player name, in order of first appearance."""
    total: dict[str, ThinkTime] = {}
    for game in games:
        for name, times in game.items():
            into = total.setdefault(name, ThinkTime(name))
            into.moves += times.moves
            into.seconds += times.seconds
            into.longest = max(into.longest, times.longest)
    return total
