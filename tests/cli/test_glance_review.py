"""`we audit` end to end on logs where the limits at a glance (eventstore.integrity._scan) and the
spec disagreed (fixed on main in 9b5f38e: kept as a regression test)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from weharness import we

AT = "2026-11-26T20:14:03Z"
START = {
    "players": ["Ann", "Ben", "Cat"],
    "dealer": "Cat",
    "ruleset": "white-elephant-2011",
    "options": {},
}


def hashed(env: dict[str, Any]) -> str:
    body = {k: v for k, v in env.items() if k != "hash"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


def line(env: dict[str, Any]) -> bytes:
    return json.dumps(env, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def test_audit_reports_a_short_too_deep_line_as_too_deep(tmp_path: Path) -> None:
    first: dict[str, Any] = {"v": 1, "game": "x", "seq": 1, "at": AT, "type": "game_started", "data": START}
    first["prev"] = None
    first["hash"] = ""  # wrong: reported at line 1, and the chain goes on from ""
    deep: dict[str, Any] = {}
    for _ in range(63):  # `data` is level 2: 63 objects under it reach level 65
        deep = {"": deep}
    second: dict[str, Any] = {"v": 1, "game": "x", "seq": 2, "at": AT, "type": "", "data": deep, "prev": ""}
    second["hash"] = hashed(second)
    path = tmp_path / "deep.jsonl"
    path.write_bytes(line(first) + line(second))
    result = we("audit", "--json", path)
    (report,) = [json.loads(x) for x in result.stdout.splitlines()]
    found = [(p["seq"], p["kind"], p["message"]) for p in report["problems"]]
    assert found[0][:2] == (1, "integrity") and "`hash`" in found[0][2]
    assert found[1:] == [(2, "integrity", "nested more than 64 levels deep (the format's limit)")]
    # A line beyond the limits has no hash to show: the stored fingerprint is not line 2's.
    assert report["stored_fingerprint"] is None
