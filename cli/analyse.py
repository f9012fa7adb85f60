"""`we analyse GAME`: the pivotal decisions of a night, valued by rollouts (wecore.analysis).

This module parses, spreads the rollouts over processes and renders; the values come from
`wecore.analysis`, where each rollout's draws depend only on (seed, decision, index), so the
output is the same to the byte with any --jobs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from cli.batch import worker_count
from cli.exits import CommandFailed
from cli.opening import read_game, require_valid, resolve_game
from cli.params import FILE_NAME, db_option, jobs_option
from cli.terminal import echo_json
from wecore.analysis import DEFAULT_MARGIN
from wecore.errors import shown
from wecore.levels import BOTS

DEFAULT_ROLLOUTS = 100
DEFAULT_TOP = 5
DEFAULT_JOBS = 0
# Fewer decisions than this are valued in the process itself: starting workers and folding
# the log in each costs more than a handful of decisions.
MIN_DECISIONS_TO_SHARE = 8


def decision_points_of(lines: Sequence[dict[str, Any]]) -> list[Any]:
    from wecore.analysis import decision_points
    from wecore.events import parse_event

    return decision_points(parse_event(line["type"], line["data"]) for line in lines)


# Worker processes fold the log once, then value decisions by their index: a position's state
# (with its mapping proxies) does not travel between processes, one integer does.
_worker_points: list[Any] = []


def _start_worker(lines: list[dict[str, Any]]) -> None:
    global _worker_points
    _worker_points = decision_points_of(lines)


def _decision_task(task: tuple[int, str, str, Any]) -> Any:
    from wecore.analysis import value_decision

    decision, policy, seed, race = task
    return value_decision(_worker_points[decision], policy, seed, race)


def run_analysis(
    lines: list[dict[str, Any]],
    policy: str,
    count: int,
    seed: str,
    jobs: int,
    advance: Callable[[int], None] | None = None,
    points: list[Any] | None = None,
    margin: float = DEFAULT_MARGIN,
) -> tuple[list[Any], list[Any]]:
    """(decision points, decisions) of a log's parsed lines, the decisions spread over `jobs`
    processes; each alternative races to at most `count` rollouts (all `count` at margin 0)."""
    from wecore.analysis import Race, value_decision

    if points is None:
        points = decision_points_of(lines)
    race = Race(most=count, margin=margin)
    decisions: list[Any] = []
    jobs = worker_count(jobs, len(points))
    if jobs <= 1 or len(points) < MIN_DECISIONS_TO_SHARE:
        for point in points:
            decisions.append(value_decision(point, policy, seed, race))
            if advance is not None:
                advance(1)
        return points, decisions
    from cli.batch import worker_pool

    tasks = [(d, policy, seed, race) for d in range(len(points))]
    with worker_pool(jobs, _start_worker, (lines,)) as pool:
        for decision in pool.map(_decision_task, tasks, chunksize=1):
            decisions.append(decision)
            if advance is not None:
                advance(1)
    return points, decisions


def analyse_with_progress(
    lines: list[dict[str, Any]], policy: str, count: int, seed: str, jobs: int, margin: float = DEFAULT_MARGIN
) -> tuple[list[Any], list[Any]]:
    """run_analysis with a rich progress bar on stderr when it is a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from cli.render import error_console

    points = decision_points_of(lines)
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
        return run_analysis(
            lines, policy, count, seed, jobs, lambda n: progress.advance(task, n), points, margin
        )


def load_lines(game: str, db_path: Path | None) -> tuple[Any, list[dict[str, Any]]]:
    report = require_valid(read_game(resolve_game(game, db_path), keep_lines=True))
    if not report.lines:
        raise CommandFailed(f"{game}: the log has no events")
    return report, report.lines


@click.command()
@click.argument("game", metavar="GAME", type=FILE_NAME)
@click.option(
    "--policy",
    type=click.Choice(sorted(BOTS)),
    default="greedy",
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
@click.option("--seed", "-s", default="0", show_default=True, help="Any text; same seed, same output.")
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
    report, lines = load_lines(game, db_path)
    _, decisions = analyse_with_progress(lines, policy, count, seed, jobs, margin)
    if as_json:
        from wecore.analysis import decision_object

        data = {
            "game": report.game,
            "policy": policy,
            "rollouts": count,
            "margin": margin,
            "seed": seed,
            "decisions": [decision_object(d) for d in decisions],
        }
        echo_json(data)
        return
    _tell(report.game, decisions, policy, count, seed, top)


def _tell(game: str | None, decisions: Sequence[Any], policy: str, count: int, seed: str, top: int) -> None:
    from rich.table import Table

    from cli.render import console, print_table
    from wecore.analysis import describe_move, pivotal, sentence

    out = console()
    choices = [d for d in decisions if not d.forced]
    out.print(
        f"{game}: {len(decisions)} moves, {len(choices)} of them with a choice; each alternative played"
        f" out by the {policy} bot until told apart from the best, at most {count} times"
        f" (seed {shown(seed)}; {sum(a.rollouts for d in decisions for a in d.alternatives):,} games in all)."
    )
    chosen = pivotal(decisions, top)
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
        out.print(f"{rank}. [event {decision.seq}] {sentence(decision)}", markup=False)
        table = Table(show_edge=False, pad_edge=False)
        for name, justify in (
            ("move", "left"),
            ("mean score", "right"),
            ("95% interval", "right"),
            ("win chance", "right"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        ranked = sorted(enumerate(decision.alternatives), key=lambda pair: (-pair[1].mean, pair[0]))
        for index, alternative in ranked:
            mark = " (played)" if index == decision.played else ""
            table.add_row(
                describe_move(alternative.move) + mark,
                f"{alternative.mean:.1f}",
                f"{alternative.low:.1f} to {alternative.high:.1f}",
                f"{alternative.win_chance:.0%} ({alternative.win_low:.0%} to {alternative.win_high:.0%})",
            )
        print_table(table)
    out.print()
    out.print("Win chances count a tie as a shared win; intervals are 95%.")


def page_analysis(decisions: Sequence[Any], policy: str, count: int, seed: str, top: int) -> dict[str, Any]:
    """What the replay page shows: every decision with a choice, by seq, the pivotal ones ranked."""
    from wecore.analysis import describe_move, pivotal, sentence

    ranks = {decision.seq: rank for rank, decision in enumerate(pivotal(decisions, top), start=1)}
    shown = {}
    for decision in decisions:
        if decision.forced:
            continue
        shown[str(decision.seq)] = {
            "rank": ranks.get(decision.seq),
            "sentence": sentence(decision),
            "swing": decision.swing,
            "swing_margin": decision.swing_margin,
            "alternatives": [
                {
                    "text": describe_move(alternative.move),
                    "mean": alternative.mean,
                    "low": alternative.low,
                    "high": alternative.high,
                    "win_chance": alternative.win_chance,
                    "win_text": f"{alternative.win_chance:.0%}",
                    "played": index == decision.played,
                    "best": index == decision.best,
                }
                for index, alternative in sorted(
                    enumerate(decision.alternatives), key=lambda pair: (-pair[1].mean, pair[0])
                )
            ],
        }
    return {"policy": policy, "rollouts": count, "seed": seed, "top": top, "decisions": shown}
