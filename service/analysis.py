"""The analysis of a game, written once for `we analyse` and `we replay --html --analyse`: its
decisions, each valued by rollouts with a policy (wecore.analysis), and how they are told.

Each rollout's draws depend only on (seed, decision, index), so a decision is worth the same
whichever process values it and in whatever order. Spreading the decisions over worker
processes (--jobs) is therefore the command's choice, not the use case's, and it stays in the
command (cli.batch.worker_pool): what that pool is about is the command's own process (Ctrl-C
at a terminal, workers that end with the command, a worker lost said in one line with exit
status 1), and a server answering a request would not fork a pool. What a worker does with a
decision is the use case, so it is here (start_worker, value_decision_at), as the import's
audit of a log is service.library's whichever process runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wecore.analysis import (
    DEFAULT_MARGIN,
    Alternative,
    Decision,
    DecisionPoint,
    Race,
    decision_object,
    decision_points,
    describe_move,
    pivotal,
    sentence,
    value_decision,
)
from wecore.events import parse_event
from wecore.levels import BOTS

DEFAULT_POLICY = "greedy"
DEFAULT_ROLLOUTS = 100
DEFAULT_TOP = 5
DEFAULT_SEED = "0"
POLICIES = tuple(sorted(BOTS))  # the bots every seat can follow in the rollouts

__all__ = ["DEFAULT_MARGIN", "Decision", "DecisionPoint"]  # the core's, for the command that tells them


@dataclass(frozen=True)
class Settings:
    """How the decisions are valued: every seat plays the rest of the game as the `policy` bot;
    each alternative races to at most `rollouts` games (all of them at `margin` 0)."""

    policy: str = DEFAULT_POLICY
    rollouts: int = DEFAULT_ROLLOUTS
    seed: str = DEFAULT_SEED
    margin: float = DEFAULT_MARGIN

    @property
    def race(self) -> Race:
        return Race(most=self.rollouts, margin=self.margin)


def decision_points_of(lines: Sequence[dict[str, Any]]) -> list[DecisionPoint]:
    """Every decision in effect in a log, from its parsed lines (a checked log's)."""
    return decision_points(parse_event(line["type"], line["data"]) for line in lines)


def value_decisions(
    points: Sequence[DecisionPoint], settings: Settings, advance: Callable[[int], None] | None = None
) -> list[Decision]:
    """Every decision valued in this process, in order; `advance(1)` after each."""
    race = settings.race
    decisions = []
    for point in points:
        decisions.append(value_decision(point, settings.policy, settings.seed, race))
        if advance is not None:
            advance(1)
    return decisions


# A worker process folds the log once, then values decisions by their index: a position's state
# (with its mapping proxies) does not travel between processes, one integer does.
_worker_points: list[DecisionPoint] = []


def start_worker(lines: list[dict[str, Any]]) -> None:
    """A worker's initializer: the decisions of the log it values (by index, value_decision_at)."""
    global _worker_points
    _worker_points = decision_points_of(lines)


def value_decision_at(task: tuple[int, Settings]) -> Decision:
    """In a worker started by start_worker: decision `index` of its log, valued."""
    index, settings = task
    return value_decision(_worker_points[index], settings.policy, settings.seed, settings.race)


# --- telling the decisions -----------------------------------------------------------------


@dataclass(frozen=True)
class AlternativeTold:
    alternative: Alternative
    text: str  # the move in table language ('stole R9 from Ann')
    played: bool
    best: bool


@dataclass(frozen=True)
class DecisionTold:
    decision: Decision
    sentence: str  # 'Party 3: Ben opened a gift; stealing R9 from Ann instead was worth ...'
    alternatives: tuple[AlternativeTold, ...]  # the best mean first; equals in legal_moves order


def told(decision: Decision) -> DecisionTold:
    ranked = sorted(enumerate(decision.alternatives), key=lambda pair: (-pair[1].mean, pair[0]))
    return DecisionTold(
        decision,
        sentence(decision),
        tuple(
            AlternativeTold(
                alternative, describe_move(alternative.move), index == decision.played, index == decision.best
            )
            for index, alternative in ranked
        ),
    )


def pivotal_told(decisions: Sequence[Decision], top: int) -> list[DecisionTold]:
    """The `top` decisions with the largest swings, biggest first (earlier first among equals)."""
    return [told(decision) for decision in pivotal(decisions, top)]


def analysis_object(game: str | None, settings: Settings, decisions: Sequence[Decision]) -> dict[str, Any]:
    """The analysis as `we analyse --json` prints it: the settings, then every decision."""
    return {
        "game": game,
        "policy": settings.policy,
        "rollouts": settings.rollouts,
        "margin": settings.margin,
        "seed": settings.seed,
        "decisions": [decision_object(d) for d in decisions],
    }


def page_analysis(decisions: Sequence[Decision], settings: Settings, top: int) -> dict[str, Any]:
    """What the replay page shows (service.replay_page): every decision with a choice, by seq,
    the pivotal ones ranked."""
    ranks = {one.decision.seq: rank for rank, one in enumerate(pivotal_told(decisions, top), start=1)}
    shown = {}
    for decision in decisions:
        if decision.forced:
            continue
        this = told(decision)
        shown[str(decision.seq)] = {
            "rank": ranks.get(decision.seq),
            "sentence": this.sentence,
            "swing": decision.swing,
            "swing_margin": decision.swing_margin,
            "alternatives": [
                {
                    "text": one.text,
                    "mean": one.alternative.mean,
                    "low": one.alternative.low,
                    "high": one.alternative.high,
                    "win_chance": one.alternative.win_chance,
                    "win_text": f"{one.alternative.win_chance:.0%}",
                    "played": one.played,
                    "best": one.best,
                }
                for one in this.alternatives
            ],
        }
    return {
        "policy": settings.policy,
        "rollouts": settings.rollouts,
        "seed": settings.seed,
        "top": top,
        "decisions": shown,
    }
