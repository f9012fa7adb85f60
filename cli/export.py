"""`we export`: a game as its JSONL log (a library game: cli.library; a log file once it passes
the audit), or finished games as a BG Stats play file (--format bgstats), from log files or
library ids, or a whole library with --all."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from cli.exits import CommandFailed
from cli.opening import connect_library, library_exists, path_mode, read_game, require_valid, resolve_game
from cli.outputs import put_in_place, refuse_unsafe_output, temporary_beside
from cli.params import FILE_NAME, db_option, library_path
from cli.terminal import echo
from eventstore.libraries import LibraryRef, library_name
from service.reading import GameSource


@click.command()
@click.argument("games", nargs=-1, metavar="GAME...", type=FILE_NAME)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["jsonl", "bgstats"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one library game as its log; bgstats: finished games as one BG Stats play file.",
)
@click.option(
    "--all", "every_game", is_flag=True, help="With --format bgstats: every finished game of the library."
)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file to write (default: ./GAME.jsonl, ./GAME.bgsplay or ./plays.bgsplay;"
    " - for standard output).",
)
@click.option("--location", default=None, help="With --format bgstats: where the games were played.")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@db_option
@click.pass_context
def export(
    ctx: click.Context,
    games: tuple[str, ...],
    output_format: str,
    every_game: bool,
    output: Path | None,
    location: str | None,
    force: bool,
    db_path: LibraryRef | None,
) -> None:
    """Export a game (a library id or a log file) to a JSONL log, or games as a BG Stats play file.

    The JSONL events are written exactly as stored, so the file has the same hashes and
    fingerprint; a log file is written out only if it passes the audit (`we audit`). With
    --format bgstats each GAME (a log file or a library id), or with --all every finished
    game that passes the audit in the library, becomes one play of one .bgsplay file that
    BG Stats imports; a game not over or failing the audit is refused. An existing FILE is
    never overwritten unless --force is given.
    """
    if output_format == "jsonl":
        if every_game or location is not None or len(games) != 1:
            raise click.UsageError(
                "--format jsonl exports one GAME (--all and --location go with --format bgstats)"
            )
        if path_mode(games[0]) is not None:  # a file first, then a library id, as everywhere
            _export_log_file(resolve_game(games[0], db_path), output, force)
            return
        from cli.library import export_game

        ctx.invoke(export_game, game=games[0], output=output, force=force, db_path=db_path)
        return
    if every_game and games:
        raise click.UsageError("give GAME... or --all, not both")
    if not every_game and not games:
        raise click.UsageError("give the GAME... to export, or --all for the whole library")
    from service import bgstats

    sources = _library_sources(db_path) if every_game else [resolve_game(text, db_path) for text in games]
    plays = []
    for source in sources:
        report = read_game(source, keep_lines=True)
        if every_game and (report.problems or not report.complete):
            continue  # --all: only what `we stats` counts
        require_valid(report)
        if not report.complete:
            raise CommandFailed(f"{report.source}: the game is not over yet, so it is not a play to export")
        plays.append(bgstats.play_from_report(report))
    if not plays:
        raise CommandFailed(f"no finished games in the library {library_name(library_path(db_path))}")
    import orjson

    data = orjson.dumps(
        bgstats.play_file(plays, location), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    )
    what = f"{len(plays)} play{'s' if len(plays) != 1 else ''}"
    if output is not None and str(output) == "-":
        from cli.terminal import json_bytes_safe

        sys.stdout.buffer.write(json_bytes_safe(data))  # names that would steer a terminal, as \u escapes
        sys.stdout.buffer.flush()
        echo(f"exported {what} for BG Stats to standard output", err=True)
        return
    target = (
        output
        if output is not None
        else Path(f"{plays[0].game}.bgsplay" if len(plays) == 1 and not every_game else "plays.bgsplay")
    )
    inputs = [s.path for s in sources] + [Path(s.db_path) for s in sources[:1] if isinstance(s.db_path, Path)]
    replace = refuse_unsafe_output(target, force, inputs=inputs)
    temporary = temporary_beside(target)
    try:
        temporary.write_bytes(data)
        put_in_place(temporary, target, replace)
    finally:
        temporary.unlink(missing_ok=True)
    echo(f"exported {what} for BG Stats to {target}")


def _library_sources(db_path: LibraryRef | None) -> list[GameSource]:
    db = library_path(db_path)
    if not library_exists(db):
        raise CommandFailed(f"there is no library at {library_name(db)} yet (add games with `we import`)")
    with connect_library(db, read_only=True) as library:
        ids = [row["id"] for row in library.games() if row["id"] is not None]
    return [GameSource(label=game_id, db_path=db, game_id=game_id) for game_id in ids]


def _export_log_file(source: GameSource, output: Path | None, force: bool) -> None:
    """A log file written out byte for byte once it passes the audit. What is checked is a
    private copy, and that copy is what is written: a log changed meanwhile is never half-new."""
    import shutil
    import tempfile

    from service.log_files import copy_log

    assert source.path is not None  # the caller exports library games through the library
    with tempfile.TemporaryDirectory(prefix="we-export-") as folder:
        copy = Path(folder) / "log.jsonl"
        try:
            copy_log(source.path, copy)  # a FIFO is refused
        except FileNotFoundError:
            raise CommandFailed(f"{source.label}: no such file (it vanished)") from None
        except OSError as exc:
            raise CommandFailed(f"{source.label}: cannot be read: {exc.strerror or exc}") from None
        report = require_valid(read_game(GameSource(label=source.label, path=copy)))
        what = f"{report.events} events, fingerprint {report.fingerprint}"
        if output is not None and str(output) == "-":
            with open(copy, "rb") as f:
                sys.stdout.flush()
                shutil.copyfileobj(f, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            echo(f"exported game {report.game!r} to standard output ({what})", err=True)
            return
        target = output if output is not None else Path(f"{report.game}.jsonl")
        replace = refuse_unsafe_output(target, force, inputs=[source.path])
        temporary = temporary_beside(target)
        try:
            shutil.copyfile(copy, temporary)
            put_in_place(temporary, target, replace)
        finally:
            temporary.unlink(missing_ok=True)
    echo(f"exported game {report.game!r} to {target} ({what})")
