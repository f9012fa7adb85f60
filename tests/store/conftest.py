"""The contract fixture: one suite runs against every log backend."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from freezegun import freeze_time

from eventstore.jsonl import JsonlLog
from eventstore.memory import MemoryLog
from eventstore.persistence import GameLog
from eventstore.postgres import Library as PgLibrary
from eventstore.sqlite import Library

from .helpers import FROZEN_AT, Lines, Tamper, split_lines

ENVELOPE_KEYS = {"v", "game", "seq", "at", "type", "data", "prev", "hash"}


def row_values(lines: Lines) -> list[tuple[Any, ...]]:
    """Tampered lines as a library's rows would hold them: (seq = position, type, data, at,
    prev, hash). Lines that no row can hold (blank, torn, an unknown field, `v` or a
    non-integer `seq`) skip the test: import refuses them instead (test_sqlite covers that)."""
    rows = []
    for position, line in enumerate(lines, start=1):
        if not line.endswith(b"\n") or not line.strip():
            pytest.skip("a blank or torn line cannot be stored as a row")
        obj = json.loads(line)
        if set(obj) != ENVELOPE_KEYS:
            pytest.skip("a row has exactly the envelope's columns")
        if obj["v"] != 1 or type(obj["v"]) is not int or type(obj["seq"]) is not int:
            pytest.skip("rows do not store `v`, and `seq` is an integer column")
        data = orjson.dumps(obj["data"]).decode()  # compact, in the order written, as a library keeps it
        rows.append((position, obj["type"], data, obj["at"], obj["prev"], obj["hash"]))
    return rows


class Backend:
    """Makes logs of one kind, and edits their stored form behind the store's back. A new
    backend joins the contract suite with a subclass here and a line in BACKENDS."""

    name = ""
    # The fixture whose value the backend is made from: a folder, or a database's URL.
    place = "tmp_path"

    def new_log(self, game_id: str) -> GameLog:
        raise NotImplementedError

    def tamper(self, log: Any, fn: Tamper) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Let go of whatever the backend holds open (a connection)."""


class JsonlBackend(Backend):
    name = "jsonl"

    def __init__(self, tmp: pathlib.Path) -> None:
        self.tmp = tmp

    def new_log(self, game_id: str) -> JsonlLog:
        return JsonlLog(self.tmp / f"{game_id}.jsonl")

    def tamper(self, log: JsonlLog, fn: Tamper) -> None:
        log.path.write_bytes(b"".join(fn(split_lines(log.path.read_bytes()))))


class MemoryBackend(Backend):
    name = "memory"

    def __init__(self, tmp: pathlib.Path | None = None) -> None:
        pass  # nothing on disk

    def new_log(self, game_id: str) -> MemoryLog:
        return MemoryLog(name=f"memory:{game_id}")

    def tamper(self, log: MemoryLog, fn: Tamper) -> None:
        log.load(b"".join(fn(log.lines())))


class LibraryBackend(Backend):
    """Rows, not text: a tampered line is stored as the row at its position (the row id holds
    this game's key and seq = position), as someone editing the table would. Lines that no row
    can hold (blank, torn, an unknown field, `v` or a non-integer `seq`) skip the test: import
    refuses them instead, which test_sqlite covers."""

    name = "library"

    def __init__(self, tmp: pathlib.Path) -> None:
        self.library = Library(tmp / "games.db")

    def new_log(self, game_id: str) -> GameLog:
        return self.library.log(game_id)

    def close(self) -> None:
        self.library.close()

    def tamper(self, log: Any, fn: Tamper) -> None:
        lines = [e.to_line() for e in log.read_unchecked()]
        conn = self.library.conn
        (key,) = conn.execute("SELECT key FROM games WHERE id = ?", (log.game_id,)).fetchone()
        base = key << 32
        rows = [(base + seq, *rest) for seq, *rest in row_values(fn(lines))]
        conn.execute("DELETE FROM events WHERE id >= ? AND id < ?", (base, base + (1 << 32)))
        conn.executemany("INSERT INTO events (id, type, data, at, prev, hash) VALUES (?,?,?,?,?,?)", rows)


class PostgresBackend(Backend):
    """The PostgreSQL library: like LibraryBackend, a tampered line is stored as the row at
    its position (seq = position), as someone editing the table would."""

    # A library too, in what the contract expects of it (rows keyed by seq, not lines).
    name = "library"
    place = "pg_url"  # a database of its own

    def __init__(self, url: str) -> None:
        # (eventstore.postgres is imported above, not here: psycopg's C module must see the
        # real datetime, not freezegun's.)
        self.library = PgLibrary(url)

    def new_log(self, game_id: str) -> GameLog:
        return self.library.log(game_id)

    def close(self) -> None:
        self.library.close()

    def tamper(self, log: Any, fn: Tamper) -> None:
        lines = [e.to_line() for e in log.read_unchecked()]
        conn = self.library.conn
        (key,) = conn.execute("SELECT key FROM games WHERE id = %s", (log.game_id,)).fetchone()
        rows = [(key, *values) for values in row_values(fn(lines))]
        with conn.transaction():
            conn.execute("DELETE FROM events WHERE game = %s", (key,))
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO events (game, seq, type, data, at, prev, hash)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )


@pytest.fixture
def frozen() -> Iterator[None]:
    with freeze_time(FROZEN_AT):
        yield


BACKENDS: dict[str, type[Backend]] = {
    "jsonl": JsonlBackend,
    "library": LibraryBackend,
    "postgres": PostgresBackend,
    "memory": MemoryBackend,
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    kind = BACKENDS[request.param]
    made = kind(request.getfixturevalue(kind.place))
    yield made
    made.close()
