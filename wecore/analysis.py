"""What each decision of a game was worth: rollouts from every alternative, and the swings.

A *decision* is a move in effect in a log (a bring, an open, a steal, or any move kind
`legal_moves` offers) together with every move its player could have made instead, as
`legal_moves` lists them, told apart as the player could tell them apart (`views.moves_told_apart`):
every face-down gift whose card the player did not know is one move, `Open(None)` "open a gift",
even when the log names the card (attics dealt). Each alternative is valued by playing the rest
of the game many times from the position it leads to, every seat following one bot policy; the
cards nobody at the table had seen at that point (unseen face-down gifts, the gifts still to
come when attics were not dealt) are drawn at random among the cards not seen in the log up to
that decision, and "open a gift" turns over one of the gifts the player had not seen, at random.

Rollouts race (`Race`): every alternative is played out `first` times, then only the ones still
in the race get more, a batch at a time, until each rival of the leader is told apart from it
(its paired difference's 95% interval excludes 0) or known to within `margin` points, or has
had `most` rollouts. The move played stays in the race to the end: its swing's margin is kept.

Pure and seeded: rollout *i* of the decision at `seq` draws from `SeededRandom` of
(seed, seq, i) only, so results do not depend on which worker ran them, or in what order. The
same draws serve every alternative of a decision (common random numbers): the swing between
two alternatives is measured on the same hidden cards, with far less noise than two
independent samples would give. Which alternatives race on depends only on those outcomes, so
the race too is the same in any worker.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from wecore.bots import Bot, apply_move, draw_outcome, play_and_record
from wecore.cards import ALL_CARDS
from wecore.errors import RuleViolation
from wecore.kinds import CHANCE_PHASES, KINDS
from wecore.levels import rollout_bot
from wecore.moves import Bring, Move, Open, Steal, Swap, chance_outcomes, is_chance, legal_moves, move_object
from wecore.replay import steps
from wecore.rng import SeededRandom
from wecore.scoring import score
from wecore.state import GameState, Phase
from wecore.stats import Z95, wilson_interval
from wecore.views import gifts_not_seen_by, moves_told_apart

# Events that are never a player's move (set-up, corrections, notes, the tie-break speech): the
# kinds declared without a move.
NOT_MOVES = frozenset(kind.type for kind in KINDS.values() if kind.move is None)


@dataclass(frozen=True)
class DecisionPoint:
    """A move in effect in the log, with the position before it and the moves allowed there."""

    seq: int
    party: int
    player: str
    before: GameState
    moves: tuple[Move, ...]  # the player's legal moves, in legal_moves order
    played: int  # index into moves


@dataclass(frozen=True)
class Outcome:
    """The mover's final score and share of the win (1/k in a k-way tie) in one rollout."""

    score: int
    win: float


@dataclass(frozen=True)
class Alternative:
    move: Move
    mean: float
    low: float
    high: float
    win_chance: float
    win_low: float
    win_high: float
    rollouts: int = 0  # games played out from it (the race gives rivals told apart early fewer)


@dataclass(frozen=True)
class Decision:
    seq: int
    party: int
    player: str
    played: int  # index into alternatives
    alternatives: tuple[Alternative, ...]
    swing: float  # best alternative's mean minus the played move's mean
    swing_margin: float  # half-width of the 95% interval of that difference
    best: int  # index of the best alternative

    @property
    def forced(self) -> bool:
        return len(self.alternatives) == 1

    @property
    def played_move(self) -> Move:
        return self.alternatives[self.played].move


def mover_of(move: Move) -> str | None:
    return getattr(move, "player", None)


def decision_points(events: Iterable[Any]) -> list[DecisionPoint]:
    """Every decision in effect in a log, in order. `events`: the log's event models (the
    event at index i has seq i + 1), walked with `wecore.replay.steps`.

    Voided moves are not decisions; an event is matched to the legal move that leads to the
    same position, so any kind of move `legal_moves` offers is recognised.
    """
    walked = list(steps(events))
    if not walked:
        return []
    in_effect = set(walked[-1].after.seqs_in_effect())
    points = []
    for step in walked:
        event = step.event
        if event.TYPE in NOT_MOVES or step.seq not in in_effect:
            continue
        player = getattr(event, "player", None)
        if player is None:
            continue
        before = step.before
        if chance_outcomes(before):
            continue  # a roll of the die is chance, never a decision
        own = [m for m in legal_moves(before) if mover_of(m) == player]
        moves = tuple(moves_told_apart(before, player, own))
        played = _played_index(before, step.after, moves, event)
        if played is None:
            continue
        points.append(DecisionPoint(step.seq, before.party, player, _detached(before), moves, played))
    return points


def _detached(state: GameState) -> GameState:
    """The position without its undo history: rollouts never undo, and the chain is the whole log."""
    return state.replace(undo=None)


def _played_index(before: GameState, after: GameState, moves: Sequence[Move], event: Any) -> int | None:
    """Which of `moves` the event made: the one leading to the same position."""
    card = getattr(event, "card", None)
    for index, move in enumerate(moves):
        if isinstance(move, Open) and move.card is None:
            # A gift the player had not seen: its card became known to them only when turned over.
            if card is None or any(isinstance(m, Open) and m.card == card for m in moves):
                continue
            move = Open(card, move.player)
        try:
            reached = play_and_record(before, move, _ignore)
        except RuleViolation:  # a move that does not fit this event is simply not it
            continue
        if reached == after:
            return index
    return None


def _ignore(_: object) -> None:
    pass


def hidden_pool(state: GameState) -> list[str]:
    """The cards not seen at this point, in card order: what unseen gifts may turn out to be."""
    return [card for card in ALL_CARDS if card not in state.seen]


def rollout_rng(seed: int | str, seq: int, index: int) -> SeededRandom:
    return SeededRandom(f"analyse/{seed}/{seq}/{index}")


def rollouts(
    point: DecisionPoint, alternative: int, policy: str, count: int, seed: int | str, start: int = 0
) -> list[Outcome]:
    """Rollouts `start` to `start + count` (exclusive) of the games played out from the position
    after `point.moves[alternative]`."""
    bot = rollout_bot(policy)
    seat = point.before.seat_of[point.player]
    move = point.moves[alternative]
    pool = hidden_pool(point.before)
    not_seen: list[str] = []
    if isinstance(move, Open) and move.card is None:
        not_seen = gifts_not_seen_by(point.before, point.player)
    outcomes = []
    for index in range(start, start + count):
        rng = rollout_rng(seed, point.seq, index)
        hidden = rng.fork("hidden").shuffled(pool)
        first = _opening(point, move, not_seen, rng) if not_seen else move
        final = play_out(point.before, first, bot, rng.fork("play"), hidden)
        outcomes.append(_outcome(final, seat))
    return outcomes


def first_move(point: DecisionPoint, alternative: int, seed: int | str, index: int) -> Move:
    """The move rollout `index` of an alternative starts with: the alternative itself, or for
    "open a gift" the gift it turns over (None: one brought unseen, drawn from the hidden cards)."""
    move = point.moves[alternative]
    if not (isinstance(move, Open) and move.card is None):
        return move
    not_seen = gifts_not_seen_by(point.before, point.player)
    return _opening(point, move, not_seen, rollout_rng(seed, point.seq, index)) if not_seen else move


def _opening(point: DecisionPoint, move: Move, not_seen: list[str], rng: SeededRandom) -> Move:
    # "Open a gift": any face-down gift the player had not seen, each as likely.
    pick = rng.fork("gift").randbelow(len(not_seen) + point.before.unseen_face_down)
    return Open(not_seen[pick], point.player) if pick < len(not_seen) else move


def play_out(state: GameState, first: Move, bot: Bot, rng: SeededRandom, hidden: list[str]) -> GameState:
    """Make `first`, then let `bot` play every seat to the end of the game.

    Moves are grouped by player, so phases where several players move at once (bringing) are
    played seat by seat, and every kind of move `legal_moves` lists is played the same way.
    An unseen gift turned over takes the next card of `hidden`.
    """
    state = _make(state, first, hidden)
    chance_rng: SeededRandom | None = None
    while state.phase is not Phase.OVER:
        if state.phase in CHANCE_PHASES:
            # Drawn from a stream of its own, each outcome with its probability: nobody chooses
            # chance, and a game without it plays out as it did before chance existed.
            chance_rng = chance_rng or rng.fork("chance")
            state = apply_move(state, draw_outcome(chance_outcomes(state), chance_rng))
            continue
        moves = legal_moves(state)
        if not moves:
            raise ValueError(f"no legal move in phase {state.phase} before the game is over")
        # legal_moves lists moves seat by seat: first and last by one player means one mover.
        if len(moves) == 1 or moves[0].player == moves[-1].player:
            state = _make(state, bot.choose(state, moves, rng), hidden)
            continue
        by_player: dict[str | None, list[Move]] = {}
        for move in moves:
            by_player.setdefault(move.player, []).append(move)
        for own in by_player.values():
            state = _make(state, bot.choose(state, own, rng), hidden)
    return state


def _make(state: GameState, move: Move, hidden: list[str]) -> GameState:
    if isinstance(move, Open) and move.card is None:
        move = Open(hidden.pop(), move.player)
    return apply_move(state, move)


def _outcome(final: GameState, seat: int) -> Outcome:
    board = score(final)
    player = board.players[seat]
    winners = board.winners
    return Outcome(player.total, 1 / len(winners) if player.player in winners else 0.0)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation; a single value has width 0)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return mean, mean - half, mean + half


def summarise(
    point: DecisionPoint, outcomes: Sequence[Sequence[Outcome]], racing: Sequence[int] | None = None
) -> Decision:
    """The decision's alternatives valued from their rollouts (one list per move, same order).

    `racing`: the alternatives still in the race at its end (all of them when None), which have
    the same number of rollouts; the best is the best of those.
    """
    alternatives = []
    for move, results in zip(point.moves, outcomes, strict=True):
        mean, low, high = mean_interval([o.score for o in results])
        wins = sum(o.win for o in results)
        win_low, win_high = wilson_interval(wins, len(results))
        alternatives.append(
            Alternative(
                move,
                _r(mean),
                _r(low),
                _r(high),
                _r(wins / len(results)),
                _r(win_low),
                _r(win_high),
                len(results),
            )
        )
    best = _leader(point, outcomes, range(len(outcomes)) if racing is None else racing)
    swing, margin = 0.0, 0.0
    if best != point.played:
        mean, half = _difference(outcomes[best], outcomes[point.played])
        swing, margin = mean, half
    return Decision(
        point.seq, point.party, point.player, point.played, tuple(alternatives), _r(swing), _r(margin), best
    )


def _leader(point: DecisionPoint, outcomes: Sequence[Sequence[Outcome]], among: Iterable[int]) -> int:
    # Ties go to the move played, then to the earlier move: a swing is never made of noise alone.
    means = {i: sum(o.score for o in outcomes[i]) / len(outcomes[i]) for i in among}
    return max(means, key=lambda i: (means[i], i == point.played, -i))


def _difference(better: Sequence[Outcome], worse: Sequence[Outcome]) -> tuple[float, float]:
    """The mean of the paired differences of two alternatives' rollouts (the same draws), and
    its 95% interval's half-width."""
    differences = [b.score - w.score for b, w in zip(better, worse, strict=False)]
    mean, low, _ = mean_interval(differences)
    return mean, mean - low


# How close a rival must be known to the leader before it leaves the race, in points: the
# default of `we analyse --margin`, `we replay --html --analyse` and analyse(). 2.0 keeps the
# mean swing_margin of the sample games under issue 25's 1.0 point (bots-7p 0.80, tie-5p 0.72)
# with a quarter fewer rollouts than 1.5 (0.66 and 0.53).
DEFAULT_MARGIN = 2.0


@dataclass(frozen=True)
class Race:
    """How far an alternative is played out: `first` rollouts each, then `batch` more at a time
    for those still in the race, at most `most` in all. A rival of the leader leaves the race once
    it is told apart (the 95% interval of its difference to the leader is above 0) or known to
    within `margin` points; the move played leaves only in the second way, so its swing's margin
    is at most `margin` unless `most` ran out first. `margin` 0: every alternative gets `most`."""

    most: int = 100
    margin: float = DEFAULT_MARGIN
    first: int = 8
    batch: int = 8


def value_decision(point: DecisionPoint, policy: str, seed: int | str, race: Race) -> Decision:
    """One decision valued by racing its alternatives' rollouts (see `Race`)."""
    count = min(race.first, race.most) if race.margin > 0 else race.most
    outcomes = [rollouts(point, a, policy, count, seed) for a in range(len(point.moves))]
    racing = list(range(len(point.moves)))
    while True:
        leader = _leader(point, outcomes, racing)
        still = [leader]
        for rival in racing:
            if rival == leader:
                continue
            mean, half = _difference(outcomes[leader], outcomes[rival])
            if half <= race.margin or (rival != point.played and mean - half > 0):
                if rival == point.played:
                    still.append(rival)  # kept for the swing, with its rollouts in step
                continue
            still.append(rival)
        done = len(outcomes[leader]) >= race.most or all(
            rival == point.played or rival == leader for rival in still
        )
        if done and (point.played not in still or _settled(point, outcomes, leader, race)):
            return summarise(point, outcomes, sorted(still))
        step = min(race.batch, race.most - len(outcomes[leader]))
        start = len(outcomes[leader])
        for alternative in still:
            more = rollouts(point, alternative, policy, step, seed, start)
            outcomes[alternative] = [*outcomes[alternative], *more]
        racing = sorted(still)


def _settled(point: DecisionPoint, outcomes: Sequence[Sequence[Outcome]], leader: int, race: Race) -> bool:
    """The played move's swing is known to within the margin, or the race is run."""
    if len(outcomes[leader]) >= race.most or leader == point.played:
        return True
    return _difference(outcomes[leader], outcomes[point.played])[1] <= race.margin


def pivotal(decisions: Sequence[Decision], top: int) -> list[Decision]:
    """The decisions with the largest swings, biggest first (earlier first among equals)."""
    swung = [d for d in decisions if d.swing > 0]
    return sorted(swung, key=lambda d: (-d.swing, d.seq))[:top]


def _r(value: float) -> float:
    # Rounded so that JSON output is short and the same on every platform.
    return round(value + 0.0, 4)


def analyse(
    points: Sequence[DecisionPoint],
    policy: str = "greedy",
    count: int = 100,
    seed: int | str = 0,
    on_decision: Callable[[int], None] | None = None,
    margin: float = DEFAULT_MARGIN,
) -> list[Decision]:
    """Every decision valued, serially (the CLI spreads the same decisions over processes):
    a race to at most `count` rollouts per alternative, or exactly `count` each with `margin`
    0."""
    race = Race(most=count, margin=margin)
    decisions = []
    for point in points:
        decisions.append(value_decision(point, policy, seed, race))
        if on_decision is not None:
            on_decision(1)
    return decisions


def decision_object(decision: Decision) -> dict[str, Any]:
    """One decision as `we analyse --json` prints it."""
    return {
        "seq": decision.seq,
        "party": decision.party,
        "player": decision.player,
        "played": move_object(decision.played_move),
        "alternatives": [
            {
                "move": move_object(a.move),
                "mean": a.mean,
                "low": a.low,
                "high": a.high,
                "win_chance": a.win_chance,
                "win_low": a.win_low,
                "win_high": a.win_high,
                "rollouts": a.rollouts,
            }
            for a in decision.alternatives
        ],
        "swing": decision.swing,
        "swing_margin": decision.swing_margin,
    }


def describe_move(move: Move, before: GameState | None = None) -> str:
    """A move in table language, as the player's own action ('stole R9 from Ann')."""
    if is_chance(move):
        return move.DONE.format(value=move.value)
    match move:
        case Open():
            return f"opened {move.card}" if move.card else "opened a gift"
        case Steal():
            card = move.card
            return f"stole {card} from {move.from_player}" if card else f"stole from {move.from_player}"
        case Bring():
            return f"brought {move.card}" if move.card else "brought a gift unseen"
        case Swap():
            partner, takes = move.with_player, move.takes
            if partner is None:
                return "kept their gift (no swap)"
            return f"swapped with {partner} for {takes}" if takes else f"swapped with {partner}"
        case _:
            assert_never(move)


def gerund(move: Move) -> str:
    """'stealing R9 from Ann', for 'X instead was worth ...'."""
    text = describe_move(move)
    verb, _, rest = text.partition(" ")
    forms = {
        "opened": "opening",
        "stole": "stealing",
        "brought": "bringing",
        "swapped": "swapping",
        "kept": "keeping",
    }
    return f"{forms.get(verb, verb)} {rest}".strip()


def sentence(decision: Decision) -> str:
    """'Party 3: Ben opened a gift; stealing R9 from Ann instead was worth +4.1 points (±0.8),
    win chance 31% → 58%'."""
    played = decision.alternatives[decision.played]
    head = f"Party {decision.party}: {decision.player} {describe_move(played.move)}"
    if decision.forced:
        return f"{head} (the only move)"
    if decision.best == decision.played:
        return f"{head}, the best move found (win chance {played.win_chance:.0%})"
    best = decision.alternatives[decision.best]
    return (
        f"{head}; {gerund(best.move)} instead was worth {decision.swing:+.1f} points"
        f" (±{decision.swing_margin:.1f}), win chance {played.win_chance:.0%} → {best.win_chance:.0%}"
    )
