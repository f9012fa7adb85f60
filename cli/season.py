"""`we season add|verify|show`: a club's sealed games, proved by one fingerprint.

Only parsing and rendering: what may be sealed, how a ledger is proved and the standings are
service.season's and wecore.season's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cli.exits import CommandFailed
from cli.opening import library_exists, open_library, read_game, resolve_game
from cli.params import FILE_NAME, db_option, library_path, refuse_undecodable_text
from cli.terminal import echo, echo_json, one_line, shown_path
from eventstore.libraries import LibraryRef, library_name
from service.reading import GameSource
from wecore.season import SealedGame
from wecore.wording import counted

if TYPE_CHECKING:
    from eventstore.receipts import Receipt
    from service.season import LedgerReading

LEDGER = click.Path(dir_okay=False, path_type=Path)


@click.group()
def season() -> None:
    """A season ledger: seal finished games, prove them later, show the standings.

    SEASON.jsonl is an append-only, hash-chained log of the games sealed (docs/season-format.md);
    its fingerprint is the one number a club notes down to prove its whole season.
    """


@season.command()
@click.argument("ledger", metavar="SEASON.jsonl", type=LEDGER)
@click.argument("games", nargs=-1, required=True, metavar="GAME...", type=FILE_NAME)
@click.option(
    "--name", default=None, help="The season's name, when this starts the ledger (default: its file name)."
)
@db_option
def add(ledger: Path, games: tuple[str, ...], name: str | None, db_path: LibraryRef | None) -> None:
    """Seal finished GAMEs (log files or library ids) into SEASON.jsonl.

    A game not over, failing the audit, or already sealed is refused with its reason, and the
    others are sealed. Exit status 1 if any was refused.
    """
    from service.season import Refusal, add_games

    sources: list[GameSource] = []
    refused: list[Refusal] = []
    for text in games:
        try:
            sources.append(resolve_game(text, db_path))
        except CommandFailed as exc:
            refused.append(Refusal(text, exc.format_message()))
    if ledger.exists() and ledger.is_dir():
        raise CommandFailed(f"{ledger} is a directory, not a season ledger")
    result = add_games(ledger, sources, read_game, name, _kept_receipts)
    if result.created:
        echo(f"started the season {result.season.name!r} in {ledger}")
    for game in result.sealed:
        witnessed = (
            f"; {counted(len(game.receipts), 'signed receipt')} sealed with it" if game.receipts else ""
        )
        echo(
            f"sealed {game.game} (line {game.line}): fingerprint {game.fingerprint},"
            f" won by {' and '.join(game.winners)}{witnessed}"
        )
    for refusal in [*refused, *result.refused]:
        echo(f"we: refused {one_line(refusal.label)}: {one_line(refusal.reason)}", err=True)
    for unmarked in result.unmarked:
        echo(
            f"we: warning: sealed, but no seal's mark could be left beside {one_line(unmarked)}:"
            " a writer that does not know this ledger would not see the seal",
            err=True,
        )
    if result.fingerprint is not None:
        sealed = counted(len(result.season.games), "game")
        echo(f"{ledger}: {sealed} sealed; season fingerprint {result.fingerprint}")
    else:
        echo(f"{ledger}: nothing sealed, so no season was started", err=True)
    if refused or result.refused:
        raise click.exceptions.Exit(1)


def _kept_receipts(source: GameSource, game_id: str) -> list[Receipt]:
    """The signed receipts kept for a game: beside its log file, or in its library."""
    from service.receipts import receipts_for_source

    library = open_library(source.db_path) if source.db_path is not None and source.path is None else None
    return receipts_for_source(source, game_id, library)


def _locator(ledger: Path, db_path: LibraryRef | None) -> Callable[[SealedGame], GameSource | str]:
    from service.season import locate_file

    def in_library(sealed: SealedGame) -> GameSource | None:
        """The sealed game in the library (by its id: a file renamed or moved there)."""
        db = library_path(db_path)
        if not library_exists(db) or not open_library(db).has_game(sealed.game):
            return None
        return GameSource(
            label=f"{sealed.game} (library {library_name(db)})", db_path=db, game_id=sealed.game
        )

    def locate(sealed: SealedGame) -> GameSource | str:
        if "file" in sealed.source:
            return locate_file(sealed, ledger, elsewhere=in_library if db_path is not None else None)
        game_id = sealed.source["library"]
        db = library_path(db_path)
        if not library_exists(db) or not open_library(db).has_game(game_id):
            return f"gone: no game {game_id!r} in the library {library_name(db)}"
        return GameSource(label=game_id, db_path=db, game_id=game_id)

    return locate


def _noted_fingerprint(value: str | None) -> str | None:
    """A noted season fingerprint: exactly the 12 hex digits printed (a shorter one, or none,
    would match ledgers it does not stand for)."""
    if value is None:
        return None
    if len(value) != 12 or any(c not in "0123456789abcdef" for c in value.lower()):
        raise click.BadParameter(f"{one_line(value)!r} is not a season fingerprint: 12 hex digits")
    return value.lower()


def _a_ledger_file(ledger: Path) -> None:
    """A ledger that is not there, or not a file, is an error like any game file's (exit 1),
    not a usage error (exit 2): the command was typed right."""
    if not ledger.exists():
        raise CommandFailed(f"no such file: {shown_path(str(ledger))}")
    if not ledger.is_file():
        raise CommandFailed(f"{shown_path(str(ledger))} is not a file: give a season ledger (SEASON.jsonl)")


@season.command()
@click.argument("ledger", metavar="SEASON.jsonl", type=click.Path(path_type=Path))
@click.option(
    "--fingerprint",
    "expected",
    default=None,
    metavar="FP",
    callback=lambda _ctx, _param, value: _noted_fingerprint(value),
    help="The season fingerprint noted before (12 hex digits): it must still be this.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object: ledger, ok, events, games, fingerprint, problems.",
)
@db_option
def verify(ledger: Path, expected: str | None, as_json: bool, db_path: LibraryRef | None) -> None:
    """Prove SEASON.jsonl: its own chain, and that every game it sealed still has the
    fingerprint sealed (a file from the ledger's folder, a library game from --db; a file
    renamed or moved away is looked for in --db, when given, by its game id).

    Each edited ledger line is named by its line, each game gone or swapped by its id; exit
    status 1 if there is any.
    """
    from service.season import verify_season

    _a_ledger_file(ledger)
    report = verify_season(ledger, read_game, _locator(ledger, db_path), expected)
    if as_json:
        echo_json(report.as_dict())
    else:
        for finding in report.findings:
            where = f"line {finding.line}: " if finding.line is not None and finding.game is None else ""
            echo(f"FAILED {one_line(str(ledger))}: {where}{one_line(finding.message)}")
        if report.ok:
            echo(
                f"{ledger}: {counted(report.games, 'game')}, every one as sealed;"
                f" season fingerprint {report.fingerprint}"
            )
        else:
            echo(
                f"{ledger}: {counted(len(report.findings), 'problem')};"
                f" season fingerprint {report.fingerprint or 'not proven'}"
            )
    if not report.ok:
        raise click.exceptions.Exit(1)


@season.command("put-back")
@click.argument(
    "ledger", metavar="SEASON.jsonl", type=click.Path(dir_okay=False, exists=True, path_type=Path)
)
@click.argument("game", metavar="GAME.jsonl", type=click.Path(dir_okay=False, exists=True, path_type=Path))
def put_back(ledger: Path, game: Path) -> None:
    """Put GAME.jsonl back as SEASON.jsonl sealed it, after events were added to it.

    The lines after the sealed ones are cut off and kept, byte for byte, in GAME.jsonl.cut
    beside it (.cut.1, ... if that is taken), so nothing is lost; the seal's mark is written
    again, so every writer refuses to extend it. Refused, changing nothing, when the ledger did
    not seal this file or its sealed events are not all there as they were.
    """
    from eventstore.errors import StoreError
    from service.season import put_back as put_log_back

    try:
        done = put_log_back(ledger, game, read_game)
    except (ValueError, StoreError) as exc:
        raise CommandFailed(one_line(str(exc))) from None
    if done.cut == 0:
        echo(f"{game}: {done.game} is as sealed; nothing to cut (its seal's mark is in place)")
        return
    echo(
        f"{game}: put back as sealed in {ledger}; what was added after the seal"
        f" ({counted(done.cut, 'line')}) is kept in {done.kept_in}"
    )


@season.command()
@click.argument("ledger", metavar="SEASON.jsonl", type=click.Path(path_type=Path))
@click.option(
    "--ratings",
    is_flag=True,
    help="Each player's rating instead (openskill's Plackett-Luce, as `we stats --ratings`) over the"
    " sealed games in the order played.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object: season, games, fingerprint, and standings (with --ratings: model, ratings).",
)
def show(ledger: Path, ratings: bool, as_json: bool) -> None:
    """The season's standings: games played, wins and mean score per player.

    A shared win (a tie nobody broke) counts as a win for each player in it, as in `we stats`.
    """
    from service.season import read_ledger

    _a_ledger_file(ledger)
    reading = read_ledger(ledger)
    if reading.problems:
        line, message = reading.problems[0]
        raise CommandFailed(f"{ledger}: line {line}: {message} (see `we season verify`)")
    if ratings:
        _show_ratings(reading, as_json)
        return
    table = reading.standings
    if as_json:
        echo_json(
            {
                "season": reading.season.name,
                "games": len(reading.season.games),
                "fingerprint": reading.fingerprint,
                "standings": [
                    {
                        "player": s.player,
                        "games": s.games,
                        "wins": round(s.wins, 4),
                        "mean_score": round(s.mean_score, 4),
                    }
                    for s in table
                ],
            }
        )
        return
    from rich.table import Table

    from cli.render import print_table
    from cli.stats_report import wins_text

    echo(f"Season {reading.season.name!r}: {counted(len(reading.season.games), 'game')}")
    if table:
        rich_table = Table(show_edge=False, pad_edge=False)
        for column, justify in (
            ("player", "left"),
            ("games", "right"),
            ("wins", "right"),
            ("mean score", "right"),
        ):
            rich_table.add_column(column, justify=justify)  # type: ignore[arg-type]
        for s in table:
            rich_table.add_row(one_line(s.player), str(s.games), wins_text(s.wins), f"{s.mean_score:.1f}")
        print_table(rich_table)
    echo(f"Season fingerprint: {reading.fingerprint}")


def _show_ratings(reading: LedgerReading, as_json: bool) -> None:
    from service.season import season_ratings

    games = len(reading.season.games)
    table = season_ratings(reading.season)
    if as_json:
        from service.ratings import ratings_json

        head = {"season": reading.season.name, "fingerprint": reading.fingerprint}
        echo_json({**head, **ratings_json(table, games)})
        return
    from cli.render import ratings_table

    echo(f"Season {reading.season.name!r}: {counted(games, 'game')}")
    if table:
        ratings_table(table, "Ratings (openskill Plackett-Luce; ordinal = mu - 3 sigma)")
    echo(f"Season fingerprint: {reading.fingerprint}")


for _command in season.commands.values():
    refuse_undecodable_text(_command)
