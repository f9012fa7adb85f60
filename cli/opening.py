"""Opening a GAME argument: an existing file first, then a game id in the library, read through
one connection per library for the whole command, and checked (service.reading)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.exits import CommandFailed
from cli.params import library_path
from cli.terminal import echo, shown_path
from eventstore.libraries import LibraryRef, library_name
from wecore.errors import shown as quoted

if TYPE_CHECKING:
    from eventstore.persistence import GameLibrary
    from service.reading import GameReport, GameSource


def library_exists(db: LibraryRef) -> bool:
    """Whether there is a library to read (eventstore.libraries.library_found), without a stat
    or query per game id once this command has it open."""
    if db in _open_libraries:
        return True
    from eventstore.libraries import library_found

    return library_found(db)


def resolve_game(text: str, db_path: LibraryRef | None) -> GameSource:
    """A GAME argument: an existing file first, then a game id in the library."""
    return game_source(text, db_path, path_mode(text))


def game_source(text: str, db_path: LibraryRef | None, mode: int | None) -> GameSource:
    """resolve_game for an argument already stat'ed (`mode`: its st_mode, None if nothing is
    there), so that auditing twenty thousand game ids costs one stat each, not four."""
    # Imported here, not at the top: `we --help` and commands that read no game skip it.
    from service.reading import GameSource

    if mode is not None and stat.S_ISDIR(mode):
        raise CommandFailed(f"{shown_path(text)} is a directory, not a game log")
    if mode is not None:
        # A FIFO, socket or device is named for what it is by the reader ("not a regular
        # file"), as import, repair and record name it; never "no such file".
        return GameSource(label=text, path=Path(text))
    if os.path.islink(text):
        target = shown_path(os.readlink(text))
        raise CommandFailed(f"{shown_path(text)}: a broken symbolic link (to {target}), so not a log")
    from eventstore.envelope import valid_game_id

    if valid_game_id(text):
        db = library_path(db_path)
        if library_exists(db) and open_library(db).has_game(text):
            return GameSource(label=text, db_path=db, game_id=text)
        where = library_name(db)
        raise CommandFailed(f"no game {quoted(text)}: not a file, and not a game id in the library {where}")
    raise CommandFailed(f"no such file: {shown_path(text)}")


def path_mode(text: str) -> int | None:
    """The st_mode of what `text` names (following links), or None if nothing is there;
    CommandFailed if it cannot be looked at (no permission, a loop of links)."""
    if not text:
        return None  # not the current directory, which Path("") would be
    try:
        return os.stat(Path(text)).st_mode  # Path: "log.jsonl/" names the file, as it always did
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
    except OSError as exc:
        raise CommandFailed(f"{shown_path(text)}: cannot read: {exc.strerror or exc}") from None


def _library_rows(source: GameSource) -> Iterator[dict[str, Any]]:
    return open_library(source.db_path).log(source.game_id).rows()  # type: ignore[arg-type]


_open_libraries: dict[LibraryRef, GameLibrary] = {}
# Connections a forked worker (audit --jobs) inherited: its parent's to use, never the child's,
# so they are kept unclosed rather than let go (closing would end the parent's session).
_inherited_libraries: list[GameLibrary] = []


def _forget_parents_libraries() -> None:
    _inherited_libraries.extend(_open_libraries.values())
    _open_libraries.clear()


os.register_at_fork(after_in_child=_forget_parents_libraries)


def open_library(path: LibraryRef) -> GameLibrary:
    """One connection per library for the whole command: auditing a thousand games by id
    should not connect a thousand times."""
    library = _open_libraries.get(path)
    if library is None:
        # Every command that reaches a library through a GAME argument only reads it.
        library = _open_libraries[path] = connect_library(path, read_only=True)
    return library


def connect_library(path: LibraryRef, read_only: bool = False) -> GameLibrary:
    """A new connection to the library at `path`, a SQLite file or a PostgreSQL URL (every
    command opens libraries this way), saying so on stderr if an old library is upgraded first;
    `read_only` for a command that only reads."""
    from eventstore.libraries import connect

    return connect(path, on_upgrade=lambda message: echo(f"we: {message}", err=True), read_only=read_only)


def read_game(source: GameSource, keep_envelopes: bool = False, keep_lines: bool = False) -> GameReport:
    """service.reading.read_game, reading library games through this command's connection."""
    from service.reading import read_game as _read_game

    return _read_game(source, keep_envelopes, keep_lines, _library_rows)


def load_game(text: str, db_path: LibraryRef | None, keep_envelopes: bool = True) -> GameReport:
    return read_game(resolve_game(text, db_path), keep_envelopes=keep_envelopes)


def require_valid(report: GameReport) -> GameReport:
    """Commands that build on a game refuse a broken one, naming its first problem."""
    if report.problems:
        raise CommandFailed(report.first_problem())
    return report
