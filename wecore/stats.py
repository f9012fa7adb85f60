"""What many games say: win rates with intervals, a test of equal seats, evenings, rivals.

Plain numbers from finished games (`GameRecord`), no I/O, counted by one `Tally`. Win counts
are fractions: a tie nobody broke is a shared win (two tied winners get half a win each); a
`tie_broken` event gives the whole win to the player it names.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wecore.cards import COLOURS
from wecore.rng import SeededRandom
from wecore.state import GameState

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal
EXPECTED_FOR_CHI_SQUARE = 5  # the usual rule: below this expected count, test exactly instead
MONTE_CARLO_TABLES = 5000
MONTE_CARLO_DRAWS = 2_000_000


# --- intervals and tests ---------------------------------------------------------------


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (successes may be fractional, from shared
    wins). (0, 1) when there are no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(max(p * (1 - p), 0.0) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the upper regularized incomplete gamma function (a > 0).

    The series for x < a + 1, Lentz's continued fraction otherwise (Numerical Recipes, 6.2).
    """
    if x <= 0:
        return 1.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        for _ in range(10_000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefactor) * h)


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(X >= statistic) for X chi-square distributed with the given degrees of freedom."""
    if degrees_of_freedom <= 0:
        return 1.0
    return regularized_gamma_q(degrees_of_freedom / 2, statistic / 2)


@dataclass(frozen=True)
class SeatTest:
    test: str
    statistic: float
    p_value: float
    degrees_of_freedom: int


def chi_square_statistic(observed: Sequence[float], expected: Sequence[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)


def equal_seats_test(
    seats: Sequence[Rate], games_by_size: Mapping[int, int], seed: int | str = "equal-seats"
) -> SeatTest:
    """Does every seat win equally often? `seats`: seat 1, 2, ... with their (shared) wins and
    expected wins (1/n of each game played there); `games_by_size`: games by player count.

    Pearson's chi-square when every expected count is at least 5; otherwise a Monte Carlo
    exact test: the same statistic over random tables where each game's win goes to a seat
    drawn uniformly, from a fixed seed (so the p-value is reproducible). MONTE_CARLO_TABLES
    tables, fewer for a big library (at most MONTE_CARLO_DRAWS draws in all, at least 200).
    """
    total = sum(games_by_size.values())
    if len(seats) < 2 or not total:
        return SeatTest("none (no games)", 0.0, 1.0, 0)
    observed = [rate.wins for rate in seats]
    expected = [rate.expected for rate in seats]
    statistic = chi_square_statistic(observed, expected)
    df = len(seats) - 1
    if min(expected) >= EXPECTED_FOR_CHI_SQUARE:
        return SeatTest("chi-square", _r(statistic), chi_square_p_value(statistic, df), df)
    tables = max(200, min(MONTE_CARLO_TABLES, MONTE_CARLO_DRAWS // total))
    draw = SeededRandom(f"{seed}/{total}/{statistic:.6f}").randbelow
    sizes = sorted(games_by_size.items())
    at_least = 0
    for _ in range(tables):
        table = [0.0] * len(seats)
        for size, count in sizes:
            for _ in range(count):
                table[draw(size)] += 1
        if chi_square_statistic(table, expected) >= statistic - 1e-9:
            at_least += 1
    p_value = (at_least + 1) / (tables + 1)
    return SeatTest(f"Monte Carlo exact ({tables} tables)", _r(statistic), p_value, df)


def seat_verdict(test: SeatTest, by_seat: Sequence[Rate]) -> str:
    """The test in words: which seat, if any, wins more (or less) often than chance allows."""
    if test.degrees_of_freedom == 0:
        return "Too few games to test whether every seat wins equally often."
    p = _p_text(test.p_value)
    if test.p_value >= 0.05:
        return (
            f"No seat wins more or less often than chance allows (p = {p}, {test.test}):"
            " these games are consistent with equal seats."
        )
    level = "99.9%" if test.p_value < 0.001 else "99%" if test.p_value < 0.01 else "95%"
    fair = [(rate.win_rate - rate.expected_rate, rate) for rate in by_seat if rate.games]
    gap, seat = max(fair, key=lambda pair: abs(pair[0]))
    direction = "more" if gap > 0 else "less"
    return (
        f"Seat {seat.key} wins {direction} often than chance allows at {level}"
        f" ({seat.win_rate:.1%} against {seat.expected_rate:.1%}; p = {p}, {test.test})."
    )


def _p_text(p: float) -> str:
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


# --- games, as the statistics see them ---------------------------------------------------


def same_name(name: str) -> str:
    """Names as the logs match them: NFC, then case-folded."""
    return unicodedata.normalize("NFC", name).casefold()


def win_shares(seats: int, winners: Collection[int]) -> list[float]:
    """A game's one win, by seat as listed: whole to a lone winner (or the player a tie_broken
    event names), 1/k to each of the k winners of a tie nobody broke."""
    share = 1 / len(winners) if winners else 0.0
    return [share if seat in winners else 0.0 for seat in range(seats)]


def finishing_ranks(scores: Sequence[int], winners: Collection[int]) -> list[int]:
    """Each seat's place in a finished game (1 the best; equal places are ties), standard
    competition ranking (1, 1, 3): the winners first (one alone when a tie_broken event settled
    the tie, all who share it otherwise), then by final score, higher better."""
    keys = [(seat not in winners, -score) for seat, score in enumerate(scores)]
    return [1 + sum(other < key for other in keys) for key in keys]


@dataclass(frozen=True)
class GameRecord:
    """A finished game: everything the statistics need."""

    game: str
    players: tuple[str, ...]  # seat order as listed in game_started
    first_starter: int  # the seat that started party 1 (left of the dealer)
    lists: tuple[str, ...]  # gift lists as colour letters in colour order ("RYG"), by seat
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # the seats sharing the win; one when tie_broken settled it
    tie_broken: bool = False
    title: str | None = None
    started_at: str | None = None  # the first event's `at`
    evening: str | None = None  # the local date of the first event, YYYY-MM-DD

    def seat_wins(self) -> list[float]:
        """The win by seat as listed: 1/k to each of k sharing winners."""
        return win_shares(len(self.players), self.winners)

    def table_seat(self, seat: int) -> int:
        """The seat counted from the first party's starter: 1 is left of the dealer."""
        return (seat - self.first_starter) % len(self.players) + 1


def record_of(
    state: GameState,
    game: str,
    started_at: str | None = None,
    evening: str | None = None,
) -> GameRecord:
    """The record of a finished game from its final state."""
    from wecore.reducer import first_starter
    from wecore.scoring import score

    board = score(state)
    players = state.players
    lists = tuple("".join(c.letter for c in COLOURS if c in gift_list) for gift_list in (state.lists or ()))
    seat_of = {name: seat for seat, name in enumerate(players)}
    return GameRecord(
        game=game,
        players=players,
        first_starter=first_starter(players, state.dealer),  # type: ignore[arg-type]
        lists=lists,
        scores=tuple(entry.total for entry in board.players),
        winners=tuple(sorted(seat_of[name] for name in board.winners)),
        tie_broken=board.tie_broken_by is not None,
        title=state.title,
        started_at=started_at,
        evening=evening,
    )


# --- fairness --------------------------------------------------------------------------


@dataclass
class Rate:
    """Win rate and mean score of one group (a seat, a gift list, a player count, a player)."""

    key: Any
    games: int = 0
    wins: float = 0.0
    points: float = 0
    expected: float = 0.0  # the wins this group would have if every seat were equal

    def add(self, win: float, points: int, fair_share: float) -> None:
        self.games += 1
        self.wins += win
        self.points += points
        self.expected += fair_share

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def expected_rate(self) -> float:
        return self.expected / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.points / self.games if self.games else 0.0

    def as_dict(self, key_name: str) -> dict[str, Any]:
        low, high = wilson_interval(self.wins, self.games)
        return {
            key_name: self.key,
            "games": self.games,
            "wins": _r(self.wins),
            "win_rate": _r(self.win_rate),
            "low": _r(low),
            "high": _r(high),
            "mean_score": _r(self.mean_score),
        }


@dataclass
class Fairness:
    games: int
    by_seat: list[Rate]
    by_list: list[Rate]
    by_players: list[Rate]
    seat_tests: dict[int, SeatTest]  # per player count
    seats_by_players: dict[int, list[Rate]]
    equal_seats: SeatTest
    ties_shared: int  # games that ended in a tie nobody broke
    ties_broken: int

    def verdict(self) -> str:
        return seat_verdict(self.equal_seats, self.by_seat)

    def as_dict(self) -> dict[str, Any]:
        """The report as `--json` prints it: exactly the keys of the published shape."""
        return {
            "games": self.games,
            "by_seat": [rate.as_dict("seat") for rate in self.by_seat],
            "by_list": [rate.as_dict("list") for rate in self.by_list],
            "by_players": [rate.as_dict("players") for rate in self.by_players],
            "equal_seats": _test_dict(self.equal_seats),
        }


def _test_dict(test: SeatTest) -> dict[str, Any]:
    return {
        "test": test.test,
        "statistic": test.statistic,
        "p_value": float(f"{test.p_value:.6g}"),
    }


class Tally:
    """Wins and scores over finished games, added up one game at a time: the one count of
    wins every report reads (`we stats`, its --fairness, `we simulate` and its --report, the
    season's standings). A game's win is one: whole to a lone winner or to the player a
    `tie_broken` event names, in equal shares to the k winners of a tie nobody broke
    (GameRecord.seat_wins), so the wins of a table add up to the games played.

    Memory does not grow with the number of games (a simulation of a million games keeps a
    few dozen counters), only with the number of players and gift lists seen."""

    def __init__(self) -> None:
        self.games = 0
        self.by_seat: dict[int, Rate] = {}  # from the first party's starter: 1 left of the dealer
        self.by_listed_seat: dict[int, Rate] = {}  # as listed in game_started: 1 is the first name
        self.by_player: dict[str, Rate] = {}  # by same_name; Rate.key the spelling first seen
        self.by_list: dict[str, Rate] = {}
        self.by_players: dict[int, Rate] = {}
        self.seats_by_players: dict[int, dict[int, Rate]] = {}
        self.ties_shared = 0
        self.ties_broken = 0

    def add_result(self, players: Sequence[str], scores: Sequence[int], winners: Collection[int]) -> None:
        """A game known by its result only (`winners`: seats as listed), as a season's sealed
        game is: counted by player and by seat as listed, with the shares `add` counts."""
        fair = 1 / len(players)
        self.games += 1
        self.ties_shared += len(winners) > 1
        for seat, win in enumerate(win_shares(len(players), winners)):
            points = scores[seat]
            self.by_listed_seat.setdefault(seat + 1, Rate(seat + 1)).add(win, points, fair)
            name = players[seat]
            self.by_player.setdefault(same_name(name), Rate(name)).add(win, points, fair)

    def add(self, game: GameRecord) -> None:
        self.add_result(game.players, game.scores, game.winners)
        count = len(game.players)
        fair = 1 / count
        self.ties_broken += game.tie_broken
        per_count = self.seats_by_players.setdefault(count, {})
        # One row per game by player count: a seat's equal share of the wins (1/n) and the mean
        # score per player.
        players = self.by_players.setdefault(count, Rate(count))
        players.add(fair, sum(game.scores) / count, fair)  # type: ignore[arg-type]
        for seat, win in enumerate(game.seat_wins()):
            points = game.scores[seat]
            table_seat = game.table_seat(seat)
            self.by_seat.setdefault(table_seat, Rate(table_seat)).add(win, points, fair)
            per_count.setdefault(table_seat, Rate(table_seat)).add(win, points, fair)
            if game.lists:
                gift_list = game.lists[seat]
                self.by_list.setdefault(gift_list, Rate(gift_list)).add(win, points, fair)

    def standings(self) -> list[Rate]:
        """One row per player (games, wins, win rate, mean score), best win rate first, then
        most wins, then by name."""
        return sorted(self.by_player.values(), key=lambda r: (-r.win_rate, -r.wins, r.key))

    def listed_seats(self) -> list[Rate]:
        """By seat as listed in game_started: only for a table whose seats stay put (`we
        simulate`'s bots, one to a listed seat); `we stats` reads table_seats."""
        return [self.by_listed_seat[s] for s in sorted(self.by_listed_seat)]

    def table_seats(self) -> list[Rate]:
        """The game's seats (rules.md: party 1 starts left of the dealer): seat 1 is left of the
        dealer, the last seat the dealer. The one meaning of "seat" in `we stats`, plain and
        --fairness: a list's first name is whoever was typed first, which says nothing of play."""
        return [self.by_seat[s] for s in sorted(self.by_seat)]

    def fairness(self) -> Fairness:
        games_by_size = {count: rate.games for count, rate in self.by_players.items()}
        seats_of = {count: [per[s] for s in sorted(per)] for count, per in self.seats_by_players.items()}
        by_seat = self.table_seats()
        return Fairness(
            games=self.games,
            by_seat=by_seat,
            by_list=sorted(self.by_list.values(), key=lambda r: _list_order(r.key)),
            by_players=[self.by_players[count] for count in sorted(self.by_players)],
            seat_tests={
                count: equal_seats_test(seats, {count: games_by_size[count]})
                for count, seats in seats_of.items()
            },
            seats_by_players=seats_of,
            equal_seats=equal_seats_test(by_seat, games_by_size),
            ties_shared=self.ties_shared,
            ties_broken=self.ties_broken,
        )


def tally(games: Iterable[GameRecord]) -> Tally:
    """Every game of `games` added to a new Tally."""
    result = Tally()
    for game in games:
        result.add(game)
    return result


def standings(games: Iterable[GameRecord]) -> list[Rate]:
    """Per player over `games`: games played, wins (shared wins as shares), win rate and mean
    score, best first (Tally.standings): the table `we stats` prints."""
    return tally(games).standings()


def fairness(games: Iterable[GameRecord]) -> Fairness:
    """Win rates and mean scores by seat from the first starter, by gift list and by player
    count, and the test of equal seats (over all games, and per player count).

    By player count, `wins` and `win_rate` are a seat's equal share there (1/n): the line to
    read that count's seats against.
    """
    return tally(games).fairness()


def _list_order(letters: str) -> tuple[int, ...]:
    order = {c.letter: i for i, c in enumerate(COLOURS)}
    return tuple(order.get(letter, 9) for letter in letters)


def _r(value: float) -> float:
    return round(value + 0.0, 4)


# --- evenings, rivals, streaks -------------------------------------------------------------


@dataclass(frozen=True)
class Evening:
    date: str
    games: tuple[GameRecord, ...]
    names: Mapping[str, str] = field(default_factory=dict)  # matched name -> as first seen

    def scores_by_player(self) -> dict[str, list[int]]:
        """Each player's scores that evening, under the name they first played under."""
        scores: dict[str, list[int]] = {}
        for game in self.games:
            for name, points in zip(game.players, game.scores, strict=True):
                shown = self.names.get(same_name(name), name)
                scores.setdefault(shown, []).append(points)
        return scores


def in_order(games: Iterable[GameRecord]) -> list[GameRecord]:
    return sorted(games, key=lambda g: (g.started_at or "", g.game))


def evenings(games: Iterable[GameRecord]) -> list[Evening]:
    """Games grouped by the local date of their first event, oldest first."""
    games = in_order(games)
    grouped: dict[str, list[GameRecord]] = {}
    for game in games:
        grouped.setdefault(game.evening or "unknown", []).append(game)
    names = display_names(games)
    return [Evening(date, tuple(group), names) for date, group in sorted(grouped.items())]


def display_names(games: Iterable[GameRecord]) -> dict[str, str]:
    """Matched name -> the spelling first seen, over games in order."""
    names: dict[str, str] = {}
    for game in in_order(games):
        for name in game.players:
            names.setdefault(same_name(name), name)
    return names


def longest_streaks(games: Iterable[GameRecord]) -> dict[str, int]:
    """Each player's longest run of won games (a shared win counts), over their games in order."""
    current: dict[str, int] = {}
    best: dict[str, int] = {}
    names = display_names(games)
    for game in in_order(games):
        for seat, name in enumerate(game.players):
            key = same_name(name)
            current[key] = current.get(key, 0) + 1 if seat in game.winners else 0
            best[key] = max(best.get(key, 0), current[key])
    return {names[key]: run for key, run in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))}


@dataclass(frozen=True)
class Versus:
    first: str
    second: str
    games: tuple[GameRecord, ...]
    wins: tuple[float, float]
    ahead: tuple[int, int]  # games each finished above the other
    level: int
    mean_difference: float  # first minus second
    low: float
    high: float
    streaks: tuple[int, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "players": [self.first, self.second],
            "games": len(self.games),
            "wins": [_r(self.wins[0]), _r(self.wins[1])],
            "ahead": list(self.ahead),
            "level": self.level,
            "mean_difference": _r(self.mean_difference),
            "low": _r(self.low),
            "high": _r(self.high),
            "longest_streaks": list(self.streaks),
            "game_ids": [g.game for g in self.games],
        }


def versus(games: Iterable[GameRecord], first: str, second: str) -> Versus:
    """The games both played, wins each, who finished ahead, the mean score difference."""
    games = in_order(games)
    a, b = same_name(first), same_name(second)
    names = display_names(games)
    together = []
    wins = [0.0, 0.0]
    ahead = [0, 0]
    level = 0
    differences = []
    for game in games:
        seats = {same_name(name): seat for seat, name in enumerate(game.players)}
        if a not in seats or b not in seats:
            continue
        together.append(game)
        share = game.seat_wins()
        wins[0] += share[seats[a]]
        wins[1] += share[seats[b]]
        difference = game.scores[seats[a]] - game.scores[seats[b]]
        differences.append(difference)
        if difference > 0:
            ahead[0] += 1
        elif difference < 0:
            ahead[1] += 1
        else:
            level += 1
    mean = sum(differences) / len(differences) if differences else 0.0
    low = high = mean
    if len(differences) > 1:
        sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (len(differences) - 1))
        half = Z95 * sd / math.sqrt(len(differences))
        low, high = mean - half, mean + half
    streaks = longest_streaks(games)
    name_a, name_b = names.get(a, first), names.get(b, second)
    return Versus(
        name_a,
        name_b,
        tuple(together),
        (wins[0], wins[1]),
        (ahead[0], ahead[1]),
        level,
        mean,
        low,
        high,
        (streaks.get(name_a, 0), streaks.get(name_b, 0)),
    )
