"""What is wrong with a log, as data: the kind of each problem, and which integrity check failed.

Callers that act on a problem (a torn last line is repaired, an empty file has no events) ask
its kind and code, never its wording, which is for people and may be improved at any time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ProblemKind(StrEnum):
    """log-format.md's three kinds of problem."""

    INTEGRITY = "integrity"  # the file or the hash chain is broken
    SCHEMA = "schema"  # an event is malformed
    RULES = "rules"  # well-formed, but not allowed at that point


class ProblemCode(StrEnum):
    """Which integrity check a line failed."""

    EMPTY_LOG = "empty-log"
    TORN_LINE = "torn-line"
    BLANK_LINE = "blank-line"
    NOT_JSON = "not-json"
    NOT_AN_OBJECT = "not-an-object"
    ENVELOPE_FIELDS = "envelope-fields"  # missing, unknown or mistyped envelope fields
    VERSION = "version"
    GAME_ID = "game-id"
    TIMESTAMP = "timestamp"
    SEQ = "seq"
    PREV = "prev"
    HASH = "hash"
    # The format's limits (log-format.md, "Limits").
    LINE_TOO_LONG = "line-too-long"
    TOO_DEEP = "too-deep"
    INTEGER_RANGE = "integer-range"
    # A key twice in one object: readers differ on which value counts, so nothing is trusted.
    DUPLICATE_KEY = "duplicate-key"


class Flaw(str):
    """One integrity problem of a line, in words, with its code. It is the words as far as any
    str operation goes (so checks that word problems stay plain), and it knows its code."""

    code: ProblemCode

    def __new__(cls, code: ProblemCode, words: str) -> Flaw:
        flaw = super().__new__(cls, words)
        flaw.code = code
        return flaw


INTEGRITY = ProblemKind.INTEGRITY
TORN = Flaw(
    ProblemCode.TORN_LINE, "torn last line (no trailing newline: an append was cut off); run `we repair FILE`"
)
EMPTY = Flaw(ProblemCode.EMPTY_LOG, "empty file: a log has at least one line")


@dataclass(frozen=True, slots=True)
class Problem:
    line: int
    kind: str  # a ProblemKind
    message: str
    # For an integrity problem, which check failed; None for schema and rules problems.
    code: ProblemCode | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind}: {self.message}"

    @classmethod
    def integrity(cls, line: int, flaw: Flaw) -> Problem:
        return cls(line, INTEGRITY, str(flaw), flaw.code)
