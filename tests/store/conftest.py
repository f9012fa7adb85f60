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
from eventstore.sqlite import Library

from .helpers import FROZEN_AT, Tamper, split_lines

ENVELOPE_KEYS = {"v", "game", "seq", "at", "type", "data", "prev", "hash"}


class Backend:
    """Makes logs of one kind, and edits their stored form behind the store's back. A new
    backend joins the contract suite with a subclass here and a line in BACKENDS."""

    name = ""

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


@pytest.fixture
def frozen() -> Iterator[None]:
    with freeze_time(FROZEN_AT):
        yield


BACKENDS: dict[str, type[Backend]] = {
    "jsonl": JsonlBackend,
    "library": LibraryBackend,
    "memory": MemoryBackend,
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Iterator[Backend]:
    made = BACKENDS[request.param](tmp_path)
    yield made
    made.close()
