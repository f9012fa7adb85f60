"""The bots' ladder (`bench.py --ladder`): how strong each bot is, not how fast anything runs.

Three match-ups of 4-player games, the bot under test seated once beside three others (its
seat going round the table from game to game): ismcts against three greedy bots, greedy
against three random, ismcts against three random; optionally a fourth, the search bot at its
own default playouts against three greedy bots on the first deals of the first match-up. For
each, its win share (a k-way tie counts 1/k) with a 95% Wilson interval, and the search bot's
time per move (median and p99, all its moves, and those with more than one choice, which are
the ones it searches). Every game is folded by the audit's checker as it is played. Optionally
too, `we analyse` of two sample games with greedy and with search-bot rollouts, for the
strength page (strength_page.py writes the page from what this returns).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
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
ROOT = Path(__file__).resolve().parents[2]
# The samples analysed with each rollout policy, and the policies.
ANALYSED_SAMPLES = ("tie-5p.jsonl", "game-night-3p.jsonl")
ANALYSIS_POLICIES = ("greedy", "ismcts")


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


@dataclass(frozen=True)
class MatchUp:
    tested: str
    field_bot: str
    iterations: int  # the search bot's playouts a move, wherever it sits
    games: int


@dataclass
class MatchResult:
    matchup: MatchUp
    tally: Tally
    seconds: float  # wall clock of the whole match-up

    @property
    def share(self) -> float:
        return self.tally.wins / self.tally.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.tally.wins, self.tally.games)

    @property
    def above_equal_share(self) -> bool:
        return self.interval[0] > EQUAL_SHARE


@dataclass
class SampleAnalysis:
    """`we analyse` of one sample with one rollout policy, at its defaults."""

    sample: str
    policy: str
    cpu_seconds: float  # of the analysis's processes, whatever the load
    wall_seconds: float
    summary: str  # its first line: moves, choices, games played out in all
    swings: list[str]  # its top decisions, in its own words ("[event 48] Party 7: ...")


@dataclass
class LadderRun:
    results: list[MatchResult] = field(default_factory=list)
    analyses: list[SampleAnalysis] = field(default_factory=list)
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None
    jobs: int = 1
    failed: int = 0  # 1 when a game broke the rules or an analysis failed


def match_ups(games: int, iterations: int, default_games: int = 0) -> list[MatchUp]:
    """The three match-ups at `iterations`, and the search bot at its own default against three
    greedy bots on the first `default_games` of the same deals (none when 0, or when
    `iterations` is that default)."""
    chosen = [MatchUp(tested, field_bot, iterations, games) for tested, field_bot in MATCHUPS]
    if default_games and iterations != DEFAULT_ITERATIONS:
        chosen.append(MatchUp("ismcts", "greedy", DEFAULT_ITERATIONS, min(default_games, games)))
    return chosen


def play_match(matchup: MatchUp, jobs: int) -> MatchResult:
    started = time.perf_counter()
    games = matchup.games
    chunk = max(1, games // (jobs * 4))
    pieces = [
        (matchup.tested, matchup.field_bot, g, min(games, g + chunk), matchup.iterations)
        for g in range(0, games, chunk)
    ]
    tally = Tally()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(play_chunk, pieces):
                tally.add(part)
    else:
        for piece in pieces:
            tally.add(play_chunk(piece))
    return MatchResult(matchup, tally, time.perf_counter() - started)


def analyse_sample(sample: str, policy: str, jobs: int, top: int = 5) -> SampleAnalysis:
    """`we analyse replays/SAMPLE --policy POLICY` at its other defaults, timed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "cli.main", "analyse", str(ROOT / "replays" / sample)]
    command += ["--policy", policy, "--jobs", str(jobs), "--top", str(top)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"we analyse {sample} --policy {policy}: {done.stderr.strip()[-300:]}")
    lines = done.stdout.splitlines()
    swings = [line.split(". ", 1)[1] for line in lines if line[:1].isdigit() and ". [event " in line]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return SampleAnalysis(sample, policy, cpu, wall, lines[0] if lines else "", swings)


def run_ladder(
    games: int,
    iterations: int = DEFAULT_ITERATIONS,
    jobs: int = 1,
    log: Any = print,
    default_games: int = 0,
    analyses: bool = False,
) -> LadderRun:
    """Play and print the ladder (and, with `analyses`, analyse the samples with each policy)."""
    assert set(BOTS) >= {"ismcts", "greedy", "random"}
    run = LadderRun(jobs=jobs, load_before=os.getloadavg())
    load = run.load_before
    log(f"ladder: {games} 4-player games a match-up, ismcts at {iterations} iterations a move, {jobs} jobs")
    log(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    for matchup in match_ups(games, iterations, default_games):
        result = play_match(matchup, jobs)
        run.results.append(result)
        tally = result.tally
        low, high = result.interval
        verdict = "above" if result.above_equal_share else "not above"
        at = f" (at {matchup.iterations} iterations)" if matchup.iterations != iterations else ""
        line = (
            f"{matchup.tested} vs 3 {matchup.field_bot}{at}: won {result.share:.1%} of {tally.games}"
            f" (95% Wilson {low:.1%} to {high:.1%},"
            f" {verdict} the equal share 25%), {result.seconds:.0f} s"
        )
        if tally.problems:
            line += f"; {tally.problems} games broke the rules"
            run.failed = 1
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
    if analyses:
        for sample in ANALYSED_SAMPLES:
            for policy in ANALYSIS_POLICIES:
                try:
                    analysis = analyse_sample(sample, policy, jobs)
                except RuntimeError as error:
                    log(str(error))
                    run.failed = 1
                    continue
                run.analyses.append(analysis)
                log(f"we analyse {sample} --policy {policy}: {analysis.cpu_seconds:.1f} s CPU")
                for swing in analysis.swings:
                    log(f"  {swing}")
    run.load_after = os.getloadavg()
    load = run.load_after
    log(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return run
