"""The search bot (`ismcts`): it decides from what its seat has seen and nothing else, the same
way every time from the same seed, and plays whole games that follow the rules. The greedy bot,
its playout policy and a bot of its own, is held to the same positions: hidden means hidden."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from wecore.bots import Bot, GreedyBot, apply_move, bot_move, gain, play_payloads
from wecore.cards import ALL_CARDS
from wecore.conformance import check_events
from wecore.events import parse_event
from wecore.levels import BOTS
from wecore.moves import Move, Open, Roll, chance_outcomes, legal_moves
from wecore.reducer import fold
from wecore.rng import SeededRandom
from wecore.search import (
    GameMovedOn,
    SearchBot,
    SeatKnowledge,
    TimeLimit,
    _choices,
    play_out,
    seat_knowledge,
)
from wecore.state import GameState, Phase
from wecore.views import seat_move_object

Payloads = list[tuple[str, dict[str, Any]]]
HOUSE_RULES: tuple[dict[str, object], ...] = (
    {},
    {"starter_final_swap": True},
    {"max_steals_between_opens": 1, "max_steals_per_gift": 2},
)


def _fold(payloads: Payloads) -> GameState:
    return fold(parse_event(kind, data) for kind, data in payloads)


def _unseen_by(payloads: Payloads, player: str) -> set[str]:
    """The cards `player` has not seen by the end of `payloads`: not in their attic, never opened."""
    seen: set[str] = set()
    for kind, data in payloads:
        if kind == "attics_dealt":
            seen.update(data["attics"][player])
        elif kind == "gift_opened":
            seen.add(data["card"])
    return set(ALL_CARDS) - seen


def _relabelled(payloads: Payloads, player: str, rng: SeededRandom) -> Payloads:
    """The same game as `player` saw it, with the cards they have not seen dealt otherwise: the
    other attics, the gifts others brought and the cards left out of the game change places."""
    unseen = sorted(_unseen_by(payloads, player))
    relabel = dict(zip(unseen, rng.shuffled(unseen), strict=True))
    changed: Payloads = []
    for kind, data in payloads:
        if kind == "attics_dealt":
            attics = {
                name: cards if name == player else [relabel.get(c, c) for c in cards]
                for name, cards in data["attics"].items()
            }
            data = {**data, "attics": attics}
        elif kind == "gift_brought" and data["player"] != player:
            data = {**data, "card": relabel.get(data["card"], data["card"])}
        changed.append((kind, data))
    return changed


def _positions(count: int) -> list[tuple[Payloads, str]]:
    """Decision points of greedy games under several house rules: a prefix of a game's log and a
    player with more than one legal move there."""
    found: list[tuple[Payloads, str]] = []
    game = 0
    while len(found) < count:
        options = HOUSE_RULES[game % len(HOUSE_RULES)]
        payloads, _ = play_payloads(f"cheat/{game}", 4, GreedyBot(), options=options)
        pick = SeededRandom(f"cut/{game}")
        for _ in range(3):
            cut = 3 + pick.randbelow(len(payloads) - 3)
            state = _fold(payloads[:cut])
            by_player: dict[str, int] = {}
            for move in legal_moves(state):
                by_player[move.player] = by_player.get(move.player, 0) + 1  # type: ignore[index]
            choosers = sorted(name for name, n in by_player.items() if n > 1)
            if choosers:
                found.append((payloads[:cut], choosers[pick.randbelow(len(choosers))]))
        game += 1
    return found[:count]


def _decision(bot: Any, state: GameState, player: str, seed: str) -> dict[str, Any]:
    """The bot's move, as the player sends it (a face-down gift they have not seen by place)."""
    moves = [m for m in legal_moves(state) if m.player == player]
    move = bot.choose(state, moves, SeededRandom(seed))
    return seat_move_object(state, player, move)


POSITIONS = _positions(24)
# The bots that play a seat by themselves, each as the tests below seat it.
SEAT_BOTS: dict[str, Callable[[], Bot]] = {"ismcts": lambda: SearchBot(iterations=12), "greedy": GreedyBot}


@pytest.mark.parametrize("bot_name", SEAT_BOTS)
@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_positions_alike_from_the_seat_get_the_same_move(index: int, bot_name: str) -> None:
    payloads, player = POSITIONS[index]
    real = _fold(payloads)
    other_payloads = _relabelled(payloads, player, SeededRandom(f"relabel/{index}"))
    other = _fold(other_payloads)
    seat = real.seat_of[player]
    # The two differ in what the seat has not seen (some other attic or gift at least) ...
    assert (real.attics, real.face_down) != (other.attics, other.face_down)
    # ... and not at all in what it has.
    assert seat_knowledge(real, seat) == seat_knowledge(other, seat)
    bot = SEAT_BOTS[bot_name]()
    assert _decision(bot, real, player, f"seed/{index}") == _decision(bot, other, player, f"seed/{index}")


class _PeekingSearch(SearchBot):
    """A search bot that plays out the real deal instead of dealing what it has not seen: what
    the test above must catch."""

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        self._real = state.replace(undo=None)
        return super().choose(state, moves, rng)

    def _world(self, knowledge: SeatKnowledge, rng: SeededRandom) -> GameState:
        return self._real


class _PeekingGreedy(GreedyBot):
    """A greedy bot that, when it opens, opens the face-down gift whose card (read off the
    table) it gains most from: what the test above must catch."""

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        move = super().choose(state, moves, rng)
        if not isinstance(move, Open) or state.to_move is None:
            return move
        seat = state.to_move
        opens = [m for m in moves if isinstance(m, Open) and m.card is not None]
        return max(opens, key=lambda m: gain(state, seat, m.card), default=move)  # type: ignore[arg-type]


PEEKING_BOTS: dict[str, Callable[[], Bot]] = {
    "ismcts": lambda: _PeekingSearch(iterations=12),
    "greedy": _PeekingGreedy,
}


@pytest.mark.parametrize("bot_name", PEEKING_BOTS)
def test_a_bot_that_peeks_is_caught_by_the_same_positions(bot_name: str) -> None:
    differing = 0
    for index, (payloads, player) in enumerate(POSITIONS):
        real = _fold(payloads)
        other = _fold(_relabelled(payloads, player, SeededRandom(f"relabel/{index}")))
        bot = PEEKING_BOTS[bot_name]()
        differing += _decision(bot, real, player, f"seed/{index}") != _decision(
            bot, other, player, f"seed/{index}"
        )
    assert differing > 0


def test_the_search_bot_is_registered_and_reproducible_to_the_byte() -> None:
    assert BOTS["ismcts"]().name == "ismcts"
    bots = [SearchBot(iterations=8), GreedyBot(), GreedyBot(), GreedyBot()]
    first, _ = play_payloads("repro", 4, bots)
    again, _ = play_payloads("repro", 4, [SearchBot(iterations=8), GreedyBot(), GreedyBot(), GreedyBot()])
    assert first == again


@pytest.mark.parametrize("options", HOUSE_RULES)
def test_search_bot_games_follow_the_rules(options: dict[str, object]) -> None:
    payloads, state = play_payloads(
        "rules", 4, [SearchBot(iterations=6)] * 2 + [GreedyBot()] * 2, options=options
    )
    assert state.phase is Phase.OVER
    result = check_events((line, kind, data) for line, (kind, data) in enumerate(payloads, start=1))
    assert result.problem is None and result.state.phase is Phase.OVER


def test_without_dealt_attics_the_search_bot_opens_gifts_brought_unseen() -> None:
    # replays/game-night-3p.jsonl was recorded without attics: every gift is brought unseen, and
    # "open a gift" is the one open there is (no card to name until it is turned over).
    import json
    from pathlib import Path

    from wecore.moves import Open

    lines = Path(__file__).resolve().parents[2].joinpath("replays", "game-night-3p.jsonl").read_text()
    payloads = [(e["type"], e["data"]) for e in map(json.loads, lines.splitlines())]
    chosen_opens = 0
    for cut in range(3, len(payloads)):
        state = _fold(payloads[:cut])
        if state.phase is not Phase.PLAYING:
            continue
        moves = legal_moves(state)
        move = SearchBot(iterations=4).choose(state, moves, SeededRandom(f"unseen/{cut}"))
        assert move in moves
        chosen_opens += isinstance(move, Open) and move.card is None
    assert chosen_opens > 0


class _Ticks:
    """A clock that moves on a second each time it is read: how many playouts a capped search
    makes is then a count of its readings, whatever the machine's speed."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings)


def _searched_position() -> tuple[GameState, list[Move]]:
    for payloads, player in POSITIONS:
        state = _fold(payloads)
        moves = [m for m in legal_moves(state) if m.player == player]
        if len(moves) > 2:
            return state, moves
    raise AssertionError("no position with three moves or more")


def test_a_time_limit_stops_the_search_at_the_pace_of_its_playouts() -> None:
    state, moves = _searched_position()
    clock = _Ticks()
    bot = SearchBot(iterations=160, time_limit=TimeLimit(clock, seconds=2))
    assert bot.choose(state, moves, SeededRandom("capped")) in moves
    # One reading starts the search (1); before each playout after the first the search reads
    # again: at 2 it has spent 1 s on one playout, and one more fits in 2 s; at 3 it has spent
    # 2 s on two, and a third would end at 3 s, past the limit.
    assert clock.readings == 3


def _choice_count(state: GameState, moves: list[Move]) -> int:
    player = moves[0].player
    assert player is not None
    own_gift = seat_knowledge(state, state.seat_of[player]).own_gift
    return len(_choices(state, player, own_gift))  # the moves the search tells apart


def test_a_capped_search_stops_before_a_playout_it_has_no_time_for_even_with_choices_untried() -> None:
    state, moves = _searched_position()
    assert _choice_count(state, moves) > 1
    clock = _Ticks()
    asked: list[bool] = []

    def moved_on() -> bool:
        asked.append(False)
        return False

    bot = SearchBot(iterations=160, time_limit=TimeLimit(clock, seconds=1.5, moved_on=moved_on))
    assert bot.choose(state, moves, SeededRandom("paced")) in moves
    # The first playout took 1 s (readings 1 and 2): a second would end at 2 s, past 1.5 s, so
    # the search stops after one, though its other choices were never tried (a search that
    # tried every choice first would have run 3 s and more).
    assert clock.readings == 2
    assert len(asked) == 2  # asked before the first playout, and before the one not made


def test_a_search_stops_as_soon_as_the_game_moved_on() -> None:
    state, moves = _searched_position()
    asked: list[bool] = []

    def moved_on() -> bool:
        asked.append(len(asked) >= 5)  # someone's move lands during the fifth playout
        return asked[-1]

    bot = SearchBot(iterations=160, time_limit=TimeLimit(lambda: 0.0, seconds=100, moved_on=moved_on))
    with pytest.raises(GameMovedOn):
        bot.choose(state, moves, SeededRandom("moved on"))
    assert len(asked) == 6  # five playouts made, none after the game moved on


def test_a_search_whose_game_does_not_move_on_chooses_as_an_uncapped_one() -> None:
    state, moves = _searched_position()
    limit = TimeLimit(lambda: 0.0, seconds=100, moved_on=lambda: False)
    capped = SearchBot(iterations=24, time_limit=limit).choose(state, moves, SeededRandom("same"))
    assert capped == SearchBot(iterations=24).choose(state, moves, SeededRandom("same"))


def test_a_time_limit_never_reached_changes_no_choice() -> None:
    for index, (payloads, player) in enumerate(POSITIONS[:6]):
        state = _fold(payloads)
        moves = [m for m in legal_moves(state) if m.player == player]
        capped = SearchBot(iterations=12, time_limit=TimeLimit(lambda: 0.0, seconds=1))
        uncapped = SearchBot(iterations=12)
        seed = f"never/{index}"
        chosen = capped.choose(state, moves, SeededRandom(seed))
        assert chosen == uncapped.choose(state, moves, SeededRandom(seed))


# --- chance: the die of party_die --------------------------------------------------------

DIE_RULES: tuple[dict[str, object], ...] = (
    {"party_die": True},
    {"party_die": True, "starter_final_swap": True, "max_steals_between_opens": 1, "max_steals_per_gift": 2},
    {"party_die": True, "keep_or_swap_on_open": True},
)


class _NeverAtChance:
    """A bot that fails the test if it is ever asked to move where the game waits on chance."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name, self.asked = bot, bot.name, 0

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        assert not chance_outcomes(state), f"{self.name} was asked to choose among {moves}"
        assert not any(isinstance(move, Roll) for move in moves)
        self.asked += 1
        return self.bot.choose(state, moves, rng)


@pytest.mark.parametrize("options", DIE_RULES)
def test_no_bot_is_asked_to_choose_a_face(options: dict[str, object]) -> None:
    # Every bot a seat can be given, the search bot on a small budget.
    seated = {**BOTS, "ismcts": lambda: SearchBot(iterations=4)}
    bots = [_NeverAtChance(make()) for make in seated.values()] + [_NeverAtChance(GreedyBot())]
    payloads, state = play_payloads("no-face", 4, bots, options=options)
    rolls = [data for kind, data in payloads if kind == "die_rolled"]
    assert state.phase is Phase.OVER and len(rolls) == state.attic_size
    assert all(bot.asked for bot in bots)
    result = check_events((line, kind, data) for line, (kind, data) in enumerate(payloads, start=1))
    assert result.problem is None


def _rolling_states(count: int) -> list[GameState]:
    """States of party_die games where the game waits on the die, the last party's included."""
    found: list[GameState] = []
    for game in range(count):
        payloads, _ = play_payloads(
            f"rolling/{game}", 4, GreedyBot(), options=DIE_RULES[game % len(DIE_RULES)]
        )
        for cut in range(len(payloads)):
            if payloads[cut][0] == "die_rolled":
                found.append(_fold(payloads[:cut]))
    return found


def test_the_bots_refuse_to_choose_a_face() -> None:
    state = _rolling_states(1)[0]
    faces = legal_moves(state)
    assert chance_outcomes(state) and all(isinstance(move, Roll) for move in faces)
    for bot in (SearchBot(iterations=4), GreedyBot()):
        with pytest.raises(ValueError, match="never chooses chance"):
            bot.choose(state, faces, SeededRandom("face"))
    assert all(
        bot_move(state, name, make(), "face") is None for name in state.players for make in BOTS.values()
    )


def test_in_the_search_the_die_falls_on_each_face_alike() -> None:
    """The search plays the die out as chance: from the last party's roll, a 6 (which passes
    every kept gift left) comes up about one playout in six, not as a choice would have it."""
    last = next(state for state in reversed(_rolling_states(3)) if state.party == state.attic_size)
    tries = 600
    passed = 0
    for index in range(tries):
        final = play_out(last, GreedyBot(), SeededRandom(f"die/{index}"))
        kept_last = tuple(cards[-1] for cards in final.kept)
        passed += kept_last != last.holding
    # 1/6 of 600 is 100; a fair die falls outside 60-145 about once in 10^5 runs.
    assert 60 <= passed <= 145, passed


def _search_moves_until_roll(face: int, party: int) -> list[Move]:
    """The search bot's (seat 0) moves in a party_die game up to party `party`'s roll, with
    every roll forced to `face` by the game (bots move as at a served table, `bot_move`)."""
    payloads, _ = play_payloads("faces", 4, GreedyBot(), options={"party_die": True})
    state = _fold(payloads[:3])  # game_started, the lists, the attics
    bots: list[Bot] = [SearchBot(iterations=16)] + [GreedyBot()] * 3
    searched: list[Move] = []
    while not (state.phase is Phase.ROLLING and state.party == party):
        if chance_outcomes(state):
            state = apply_move(state, Roll(face))
            continue
        for seat, name in enumerate(state.players):
            move = bot_move(state, name, bots[seat], "faces")
            if move is not None:
                if seat == 0:
                    searched.append(move)
                state = apply_move(state, move)
                break
    return searched


def test_the_search_bots_move_is_the_same_whatever_face_the_coming_roll_shows() -> None:
    chosen = {face: _search_moves_until_roll(face, party=1) for face in range(1, 7)}
    assert chosen[1] and all(moves == chosen[1] for moves in chosen.values())
