"""Reading a game: the one pipeline every face reads a log through, into its state and problems.

Every face (`we record`, `we audit`, `we serve`, the library, the season) reads a game here, in
one streaming pass: the store verifies each line's integrity (eventstore.integrity) and the
core checks the events against the schema and the rules as it folds them (wecore.conformance),
stopping at the first such problem. Also what a damaged log still shows (the lines before its
first problem) and why nothing may be recorded onto one."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eventstore.integrity import ScanEnd
    from eventstore.problems import Problem
    from wecore.conformance import GameChecker
    from wecore.events import AnyEvent
    from wecore.state import GameState

# A library game's rows, for a source without a path (the CLI knows how to open libraries).
RowReader = Callable[["GameSource"], Iterator[dict[str, Any]]]
# How a use case reads a game: read_game itself, or a face's own version of it, which reads
# library games through the connection it holds (cli.opening.read_game, a served library).
ReadGame = Callable[..., "GameReport"]


@dataclass
class GameReport:
    """A game read from its source and checked: integrity, schema and rules."""

    source: str
    game: str | None
    events: int
    fingerprint: str | None  # proven: None when the chain is broken
    problems: list[Problem]  # the first PROBLEMS_LISTED, in line order
    state: GameState
    stored_fingerprint: str | None = None  # what the last line claims, proven or not
    broken_at: int | None = None  # the first line failing integrity, if any
    envelopes: list[Any] = field(default_factory=list)  # kept only when asked for
    lines: list[dict[str, Any]] = field(default_factory=list)  # parsed, kept only when asked for
    problems_omitted: int = 0  # problems beyond those listed: counted only

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        return self.state.is_over

    def first_problem(self, label: str | None = None, audit: str = "we audit") -> str:
        """The first problem as every refusal names it: "LABEL: line N: KIND: MESSAGE", with
        how many more there are and the `audit` command that lists them all."""
        first = self.problems[0]
        more = len(self.problems) - 1 + self.problems_omitted
        tail = f" (and {more:,} more; see `{audit}`)" if more else ""
        return f"{label or self.source}: line {first.line}: {first.kind}: {first.message}{tail}"


@dataclass(frozen=True)
class GameSource:
    """Where a GAME argument points: a JSONL file or a game in the library."""

    label: str
    path: Path | None = None
    db_path: Path | str | None = None  # a SQLite file, or a PostgreSQL URL
    game_id: str | None = None


def read_game(
    source: GameSource,
    keep_envelopes: bool = False,
    keep_lines: bool = False,
    library_rows: RowReader | None = None,
) -> GameReport:
    """Read a game once, streaming: every integrity problem, and the fold up to the first
    schema or rules problem (the state after it is undefined, so folding stops there).

    keep_envelopes keeps every usable line as an Envelope; keep_lines keeps them as the parsed
    dicts (what the library stores), which costs nothing extra on the fast path."""
    from eventstore.errors import NotALogError, SeasonLedgerError, StoreError
    from eventstore.integrity import ScanEnd, scan_lines, scan_objects
    from eventstore.logfile import open_log, refuse_what_is_no_game_log
    from eventstore.problems import Flaw, ProblemCode
    from wecore.conformance import GameChecker

    checker = GameChecker()
    # Clean lines go straight from the scan to the fold, unless every envelope is wanted.
    fold = None if keep_envelopes else checker.feed_payload
    end = ScanEnd()
    kept: list[dict[str, Any]] | None = [] if keep_lines else None
    if source.path is not None:
        try:
            # Only a regular file is a log: a FIFO or device is refused before it is read.
            log = open_log(source.path)
        except FileNotFoundError:
            if os.path.islink(source.path):
                raise StoreError(f"{source.label}: a broken symbolic link, so not a log") from None
            raise StoreError(f"{source.label}: no such file (it vanished)") from None
        with log as lines:
            try:
                refuse_what_is_no_game_log(log, source.label)
            except SeasonLedgerError:
                raise
            except NotALogError as exc:
                # A README or a database: one verdict (line 1 is no envelope, integrity, as the
                # format's vectors judge it), not a problem for each of its lines. A batch
                # (`we audit --json`, `we import`) gives it its verdict like any other file.
                why = str(exc).removeprefix(f"{source.label}: ")
                first = iter([(1, None, [Flaw(ProblemCode.NOT_AN_OBJECT, why)], False)])
                return _read_scanned(source, first, checker, end, False, None)
            scanned = scan_lines(lines, fold, end, kept)
            return _read_scanned(source, scanned, checker, end, keep_envelopes, kept)
    if library_rows is None:
        raise ValueError(f"{source.label}: a library game needs a reader of its rows")
    rows = library_rows(source)
    # A library's rows, as its log gives them (StoredGameLog.rows): orjson's parse of its JSON.
    scanned = scan_objects(rows, fold, end, kept, from_json=True)
    return _read_scanned(source, scanned, checker, end, keep_envelopes, kept)


def _read_scanned(
    source: GameSource,
    scanned: Iterator[tuple[int, Any, Any, bool]],
    checker: GameChecker,
    end: ScanEnd,
    keep_envelopes: bool,
    kept: list[dict[str, Any]] | None,
) -> GameReport:
    """The lines the scan yields (all of them, or only line 1 and those with problems when it
    folds clean lines itself), tallied and folded in line order."""
    from eventstore.envelope import envelope_from_raw
    from eventstore.integrity import PROBLEMS_LISTED, VerifyTally
    from eventstore.problems import Problem, ProblemKind

    feed = checker.feed
    tally = VerifyTally()
    add = tally.add
    envelopes: list[Any] = []
    for n, raw, msgs, usable in scanned:
        if end.last is not None:
            add(end.lines, end.last, None)  # the newest folded line before this one
            end.last = None
        add(n, raw, msgs)
        if msgs and (keep_envelopes or kept is not None):
            # Readers use the lines before the first problem only; keeping the rest of a long
            # broken log would only fill memory.
            keep_envelopes = False
            kept = None
        if not usable:
            # An unusable line leaves a hole in the game: nothing after it can be folded.
            checker.halt()
            continue
        if keep_envelopes:
            envelopes.append(envelope_from_raw(raw))
        if kept is not None:
            kept.append(raw)  # in line order: the scan appends clean lines as it passes them
        feed(n, raw["type"], raw["data"])
    if end.last is not None:
        tally.add(end.lines, end.last, None)
    verdict = tally.result()
    problems = verdict.problems
    omitted = verdict.problems_omitted
    rule = checker.problem
    if rule is not None:
        problems.append(Problem(rule.line, ProblemKind(rule.kind), rule.message))
        problems.sort(key=lambda p: (p.line, p.kind is not ProblemKind.INTEGRITY))
        if len(problems) > PROBLEMS_LISTED:
            problems.pop()
            omitted += 1
    return GameReport(
        source=source.label,
        game=verdict.game,
        events=verdict.events,
        fingerprint=verdict.fingerprint,
        problems=problems,
        state=checker.state,
        stored_fingerprint=verdict.stored_fingerprint,
        broken_at=verdict.broken_at,
        envelopes=envelopes,
        lines=kept if kept is not None else [],
        problems_omitted=omitted,
    )


@dataclass
class Folded:
    """The part of a game that can be folded, with the reason it stops early (if it does)."""

    report: GameReport
    envelopes: list[Any]  # good envelopes, in order; envelopes[i] has seq i + 1
    events: list[AnyEvent]
    stopped: str | None  # the one-line reason a damaged log stops, or None


def fold_what_can_be(report: GameReport) -> Folded:
    """The lines before the first problem of any kind: all of them good, seq = line."""
    from wecore.events import parse_event

    envelopes = list(report.envelopes)
    stopped = None
    if report.problems:
        envelopes = envelopes[: max(report.problems[0].line - 1, 0)]
        stopped = report.first_problem()
    events = [parse_event(e.type, e.data) for e in envelopes]
    return Folded(report, envelopes, events, stopped)


def damage_sentence(label: str, problems: list[Problem]) -> str:
    """Why nothing may be recorded onto a damaged log, and what to do (the recorder's words)."""
    from eventstore.problems import ProblemCode

    torn = [p for p in problems if p.code is ProblemCode.TORN_LINE]
    others = len(problems) - len(torn)
    if torn:
        plural = "s" if others > 1 else ""
        tail = f" ({others} other problem{plural}: see `we audit {label}`)" if others else ""
        return (
            f"{label}: line {torn[0].line} is torn (an append was cut off), so nothing can be added"
            f" after it: run `we repair {label}`, then `we record {label}` again{tail}"
        )
    first = problems[0]
    return (
        f"{label}: line {first.line}: {first.kind}: {first.message};"
        f" refusing to record onto a damaged log (see `we audit {label}`)"
    )
