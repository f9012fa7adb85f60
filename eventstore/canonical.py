"""The canonical form of an envelope and its hash (log-format.md, "Canonical form").

orjson with sorted keys produces exactly the spec's canonical bytes for the values the format
allows (no floats): compact, keys sorted by code point, UTF-8 unescaped.
"""

from __future__ import annotations

import re
from hashlib import sha256
from typing import Any, TypeGuard

import orjson

HASH_PREFIX = "sha256:"
# A fingerprint is this many hex digits of a hash: what a table writes down, and what every
# command prints to say "this is the game you played".
FINGERPRINT_DIGITS = 12
_SORT = orjson.OPT_SORT_KEYS
_HASH_RE = re.compile(r"sha256:[0-9a-f]{64}\Z")


def canonical_bytes(obj: Any) -> bytes:
    """The bytes that are hashed: compact JSON, keys sorted at every level."""
    return orjson.dumps(obj, option=_SORT)


def event_hash(envelope_without_hash: dict[str, Any]) -> str:
    """`"sha256:<hex>"` of the canonical form of an envelope that has no `hash` key."""
    return HASH_PREFIX + sha256(orjson.dumps(envelope_without_hash, option=_SORT)).hexdigest()


def valid_hash(h: object) -> TypeGuard[str]:
    """A `sha256:<64 lower-case hex>` string, as the log writes hashes."""
    return type(h) is str and _HASH_RE.match(h) is not None


def fingerprint(hash: object) -> str | None:
    """The fingerprint of a log whose last hash is `hash`: its first 12 hex digits; None when
    `hash` is not a well-formed hash (a damaged line has no fingerprint to give)."""
    if not valid_hash(hash):
        return None
    start = len(HASH_PREFIX)
    return hash[start : start + FINGERPRINT_DIGITS]
