"""`we stats`: what the library's games say, per player and per seat, and (through
cli.stats_report) the fairness report, evenings and two players head to head.

The figures are service.library's over wecore.stats' one Tally; this module parses the
options and renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from cli.exits import CommandFailed
from cli.opening import connect_library, library_exists, read_game
from cli.params import db_option, library_path
from cli.terminal import echo, echo_json, one_line
from eventstore.errors import StoreError
from eventstore.libraries import LibraryRef, library_name

if TYPE_CHECKING:
    from service.library import LibraryFigures


def library_figures(db: LibraryRef) -> LibraryFigures:
    """Fold every game in the library; only valid, finished games count."""
    from service.library import library_figures as figures_of

    with connect_library(db, read_only=True) as library:
        rows = library.games()
    return figures_of(rows, db, read_game)


@click.command()
@click.option(
    "--fairness",
    is_flag=True,
    help="Win rates by seat, gift list and player count, and a test of equal seats.",
)
@click.option(
    "--by",
    "group_by",
    type=click.Choice(["evening"]),
    default=None,
    help="Games grouped by evening (the local date of their first event): games, winners, scores.",
)
@click.option(
    "--versus",
    nargs=2,
    metavar="NAME NAME",
    default=None,
    help="Two players head to head: the games both played, wins each, mean score difference.",
)
@click.option(
    "--ratings",
    is_flag=True,
    help="Each player's rating (openskill's Plackett-Luce: mu, sigma and the ordinal mu - 3 sigma) over"
    " the games in the order played; also written to the library's ratings table.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="With --fairness, --by, --versus or --ratings: one JSON object."
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Draw it to FILE (.png or .svg, 8 x 5 inches): win rates with --fairness, scores over the"
    " evenings with --by evening or --versus. Needs matplotlib (python -m pip install '.[plots]'"
    " in a clone of we).",
)
@click.option("--force", is_flag=True, help="Replace the --plot FILE if it exists.")
@db_option
def stats(
    fairness: bool,
    group_by: str | None,
    versus: tuple[str, str] | None,
    ratings: bool,
    as_json: bool,
    plot: Path | None,
    force: bool,
    db_path: LibraryRef | None,
) -> None:
    """Per-player results across the library: games, wins, win rate, average score; wins by seat.

    A seat is the game's: seat 1 is left of the dealer (who starts party 1), the last seat the
    dealer, here and in --fairness alike.

    Only finished games that pass the audit count. A tie nobody broke is a shared win, in every
    mode: half a win each for a tie of two, a third each for three; a tie_broken event gives
    the whole win to the player it names. Names are matched as in the logs:
    case-insensitively, after Unicode NFC.
    """
    chosen = (("--fairness", fairness), ("--by", group_by), ("--versus", versus), ("--ratings", ratings))
    modes = [name for name, on in chosen if on]
    if len(modes) > 1:
        raise click.UsageError(f"choose one of {' and '.join(modes)}")
    if (as_json or plot is not None) and not modes:
        raise click.UsageError("--json and --plot go with --fairness, --by evening, --versus or --ratings")
    if plot is not None and ratings:
        raise click.UsageError("--plot goes with --fairness, --by evening or --versus")
    if plot is not None:
        from cli.stats_report import check_plot_target

        check_plot_target(plot, force, inputs=[library_path(db_path)])
    if modes:
        db = library_path(db_path)
        if not library_exists(db):
            raise CommandFailed(f"there is no library at {library_name(db)} yet (add games with `we import`)")
        result = library_figures(db)
        from cli import stats_report

        if ratings:
            _ratings(db, result, as_json)
        elif fairness:
            where = f"in the library {library_name(db)}"
            stats_report.emit_fairness(result.tally.fairness(), where, as_json, plot)
        elif versus is not None:
            stats_report.emit_versus(result.records, versus, as_json, plot)
        else:
            stats_report.emit_evenings(result.records, as_json, plot)
        _not_counted(result, err=True)
        return
    _overall(db_path)


def _ratings(db: LibraryRef, result: LibraryFigures, as_json: bool) -> None:
    from service.library import library_ratings, write_ratings
    from service.ratings import ratings_json

    table = library_ratings(result)
    if as_json:
        echo_json(ratings_json(table, result.counted))
    elif not table:
        echo(f"No finished games to rate in the library {library_name(db)}.")
    else:
        from cli.render import ratings_table
        from wecore.wording import counted

        ratings_table(table, f"Ratings over {counted(result.counted, 'finished game')}")
    try:
        with connect_library(db) as library:
            write_ratings(library, table)
    except StoreError as exc:  # a library this user may only read: the ratings are said, not kept
        echo(f"we: the ratings table was not written: {one_line(str(exc))}", err=True)


def _not_counted(result: LibraryFigures, err: bool) -> None:
    if result.unfinished:
        echo(f"Not counted, not over yet: {', '.join(result.unfinished)}.", err=err)
    if result.invalid:
        echo(f"Not counted, failed the audit (see `we audit`): {', '.join(result.invalid)}.", err=err)


def _overall(db_path: LibraryRef | None) -> None:
    from rich.table import Table

    from cli.render import print_table
    from cli.stats_report import wins_text
    from service.clock import think_text

    db = library_path(db_path)
    if not library_exists(db):
        echo(f"No games: there is no library at {library_name(db)} yet (add games with `we import`).")
        return
    result = library_figures(db)
    if not result.counted:
        echo(f"No finished games in the library {library_name(db)}.")
    else:
        table = Table(title="By player", title_justify="left", show_edge=False, pad_edge=False)
        for name, justify in (
            ("player", "left"),
            ("games", "right"),
            ("wins", "right"),
            ("win rate", "right"),
            ("mean score", "right"),
            ("think per move", "right"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for entry in result.tally.standings():
            table.add_row(
                one_line(entry.key),
                str(entry.games),
                wins_text(entry.wins),
                f"{entry.win_rate:.0%}",
                f"{entry.mean_score:.1f}",
                think_text(result.think.get(entry.key)),
            )
        print_table(table)
        seats = Table(
            title="By seat (1 = left of the dealer, who starts party 1)",
            title_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        for name in ("seat", "games", "wins", "win rate"):
            seats.add_column(name, justify="right")
        for seat in result.tally.table_seats():
            seats.add_row(str(seat.key), str(seat.games), wins_text(seat.wins), f"{seat.win_rate:.0%}")
        print_table(seats)
        echo(f"{result.counted} finished game{'s' if result.counted != 1 else ''} counted.")
        if result.tally.ties_shared:
            shared = result.tally.ties_shared
            echo(
                f"{shared} game{'s' if shared != 1 else ''} ended in a tie nobody broke: a shared win"
                " (half a win each for a tie of two)."
            )
    _not_counted(result, err=False)
