"""Importing logs into the SQLite library: a JSONL file, envelopes in memory, or lines the
caller has just verified. Each import is all or nothing, inside the library's write.

The same log again is a no-op ("unchanged"), as is a prefix of the stored game; a log that
extends the stored game exactly gets its new tail appended ("extended"); anything else under an
existing game id is an ImportConflictError. `import_new_game` is `import_scanned` for a game
the library does not hold yet, with nothing to decide per line: `we import`'s hot loop.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from eventstore.canonical import fingerprint
from eventstore.errors import GameNotFoundError, ImportConflictError, LogIntegrityError, StoreError
from eventstore.persistence import Summary
from eventstore.problems import EMPTY, Problem
from eventstore.sqlite_schema import INSERT_EVENT, SELECT_HEAD, SEQ_LIMIT, event_row, game_base, too_long
from eventstore.verify import Scanned, scan_lines

if TYPE_CHECKING:
    from eventstore.sqlite import Library

_SORT = orjson.OPT_SORT_KEYS
# Rows per executemany call while importing: large enough to amortise the call, small enough
# that a 10 GB log does not sit in memory.
IMPORT_BATCH = 10_000


@dataclass(frozen=True, slots=True)
class ImportResult:
    game_id: str
    status: str  # "imported" | "extended" | "unchanged"
    events_added: int
    events: int  # events of this game in the library afterwards
    fingerprint: str | None  # None only when a stored head was edited into a malformed hash
    message: str


def import_path(library: Library, conn: sqlite3.Connection, path: Path) -> ImportResult:
    try:
        f = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below
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
    base = game_base(library._insert_game(conn, first, last, summary))
    dumps, sort = orjson.dumps, _SORT
    conn.executemany(
        INSERT_EVENT,
        [
            (base + line["seq"], line["type"], dumps(line["data"], option=sort).decode(),
             line["at"], line["prev"], line["hash"])
            for line in lines
        ],
    )  # fmt: skip
    game, added = first["game"], len(lines)
    msg = f"{label}: imported game {game!r} ({added} events)"
    return ImportResult(game, "imported", added, added, fingerprint(last["hash"]), msg)


def import_scanned(
    library: Library,
    conn: sqlite3.Connection,
    label: str,
    scanned: Iterable[Scanned],
    summary: Summary | None = None,
) -> ImportResult:
    problems: list[Problem] = []
    batch: list[tuple[Any, ...]] = []
    first: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    new_game = False
    base = 0
    have_seq, have_hash = 0, ""
    added = 0
    insert = conn.executemany
    for n, raw, msgs, usable in scanned:
        if msgs or not usable:
            # Keep scanning so the refusal lists every broken line, but store nothing.
            problems.extend([Problem.integrity(n, m) for m in msgs or ()])  # type: ignore[arg-type]
            continue
        if problems:
            continue
        assert raw is not None  # usable
        if first is None:
            first = raw
            key = library._game_key(conn, raw["game"])
            if key is None:
                # Rolled back with the rest if a later line turns out broken.
                new_game, key = True, library._insert_game(conn, raw, raw, summary)
            base = game_base(key)
            head = conn.execute(SELECT_HEAD, (base, base + SEQ_LIMIT)).fetchone()
            if head is not None:
                have_seq, have_hash = head[0], head[5]
        last = raw
        seq = raw["seq"]
        if seq > have_seq:
            if seq >= SEQ_LIMIT:
                raise too_long(label)
            batch.append(event_row(base, raw))
            if len(batch) >= IMPORT_BATCH:
                insert(INSERT_EVENT, batch)
                added += len(batch)
                batch.clear()
        elif seq == have_seq and raw["hash"] != have_hash:
            # The chain makes one hash stand for everything before it: differing here
            # means the two logs differ somewhere up to this line.
            raise ImportConflictError(
                raw["game"], label, seq,
                f"event {seq} has hash {raw['hash'][:19]}, the library's {have_hash[:19]}",
            )  # fmt: skip
    if first is None and not problems:
        problems.append(Problem.integrity(1, EMPTY))
    if problems:
        raise LogIntegrityError(label, problems)
    assert first is not None and last is not None
    if batch:
        insert(INSERT_EVENT, batch)
        added += len(batch)
    game, last_seq, last_hash = first["game"], last["seq"], last["hash"]
    game_print = fingerprint(last_hash)
    if new_game:
        library._advance_game(conn, last)
        msg = f"{label}: imported game {game!r} ({added} events)"
        return ImportResult(game, "imported", added, added, game_print, msg)
    if added:
        library._advance_game(conn, last)
        if summary is not None:
            library._set_summary(conn, game, summary)
        msg = f"{label}: extended game {game!r} by {added} event{'s' if added != 1 else ''} to {last_seq}"
        return ImportResult(game, "extended", added, last_seq, game_print, msg)
    if last_seq < have_seq:
        stored = conn.execute("SELECT hash FROM events WHERE id = ?", (base + last_seq,)).fetchone()
        if stored is None or stored[0] != last_hash:
            raise ImportConflictError(game, label, last_seq, f"event {last_seq} differs from the library's")
        msg = (
            f"{label}: nothing to import: the library's game {game!r} already has these "
            f"{last_seq} events and {have_seq - last_seq} more"
        )
        return ImportResult(game, "unchanged", 0, have_seq, fingerprint(have_hash), msg)
    msg = f"{label}: nothing to import: game {game!r} is already in the library, unchanged"
    return ImportResult(game, "unchanged", 0, have_seq, game_print, msg)
