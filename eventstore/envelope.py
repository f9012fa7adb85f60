"""The envelope every event travels in (log-format.md, "Envelope"), and how writers make one."""

from __future__ import annotations

import builtins
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from hashlib import sha256
from typing import Any

import orjson

from eventstore.canonical import HASH_PREFIX, canonical_bytes, event_hash
from eventstore.limits import HASH_FIELD_BYTES, LINE_LIMIT, over_limits

FORMAT_VERSION = 1
ENVELOPE_KEYS = ("v", "game", "seq", "at", "type", "data", "prev", "hash")

# \Z rather than $: `$` would also accept a trailing newline.
GAME_ID_RE = re.compile(r"[a-z0-9-]{1,64}\Z")
GAME_ID_MAX = 64

# Shape only; the calendar and clock ranges are checked in valid_at. re.ASCII keeps \d from
# accepting non-ASCII digits such as "٣".
_AT_SHAPE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\Z", re.ASCII)
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def valid_game_id(s: object) -> bool:
    return type(s) is str and GAME_ID_RE.match(s) is not None


def _valid_day(ymd: str) -> bool:
    year, month, day = int(ymd[0:4]), int(ymd[5:7]), int(ymd[8:10])
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= (29 if month == 2 and leap else _DAYS_IN_MONTH[month])


# "YYYY-MM-DDTHH:MM:" prefixes already found valid. Events of one game mostly share a minute,
# so the verify hot path can judge most timestamps by two set lookups (see at_ok) instead of a
# regex and calendar arithmetic: the tail of a whole second ("03Z") by one, that of a fraction
# ("03.123456Z", as writers write `at` now) by the seconds and point ("03.") and then ASCII
# digits up to the "Z". A leap second, like any other shape, is left to valid_at.
AT_MINUTES_SEEN: set[str] = set()
AT_WHOLE_SECONDS = frozenset(f"{s:02d}Z" for s in range(60))
AT_SECONDS_POINT = frozenset(f"{s:02d}." for s in range(60))


def valid_at(s: object) -> bool:
    """RFC 3339 UTC with an upper-case T and Z, optional fraction, and a real date and time.

    A leap second (:60) is accepted only at 23:59, the only minute UTC inserts one.
    """
    if type(s) is not str or _AT_SHAPE.match(s) is None:
        return False
    # Two-digit fields are ASCII digits here, so string comparison is numeric comparison.
    if s[11:13] > "23" or s[14:16] > "59":
        return False
    sec = s[17:19]
    if sec > "59" and (sec != "60" or s[11:16] != "23:59"):
        return False
    minute = s[:17]
    if minute in AT_MINUTES_SEEN:
        return True
    if not _valid_day(s[:10]):
        return False
    if len(AT_MINUTES_SEEN) > 4096:
        AT_MINUTES_SEEN.clear()
    AT_MINUTES_SEEN.add(minute)
    return True


def at_ok(s: str) -> bool:
    """valid_at for a str, with a fast path for an already seen minute (the same test is inlined
    in eventstore.integrity._scan). A whole second's tail ("03Z") is in AT_WHOLE_SECONDS only if s
    has 20 characters; a fraction's is tested only if it is not."""
    return (
        (
            s[17:] in AT_WHOLE_SECONDS
            or (s[17:20] in AT_SECONDS_POINT and s[-1] == "Z" and s.isascii() and s[20:-1].isdigit())
        )
        and s[:17] in AT_MINUTES_SEEN
    ) or valid_at(s)


def utc_now() -> str:
    """Now, as the format writes it: RFC 3339 UTC with microseconds, "Z".

    The microseconds keep two appends apart: the events of one append share one `at`, and the
    undo at the table (service.play.plan_undo) takes the unseen brings written with an open by
    that alone, so a bring made on a phone a moment before the open must not share it."""
    now = datetime.now(UTC)
    # Formatted by hand: strftime costs ten times as much on a writer's path.
    return (
        f"{now.year:04d}-{now.month:02d}-{now.day:02d}T"
        f"{now.hour:02d}:{now.minute:02d}:{now.second:02d}.{now.microsecond:06d}Z"
    )


def make_game_id(title: str | None, date: datetime) -> str:
    """A game id from a title ("Thanksgiving 2026" -> "thanksgiving-2026").

    Accents are folded to ASCII; a title with nothing left (say "李") falls back to
    "game-YYYY-MM-DD-HHMMSS" from `date`. Uniqueness is the caller's business: creating over an
    existing log is refused.
    """
    slug = ""
    if title:
        folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
        slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
        slug = slug[:GAME_ID_MAX].rstrip("-")
    return slug or date.strftime("game-%Y-%m-%d-%H%M%S")


@dataclass(frozen=True, slots=True)
class Envelope:
    v: int
    game: str
    seq: int
    at: str
    type: str
    data: dict[str, Any]
    prev: str | None
    hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": self.v,
            "game": self.game,
            "seq": self.seq,
            "at": self.at,
            "type": self.type,
            "data": self.data,
            "prev": self.prev,
            "hash": self.hash,
        }

    def to_line(self) -> bytes:
        """The line a writer writes: compact JSON in envelope key order, then a newline."""
        return orjson.dumps(self.to_dict(), option=orjson.OPT_APPEND_NEWLINE)


def _has_float(value: Any) -> bool:
    if type(value) is float:
        return True
    if type(value) is dict:
        return any(_has_float(v) for v in value.values())
    if type(value) is list:
        return any(_has_float(v) for v in value)
    return False


def seal(game: str, seq: int, at: str, type: str, data: dict[str, Any], prev: str | None) -> Envelope:
    """Make an envelope and compute its hash.

    (The parameter `type` mirrors the envelope field, hence `builtins.type` in the body.)

    Refuses (ValueError) anything a reader would flag, so no writer can produce a bad line.
    `data` is copied through JSON, so the envelope holds exactly what a reader will parse back
    (tuples become lists, and later changes to the caller's dict cannot break the hash).
    """
    if not valid_game_id(game):
        raise ValueError(f"invalid game id {game!r}: use 1-64 of a-z 0-9 -")
    if builtins.type(seq) is not int or seq < 1:
        raise ValueError(f"seq must be a positive integer, got {seq!r}")
    if not valid_at(at):
        raise ValueError(f"`at` {at!r} is not an RFC 3339 UTC timestamp ending in Z")
    if builtins.type(type) is not str or not type:
        raise ValueError(f"event type must be a non-empty string, got {type!r}")
    if builtins.type(data) is not dict:
        raise ValueError(f"event data must be a dict, got {builtins.type(data).__name__}")
    if (seq == 1) != (prev is None) or (prev is not None and builtins.type(prev) is not str):
        raise ValueError(f"prev must be null exactly on seq 1 (seq {seq}, prev {prev!r})")
    try:
        data = orjson.loads(orjson.dumps(data))
    except orjson.JSONEncodeError as exc:
        raise ValueError(f"event data is not JSON the format can hold: {exc}") from None
    # The canonical form is only defined without floats; two correct writers could hash one
    # differently, so a float would make the log unverifiable elsewhere.
    if _has_float(data):
        raise ValueError("event data contains a float; the format has no floats")
    if (beyond := over_limits(data, 2)) is not None:
        raise ValueError(f"event data is beyond the format's limits: {beyond}")
    body = {"v": FORMAT_VERSION, "game": game, "seq": seq, "at": at, "type": type, "data": data, "prev": prev}
    canonical = canonical_bytes(body)
    # The line holds the same bytes in another key order, plus its hash.
    if len(canonical) + HASH_FIELD_BYTES > LINE_LIMIT:
        raise ValueError(
            f"the event would make a line of {len(canonical) + HASH_FIELD_BYTES:,} bytes, over the "
            f"format's limit of {LINE_LIMIT:,}"
        )
    digest = HASH_PREFIX + sha256(canonical).hexdigest()
    return Envelope(FORMAT_VERSION, game, seq, at, type, data, prev, digest)


def seal_chain(game: str, events: Iterable[tuple[str, str, dict[str, Any]]]) -> list[Envelope]:
    """A new log's envelopes from (at, type, data), for writers whose data is already plain JSON
    values without floats (the rules engine's payloads): the game id is checked once, and each
    event is hashed without the defensive copy `seal` makes."""
    if not valid_game_id(game):
        raise ValueError(f"invalid game id {game!r}: use 1-64 of a-z 0-9 -")
    envelopes: list[Envelope] = []
    prev: str | None = None
    body: dict[str, Any] = {"v": FORMAT_VERSION, "game": game}
    for seq, (at, kind, data) in enumerate(events, start=1):
        if builtins.type(at) is not str or not at_ok(at):
            raise ValueError(f"`at` {at!r} is not an RFC 3339 UTC timestamp ending in Z")
        body["seq"], body["at"], body["type"], body["data"], body["prev"] = seq, at, kind, data, prev
        digest = event_hash(body)
        envelopes.append(_checked_envelope(FORMAT_VERSION, game, seq, at, kind, data, prev, digest))
        prev = digest
    return envelopes


# Readers build one Envelope per line, and the frozen dataclass __init__ (object.__setattr__
# per field) costs about as much as hashing the line. So readers fill a mutable twin with the
# same slots and then make it an Envelope: the same immutable object, built at a third of the
# cost. Only for fields already type-checked, hence not public.
class _EnvelopeTwin:
    __slots__ = Envelope.__slots__


def envelope_from_raw(raw: dict[str, Any]) -> Envelope:
    """An Envelope from a parsed line whose eight fields were already type-checked."""
    return _checked_envelope(
        raw["v"], raw["game"], raw["seq"], raw["at"], raw["type"], raw["data"], raw["prev"], raw["hash"]
    )


def _checked_envelope(
    v: int, game: str, seq: int, at: str, type: str, data: dict[str, Any], prev: str | None, hash: str
) -> Envelope:
    e: Any = _EnvelopeTwin()
    e.v = v
    e.game = game
    e.seq = seq
    e.at = at
    e.type = type
    e.data = data
    e.prev = prev
    e.hash = hash
    e.__class__ = Envelope
    return e  # type: ignore[no-any-return]
