"""The docs site's strength page (docs/explanation/strength.md), written from a ladder run's own
figures (`bench.py --ladder --write-docs`): the prose is this template's, every number the run's,
with the machine, its load and the date. Nothing on it is typed by hand."""

from __future__ import annotations

import shlex
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from speed_page import cell, load_text

INTRO = """\
How strong the bots are against each other. `python tests/bench/bench.py --ladder
[--ladder-games N] [--iterations N] [--ladder-default-games N] [--jobs N] [--write-docs [PAGE]]`
seats the bot under test once among three others (its seat going round the table from game to
game) in 4-player games, and gives its win share (a k-way tie counts 1/k) with a 95% Wilson
interval, and the search bot's time per move (wall clock, and CPU time of its process). Every
game is folded by the audit's checker as it is played. Every game is dealt and played from its
seed, so the win shares are the same on any machine under any load; the times are not."""

WIN_SHARES = """\
The search bot decides from what its seat has seen and nothing else, and so does the greedy
bot (both are held to it by `tests/core/test_search.py`). The search bot's playouts assume
greedy players at every other seat: against random players that model of the table is wrong,
so its win share there measures its search against players it does not expect."""

MOVE_TIMES = """\
Time per move of the search bot, over its moves with more than one choice (the ones it
searches; a move with one choice costs nothing). CPU time counts the bot's own work only; the
wall clock counts whatever else the machine ran meanwhile (see the load above). `we simulate`
and `we serve` seat it at its default playouts."""

ANALYSIS = """\
With `--policy ismcts` every seat of every rollout of `we analyse` plays the search bot (at 4
playouts a move), so a move is valued against players who look ahead rather than against greedy
ones. Two samples analysed at the defaults (`--rollouts 100 --margin 2`) with each policy, in
the analysis's own words, with the CPU time of its processes:"""


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def strength_page(run: Any, header: Sequence[str], argv: Sequence[str], when: datetime | None = None) -> str:
    """The page for a ladder run (ladder.LadderRun)."""
    when = when or datetime.now(UTC)
    out = [
        "# Strength: the bots' ladder",
        "",
        "*Written by `python tests/bench/bench.py --ladder --write-docs` on "
        f"{when:%Y-%m-%d %H:%M} UTC; do not edit by hand: run it again.*",
        "",
        INTRO,
        "",
        f"Command: `{shlex.join(['python', 'tests/bench/bench.py', *argv])}`",
        "",
        "## Machine and load",
        "",
        *[f"- {line.strip()}" for line in header],
        f"- processes: {run.jobs}",
        f"- load average (1 / 5 / 15 min) before the ladder: {load_text(run.load_before)}",
        f"- load average (1 / 5 / 15 min) after it: {load_text(run.load_after)}",
        "",
        "## Win shares",
        "",
        "| match-up | ismcts playouts a move | games | win share | 95% Wilson | equal share |",
        "|---|---|---|---|---|---|",
    ]
    for result in run.results:
        matchup = result.matchup
        low, high = result.interval
        playouts = f"{matchup.iterations}" if "ismcts" in (matchup.tested, matchup.field_bot) else ""
        share = f"{result.share:.1%}"
        cells = (
            f"{matchup.tested} vs 3 {matchup.field_bot}",
            playouts,
            f"{result.tally.games:,}",
            f"**{share}**" if result.above_equal_share else share,
            f"{low:.1%} to {high:.1%}",
            "25%",
        )
        out.append("| " + " | ".join(cell(c) for c in cells) + " |")
    broken = sum(result.tally.problems for result in run.results)
    out += [
        "",
        "In bold: a win share whose whole interval lies above the equal share."
        + (f" **{broken} games broke the rules.**" if broken else " Every game followed the rules."),
        "",
        WIN_SHARES,
        "",
    ]
    timed = [result for result in run.results if result.tally.searched_times]
    if timed:
        out += [
            "## Time per move",
            "",
            MOVE_TIMES,
            "",
            "| match-up | ismcts playouts a move | moves searched | CPU median | CPU p99 | wall median"
            " | wall p99 |",
            "|---|---|---|---|---|---|---|",
        ]
        for result in timed:
            tally, matchup = result.tally, result.matchup
            cells = (
                f"{matchup.tested} vs 3 {matchup.field_bot}",
                f"{matchup.iterations}",
                f"{len(tally.searched_times):,}",
                _ms(statistics.median(tally.searched_cpu)),
                _ms(_p99(tally.searched_cpu)),
                _ms(statistics.median(tally.searched_times)),
                _ms(_p99(tally.searched_times)),
            )
            out.append("| " + " | ".join(cell(c) for c in cells) + " |")
        out.append("")
    if run.analyses:
        out += ["## The search bot as the analysis's rollout policy", "", ANALYSIS, ""]
        for sample in dict.fromkeys(analysis.sample for analysis in run.analyses):
            out += [f"### `{sample}`", ""]
            for analysis in (a for a in run.analyses if a.sample == sample):
                out += [
                    f"With {analysis.policy} rollouts, {analysis.cpu_seconds:.1f} s of CPU"
                    f" ({analysis.wall_seconds:.1f} s wall clock): {cell(analysis.summary)}",
                    "",
                    *[f"{rank}. {cell(swing)}" for rank, swing in enumerate(analysis.swings, start=1)],
                    "",
                ]
    return "\n".join(out).rstrip("\n") + "\n"
