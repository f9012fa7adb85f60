"""Rendering of what many games say (service.library's figures over wecore.stats): the fairness
report, evenings, rivals, and their plots. `we stats` and `we simulate --report` print through here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from cli.exits import CommandFailed
from cli.terminal import echo, echo_json, one_line
from service.extras import install_hint
from wecore.errors import shown

PLOT_SIZE_INCHES = (8.0, 5.0)
PLOT_DPI = 100  # so a PNG is 800 x 500 pixels; an SVG is 576 x 360 points
PLOT_SUFFIXES = (".png", ".svg")
TIES_NOTE = (
    "A tie nobody broke is a shared win (a tie of two is half a win each); a recorded tie-break"
    " (tie_broken) gives the whole win to its winner."
)


# --- plots -------------------------------------------------------------------------------


def check_plot_target(path: Path | None, force: bool, inputs: Sequence[Path | str | None] = ()) -> None:
    """Refuse a bad --plot before any work is done: wrong extension, an existing file without
    --force, or matplotlib missing."""
    if path is None:
        return
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise click.BadParameter(
            f"{path}: the plot is drawn as PNG or SVG: name it .png or .svg", param_hint="--plot"
        )
    if path.is_dir():
        raise click.BadParameter(f"{path} is a directory", param_hint="--plot")
    from cli.outputs import refuse_unsafe_output

    # Like every output: an existing file only with --force; never an input, a FIFO, a
    # device or a link's target.
    _replacing[path] = refuse_unsafe_output(path, force, inputs=[i for i in inputs if isinstance(i, Path)])
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CommandFailed(
            f"--plot needs matplotlib, which is not installed: {install_hint('plots', 'matplotlib')}"
        ) from None


# What check_plot_target found: whether --plot names an existing file that --force replaces.
_replacing: dict[Path, bool] = {}


def _figure(rows: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(1, rows, figsize=PLOT_SIZE_INCHES, dpi=PLOT_DPI, squeeze=False)
    return figure, axes[0]


def _save(figure: Any, path: Path) -> None:
    from matplotlib import pyplot

    figure.tight_layout()
    # Fixed metadata: the same figures draw the same file (no date, no version stamp).
    metadata: dict[str, Any] = {"Software": None} if path.suffix.lower() == ".png" else {"Date": None}
    if path.suffix.lower() == ".svg":
        pyplot.rcParams["svg.hashsalt"] = "we"
    from cli.outputs import put_in_place, temporary_beside

    # Under a name of its own beside the target, then renamed: never a user's file clobbered.
    # check_plot_target refused an existing file without --force; one that appeared since
    # is not replaced.
    partial = temporary_beside(path)
    try:
        figure.savefig(partial, format=path.suffix.lower().lstrip("."), dpi=PLOT_DPI, metadata=metadata)
        pyplot.close(figure)
        put_in_place(partial, path, replace=_replacing.get(path, False))
    finally:
        partial.unlink(missing_ok=True)
    echo(f"Wrote {path}", err=True)


def _rates_panel(axis: Any, rows: Sequence[dict[str, Any]], key: str, title: str, fair: float | None) -> None:
    labels = [str(row[key]) for row in rows]
    rates = [row["win_rate"] for row in rows]
    below = [row["win_rate"] - row["low"] for row in rows]
    above = [row["high"] - row["win_rate"] for row in rows]
    positions = list(range(len(rows)))
    axis.errorbar(positions, rates, yerr=[below, above], fmt="o", capsize=4, color="#1f4e79")
    if fair is not None:
        axis.axhline(fair, color="#999999", linestyle="--", linewidth=1, label=f"equal share {fair:.0%}")
        axis.legend(loc="best", fontsize="small")
    axis.set_xticks(positions, labels)
    axis.set_ylim(bottom=0)
    from matplotlib.ticker import PercentFormatter

    axis.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axis.set_title(title)
    axis.set_ylabel("win rate (95% interval)")


def plot_fairness(report: dict[str, Any], path: Path) -> None:
    """Win rates with their Wilson intervals, by seat and by gift list."""
    figure, (seats, lists) = _figure(2)
    counts = {row["players"] for row in report["by_players"]}
    fair = 1 / counts.pop() if len(counts) == 1 else None
    _rates_panel(seats, report["by_seat"], "seat", "by seat (1 = left of the dealer)", fair)
    seats.set_xlabel("seat")
    _rates_panel(lists, report["by_list"], "list", "by gift list", fair)
    lists.set_xlabel("gift list")
    figure.suptitle(win_rates_title(report["games"]))
    _save(figure, path)


def plot_evenings(evenings: Sequence[Any], path: Path, only: Sequence[str] = ()) -> None:
    """Each player's mean score per evening, one line per player (or only those named)."""
    figure, (axis,) = _figure(1)
    dates = [evening.date for evening in evenings]
    players: dict[str, list[float | None]] = {}
    for index, evening in enumerate(evenings):
        for name, scores in evening.scores_by_player().items():
            line = players.setdefault(name, [None] * len(evenings))
            line[index] = sum(scores) / len(scores)
    positions = list(range(len(dates)))
    from wecore.stats import same_name

    wanted = {same_name(name) for name in only}
    for name, values in sorted(players.items()):
        if wanted and same_name(name) not in wanted:
            continue
        points = [(x, y) for x, y in zip(positions, values, strict=True) if y is not None]
        axis.plot([x for x, _ in points], [y for _, y in points], marker="o", label=name)
    axis.set_xticks(positions, dates, rotation=30, ha="right")
    axis.set_ylabel("mean score that evening")
    axis.set_title("Scores over the evenings")
    if players:
        axis.legend(loc="best", fontsize="small")
    _save(figure, path)


# --- the fairness report -------------------------------------------------------------------


def print_fairness(fairness: Any, source: str) -> None:
    from rich.table import Table

    from cli.render import console, print_table

    out = console()
    games = fairness.games
    out.print(f"Fairness over {games} finished game{'s' if games != 1 else ''} {source}.")

    def table(title: str, heading: str, rates: Sequence[Any], share: bool = True) -> None:
        grid = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        columns = [
            (heading, "left" if heading == "list" else "right"),
            ("games", "right"),
            ("wins", "right"),
            ("win rate", "right"),
            ("95% interval", "right"),
        ]
        if share:
            columns.append(("equal share", "right"))
        columns.append(("mean score", "right"))
        for name, justify in columns:
            grid.add_column(name, justify=justify)  # type: ignore[arg-type]
        for rate in rates:
            row = rate.as_dict(heading)
            cells = [
                str(row[heading]),
                str(row["games"]),
                wins_text(row["wins"]),
                f"{row['win_rate']:.1%}",
                f"{row['low']:.1%} to {row['high']:.1%}",
            ]
            if share:
                cells.append(f"{rate.expected_rate:.1%}")
            cells.append(f"{row['mean_score']:.2f}")
            grid.add_row(*cells)
        print_table(grid)

    table("By seat (1 = left of the dealer, who starts party 1)", "seat", fairness.by_seat)
    if len(fairness.by_players) > 1:
        for rate in fairness.by_players:
            seats = fairness.seats_by_players[rate.key]
            table(f"By seat, {rate.key} players", "seat", seats)
            out.print("  " + _verdict_line(fairness.seat_tests[rate.key], seats))
    table("By gift list", "list", fairness.by_list)
    table(
        "By player count (wins and win rate: one seat's equal share there)",
        "players",
        fairness.by_players,
        share=False,
    )
    out.print(fairness.verdict())
    out.print(TIES_NOTE + f" Here {fairness.ties_shared} shared, {fairness.ties_broken} broken.")


def _verdict_line(test: Any, seats: Sequence[Any]) -> str:
    from wecore.stats import seat_verdict

    return seat_verdict(test, seats)


def wins_text(wins: float) -> str:
    """A count of wins: whole, or with the shares of shared wins (2.5, 1.33)."""
    return str(int(wins)) if float(wins).is_integer() else f"{wins:.2f}".rstrip("0")


def emit_fairness(fairness: Any, source: str, as_json: bool, plot: Path | None) -> None:
    report = fairness.as_dict()
    if as_json:
        echo_json(report)
    else:
        print_fairness(fairness, source)
    if plot is not None:
        plot_fairness(report, plot)


# --- evenings and rivals -------------------------------------------------------------------


def _scores_text(game: Any) -> str:
    ranked = sorted(zip(game.players, game.scores, strict=True), key=lambda pair: -pair[1])
    return one_line(", ".join(f"{name} {points}" for name, points in ranked))


def _winners_text(game: Any) -> str:
    names = [one_line(game.players[seat]) for seat in game.winners]
    if len(names) > 1:
        return " and ".join(names) + " (shared)"
    return names[0] + (" (tie broken)" if game.tie_broken else "")


def emit_evenings(records: Sequence[Any], as_json: bool, plot: Path | None) -> None:
    """`we stats --by evening`: each evening's games, winners and scores; streaks."""
    from service.library import evenings_of, longest_streaks_of

    nights = evenings_of(records)
    streaks = longest_streaks_of(records)
    if as_json:
        data = {
            "evenings": [
                {
                    "date": night.date,
                    "games": [
                        {
                            "game": game.game,
                            "title": game.title,
                            "started_at": game.started_at,
                            "winners": [game.players[seat] for seat in game.winners],
                            "tie_broken": game.tie_broken,
                            "scores": dict(zip(game.players, game.scores, strict=True)),
                        }
                        for game in night.games
                    ],
                }
                for night in nights
            ],
            "longest_streaks": streaks,
        }
        echo_json(data)
    else:
        _print_evenings(nights, streaks)
    if plot is not None:
        plot_evenings(nights, plot)


def _print_evenings(nights: Sequence[Any], streaks: dict[str, int]) -> None:
    from rich.table import Table

    from cli.render import console, print_table

    out = console()
    if not nights:
        out.print("No finished games in the library.")
        return
    for night in nights:
        count = len(night.games)
        out.print(f"{night.date}: {count} game{'s' if count != 1 else ''}", markup=False)
        grid = Table(show_edge=False, pad_edge=False)
        for name in ("game", "title", "winner", "scores"):
            grid.add_column(name)
        for game in night.games:
            grid.add_row(game.game, one_line(game.title or "-"), _winners_text(game), _scores_text(game))
        print_table(grid)
    _print_streaks(streaks)


def _print_streaks(streaks: dict[str, int]) -> None:
    from cli.render import console

    parts = [f"{one_line(name)} {run}" for name, run in streaks.items()]
    console().print(
        "Longest winning streak (games won in a row, a shared win counts): " + (", ".join(parts) or "-"),
        markup=False,
    )


def emit_versus(records: Sequence[Any], names: tuple[str, str], as_json: bool, plot: Path | None) -> None:
    """`we stats --versus A B`: the games both played, head to head."""
    from service.library import NoSuchPlayer, SamePlayer, evenings_of, head_to_head

    try:
        result = head_to_head(records, *names)
    except NoSuchPlayer as exc:
        raise CommandFailed(
            f"--versus: no finished game in the library has a player called {shown(exc.name)}"
        ) from None
    except SamePlayer:
        raise click.BadParameter("name two different players", param_hint="--versus") from None
    if as_json:
        echo_json(result.as_dict())
    else:
        _print_versus(result)
    if plot is not None:
        plot_evenings(evenings_of(result.games), plot, only=(result.first, result.second))


def _print_versus(result: Any) -> None:
    from rich.table import Table

    from cli.render import console, print_table

    out = console()
    a, b = one_line(result.first), one_line(result.second)  # as shown; looked up as they are
    count = len(result.games)
    out.print(f"{a} and {b} played {count} finished game{'s' if count != 1 else ''} together.", markup=False)
    if not count:
        return
    grid = Table(show_edge=False, pad_edge=False)
    for name in ("game", "date", "winner", a, b):
        grid.add_column(name, justify="right" if name in (a, b) else "left")
    for game in result.games:
        seats = {n: s for s, n in enumerate(game.players)}
        from wecore.stats import same_name

        by_name = {same_name(n): s for n, s in seats.items()}
        grid.add_row(
            game.game,
            game.evening or "-",
            _winners_text(game),
            str(game.scores[by_name[same_name(result.first)]]),
            str(game.scores[by_name[same_name(result.second)]]),
        )
    print_table(grid)
    out.print(
        f"Wins: {a} {wins_text(result.wins[0])}, {b} {wins_text(result.wins[1])}"
        " (a shared win counts as a share).",
        markup=False,
    )
    out.print(
        f"Finished ahead of the other: {a} {result.ahead[0]}, {b} {result.ahead[1]}, level {result.level}.",
        markup=False,
    )
    out.print(
        f"Mean score difference ({a} minus {b}): {result.mean_difference:+.2f}"
        f" (95% interval {result.low:+.2f} to {result.high:+.2f}).",
        markup=False,
    )
    out.print(
        f"Longest winning streak over all their games: {a} {result.streaks[0]}, {b} {result.streaks[1]}.",
        markup=False,
    )


def win_rates_title(games: int) -> str:
    return f"Win rates over {games} game{'' if games == 1 else 's'}"
