"""The canonical form of an envelope and its hash (log-format.md, "Canonical form").

orjson with sorted keys produces exactly the spec's canonical bytes for the values the format
allows (no floats): compact, keys sorted by code point, UTF-8 unescaped.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any

import orjson

HASH_PREFIX = "sha256:"
_SORT = orjson.OPT_SORT_KEYS


def canonical_bytes(obj: Any) -> bytes:
    """The bytes that are hashed: compact JSON, keys sorted at every level."""
    return orjson.dumps(obj, option=_SORT)


def event_hash(envelope_without_hash: dict[str, Any]) -> str:
    """`"sha256:<hex>"` of the canonical form of an envelope that has no `hash` key."""
    return HASH_PREFIX + sha256(orjson.dumps(envelope_without_hash, option=_SORT)).hexdigest()
