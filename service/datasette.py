"""A game library opened in Datasette: its labels and canned queries, for whatever the file is called.

Datasette names a database file by its stem (`~/we-club.db` is `we-club`) and finds the metadata
of a database under that name only: a metadata file keyed `games` is silently ignored for any
library not called `games.db`. So the metadata is written for the given library's own name.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
from contextlib import suppress
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
    "ladder": {
        "title": "Ratings ladder",
        "description": "Each player's openskill Plackett-Luce rating, highest ordinal (mu - 3 sigma) "
        "first, as `we stats --ratings` or the last import wrote it.",
        "sql": "SELECT player, games, round(mu, 2) AS mu, round(sigma, 2) AS sigma, "
        "round(ordinal, 2) AS ordinal FROM ratings ORDER BY ordinal DESC, player",
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
    "ratings": {
        "description": "One row per player: games rated, mu, sigma and the ordinal mu - 3 sigma "
        "(openskill's Plackett-Luce over the finished games in the order played; reference/ratings.md).",
        "sort_desc": "ordinal",
    },
    "ranks": {
        "description": "One row per seat of each finished game: its player, final score and place "
        "(1 the best, equal places tie; a recorded tie_broken decides the top), as of the game's "
        "`events` events; the ratings are computed from these (reference/ratings.md).",
    },
    "envelopes": {
        "description": "One row per event with the log's fields (log-format.md): game, seq, type, "
        "data as compact JSON, at, prev, hash.",
    },
    "event_lines": {
        "description": "Lines kept as their file wrote them (by the event's row id), where that is "
        "not the row's own form: `we export` gives them back byte for byte.",
    },
    "game_seals": {
        "description": "Games sealed by their id into a season ledger (its path, line and "
        "fingerprint): the library refuses to extend them.",
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


# The signals that stop `we datasette`: each is passed on to Datasette, which `we` then waits for,
# so no Datasette outlives the command and its temporary folder goes with it.
STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# How long Datasette has to stop on its own once asked, before it is killed.
STOP_GRACE_SECONDS = 10.0


class _Stopping(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def serve_library(library: Path, host: str, port: int) -> int:
    """Run Datasette on `library` with its metadata until it stops; its exit status, or 0 when it
    was stopped by SIGTERM, SIGINT or SIGHUP (which are passed on to it, and waited for)."""
    if not datasette_installed():
        raise DatasetteRefused(f"Datasette is not installed: {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="we-datasette-") as folder:
        metadata = write_metadata(library, Path(folder) / f"{database_name(library)}-metadata.json")
        child: subprocess.Popen[bytes] | None = None
        with _stop_on_signals():
            try:
                # Its own session: a terminal's Ctrl-C reaches `we` alone, which passes it on once.
                child = subprocess.Popen(
                    datasette_argv(library, metadata, host, port),
                    env=os.environ.copy(),
                    start_new_session=True,
                    preexec_fn=_stopped_with_its_parent,
                )
                return child.wait()
            except _Stopping:
                return 0 if child is None else _stopped(child)


def _stopped_with_its_parent() -> None:
    """In Datasette's process, before it starts (Linux): SIGTERM when `we` dies, even by a
    SIGKILL that `we` cannot pass on. Elsewhere nothing: the signals above still reach it."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def _stopped(child: subprocess.Popen[bytes]) -> int:
    """Ask Datasette to stop (its server finishes what it is answering), then make sure it has."""
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    return 0


class _stop_on_signals:
    """While inside: a stopping signal raises _Stopping once; later ones (a second Ctrl-C while
    Datasette stops) are ignored, so the temporary folder is always removed."""

    def __enter__(self) -> None:
        self.previous = {signum: signal.getsignal(signum) for signum in STOPPING_SIGNALS}
        for signum in STOPPING_SIGNALS:
            signal.signal(signum, self._raise)

    def _raise(self, signum: int, frame: object) -> None:
        for other in STOPPING_SIGNALS:
            signal.signal(other, signal.SIG_IGN)
        raise _Stopping(signum)

    def __exit__(self, *exc_info: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
