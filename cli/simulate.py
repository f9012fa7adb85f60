"""`we simulate`: complete bot games from a seed (service.simulate), saved as logs and in a
library, with a summary or the fairness report (wecore.stats' one Tally).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from cli.batch import collector_settled_for_a_batch
from cli.exits import CommandFailed
from cli.house_rules import house_rule_options, options_from_flags, pop_house_rule_flags
from cli.opening import connect_library
from cli.outputs import refuse_unsafe_output
from cli.params import LibraryParam
from eventstore.envelope import GAME_ID_MAX
from eventstore.libraries import LibraryRef, library_name
from service.library import store_played
from service.simulate import (
    BOT_NAMES,
    bot_figures,
    house_rules_refusal,
    seed_slug,
    sim_game_id,
    simulate_games,
)
from wecore.dealing import DEFAULT_NAMES
from wecore.errors import shown
from wecore.stats import Tally

MIN_PLAYERS, MAX_PLAYERS = 3, 7


class _NoProgress:
    """The progress bar where stderr is not a terminal, where rich's would draw nothing: so
    rich.progress is not even loaded (about 17M instructions of every piped simulation)."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: int) -> int:
        return 0

    def advance(self, task: int) -> None:
        return None


def _progress(total: int):  # type: ignore[no-untyped-def]
    if not sys.stderr.isatty():
        return _NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from cli.render import error_console

    return Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=error_console(),
        transient=True,
        disable=not sys.stderr.isatty(),
    )


def print_summary(
    tally: Tally, players: Sequence[str], bots: Sequence[str], seed: str, where: list[str]
) -> None:
    """Wins by seat and by bot, and the average scores (`bots`: the bot at each seat)."""
    from rich.table import Table

    from cli.render import console, print_table
    from cli.stats_report import wins_text

    out = console()
    bot_names = sorted(set(bots), key=bots.index)
    out.print(
        f"Simulated {tally.games} game{'s' if tally.games != 1 else ''} of {len(players)} players "
        f"from seed {shown(seed)} ({', '.join(bot_names)} bot{'s' if len(bot_names) > 1 else ''}); "
        + "; ".join(where)
        + "."
    )
    by_seat = Table(title="By seat", title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (
        ("seat", "right"),
        ("player", "left"),
        ("bot", "left"),
        ("wins", "right"),
        ("win rate", "right"),
        ("mean score", "right"),
    ):
        by_seat.add_column(name, justify=justify)  # type: ignore[arg-type]
    seats = tally.listed_seats()
    for seat, player in zip(seats, players, strict=True):
        by_seat.add_row(
            str(seat.key),
            player,
            bots[seat.key - 1],
            wins_text(seat.wins),
            f"{seat.win_rate:.0%}",
            f"{seat.mean_score:.1f}",
        )
    print_table(by_seat)
    by_bot = Table(title="By bot", title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("bot", "left"), ("seats", "right"), ("wins", "right"), ("mean score", "right")):
        by_bot.add_column(name, justify=justify)  # type: ignore[arg-type]
    for figures in bot_figures(tally, bots):
        by_bot.add_row(figures.bot, str(figures.seats), wins_text(figures.wins), f"{figures.mean_score:.1f}")
    print_table(by_bot)
    if tally.ties_shared:
        tied = tally.ties_shared
        out.print(
            f"{tied} game{'s' if tied != 1 else ''} ended in a tie; the tied winners share the win"
            " (bots give no speeches)."
        )


@click.command()
@click.option(
    "--players",
    "-n",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=5,
    show_default=True,
    help="Players per game.",
)
@click.option(
    "--games", "-k", "count", type=click.IntRange(min=1), default=1, show_default=True, help="How many games."
)
@click.option(
    "--seed",
    "-s",
    default="0",
    show_default=True,
    help="Any text; the same seed plays and writes the same games, byte for byte.",
)
@click.option(
    "--bot",
    "bots",
    type=click.Choice(BOT_NAMES),
    multiple=True,
    default=("random",),
    show_default=True,
    help="Bot to seat; repeat to mix bots, seated in turn (--bot greedy --bot random).",
)
@click.option(
    "--out",
    "-o",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for the logs, one DIR/<game-id>.jsonl per game (created if missing).",
)
@click.option(
    "--db",
    "db_path",
    type=LibraryParam(),
    default=None,
    help="Also (or instead) store the games in this library (a SQLite file or a postgresql:// URL).",
)
@click.option("--force", is_flag=True, help="Overwrite logs already in DIR, and the --plot FILE.")
@click.option(
    "--report",
    is_flag=True,
    help="Print the fairness report of the games played (as `we stats --fairness`) instead of the summary.",
)
@click.option("--json", "as_json", is_flag=True, help="With --report: the report as one JSON object.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="With --report: draw the win rates to FILE (.png or .svg, 8 x 5 inches); needs matplotlib.",
)
@house_rule_options("House rule: ")
def simulate(
    players: int,
    count: int,
    seed: str,
    bots: tuple[str, ...],
    out_dir: Path | None,
    db_path: LibraryRef | None,
    force: bool,
    report: bool,
    as_json: bool,
    plot: Path | None,
    **flags: Any,
) -> None:
    """Play complete bot games from a seed and save their logs.

    Game i (1 to K) is dealt and played from the seed "SEED-i" and gets the id sim-SEED-i (in
    the id the seed is lower case, anything but a-z 0-9 becoming "-").
    Nothing depends on the clock: the `at` of event n of game i is 2011-12-24T18:00:00Z
    plus i - 1 hours plus n seconds, so the same options write byte-identical logs anywhere.
    Prints the wins by seat and by bot and the average scores; with --report, the fairness
    report instead (the same games with or without --out, so its figures can be recomputed
    from the logs).
    """
    if (as_json or plot is not None) and not report:
        raise click.UsageError("--json and --plot go with --report")
    if out_dir is None and db_path is None and not report:
        raise click.UsageError(
            "say where the games go: --out DIR or --db PATH (or both), or ask for --report"
        )
    if report:
        from cli.stats_report import check_plot_target

        check_plot_target(plot, force, inputs=[db_path if isinstance(db_path, Path) else None])
    if not seed_slug(seed):
        raise click.BadParameter("the seed needs a letter or digit to name the games", param_hint="--seed")
    if len(sim_game_id(seed, count)) > GAME_ID_MAX:
        raise click.BadParameter(
            f"too long: game ids (sim-SEED-N) have at most {GAME_ID_MAX} characters", param_hint="--seed"
        )
    options = options_from_flags(pop_house_rule_flags(flags), players)
    if options and (refusal := house_rules_refusal(options, players)) is not None:
        raise click.UsageError(refusal)
    seat_bots = tuple(bots[seat % len(bots)] for seat in range(players))
    paths: list[Path] = []
    if out_dir is not None:
        if out_dir.exists() and not out_dir.is_dir():
            raise CommandFailed(f"{out_dir} is not a directory")
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where a directory on the way should be, no permission
            raise CommandFailed(f"cannot create the directory {out_dir}: {exc.strerror or exc}") from None
        paths = [out_dir / f"{sim_game_id(seed, i)}.jsonl" for i in range(1, count + 1)]
        for path in paths:
            # --force replaces earlier logs, never the library, a FIFO, a device or a link.
            refuse_unsafe_output(
                path, force, inputs=[db_path], exists=f"{path} already exists; use --force to overwrite"
            )
    library = connect_library(db_path) if db_path is not None else None
    tally = Tally()
    with (
        collector_settled_for_a_batch(),
        _progress(count) as progress,
        library if library is not None else _nothing(),
    ):
        task = progress.add_task("simulating", total=count)
        for game in simulate_games(seed, players, count, seat_bots, options):
            if paths:
                paths[game.index - 1].write_bytes(b"".join(e.to_line() for e in game.envelopes))
            if library is not None:
                store_played(library, game.game_id, game.envelopes, game.state)
            tally.add(game.record)
            progress.advance(task)
    where = []
    if out_dir is not None:
        where.append(f"logs in {out_dir}")
    if db_path is not None:
        where.append(f"stored in {library_name(db_path)}")
    if report:
        from cli.stats_report import emit_fairness

        bot_names = ", ".join(sorted(set(seat_bots), key=seat_bots.index))
        source = f"simulated from seed {shown(seed)} ({players} players, {bot_names} bot)"
        if options:
            from wecore.narrate import house_rules_text

            source += f" with house rules: {house_rules_text(options)}"
        source += "".join(f"; {place}" for place in where)
        emit_fairness(tally.fairness(), source, as_json, plot)
        return
    print_summary(tally, DEFAULT_NAMES[:players], seat_bots, seed, where)


@contextmanager
def _nothing() -> Iterator[None]:
    yield
