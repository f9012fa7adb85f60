"""Importing logs into the SQLite library: a JSONL file, envelopes in memory, or lines the
caller has just verified. Each import is all or nothing, inside the library's write.

The rules (imported, extended, unchanged, or refused) are `persistence.import_scanned`'s, the
same for every library; this module gives it the SQLite rows. `import_new_game` is
`import_scanned` for a game the library does not hold yet, with nothing to decide per line:
`we import`'s hot loop.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from eventstore import persistence
from eventstore.canonical import fingerprint
from eventstore.errors import GameNotFoundError, StoreError
from eventstore.integrity import Scanned, scan_lines
from eventstore.logfile import open_log
from eventstore.persistence import ImportResult, LibraryImportTarget, Summary
from eventstore.sqlite_schema import (
    INSERT_EVENT,
    ROW_VALUES,
    SELECT_HEAD,
    SEQ_LIMIT,
    event_row,
    game_base,
    notes_of,
    too_long,
)

if TYPE_CHECKING:
    from eventstore.sqlite import Library

_SORT = orjson.OPT_SORT_KEYS


def import_path(library: Library, conn: sqlite3.Connection, path: Path) -> ImportResult:
    try:
        f = open_log(path)
    except FileNotFoundError:
        raise GameNotFoundError(str(path)) from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with f:
        try:
            return import_scanned(library, conn, str(path), scan_lines(f))
        except OSError as exc:
            raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None


def import_new_game(
    library: Library,
    conn: sqlite3.Connection,
    label: str,
    lines: Sequence[dict[str, Any]],
    summary: Summary | None,
) -> ImportResult:
    # Verified lines have seq 1, 2, 3, ... in order: every one is stored, with no head to
    # compare against, so this is the general path with nothing left to decide per line.
    # The rows are event_row's, built inline: this is `we import`'s hot loop.
    first, last = lines[0], lines[-1]
    if last["seq"] >= SEQ_LIMIT:
        raise too_long(label)
    key = library._insert_game(conn, first, last, summary, notes_of(lines))
    base = game_base(key)
    dumps, sort = orjson.dumps, _SORT
    conn.executemany(
        INSERT_EVENT,
        [
            (key, base + line["seq"], line["type"], dumps(line["data"], option=sort).decode(),
             line["at"], line["prev"], line["hash"])
            for line in lines
        ],
    )  # fmt: skip
    game, added = first["game"], len(lines)
    msg = f"{label}: imported game {game!r} ({added} events)"
    return ImportResult(game, "imported", added, added, fingerprint(last["hash"]), msg)


class _SqliteImport(LibraryImportTarget):
    """import_scanned's target: one game's rows in the SQLite library, inside its write."""

    def __init__(
        self, library: Library, conn: sqlite3.Connection, label: str, summary: Summary | None
    ) -> None:
        self.library, self.conn, self.label, self.summary = library, conn, label, summary
        self.base = 0

    def locate(self, first: dict[str, Any]) -> tuple[bool, int, str]:
        key = self.library._game_key(self.conn, first["game"])
        if key is None:
            # Rolled back with the rest if a later line turns out broken.
            self.base = game_base(self.library._insert_game(self.conn, first, first, self.summary))
            return True, 0, ""
        self.base = game_base(key)
        args = (self.base, self.base + SEQ_LIMIT)
        head = next(self.library._rows(self.conn, SELECT_HEAD, args, ROW_VALUES, 1), None)
        return (False, 0, "") if head is None else (False, head[0], head[5])

    def store(self, objs: list[dict[str, Any]]) -> None:
        if objs[-1]["seq"] >= SEQ_LIMIT:
            raise too_long(self.label)
        base = self.base
        self.conn.executemany(INSERT_EVENT, [event_row(base, obj) for obj in objs])
        self.library._add_notes(self.conn, base, objs)

    def stored_hash(self, seq: int) -> Any:
        query = "SELECT hash FROM events WHERE id = ?"
        row = next(self.library._rows(self.conn, query, (self.base + seq,), "hash", 0), None)
        return None if row is None else row[0]


def import_scanned(
    library: Library,
    conn: sqlite3.Connection,
    label: str,
    scanned: Iterable[Scanned],
    summary: Summary | None = None,
) -> ImportResult:
    return persistence.import_scanned(_SqliteImport(library, conn, label, summary), label, scanned, summary)
