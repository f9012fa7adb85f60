"""A game library opened in Datasette: its labels and canned queries, for whatever the file is called.

Datasette names a database file by its stem (`~/we-club.db` is `we-club`) and finds the metadata
of a database under that name only: a metadata file keyed `games` is silently ignored for any
library not called `games.db`. So the metadata is written for the given library's own name.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from eventstore.libraries import is_library_url, is_sqlite_file, library_file_exists
from service.extras import install_hint

INSTALL_HINT = install_hint("datasette", "datasette")

# The questions a club asks of its library, as Datasette canned queries (read-only SQL).
CANNED_QUERIES: dict[str, dict[str, str]] = {
    "winners": {
        "title": "Wins per player",
        "description": "Finished games won, per winner as the library records it.",
        "sql": "SELECT winner, count(*) AS wins FROM games WHERE complete GROUP BY winner "
        "ORDER BY wins DESC, winner",
    },
    "notes": {
        "title": "Notes",
        "description": "Every game with notes, in the order they were played.",
        "sql": "SELECT id, title, notes FROM games WHERE notes IS NOT NULL ORDER BY started_at",
    },
    "events_of": {
        "title": "The events of one game",
        "description": "One game's log, event by event (the game id, as `we games` lists it).",
        "sql": "SELECT seq, type, data, at FROM envelopes WHERE game = :game ORDER BY seq",
    },
    "games_of": {
        "title": "The games of one player",
        "description": "Every game a player's name appears in (as written in the logs).",
        "sql": "SELECT games.id, title, started_at, winner FROM games, json_each(games.players) "
        "WHERE json_each.value = :player ORDER BY started_at",
    },
}

TABLES: dict[str, dict[str, Any]] = {
    "games": {
        "description": "One row per game: its id, title, players, first and last event, "
        "whether it is over, its winner and its notes.",
        "label_column": "title",
        "sort_desc": "started_at",
    },
    "events": {
        "description": "The events as stored; the view `envelopes` has them with the log's own fields.",
    },
    "envelopes": {
        "description": "One row per event with the log's fields (log-format.md): game, seq, type, "
        "data as canonical JSON, at, prev, hash.",
    },
}


class DatasetteRefused(ValueError):
    """Why a library cannot be opened in Datasette: one line for the user."""


def database_name(library: Path) -> str:
    """The name Datasette gives a database file: its file name without the last suffix."""
    return library.stem


def library_metadata(library: Path) -> dict[str, Any]:
    """Datasette metadata for `library`, keyed by the name Datasette will give it."""
    return {
        "title": f"we: the game library {library.name}",
        "description": "White Elephant games recorded with `we`; every game passed the audit on import.",
        "databases": {
            database_name(library): {
                "description": "A `we` game library (docs: howto/library.md).",
                "tables": TABLES,
                "queries": CANNED_QUERIES,
            }
        },
    }


def checked_library(library: Path | str) -> Path:
    """`library` if Datasette can open it as a `we` SQLite library, else DatasetteRefused."""
    if is_library_url(library):
        raise DatasetteRefused(
            "Datasette opens SQLite files, not PostgreSQL: export the library first "
            "(we import --from-db URL --db FILE.db)"
        )
    path = Path(library)
    if not library_file_exists(path):
        raise DatasetteRefused(f"no library at {path}: make one with `we import LOG... --db {path}`")
    if not is_sqlite_file(path):
        raise DatasetteRefused(f"{path} is not a SQLite file, so not a game library")
    return path


def datasette_installed() -> bool:
    return importlib.util.find_spec("datasette") is not None


def write_metadata(library: Path, out: Path) -> Path:
    out.write_text(json.dumps(library_metadata(library), indent=2) + "\n", encoding="utf-8")
    return out


def datasette_argv(library: Path, metadata: Path, host: str, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "datasette",
        "serve",
        str(library),
        "--metadata",
        str(metadata),
        "--host",
        host,
        "--port",
        str(port),
    ]


def serve_library(library: Path, host: str, port: int) -> int:
    """Run Datasette on `library` with its metadata until it stops; its exit status."""
    if not datasette_installed():
        raise DatasetteRefused(f"Datasette is not installed: {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="we-datasette-") as folder:
        metadata = write_metadata(library, Path(folder) / f"{database_name(library)}-metadata.json")
        # Ctrl-C reaches Datasette too (one process group); wait for it to finish its own exit.
        with subprocess.Popen(datasette_argv(library, metadata, host, port), env=os.environ.copy()) as child:
            try:
                return child.wait()
            except KeyboardInterrupt:
                return child.wait()
