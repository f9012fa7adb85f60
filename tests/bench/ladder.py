"""The bots' ladder (`bench.py --ladder`): how strong each bot is, not how fast anything runs.

Three match-ups of 4-player games, the bot under test seated once beside three others (its
seat going round the table from game to game): ismcts against three greedy bots, greedy
against three random, ismcts against three random. For each, its win share (a k-way tie counts
1/k) with a 95% Wilson interval, and the search bot's time per move (median and p99, all its
moves, and those with more than one choice, which are the ones it searches). Every game is
folded by the audit's checker as it is played.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from wecore.bots import Bot, GreedyBot, RandomBot, play_payloads
from wecore.conformance import check_events
from wecore.levels import BOTS
from wecore.moves import Move
from wecore.rng import SeededRandom
from wecore.search import DEFAULT_ITERATIONS, SearchBot
from wecore.state import GameState
from wecore.stats import wilson_interval

MATCHUPS: tuple[tuple[str, str], ...] = (("ismcts", "greedy"), ("greedy", "random"), ("ismcts", "random"))
EQUAL_SHARE = 0.25


class _Timed:
    """A bot whose choices are timed (by the clock of the process that plays it)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.all_moves: list[float] = []
        self.searched: list[float] = []
        self.searched_cpu: list[float] = []

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        started, cpu_started = time.perf_counter(), time.process_time()
        move = self.bot.choose(state, moves, rng)
        spent = time.perf_counter() - started
        self.all_moves.append(spent)
        if len(moves) > 1:
            self.searched.append(spent)
            # On a shared machine the wall clock counts other people's work too; this does not.
            self.searched_cpu.append(time.process_time() - cpu_started)
        return move


def _make(name: str, iterations: int) -> Bot:
    if name == "ismcts":
        return SearchBot(iterations=iterations)
    return {"greedy": GreedyBot, "random": RandomBot}[name]()


@dataclass
class Tally:
    games: int = 0
    wins: float = 0.0
    problems: int = 0
    move_times: list[float] = field(default_factory=list)
    searched_times: list[float] = field(default_factory=list)
    searched_cpu: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.wins += other.wins
        self.problems += other.problems
        self.move_times += other.move_times
        self.searched_times += other.searched_times
        self.searched_cpu += other.searched_cpu


def play_chunk(args: tuple[str, str, int, int, int]) -> Tally:
    """Games `first` to `last` (exclusive) of one match-up."""
    tested, field_bot, first, last, iterations = args
    tally = Tally()
    for game in range(first, last):
        seat = game % 4
        timed = _Timed(_make(tested, iterations))
        bots: list[Any] = [_make(field_bot, iterations) for _ in range(4)]
        bots[seat] = timed
        payloads, state = play_payloads(f"ladder/{tested}-v-{field_bot}/{game}", 4, bots)
        checked = check_events((n, kind, data) for n, (kind, data) in enumerate(payloads, start=1))
        tally.problems += checked.problem is not None or not state.is_over
        winners = state.winners or ()
        if state.players[seat] in winners:
            tally.wins += 1 / len(winners)
        tally.games += 1
        if tested == "ismcts":
            tally.move_times += timed.all_moves
            tally.searched_times += timed.searched
            tally.searched_cpu += timed.searched_cpu
    return tally


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_ladder(games: int, iterations: int = DEFAULT_ITERATIONS, jobs: int = 1, log: Any = print) -> int:
    """Play and print the ladder; 1 when a game broke the rules."""
    assert set(BOTS) >= {"ismcts", "greedy", "random"}
    load = os.getloadavg()
    log(f"ladder: {games} 4-player games a match-up, ismcts at {iterations} iterations a move, {jobs} jobs")
    log(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    failed = 0
    chunk = max(1, games // (jobs * 4))
    for tested, field_bot in MATCHUPS:
        started = time.perf_counter()
        pieces = [(tested, field_bot, g, min(games, g + chunk), iterations) for g in range(0, games, chunk)]
        tally = Tally()
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                for part in pool.map(play_chunk, pieces):
                    tally.add(part)
        else:
            for piece in pieces:
                tally.add(play_chunk(piece))
        low, high = wilson_interval(tally.wins, tally.games)
        share = tally.wins / tally.games
        verdict = "above" if low > EQUAL_SHARE else "not above"
        line = (
            f"{tested} vs 3 {field_bot}: won {share:.1%} of {tally.games}"
            f" (95% Wilson {low:.1%} to {high:.1%},"
            f" {verdict} the equal share 25%), {time.perf_counter() - started:.0f} s"
        )
        if tally.problems:
            line += f"; {tally.problems} games broke the rules"
            failed = 1
        log(line)
        if tally.move_times:
            log(
                f"  ismcts move time: all {len(tally.move_times)} moves median"
                f" {statistics.median(tally.move_times) * 1000:.1f} ms,"
                f" p99 {_quantile(tally.move_times, 0.99) * 1000:.0f} ms;"
                f" the {len(tally.searched_times)} searched (more than one move) median"
                f" {statistics.median(tally.searched_times) * 1000:.1f} ms,"
                f" p99 {_quantile(tally.searched_times, 0.99) * 1000:.0f} ms"
            )
            log(
                f"  the searched moves in CPU time of their process: median"
                f" {statistics.median(tally.searched_cpu) * 1000:.1f} ms,"
                f" p99 {_quantile(tally.searched_cpu, 0.99) * 1000:.0f} ms"
            )
    load = os.getloadavg()
    log(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return failed
