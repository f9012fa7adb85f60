"""Receipts made as a phone makes them (Ed25519 with Python's `cryptography`), for the tests of
`we audit --receipt`, `we season` and the service's receipt routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def signed_receipt(
    log: Path, player: str, score: int, events: int | None = None, phone: Ed25519PrivateKey | None = None
) -> dict[str, Any]:
    """`player`'s receipt of the log at `log` as it ends (or at `events`), signed by `phone`."""
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    count = len(lines) if events is None else events
    receipt: dict[str, Any] = {
        "we_receipt": 1,
        "game": lines[0]["game"],
        "title": None,
        "date": lines[0]["at"][:10],
        "player": player,
        "score": score,
        "events": count,
        "hash": lines[count - 1]["hash"],
        "fingerprint": lines[count - 1]["hash"][7:19],
    }
    return sign(receipt, phone or Ed25519PrivateKey.generate())


def sign(receipt: dict[str, Any], phone: Ed25519PrivateKey) -> dict[str, Any]:
    claim = {k: receipt[k] for k in ("we_receipt", "game", "player", "score", "events", "hash")}
    message = json.dumps(claim, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    key = phone.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
    return {**receipt, "key": key, "signature": phone.sign(message).hex()}
