"""A search bot for a game of hidden cards: determinised information-set search (ISMCTS with
its tree cut to the decision at hand, the bandit over the seat's own moves).

Each iteration deals the cards the seat has not seen afresh, at random, consistently with all
it has seen (a determinisation), picks one of its moves by UCB1, plays the rest of the game
out with greedy bots at every seat and scores it for the seat. The move with the best mean
is chosen.

The bot can only cheat if something it reads depends on a card its seat has not seen, so it
reads the state once, through `seat_knowledge`, into what the seat knows (the table's public
facts, its own attic and gift, how many cards lie hidden where), and decides from that alone.
Which face-down gift it opens, when it opens one it has not seen, is a place on the table
drawn from its random source, never a card.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wecore.bots import GreedyBot, apply_move, draw_outcome
from wecore.cards import ALL_CARDS, CARD_NUMBER
from wecore.kinds import CHANCE_PHASES
from wecore.moves import Move, Open, chance_outcomes, legal_moves
from wecore.rng import SeededRandom
from wecore.state import GameState, Phase, state_from_fields
from wecore.views import cards_known_to

# Playouts a move: on this project's 2-core machine a move with a choice in a 4-player game
# takes well under the 1 s asked for in CPU time (the ladder measures it: bench.py --ladder,
# docs/explanation/strength.md). A move with no choice costs nothing.
DEFAULT_ITERATIONS = 160
# As `we analyse`'s rollout policy every seat searches at every move of every playout of every
# alternative: a budget that keeps an analysis within minutes, not one that plays its best.
ROLLOUT_ITERATIONS = 4
# UCB1's exploration weight for rewards in [0, 1] (win share plus a little of the margin).
EXPLORATION = 0.5
# A point of score margin over the best rival is worth this much reward beside a whole win:
# enough to tell apart moves that all win (or all lose) every playout, too little to outweigh
# winning.
MARGIN_WEIGHT = 0.01

# Fields of the state that everyone at the table sees. Everything else (the other attics, the
# other face-down gifts, `seen`, which counts the dealt cards, and the undo stack, which holds
# earlier states whole) is rebuilt from what the seat knows or left out.
_PUBLIC_FIELDS = (
    "phase",
    "players",
    "dealer",
    "title",
    "ruleset",
    "attic_size",
    "lists",
    "party",
    "starter",
    "brought",
    "holding",
    "locked",
    "frozen",
    "counts",
    "kept",
    "to_move",
    "tie_winner",
    "tie_reason",
    "seat_of",
)


@dataclass(frozen=True)
class TimeLimit:
    """A served table's cap on one move's search. The search reads `clock` (seconds from any
    origin) before each playout and stops when, at the pace of its playouts so far, one more
    would end past `seconds`, even short of its playouts or before every choice is tried (it
    makes one at least). It asks `moved_on` before each playout too: once the game has moved
    on (someone else's move landed), the search stops and raises `GameMovedOn`, as its move
    would be refused. Only the service passes one (service/bots.py): wecore reads no clock of
    its own, and a capped search depends on the machine's speed and on when others move, so
    `we simulate`, `we analyse` and the ladder never cap theirs and stay reproducible."""

    clock: Callable[[], float]
    seconds: float
    moved_on: Callable[[], bool] | None = None


class GameMovedOn(Exception):
    """A capped search stopped as the game moved on under it: decide again from the new state."""


@dataclass(frozen=True)
class SeatKnowledge:
    """All a seat knows of the game: what `SearchBot` decides from."""

    seat: int
    public: dict[str, Any]
    own_attic: frozenset[str] | None  # None: attics were not dealt
    own_gift: str | None  # this party's gift the seat brought, while it is face down
    cards_left_in_attics: tuple[int, ...] | None  # of every seat, None without dealt attics
    # The other seats whose gift of this party lies face down with its card in the log, in seat
    # order (public: the table shows who brought which place, and which places were opened).
    hidden_gifts_of: tuple[int, ...]
    unseen_gifts: int  # gifts brought with no card named (no attics): face down, anyone's
    unknown: tuple[str, ...]  # the cards the seat has not seen, in card order


def seat_knowledge(state: GameState, seat: int) -> SeatKnowledge:
    """What `seat` knows of `state`: the only reading of the state the search bot makes."""
    public = {name: state.__dict__[name] for name in _PUBLIC_FIELDS}
    own_attic = None if state.attics is None else state.attics[seat]
    own_brought = state.brought_cards[seat] if state.brought_cards else None
    own_gift = own_brought if own_brought is not None and own_brought in state.face_down else None
    hidden_gifts_of = tuple(
        other
        for other, card in enumerate(state.brought_cards)
        if other != seat and card is not None and card in state.face_down
    )
    known = cards_known_to(state, seat)
    return SeatKnowledge(
        seat=seat,
        public=public,
        own_attic=own_attic,
        own_gift=own_gift,
        cards_left_in_attics=None if state.attics is None else tuple(len(cards) for cards in state.attics),
        hidden_gifts_of=hidden_gifts_of,
        unseen_gifts=state.unseen_face_down,
        unknown=tuple(card for card in ALL_CARDS if card not in known),
    )


def determinise(knowledge: SeatKnowledge, rng: SeededRandom) -> GameState:
    """A whole state the seat cannot tell from the real one: the cards it has not seen dealt at
    random to the places they may be (other attics, other face-down gifts, out of the game).

    Gifts brought unseen get cards too, so a playout needs no open of an unknown card. No
    constraint links a hidden card to its place beyond the counts: every card the seat saw
    leave an attic was opened, and so is not hidden.
    """
    pool = rng.shuffled(knowledge.unknown)
    seat = knowledge.seat
    values = dict(knowledge.public)
    players = len(values["players"])
    face_down: list[str] = [] if knowledge.own_gift is None else [knowledge.own_gift]
    brought_cards: list[str | None] = [None] * players
    if values["phase"] in (Phase.BRINGING, Phase.PLAYING) and knowledge.own_gift is not None:
        brought_cards[seat] = knowledge.own_gift
    placed: list[str] = []
    for other in knowledge.hidden_gifts_of:
        card = pool.pop()
        face_down.append(card)
        brought_cards[other] = card
        placed.append(card)
    for _ in range(knowledge.unseen_gifts):
        card = pool.pop()
        face_down.append(card)
        placed.append(card)
    attics: tuple[frozenset[str], ...] | None = None
    if knowledge.cards_left_in_attics is not None:
        dealt: list[frozenset[str]] = []
        for other, size in enumerate(knowledge.cards_left_in_attics):
            if other == seat:
                dealt.append(knowledge.own_attic)  # type: ignore[arg-type]
                continue
            cards = frozenset(pool[len(pool) - size :]) if size else frozenset()
            del pool[len(pool) - size :]
            dealt.append(cards)
            placed.extend(cards)
        attics = tuple(dealt)
    seen: set[str] = set(placed)
    for cards in values["kept"]:
        seen.update(cards)
    seen.update(card for card in values["holding"] if card is not None)
    if knowledge.own_attic is not None:
        seen.update(knowledge.own_attic)
    if knowledge.own_gift is not None:
        seen.add(knowledge.own_gift)
    values.update(
        attics=attics,
        brought_cards=tuple(brought_cards),
        face_down=tuple(face_down),
        unseen_face_down=0,
        seen=frozenset(seen),
        seq=0,
        undo=None,
    )
    return state_from_fields(values)


def _scores(state: GameState) -> list[int]:
    lists = state.lists
    if lists is None:
        return [0] * len(state.players)
    totals = []
    for colours, cards in zip(lists, state.kept, strict=True):
        letters = {colour.letter: 0 for colour in colours}
        for card in cards:
            held = letters.get(card[0])
            if held is not None and CARD_NUMBER[card] > held:
                letters[card[0]] = CARD_NUMBER[card]
        totals.append(sum(letters.values()))
    return totals


def reward(final: GameState, seat: int) -> float:
    """The seat's share of the win (1/k of a k-way tie) and a little for its margin."""
    totals = _scores(final)
    mine = totals[seat]
    best_rival = max(total for other, total in enumerate(totals) if other != seat)
    top = max(mine, best_rival)
    share = 1 / totals.count(top) if mine == top else 0.0
    return share + MARGIN_WEIGHT * (mine - best_rival)


def play_out(state: GameState, bot: GreedyBot, rng: SeededRandom) -> GameState:
    """Every seat played by `bot` (each seat still to bring, in turn) to the end of the game.
    Chance (a house rule's die) is drawn, each outcome with its probability, from a stream of
    its own: nobody chooses it, and a game without chance draws the same moves."""
    chance_rng: SeededRandom | None = None
    while state.phase is not Phase.OVER:
        if state.phase in CHANCE_PHASES:
            chance_rng = chance_rng or rng.fork("chance")
            state = apply_move(state, draw_outcome(chance_outcomes(state), chance_rng))
            continue
        moves = legal_moves(state)
        if len(moves) == 1 or moves[0].player == moves[-1].player:
            state = _make(state, bot.choose(state, moves, rng), rng)
            continue
        by_player: dict[str | None, list[Move]] = {}
        for move in moves:
            by_player.setdefault(move.player, []).append(move)
        for own in by_player.values():
            state = _make(state, bot.choose(state, own, rng), rng)
    return state


def _make(state: GameState, move: Move, rng: SeededRandom) -> GameState:
    if isinstance(move, Open) and move.card is None:
        # A gift brought unseen during the playout (no attics) is any card not met so far.
        move = Open(rng.choice([card for card in ALL_CARDS if card not in state.seen]), move.player)
    return apply_move(state, move)


def _choices(state: GameState, player: str, own_gift: str | None) -> list[Move]:
    """The seat's moves in a determinisation, as it can tell them apart: the opens of gifts it
    has not seen are one choice, `Open(None)`, where the first of them stands."""
    choices: list[Move] = []
    hidden_open = False
    for move in legal_moves(state):
        if move.player != player:
            continue
        if isinstance(move, Open) and move.card != own_gift:
            if not hidden_open:
                choices.append(Open(None, player))
                hidden_open = True
            continue
        choices.append(move)
    return choices


def _concrete(choice: Move, state: GameState, own_gift: str | None) -> Move:
    """A choice made a move of the determinisation: "open a gift not seen" opens the first such
    one there (its card was dealt at random, so any one is as good as a random one)."""
    if isinstance(choice, Open) and choice.card is None:
        card = next(card for card in state.face_down if card != own_gift)
        return Open(card, choice.player)
    return choice


class SearchBot:
    """Determinised information-set search with greedy playouts; `iterations` playouts a move."""

    name = "ismcts"

    def __init__(self, iterations: int = DEFAULT_ITERATIONS, time_limit: TimeLimit | None = None) -> None:
        self.iterations = iterations
        self.time_limit = time_limit
        self._playout_bot = GreedyBot()

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        if chance_outcomes(state):
            raise ValueError("a bot never chooses chance: whoever plays the game draws it")
        player = moves[0].player
        seat = state.seat_of[player] if player is not None else state.to_move
        assert seat is not None
        knowledge = seat_knowledge(state, seat)
        # One draw from the caller's source seeds the whole search: the caller's stream moves
        # on by the same amount whatever the search does.
        search_rng = SeededRandom(f"ismcts/{rng.getrandbits(64)}")
        pick = search_rng.fork("pick")
        choice = self.decide(knowledge, search_rng)
        return _real_move(choice, moves, knowledge, pick)

    def decide(self, knowledge: SeatKnowledge, rng: SeededRandom) -> Move:
        """The chosen move, as the seat tells its moves apart (an open of a gift it has not seen
        is `Open(None)`), from `knowledge` and `rng` alone."""
        player = knowledge.public["players"][knowledge.seat]
        first = self._world(knowledge, rng.fork("deal/0"))
        choices = _choices(first, player, knowledge.own_gift)
        if len(choices) == 1:
            return choices[0]
        totals = [0.0] * len(choices)
        visits = [0] * len(choices)
        stop = _stopping(self.time_limit)
        for iteration in range(self.iterations):
            if stop(iteration):
                break
            world = first if iteration == 0 else self._world(knowledge, rng.fork(f"deal/{iteration}"))
            arm = _ucb_arm(totals, visits, iteration)
            move = _concrete(choices[arm], world, knowledge.own_gift)
            final = play_out(apply_move(world, move), self._playout_bot, rng.fork(f"play/{iteration}"))
            totals[arm] += reward(final, knowledge.seat)
            visits[arm] += 1
        # The best mean among the moves tried; ties to the earlier move.
        best = max(
            (arm for arm in range(len(choices)) if visits[arm]),
            key=lambda arm: (totals[arm] / visits[arm], -arm),
        )
        return choices[best]

    def _world(self, knowledge: SeatKnowledge, rng: SeededRandom) -> GameState:
        return determinise(knowledge, rng)


def _stopping(limit: TimeLimit | None) -> Callable[[int], bool]:
    """Whether a search started now stops before its playout number `done` (never, without a
    limit). It raises GameMovedOn once the game has moved on; it stops when one more playout,
    as long as the average so far, would end past the limit (after one playout at least: the
    search needs one to choose)."""
    if limit is None:
        return lambda done: False
    clock, seconds, moved_on = limit.clock, limit.seconds, limit.moved_on
    start = clock()

    def stop(done: int) -> bool:
        if moved_on is not None and moved_on():
            raise GameMovedOn
        if done == 0:
            return False
        spent = clock() - start
        return spent + spent / done > seconds

    return stop


def _ucb_arm(totals: list[float], visits: list[int], iteration: int) -> int:
    for arm, count in enumerate(visits):
        if count == 0:
            return arm
    log_n = math.log(iteration)
    return max(
        range(len(visits)),
        key=lambda arm: (totals[arm] / visits[arm] + EXPLORATION * math.sqrt(log_n / visits[arm]), -arm),
    )


def _real_move(choice: Move, moves: Sequence[Move], knowledge: SeatKnowledge, rng: SeededRandom) -> Move:
    """The legal move `choice` stands for. "Open a gift not seen" becomes one of those gifts
    drawn by its place among them (the order they were brought, which is public), never by
    its card."""
    if isinstance(choice, Open) and choice.card is None:
        own = knowledge.own_gift
        hidden = [m for m in moves if isinstance(m, Open) and (own is None or m.card != own)]
        return rng.choice(hidden)
    for move in moves:
        if move == choice:
            return move
    raise ValueError(f"the search chose {choice!r}, which is not among the legal moves")
