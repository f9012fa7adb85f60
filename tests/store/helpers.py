"""Shared helpers for the store tests.

Hashes here are computed with the standard library's json, independently of eventstore's
orjson code, so a test can catch the store hashing something other than the spec's form.
"""

from __future__ import annotations

import hashlib
import io
import json
import pathlib
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"
# What the writers write under freeze_time(FROZEN_AT): `at` has microseconds.
FROZEN_AT = "2026-11-26T20:14:03.123456Z"

Lines = list[bytes]
Tamper = Callable[[Lines], Lines]


def ref_canonical(obj: Any) -> bytes:
    """The spec's second recipe for the canonical form."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def ref_hash(envelope: dict[str, Any]) -> str:
    body = {k: v for k, v in envelope.items() if k != "hash"}
    return "sha256:" + hashlib.sha256(ref_canonical(body)).hexdigest()


def dump_line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def split_lines(data: bytes) -> Lines:
    """Lines as a binary file reader gives them: split on "\\n" only, endings kept."""
    return list(io.BytesIO(data))


def edit(line: bytes, rehash: bool = False, **changes: Any) -> bytes:
    """A line with some envelope fields changed; optionally re-hashed so that only the change
    itself is wrong (the chain after it then breaks at the next line's `prev`)."""
    obj = json.loads(line)
    obj.update(changes)
    if rehash:
        obj["hash"] = ref_hash(obj)
    return dump_line(obj)


def events(n: int, start: int = 0) -> list[tuple[str, dict[str, Any]]]:
    return [("note", {"text": f"event {i}", "n": i}) for i in range(start, start + n)]


FIRST = ("game_started", {"players": ["Zoë", "李", "Ann"], "dealer": "Ann", "title": "Zoë's party"})
