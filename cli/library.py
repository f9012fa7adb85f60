"""The game library: `we import`, `we export`, `we games`, and `we repair` for files (`we stats`
is cli.stats).

The library (eventstore) stores logs; whether a game is valid, over and won is decided by
service.library, folding it with wecore exactly as `we audit` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli.batch import collector_settled_for_a_batch, logs_in_directory, worker_count
from cli.exits import CommandFailed
from cli.opening import connect_library, library_exists, read_game
from cli.outputs import put_in_place, refuse_unsafe_output, temporary_beside
from cli.params import FILE_NAME, LibraryParam, db_option, jobs_option, library_path
from cli.terminal import echo, echo_json, one_line
from eventstore.errors import StoreError
from eventstore.libraries import LibraryRef, library_name
from service.reading import GameSource
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
@jobs_option(
    "Audit logs at once in this many worker processes while this one writes the library; what is "
    "imported and said, in argument order, is the same with any count"
)
@db_option
def import_logs(
    files: tuple[str, ...], from_db: LibraryRef | None, jobs: int, db_path: LibraryRef | None
) -> None:
    """Import JSONL logs into the game library.

    Each FILE (or every *.jsonl in a directory) is audited first: a log with any integrity,
    schema or rules problem is refused, with one line naming its first problem, and the rest
    are imported. A season ledger (such as the season.jsonl `we serve` keeps) is skipped with
    one line. Importing a log that is already in the library changes nothing (and says
    so); a longer version of a stored game adds its new events. With --from-db every game of
    that library is audited and imported the same way (to move a library from SQLite to
    PostgreSQL or back). Exit status 1 if any log was refused, or could not be read, or
    nothing but season ledgers was given.
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
    statuses = ("imported", "extended", "unchanged", "skipped", "refused", "unreadable", "not imported")
    counts = dict.fromkeys(statuses, 0)
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
            for source, verified in _verified_in_order(sources, jobs):
                label = source.label
                if verified is None:
                    _refuse(f"{label}: no such file")
                    counts["refused"] += 1
                    continue
                status, message = _import_one(library, source, verified, alone=len(sources) == 1)
                counts[status] += 1
                if message is not None:
                    committed.append(message)
                if not counted or library.commits != commits:
                    commits = getattr(library, "commits", 0)
                    _say(committed)
        _say(committed)
        if counts["imported"] or counts["extended"]:
            _refresh_ratings(library, library_path(db_path))
    if len(sources) > 1:
        echo(", ".join(f"{n} {what}" for what, n in counts.items() if n) + ".")
    failed = counts["refused"] or counts["unreadable"] or counts["not imported"]
    if failed or counts["skipped"] == len(sources):
        raise click.exceptions.Exit(1)


def _refresh_ratings(library: Any, db: LibraryRef) -> None:
    """The library's ratings table over its games, new ones included; a failure is said, and
    the games imported stay."""
    from service.library import refresh_ratings

    try:
        refresh_ratings(library, db, read_game)
    except StoreError as exc:
        echo(f"we: the ratings table was not updated: {one_line(str(exc))}", err=True)


def _missing(source: GameSource, listed: bool) -> bool:
    """A FILE given that is not there (one listed in a directory was, a moment ago)."""
    return not listed and source.path is not None and not os.path.lexists(source.path)


def _say(messages: list[str]) -> None:
    for message in messages:
        echo(message)
    messages.clear()


# Tasks (of at most _LOGS_PER_TASK logs) audited ahead of the log being written, per worker:
# enough to keep the workers busy while the library commits, few enough that memory stays
# bounded whatever the archive's size.
_AHEAD_PER_WORKER = 4
_LOGS_PER_TASK = 16


def _verify(source: GameSource) -> Any:
    """A worker's audit of one log, its lines handed back as one JSON text: rebuilt by orjson
    in the writing process they cost it less than pickle's dicts (an import of 3,000 games took
    about 0.5 s less, of 6.5 s). A verified line holds nothing JSON cannot say again (the
    format's limits)."""
    import orjson

    from service.library import VerifiedLog, verified_for_import

    verified = verified_for_import(source, read_game)
    if isinstance(verified, VerifiedLog):
        return orjson.dumps(verified.lines), verified.summary, verified.written, verified.ranks
    return verified


def _verify_all(sources: list[GameSource]) -> list[Any]:
    return [_verify(source) for source in sources]


def _received(result: Any) -> Any:
    import orjson

    from service.library import VerifiedLog

    if isinstance(result, tuple):
        text, summary, written, ranks = result
        return VerifiedLog(orjson.loads(text), summary, written, ranks)
    return result


def _verified_in_order(sources: list[tuple[GameSource, bool]], jobs: int) -> Iterable[tuple[GameSource, Any]]:
    """Each source with its audit (service.library.verified_for_import; None: a FILE given that
    is not there), in argument order. With more than one worker, the logs of files are audited
    in worker processes, a bounded number ahead; a library's games are audited here, over this
    process's connection to it."""

    from service.library import verified_for_import

    # Whether each FILE is there is looked at once: the workers' queue follows that answer.
    checked = [(source, _missing(source, listed)) for source, listed in sources]
    files = [source for source, missing in checked if source.path is not None and not missing]
    workers = worker_count(jobs, len(files))
    if workers <= 1:
        for source, missing in checked:
            yield source, None if missing else verified_for_import(source, read_game)
        return
    yield from _verified_by_workers(checked, files, workers)


def _verified_by_workers(
    checked: list[tuple[GameSource, bool]], files: list[GameSource], workers: int
) -> Iterable[tuple[GameSource, Any]]:
    from collections import deque

    from cli.batch import worker_pool
    from service.library import verified_for_import

    # Logs go to the workers a few at a time: one task a log cost more in handing tasks and
    # results over than the audits saved.
    size = max(1, min(_LOGS_PER_TASK, len(files) // (workers * 4)))
    chunks = iter([files[start : start + size] for start in range(0, len(files), size)])
    with worker_pool(workers) as pool:
        ahead: deque[Any] = deque()
        received: deque[Any] = deque()

        def submit() -> None:
            chunk = next(chunks, None)
            if chunk is not None:
                ahead.append(pool.submit(_verify_all, chunk))

        for _ in range(workers * _AHEAD_PER_WORKER):
            submit()
        for source, missing in checked:
            if missing:
                yield source, None
            elif source.path is None:
                yield source, verified_for_import(source, read_game)
            else:
                if not received:
                    received.extend(ahead.popleft().result())
                    submit()
                yield source, _received(received.popleft())


def _import_one(
    library: GameLibrary, source: GameSource, verified: Any, alone: bool = False
) -> tuple[str, str | None]:
    """Import one audited log (service.library): (status, what to say once committed); why a
    log was not imported is said at once."""
    from service.library import REFUSED, SKIPPED, ImportOutcome, import_verified_log

    outcome = (
        verified
        if isinstance(verified, ImportOutcome)
        else import_verified_log(library, verified, source.label)
    )
    if outcome.in_library:
        return outcome.status, outcome.text
    if outcome.status == SKIPPED:
        text = one_line(outcome.text)
        echo(f"we: error: {text}" if alone else f"we: {text}; skipped", err=True)
    elif outcome.status == REFUSED:
        _refuse(outcome.text)
    else:
        echo(f"we: error: {one_line(outcome.text)}", err=True)
    return outcome.status, None


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
        for row in rows:
            echo_json({name: row[name] for name in _GAME_FIELDS}, indent=None)
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


# --- repair --------------------------------------------------------------------------


@click.command()
@click.argument("file", metavar="FILE", type=FILE_NAME)
def repair(file: str) -> None:
    """Cut a torn last line off a log, keeping a backup of the file as it was.

    Only a torn tail (a last line without its newline, left by a recorder that died mid-write)
    is repaired, without asking: the backup is FILE.bak. A log damaged anywhere else is left
    untouched and the command fails: that is tampering or corruption, not something to cut.
    """
    from service.log_files import repair_log

    path = Path(file)
    if path.is_dir():
        raise CommandFailed(f"{file} is a directory, not a log")
    if not path.exists():
        if path.is_symlink():
            from cli.terminal import shown_path

            target = shown_path(os.readlink(path))
            raise CommandFailed(f"{file}: a dangling symbolic link (to {target}, not there), so not a log")
        raise CommandFailed(f"no such file: {file}")
    try:
        result = repair_log(path)
    except StoreError as exc:
        raise CommandFailed(f"{exc}; nothing was changed") from None
    echo(result.message)
