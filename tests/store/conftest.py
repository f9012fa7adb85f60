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
from eventstore.postgres import Library as PgLibrary
from eventstore.sqlite import Library

from .helpers import FROZEN_AT, Tamper, split_lines

ENVELOPE_KEYS = {"v", "game", "seq", "at", "type", "data", "prev", "hash"}


class Backend:
    """Makes logs of one kind, and edits their stored form behind the store's back."""

    name = ""

    def new_log(self, game_id: str) -> Any:
        raise NotImplementedError

    def tamper(self, log: Any, fn: Tamper) -> None:
        raise NotImplementedError


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

    def new_log(self, game_id: str) -> Any:
        return self.library.log(game_id)

    def tamper(self, log: Any, fn: Tamper) -> None:
        lines = [e.to_line() for e in log.read_unchecked()]
        conn = self.library.conn
        (key,) = conn.execute("SELECT key FROM games WHERE id = ?", (log.game_id,)).fetchone()
        base = key << 32
        rows = []
        for position, line in enumerate(fn(lines), start=1):
            if not line.endswith(b"\n") or not line.strip():
                pytest.skip("a blank or torn line cannot be stored as a row")
            obj = json.loads(line)
            if set(obj) != ENVELOPE_KEYS:
                pytest.skip("a row has exactly the envelope's columns")
            if obj["v"] != 1 or type(obj["v"]) is not int or type(obj["seq"]) is not int:
                pytest.skip("rows do not store `v`, and `seq` is an integer column")
            data = orjson.dumps(obj["data"], option=orjson.OPT_SORT_KEYS).decode()
            rows.append((base + position, obj["type"], data, obj["at"], obj["prev"], obj["hash"]))
        conn.execute("DELETE FROM events WHERE id >= ? AND id < ?", (base, base + (1 << 32)))
        conn.executemany("INSERT INTO events (id, type, data, at, prev, hash) VALUES (?,?,?,?,?,?)", rows)


class PostgresBackend(Backend):
    """The PostgreSQL library: like LibraryBackend, a tampered line is stored as the row at
    its position (seq = position), as someone editing the table would."""

    # A library too, in what the contract expects of it (rows keyed by seq, not lines).
    name = "library"

    def __init__(self, url: str) -> None:
        # (eventstore.postgres is imported above, not here: psycopg's C module must see the
        # real datetime, not freezegun's.)
        self.library = PgLibrary(url)

    def new_log(self, game_id: str) -> Any:
        return self.library.log(game_id)

    def tamper(self, log: Any, fn: Tamper) -> None:
        lines = [e.to_line() for e in log.read_unchecked()]
        conn = self.library.conn
        (key,) = conn.execute("SELECT key FROM games WHERE id = %s", (log.game_id,)).fetchone()
        rows = []
        for position, line in enumerate(fn(lines), start=1):
            if not line.endswith(b"\n") or not line.strip():
                pytest.skip("a blank or torn line cannot be stored as a row")
            obj = json.loads(line)
            if set(obj) != ENVELOPE_KEYS:
                pytest.skip("a row has exactly the envelope's columns")
            if obj["v"] != 1 or type(obj["v"]) is not int or type(obj["seq"]) is not int:
                pytest.skip("rows do not store `v`, and `seq` is an integer column")
            data = orjson.dumps(obj["data"], option=orjson.OPT_SORT_KEYS).decode()
            rows.append((key, position, obj["type"], data, obj["at"], obj["prev"], obj["hash"]))
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


@pytest.fixture(params=["jsonl", "library", "postgres", "memory"])
def backend(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Iterator[Backend]:
    if request.param == "jsonl":
        yield JsonlBackend(tmp_path)
    elif request.param == "library":
        b = LibraryBackend(tmp_path)
        yield b
        b.library.close()
    elif request.param == "postgres":
        pg = PostgresBackend(request.getfixturevalue("pg_url"))
        yield pg
        pg.library.close()
    else:
        yield MemoryBackend()
