"""The conformance of a game's events to the log format's schema and the rules, checked by folding.

The store verifies the envelope and the chain (eventstore.integrity); this folds the payloads
and reports the first schema or rules problem with its line. Folding stops there: the state
after it is undefined.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wecore.errors import EventSchemaError, RuleViolation
from wecore.fastpath import FastFold, fast_fold, fast_paths
from wecore.reducer import evolve
from wecore.state import INITIAL_STATE, GameState

if TYPE_CHECKING:
    from wecore.events import Event

SCHEMA = "schema"
RULES = "rules"


@dataclass(frozen=True)
class RuleProblem:
    line: int
    kind: str  # "schema" or "rules"
    message: str


@dataclass(frozen=True)
class FoldResult:
    state: GameState  # the state after the last event folded
    problem: RuleProblem | None  # the first schema or rules problem, where folding stopped
    events: int


class GameChecker:
    """Folds events one at a time and remembers the first problem."""

    __slots__ = ("fast", "first_seq", "halted", "problem", "state")

    def __init__(self, state: GameState = INITIAL_STATE) -> None:
        self.state = state
        self.fast = self._paths(state)  # kept, not asked per event: feed is the inner loop of reading a game
        self.problem: RuleProblem | None = None
        self.first_seq = state.seq
        # True once folding has stopped: at a problem, or because the caller said so (a line
        # the store could not read leaves a hole in the game).
        self.halted = False

    def _paths(self, state: GameState) -> Mapping[str, FastFold]:
        """fast_paths(state), whose game_started, before the start, also moves this checker on
        to the paths after it (so that feed need not compare each event's type)."""
        paths = fast_paths(state)
        if state.players:
            return paths
        start = paths["game_started"]

        def started(state: GameState, data: dict[str, Any]) -> GameState | None:
            after = start(state, data)
            if after is not None:
                self.fast = fast_paths(after)
            return after

        return {"game_started": started}

    @property
    def events(self) -> int:
        """Events fed and judged: every rule function folds one event into one more `seq`, and
        the event with the problem, if any, was judged too. (Counted, not kept: feed is the
        inner loop of reading a game.)"""
        return self.state.seq - self.first_seq + (self.problem is not None)

    def halt(self) -> None:
        """Fold nothing more: feed returns False from now on."""
        self.halted = True

    def feed(self, line: int, event_type: object, data: object) -> bool:
        """Fold one event; False once a problem (or halt) has stopped the fold."""
        if type(event_type) is str and type(data) is dict:
            return self.feed_payload(line, event_type, data)
        if self.halted:
            return False
        return self._feed_model(line, event_type, data)

    def feed_payload(self, line: int, event_type: str, data: dict[str, Any]) -> bool:
        """`feed` for an event type that is a str and a payload that is a dict, as in any envelope
        the store passed: the inner loop of reading a game, which need not ask again."""
        if self.halted:
            return False
        fast = self.fast.get(event_type)
        if fast is not None:
            try:
                state = fast(self.state, data)
            except RuleViolation as exc:
                self._stop(RuleProblem(line, RULES, f"{event_type}: {exc}"))
                return False
            if state is not None:
                self.state = state
                return True
        return self._feed_model(line, event_type, data)

    def _feed_model(self, line: int, event_type: object, data: object) -> bool:
        from wecore.events import parse_event  # pydantic loads only when a payload needs it

        try:
            event = parse_event(event_type, data)
        except EventSchemaError as exc:
            self._stop(RuleProblem(line, SCHEMA, str(exc)))
            return False
        return self.feed_event(line, event)

    def _stop(self, problem: RuleProblem) -> None:
        self.problem = problem
        self.halted = True

    def feed_event(self, line: int, event: Event) -> bool:
        try:
            self.state = evolve(self.state, event)
        except RuleViolation as exc:
            self._stop(RuleProblem(line, RULES, f"{event.TYPE}: {exc}"))
            return False
        self.fast = self._paths(self.state)
        return True

    def result(self) -> FoldResult:
        return FoldResult(self.state, self.problem, self.events)


def check_events(events: Iterable[tuple[int, object, object]]) -> FoldResult:
    """Fold (line, type, data) triples; stop at the first schema or rules problem."""
    checker = GameChecker()
    for line, event_type, data in events:
        if not checker.feed(line, event_type, data):
            break
    return checker.result()


__all__ = ["RULES", "SCHEMA", "FoldResult", "GameChecker", "RuleProblem", "check_events", "fast_fold"]
