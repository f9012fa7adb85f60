"""Where a game library is and what is there: a SQLite file or a PostgreSQL URL, named for
messages, found without creating it, and opened with the backend it needs.

Every face (the CLI, the recorder, the service) asks here, so that what a SQLite file's header
looks like, that a `-wal` file may hold what the main file does not yet, and which URLs mean
PostgreSQL are known in one place. The backends are imported only when one is opened: naming
and finding a library stays cheap for `we --help`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eventstore.persistence import GameLibrary

# Where a library is: a SQLite file, or a PostgreSQL URL (postgresql://...).
LibraryRef = Path | str

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def is_library_url(text: object) -> bool:
    return isinstance(text, str) and text.startswith(("postgresql://", "postgres://"))


def library_location(given: LibraryRef | None) -> LibraryRef:
    """The library meant: `given`, else $WE_DB (a file or a URL), else the default file."""
    if given is not None:
        return given
    env = os.environ.get("WE_DB")
    if is_library_url(env):
        return str(env)
    from eventstore.sqlite import default_db_path

    return default_db_path()


def library_name(db: LibraryRef) -> str:
    """How messages name a library: its path, or its URL without the password."""
    if isinstance(db, str):
        from eventstore.postgres import display_url

        return display_url(db)
    return str(db)


def library_found(db: LibraryRef) -> bool:
    """Whether there is a library to read: a file, or a database holding the tables (asked
    without creating them: commands that only read leave an empty database alone)."""
    if isinstance(db, str):
        from eventstore.postgres import has_library

        return has_library(db)
    return library_file_exists(db)


def library_file_exists(path: Path) -> bool:
    """Whether `path` holds a library, or something to refuse as one: an empty file does not
    (a read-only command leaves it empty), unless its -wal file holds what it has."""
    try:
        if path.stat().st_size > 0:
            return True
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # there, but cannot be looked at: opening it says why
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


def is_sqlite_file(path: Path | str) -> bool:
    """Whether the file at `path` is a SQLite database (a library, or someone else's)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def connect(
    db: LibraryRef, on_upgrade: Callable[[str], None] | None = None, read_only: bool = False
) -> GameLibrary:
    """A new connection to the library at `db`, a SQLite file or a PostgreSQL URL;
    `on_upgrade` hears of an old SQLite library upgraded first. `read_only` for a command that
    only reads: it creates, upgrades and changes nothing."""
    if isinstance(db, str):
        from eventstore.postgres import Library as PostgresLibrary

        return PostgresLibrary(db, read_only=read_only)
    from eventstore.sqlite import Library

    return Library(db, on_upgrade=on_upgrade, read_only=read_only)
