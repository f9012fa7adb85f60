"""`we analyse GAME`: the pivotal decisions of a night, valued by rollouts (service.analysis).

This module parses, spreads the decisions over worker processes (--jobs) and renders; the
values come from service.analysis, where each rollout's draws depend only on (seed, decision,
index), so the output is the same to the byte with any --jobs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli.batch import worker_count
from cli.exits import CommandFailed
from cli.opening import read_game, require_valid, resolve_game
from cli.params import FILE_NAME, db_option, jobs_option
from cli.terminal import echo_json, one_line
from service import analysis

if TYPE_CHECKING:
    from wecore.clock import ThinkTime
from service.analysis import DEFAULT_MARGIN, DEFAULT_ROLLOUTS, DEFAULT_TOP, Decision, DecisionPoint, Settings
from wecore.errors import shown

DEFAULT_JOBS = 0
# Fewer decisions than this are valued in the process itself: starting workers and folding
# the log in each costs more than a handful of decisions.
MIN_DECISIONS_TO_SHARE = 8


def run_analysis(
    lines: list[dict[str, Any]],
    settings: Settings,
    jobs: int,
    advance: Callable[[int], None] | None = None,
    points: list[DecisionPoint] | None = None,
) -> list[Decision]:
    """The decisions of a log's parsed lines (`points`, if found already), valued
    (service.analysis), spread over `jobs` worker processes."""
    if points is None:
        points = analysis.decision_points_of(lines)
    jobs = worker_count(jobs, len(points))
    if jobs <= 1 or len(points) < MIN_DECISIONS_TO_SHARE:
        return analysis.value_decisions(points, settings, advance)
    from cli.batch import worker_pool

    decisions: list[Decision] = []
    tasks = [(index, settings) for index in range(len(points))]
    with worker_pool(jobs, analysis.start_worker, (lines,)) as pool:
        for decision in pool.map(analysis.value_decision_at, tasks, chunksize=1):
            decisions.append(decision)
            if advance is not None:
                advance(1)
    return decisions


def analyse_with_progress(lines: list[dict[str, Any]], settings: Settings, jobs: int) -> list[Decision]:
    """run_analysis with a rich progress bar on stderr when it is a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from cli.render import error_console

    points = analysis.decision_points_of(lines)
    with Progress(
        TextColumn("rolling out"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("moves"),
        TimeRemainingColumn(),
        console=error_console(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task("rollouts", total=len(points))
        return run_analysis(lines, settings, jobs, lambda n: progress.advance(task, n), points)


def load_lines(game: str, db_path: Path | None) -> tuple[Any, list[dict[str, Any]]]:
    report = require_valid(read_game(resolve_game(game, db_path), keep_lines=True))
    if not report.lines:
        raise CommandFailed(f"{game}: the log has no events")
    return report, report.lines


@click.command()
@click.argument("game", metavar="GAME", type=FILE_NAME)
@click.option(
    "--policy",
    type=click.Choice(analysis.POLICIES),
    default=analysis.DEFAULT_POLICY,
    show_default=True,
    help="How every player plays the rest of the game in the rollouts.",
)
@click.option(
    "--rollouts",
    "count",
    type=click.IntRange(1, 10_000),
    default=DEFAULT_ROLLOUTS,
    show_default=True,
    help="At most this many games played out from each alternative of each decision.",
)
@click.option(
    "--margin",
    type=click.FloatRange(min=0),
    default=DEFAULT_MARGIN,
    show_default=True,
    help="Stop playing out an alternative once it is told apart from the best one, or known to "
    "within this many points of it; 0: every alternative gets all --rollouts.",
)
@click.option(
    "--seed", "-s", default=analysis.DEFAULT_SEED, show_default=True, help="Any text; same seed, same output."
)
@click.option(
    "--top",
    "top",
    type=click.IntRange(min=1),
    default=DEFAULT_TOP,
    show_default=True,
    help="How many of the decisions with the largest swings to show.",
)
@jobs_option("Processes for the rollouts; the output does not depend on it")
@click.option("--json", "as_json", is_flag=True, help="Every decision as one JSON object.")
@db_option
def analyse(
    game: str,
    policy: str,
    count: int,
    margin: float,
    seed: str,
    top: int,
    jobs: int,
    as_json: bool,
    db_path: Path | None,
) -> None:
    """Find the pivotal decisions of GAME: what each move was worth against the alternatives.

    For every move in effect in the log, each legal move its player had instead is played out
    to the end of the game, every seat following the --policy bot, with the cards nobody had
    seen yet (unseen face-down gifts, gifts still to come) drawn at random among the cards not
    seen in the log up to that move; a face-down gift the player had not seen is one move,
    "open a gift". Alternatives race: each is played out until it is told apart from the best
    one, or known to within --margin points of it, and at most --rollouts times; the move played
    stays in the race, so its swing is known to within --margin (when --rollouts allow). The
    swing of a decision is the best alternative's mean final score minus the played move's (0
    for a forced move). Intervals are 95%; win chances count a tie as a shared win.
    """
    from service.clock import times_of_lines

    report, lines = load_lines(game, db_path)
    think = times_of_lines(lines).think
    settings = Settings(policy=policy, rollouts=count, seed=seed, margin=margin)
    decisions = analyse_with_progress(lines, settings, jobs)
    if as_json:
        answer = analysis.analysis_object(report.game, settings, decisions)
        answer["think_times"] = {
            name: {"moves": t.moves, "seconds": round(t.seconds, 3), "longest": round(t.longest, 3)}
            for name, t in think.items()
        }
        echo_json(answer)
        return
    _tell(report.game, decisions, settings, top)
    _tell_think_times(think)


def _tell_think_times(think: dict[str, ThinkTime]) -> None:
    """Each player's mean think per move on their turn, from the log's `at`s."""
    from cli.render import console
    from service.clock import duration_text, think_text

    timed = [t for t in think.values() if t.moves]
    if not timed:
        return
    console().print(
        "Think time per move (from the log's times, each turn from the move that gave it): "
        + ", ".join(
            f"{one_line(t.player)} {think_text(t)} over {t.moves} (longest {duration_text(t.longest)})"
            for t in sorted(timed, key=lambda t: -t.mean)
        )
        + ".",
        markup=False,
    )


def _tell(game: str | None, decisions: Sequence[Decision], settings: Settings, top: int) -> None:
    from rich.table import Table

    from cli.render import console, print_table

    out = console()
    choices = [d for d in decisions if not d.forced]
    out.print(
        f"{game}: {len(decisions)} moves, {len(choices)} of them with a choice; each alternative played"
        f" out by the {settings.policy} bot until told apart from the best, at most {settings.rollouts} times"
        f" (seed {shown(settings.seed)}; {sum(a.rollouts for d in decisions for a in d.alternatives):,}"
        " games in all)."
    )
    chosen = analysis.pivotal_told(decisions, top)
    if not decisions:
        out.print("Nobody has made a move yet: there is nothing to analyse.")
        return
    if not chosen:
        out.print("No decision had a better alternative: every move played was the best one found.")
        return
    out.print(
        "The decision with the largest swing:"
        if len(chosen) == 1
        else f"The {len(chosen)} decisions with the largest swings:"
    )
    for rank, decision in enumerate(chosen, start=1):
        out.print()
        out.print(f"{rank}. [event {decision.decision.seq}] {decision.sentence}", markup=False)
        table = Table(show_edge=False, pad_edge=False)
        for name, justify in (
            ("move", "left"),
            ("mean score", "right"),
            ("95% interval", "right"),
            ("win chance", "right"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for one in decision.alternatives:
            alternative = one.alternative
            table.add_row(
                one.text + (" (played)" if one.played else ""),
                f"{alternative.mean:.1f}",
                f"{alternative.low:.1f} to {alternative.high:.1f}",
                f"{alternative.win_chance:.0%} ({alternative.win_low:.0%} to {alternative.win_high:.0%})",
            )
        print_table(table)
    out.print()
    out.print("Win chances count a tie as a shared win; intervals are 95%.")
