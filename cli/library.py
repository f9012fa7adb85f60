"""The game library: `we import`, `we export`, `we games`, `we stats`, and `we repair` for files.

The library (eventstore.sqlite) stores logs; whether a game is valid, over and won is decided
here by folding it with wecore, exactly as `we audit` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli.common import (
    FILE_NAME,
    CommandFailed,
    LibraryParam,
    LibraryRef,
    check_game,
    collector_settled_for_a_batch,
    connect_library,
    db_option,
    echo,
    library_exists,
    library_name,
    library_path,
    logs_in_directory,
    one_line,
    put_in_place,
    refuse_unsafe_output,
    temporary_beside,
)
from eventstore.errors import LibraryBusyError, StoreError, WritesLostError
from service.checking import GameReport, GameSource
from wecore.errors import shown

if TYPE_CHECKING:
    from eventstore.persistence import GameLibrary

# --- import ------------------------------------------------------------------------


def _log_paths(arguments: Iterable[str]) -> list[tuple[Path, bool]]:
    """Files as given; a directory stands for every *.jsonl in it, in name order. Each with
    whether it is known to be a regular file already (a directory listing says so)."""
    paths: list[tuple[Path, bool]] = []
    for text in arguments:
        path = Path(text)
        if path.is_dir():
            paths.extend((log, True) for log in logs_in_directory(path))
        else:
            paths.append((path, False))
    return paths


def _refuse(message: str) -> None:
    echo(f"we: refused {one_line(message)}", err=True)


@click.command()
@click.argument("files", nargs=-1, metavar="FILE...", type=FILE_NAME)
@click.option(
    "--from-db",
    "from_db",
    type=LibraryParam(),
    default=None,
    help="Also copy every game of another library (a SQLite file or a postgresql:// URL).",
)
@db_option
def import_logs(files: tuple[str, ...], from_db: LibraryRef | None, db_path: LibraryRef | None) -> None:
    """Import JSONL logs into the game library.

    Each FILE (or every *.jsonl in a directory) is audited first: a log with any integrity,
    schema or rules problem is refused, with one line naming its first problem, and the rest
    are imported. Importing a log that is already in the library changes nothing (and says
    so); a longer version of a stored game adds its new events. With --from-db every game of
    that library is audited and imported the same way (to move a library from SQLite to
    PostgreSQL or back). Exit status 1 if any log was refused, or could not be read.
    """
    if not files and from_db is None:
        raise click.UsageError("give the FILE... to import, or --from-db LIBRARY")
    sources: list[tuple[GameSource, bool]] = [
        (GameSource(label=str(path), path=path), listed) for path, listed in _log_paths(files)
    ]
    if from_db is not None:
        if not library_exists(from_db):
            raise CommandFailed(f"there is no library at {library_name(from_db)} to import from")
        with connect_library(from_db, read_only=True) as other:
            ids = [row["id"] for row in other.games() if row["id"] is not None]
        sources.extend((GameSource(label=game_id, db_path=from_db, game_id=game_id), True) for game_id in ids)
    if not sources:
        raise CommandFailed("no *.jsonl logs to import" if from_db is None else "no games to import")
    counts = {"imported": 0, "extended": 0, "unchanged": 0, "refused": 0, "unreadable": 0, "not imported": 0}
    if all(_missing(source, listed) for source, listed in sources):
        # Nothing to import: the inputs are looked at before the library, which stays as it
        # was (or is not created).
        for source, _ in sources:
            _refuse(f"{source.label}: no such file")
        if len(sources) > 1:
            click.echo(f"{len(sources)} refused.")
        raise click.exceptions.Exit(1)
    # What was imported is said only once it is committed: a batch commits every so many rows
    # and at its end, and an interruption before a commit undoes what followed the last one.
    committed: list[str] = []
    with collector_settled_for_a_batch(), connect_library(library_path(db_path)) as library:
        with library.batch():
            # A library that does not count its commits (PostgreSQL's says what was lost when
            # its connection goes) has each game said as it is imported, as before.
            counted = hasattr(library, "commits")
            commits = getattr(library, "commits", 0)
            for source, listed in sources:
                label = source.label
                if _missing(source, listed):
                    _refuse(f"{label}: no such file")
                    counts["refused"] += 1
                    continue
                status, message = _import_one(library, source)
                counts[status] += 1
                if message is not None:
                    committed.append(message)
                if not counted or library.commits != commits:
                    commits = getattr(library, "commits", 0)
                    _say(committed)
        _say(committed)
    if len(sources) > 1:
        echo(", ".join(f"{n} {what}" for what, n in counts.items() if n) + ".")
    if counts["refused"] or counts["unreadable"] or counts["not imported"]:
        raise click.exceptions.Exit(1)


def _missing(source: GameSource, listed: bool) -> bool:
    """A FILE given that is not there (one listed in a directory was, a moment ago)."""
    return not listed and source.path is not None and not os.path.lexists(source.path)


def _say(messages: list[str]) -> None:
    for message in messages:
        echo(message)
    messages.clear()


def _import_one(library: GameLibrary, source: GameSource) -> tuple[str, str | None]:
    """Audit one log and import it: (status, what to say once committed)."""
    from wecore.scoring import library_summary

    label = source.label
    try:
        # One read per game: the audit keeps the lines it verified for the import.
        report = check_game(source, keep_lines=True)
    except WritesLostError:
        raise  # every game after it would be refused the same way
    except (StoreError, CommandFailed, OSError) as exc:
        # Unreadable (no permission, a FIFO, vanished): say so, and go on with the rest.
        if isinstance(exc, CommandFailed):
            text = exc.format_message()
        elif isinstance(exc, OSError):
            text = f"{label}: cannot read: {exc.strerror or exc}"
        else:
            text = str(exc)
        echo(f"we: error: {one_line(text)}", err=True)
        return "unreadable", None
    if report.problems:
        first = report.problems[0]
        more = len(report.problems) - 1 + report.problems_omitted
        tail = f" (and {more:,} more; see `we audit {label}`)" if more else ""
        _refuse(f"{label}: line {first.line}: {first.kind}: {first.message}{tail}")
        return "refused", None
    try:
        summary = library_summary(report.state)
        result = library.import_verified(report.lines, label, summary)
    except WritesLostError:
        raise  # what was not committed is gone, and every game after it would go the same way
    except LibraryBusyError as exc:  # other writers kept the lock: this game is not in it
        echo(f"we: error: {one_line(f'{label}: not imported: {exc}')}", err=True)
        return "not imported", None
    except StoreError as exc:  # a different game under the same id, or a file that changed
        _refuse(str(exc))
        return "refused", None
    if result.status != "unchanged":
        return result.status, f"{result.message}, fingerprint {result.fingerprint}"
    return result.status, result.message


# --- export ------------------------------------------------------------------------


@click.command()
@click.argument("game", metavar="GAME", type=FILE_NAME)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file to write (default: ./GAME.jsonl; - for standard output).",
)
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@db_option
def export_game(game: str, output: Path | None, force: bool, db_path: LibraryRef | None) -> None:
    """Export a game from the library to a JSONL log.

    The events are written exactly as stored, so the file has the same hashes and fingerprint.
    An existing FILE is never overwritten unless --force is given.
    """
    from eventstore.envelope import valid_game_id

    db = library_path(db_path)
    if not valid_game_id(game):
        raise CommandFailed(f"{shown(game)} is not a game id in the library (ids are 1-64 of a-z 0-9 -)")
    if not library_exists(db):
        raise CommandFailed(f"no game {game!r}: there is no library at {library_name(db)}")
    if output is not None and str(output) == "-":
        _export_to_stdout(game, db)
        return
    target = output if output is not None else Path(f"{game}.jsonl")
    # The library itself is never an output, --force or not (nor a FIFO, device or link).
    replace = refuse_unsafe_output(target, force, inputs=[db])
    with connect_library(db, read_only=True) as library:
        if not library.has_game(game):
            raise CommandFailed(f"no game {game!r} in the library {library_name(db)}")
        # Write beside the target and rename over it: a reader never sees half a log, and a
        # failed export leaves FILE as it was. The temporary name is unique, never a user's.
        temporary = temporary_beside(target)
        try:
            temporary.unlink()  # export creates it afresh, refusing a name taken meanwhile
            count = library.export(game, temporary)
            _refuse_no_events(game, count, db)
            put_in_place(temporary, target, replace)
        finally:
            temporary.unlink(missing_ok=True)
        # The rows judged, not the file: a row's text that holds a key twice is written as
        # what it parses to, and only the row shows it.
        verdict = library.log(game).verify()
    echo(_exported(game, str(target), count, verdict))


def _refuse_no_events(game: str, count: int, db: LibraryRef) -> None:
    if count == 0:
        raise CommandFailed(
            f"game {game!r} in the library {library_name(db)} has no event rows (they were deleted"
            " or never stored): nothing exported"
        )


def _exported(game: str, where: str, count: int, result: Any) -> str:
    """The sentence of an export; CommandFailed (exit 1) when the log written fails its
    checks: it is written all the same, as stored, for an audit to show what was done to it."""
    if result.ok:
        return f"exported game {game!r} to {where} ({count} events, fingerprint {result.fingerprint})"
    first = result.problems[0]
    raise CommandFailed(
        f"exported game {game!r} to {where} ({count} events) as stored, but it fails integrity"
        f" checks at line {first.line} ({first.message}): no fingerprint is proven (see `we audit`)"
    )


def _export_to_stdout(game: str, db: LibraryRef) -> None:
    """`-o -`: the log on stdout (the sentence on stderr), written whole to a private temporary
    file first, so that what is piped on is what verifies."""
    import shutil
    import sys
    import tempfile

    with (
        connect_library(db, read_only=True) as library,
        tempfile.TemporaryDirectory(prefix="we-export-") as folder,
    ):
        if not library.has_game(game):
            raise CommandFailed(f"no game {game!r} in the library {library_name(db)}")
        log = Path(folder) / f"{game}.jsonl"
        count = library.export(game, log)
        _refuse_no_events(game, count, db)
        result = library.log(game).verify()
        with open(log, "rb") as f:
            sys.stdout.flush()
            shutil.copyfileobj(f, sys.stdout.buffer)
            sys.stdout.buffer.flush()
    click.echo(_exported(game, "standard output", count, result), err=True)


# --- games ---------------------------------------------------------------------------


_GAME_FIELDS = ("id", "title", "players", "started_at", "last_at", "events", "complete", "winner", "damaged")


def _existing_library(db_path: LibraryRef | None) -> LibraryRef | None:
    db = library_path(db_path)
    if not library_exists(db):
        echo(f"No games: there is no library at {library_name(db)} yet (add games with `we import`).")
        return None
    return db


@click.command()
@click.option(
    "--search",
    metavar="TEXT",
    help="Only the games with every word of TEXT in their title, a player's name or a note"
    " (any letter case and accents).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, one per line.")
@db_option
def games(search: str | None, as_json: bool, db_path: LibraryRef | None) -> None:
    """List the games in the library, oldest first.

    A row of the games table that is not what we writes (edited by hand, or damaged) is listed
    and flagged, and the exit status is then 1. --json gives each game's id, title, players,
    started_at, last_at, events, complete, winner and damaged.
    """
    from rich.table import Table

    from cli.render import print_table

    db = _existing_library(db_path)
    if db is None:
        return
    with connect_library(db, read_only=True) as library:
        rows = library.games() if search is None else library.search(search)
    if as_json:
        import json

        for row in rows:
            echo(json.dumps({name: row[name] for name in _GAME_FIELDS}, ensure_ascii=False))
        if any(row.get("damaged") for row in rows):
            raise click.exceptions.Exit(1)
        return
    if not rows:
        found = "" if search is None else f" with {shown(search)}"
        echo(f"No games{found} in the library {library_name(db)}.")
        return
    table = Table(show_edge=False, pad_edge=False)
    for name, justify in (
        ("id", "left"),
        ("title", "left"),
        ("players", "left"),
        ("date", "left"),
        ("events", "right"),
        ("complete", "left"),
        ("winner", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    damaged = 0
    for row in rows:
        damaged += bool(row.get("damaged"))
        table.add_row(
            (row["id"] or "?") + (" (damaged row)" if row.get("damaged") else ""),
            one_line(row["title"] or "-"),
            one_line(", ".join(row["players"] or []) or "-"),
            _date(row["started_at"]),
            str(row["events"]) if row["events"] is not None else "?",
            "yes" if row["complete"] else "no",
            one_line(row["winner"] or "-"),
        )
    print_table(table)
    echo(f"{len(rows)} game{'s' if len(rows) != 1 else ''} in {library_name(db)}.")
    if damaged:
        # A row that is not what we writes: edited by hand, or damaged. The game's events
        # still decide its audit.
        echo(
            f"{damaged} row{'s' if damaged != 1 else ''} of the games table {'are' if damaged != 1 else 'is'}"
            " damaged (not what we writes); see `we audit GAME-ID` for each game"
        )
        raise click.exceptions.Exit(1)


def _date(at: str | None) -> str:
    # "2026-11-26T19:00:01Z" -> "2026-11-26 19:00" (UTC, as recorded)
    return f"{at[:10]} {at[11:16]}" if at and len(at) >= 16 else (at or "-")


# --- stats ---------------------------------------------------------------------------


@dataclass
class PlayerStats:
    games: int = 0
    wins: int = 0
    points: int = 0


@dataclass
class LibraryStats:
    players: dict[str, PlayerStats] = field(default_factory=dict)
    seat_games: dict[int, int] = field(default_factory=dict)
    seat_wins: dict[int, int] = field(default_factory=dict)
    counted: int = 0
    unfinished: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    records: list[Any] = field(default_factory=list)  # wecore.stats.GameRecord, oldest first

    def add(self, report: GameReport, started_at: str | None = None) -> None:
        from wecore.scoring import score
        from wecore.stats import record_of

        board = score(report.state)
        self.counted += 1
        for seat, entry in enumerate(board.players, start=1):
            stats = self.players.setdefault(entry.player, PlayerStats())
            stats.games += 1
            stats.points += entry.total
            self.seat_games[seat] = self.seat_games.get(seat, 0) + 1
            if entry.player in board.winners:
                stats.wins += 1
                self.seat_wins[seat] = self.seat_wins.get(seat, 0) + 1
        game = report.game or report.source
        self.records.append(record_of(report.state, game, started_at, local_date(started_at)))


def local_date(at: str | None) -> str | None:
    """The date of a log's `at` (UTC) where `we` runs: an evening is a local one."""
    from datetime import datetime

    if not at:
        return None
    try:
        return datetime.fromisoformat(at).astimezone().date().isoformat()
    except ValueError:
        return at[:10] or None


def library_stats(db: LibraryRef) -> LibraryStats:
    """Fold every game in the library; only valid, finished games count."""
    with connect_library(db, read_only=True) as library:
        rows = [(row["id"], row["started_at"]) for row in library.games() if row["id"] is not None]
    stats = LibraryStats()
    for game_id, started_at in rows:
        try:
            report = check_game(GameSource(label=game_id, db_path=db, game_id=game_id))
        except WritesLostError:
            raise
        except StoreError:
            # Its rows cannot even be read (a damaged games row): not counted, like a game
            # failing the audit, which says why.
            stats.invalid.append(game_id)
            continue
        if report.problems:
            stats.invalid.append(game_id)
        elif not report.complete:
            stats.unfinished.append(game_id)
        else:
            stats.add(report, started_at)
    return stats


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
@click.option("--json", "as_json", is_flag=True, help="With --fairness, --by or --versus: one JSON object.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="FILE",
    help="Draw it to FILE (.png or .svg, 8 x 5 inches): win rates with --fairness, scores over the"
    " evenings with --by evening or --versus. Needs matplotlib (pip install '.[plots]' in a clone of we).",
)
@click.option("--force", is_flag=True, help="Replace the --plot FILE if it exists.")
@db_option
def stats(
    fairness: bool,
    group_by: str | None,
    versus: tuple[str, str] | None,
    as_json: bool,
    plot: Path | None,
    force: bool,
    db_path: LibraryRef | None,
) -> None:
    """Per-player results across the library: games, wins, win rate, average score; wins by seat.

    Only finished games that pass the audit count. A shared win (a tie nobody broke) counts as
    a win for each player in it here; --fairness, --by evening and --versus count it as a
    shared win (half a win each for a tie of two) unless a tie_broken event settled it.
    Names are matched as in the logs: case-insensitively, after Unicode NFC.
    """
    modes = [name for name, on in (("--fairness", fairness), ("--by", group_by), ("--versus", versus)) if on]
    if len(modes) > 1:
        raise click.UsageError(f"choose one of {' and '.join(modes)}")
    if (as_json or plot is not None) and not modes:
        raise click.UsageError("--json and --plot go with --fairness, --by evening or --versus")
    if plot is not None:
        from cli.stats_report import check_plot_target

        check_plot_target(plot, force, inputs=[library_path(db_path)])
    if modes:
        db = library_path(db_path)
        if not library_exists(db):
            raise CommandFailed(f"there is no library at {library_name(db)} yet (add games with `we import`)")
        result = library_stats(db)
        from cli import stats_report

        if fairness:
            from wecore.stats import fairness as fairness_of

            stats_report.emit_fairness(
                fairness_of(result.records), f"in the library {library_name(db)}", as_json, plot
            )
        elif versus is not None:
            stats_report.emit_versus(result.records, versus, as_json, plot)
        else:
            stats_report.emit_evenings(result.records, as_json, plot)
        _not_counted(result)
        return
    _overall(db_path)


def _not_counted(result: LibraryStats) -> None:
    if result.unfinished:
        echo(f"Not counted, not over yet: {', '.join(result.unfinished)}.", err=True)
    if result.invalid:
        echo(f"Not counted, failed the audit (see `we audit`): {', '.join(result.invalid)}.", err=True)


def _overall(db_path: Path | None) -> None:
    from rich.table import Table

    from cli.render import print_table

    db = _existing_library(db_path)
    if db is None:
        return
    result = library_stats(db)
    if not result.counted:
        echo(f"No finished games in the library {library_name(db)}.")
    else:
        table = Table(title="By player", title_justify="left", show_edge=False, pad_edge=False)
        for name, justify in (
            ("player", "left"),
            ("games", "right"),
            ("wins", "right"),
            ("win rate", "right"),
            ("avg score", "right"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        ranked = sorted(
            result.players.items(), key=lambda kv: (-kv[1].wins / kv[1].games, -kv[1].wins, kv[0])
        )
        for player, entry in ranked:
            table.add_row(
                one_line(player),
                str(entry.games),
                str(entry.wins),
                f"{entry.wins / entry.games:.0%}",
                f"{entry.points / entry.games:.1f}",
            )
        print_table(table)
        seats = Table(
            title="By seat (1 = first in the players list)",
            title_justify="left",
            show_edge=False,
            pad_edge=False,
        )
        for name in ("seat", "games", "wins", "win rate"):
            seats.add_column(name, justify="right")
        for seat in sorted(result.seat_games):
            played, won = result.seat_games[seat], result.seat_wins.get(seat, 0)
            seats.add_row(str(seat), str(played), str(won), f"{won / played:.0%}")
        print_table(seats)
        echo(f"{result.counted} finished game{'s' if result.counted != 1 else ''} counted.")
    if result.unfinished:
        echo(f"Not counted, not over yet: {', '.join(result.unfinished)}.")
    if result.invalid:
        echo(f"Not counted, failed the audit (see `we audit`): {', '.join(result.invalid)}.")


# --- repair --------------------------------------------------------------------------


@click.command()
@click.argument("file", metavar="FILE", type=FILE_NAME)
def repair(file: str) -> None:
    """Cut a torn last line off a log, keeping a backup of the file as it was.

    Only a torn tail (a last line without its newline, left by a recorder that died mid-write)
    is repaired, without asking: the backup is FILE.bak. A log damaged anywhere else is left
    untouched and the command fails: that is tampering or corruption, not something to cut.
    """
    from eventstore.jsonl import repair as repair_log

    path = Path(file)
    if path.is_dir():
        raise CommandFailed(f"{file} is a directory, not a log")
    if not path.exists():
        if path.is_symlink():
            from cli.common import shown_path

            target = shown_path(os.readlink(path))
            raise CommandFailed(f"{file}: a dangling symbolic link (to {target}, not there), so not a log")
        raise CommandFailed(f"no such file: {file}")
    try:
        result = repair_log(path)
    except StoreError as exc:
        raise CommandFailed(f"{exc}; nothing was changed") from None
    echo(result.message)
