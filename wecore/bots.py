"""Bots that play over `legal_moves`, and whole bot games from a seed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, assert_never

from wecore.cards import ALL_CARDS, CARD_NUMBER, Colour
from wecore.dealing import DEFAULT_NAMES, deal_payloads
from wecore.kinds import CHANCE_PHASES
from wecore.moves import Bring, Move, Open, Steal, Swap, chance_outcomes, is_chance, legal_moves, move_event
from wecore.reducer import RULES, evolve
from wecore.rng import SeededRandom
from wecore.state import INITIAL_STATE, GameState, Phase
from wecore.views import cards_known_to

if TYPE_CHECKING:
    from wecore.events import Event


class Bot(Protocol):
    name: str

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        """One of `moves` (all legal, all by the same player)."""
        ...


class RandomBot:
    name = "random"

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        return rng.choice(moves)


def gain(state: GameState, seat: int, card: str) -> int:
    """How much `card`, kept, would add to this seat's score now."""
    return _gain(_bests(state, seat), card)


# The bot's arithmetic is keyed by a card's letter ("R" of "R7"), not its Colour: a str hashes
# in C, an enum member through Enum.__hash__ in Python, and the bot looks colours up a dozen
# times per move of every rollout. Each game's gift lists as letters by seat ("RYG"), found by
# the identity of the state's `lists` (the same tuple all game long) and checked by it, so a
# reused id never matches.
_list_letters_of: dict[int, tuple[object, tuple[str, ...]]] = {}


def _list_letters(lists: tuple[tuple[Colour, ...], ...]) -> tuple[str, ...]:
    known = _list_letters_of.get(id(lists))
    if known is not None and known[0] is lists:
        return known[1]
    letters = tuple("".join(colour.letter for colour in seat) for seat in lists)
    if len(_list_letters_of) > 256:
        _list_letters_of.clear()
    _list_letters_of[id(lists)] = (lists, letters)
    return letters


def _bests(state: GameState, seat: int) -> dict[str, int] | None:
    """For each of the seat's list colours (by letter), the highest number it keeps (0: none);
    None when no lists were dealt (nothing gains anything)."""
    lists = state.lists
    if lists is None:
        return None
    kept = state.kept
    known = _bests_of.get(id(kept))
    if known is not None and known[0] is kept and known[1] is lists:
        return known[2][seat]
    letters = _list_letters(lists)
    bests = []
    for own_letters, cards in zip(letters, kept, strict=True):
        best = dict.fromkeys(own_letters, 0)
        for card in cards:
            held = best.get(card[0])
            if held is not None and CARD_NUMBER[card] > held:
                best[card[0]] = CARD_NUMBER[card]
        bests.append(best)
    if len(_bests_of) > 4096:
        _bests_of.clear()
    _bests_of[id(kept)] = (kept, lists, bests)
    return bests[seat]


def _lowest_rival_bests(state: GameState, seat: int) -> dict[str, int]:
    """The best a rival gains from a card is its number above the lowest a rival listing its
    colour keeps: that lowest, by letter, over the seat's rivals. Worked out once for every seat
    while the kept cards stay the same (a whole bringing round): by letter, the lowest and the
    next lowest any seat keeps, and whose the lowest is. Kept by the identity of `kept` and
    `lists`, as _bests is."""
    kept, lists = state.kept, state.lists
    known = _lowest_of.get(id(kept))
    if known is None or known[0] is not kept or known[1] is not lists:
        # letter -> (lowest, its seat, the lowest of the other seats); 11: nobody lists it.
        by_letter: dict[str, tuple[int, int, int]] = {}
        for rival in range(len(state.players)):
            rival_best = _bests(state, rival)
            if rival_best is None:
                continue
            for letter, held in rival_best.items():
                low, low_seat, second = by_letter.get(letter, (11, -1, 11))
                if held < low:
                    by_letter[letter] = (held, rival, low)
                elif held < second:
                    by_letter[letter] = (low, low_seat, held)
        known = (kept, lists, by_letter, {})
        if len(_lowest_of) > 4096:
            _lowest_of.clear()
        _lowest_of[id(kept)] = known
    by_seat = known[3]
    lowest_held = by_seat.get(seat)
    if lowest_held is None:
        lowest_held = {}
        for letter, (low, low_seat, second) in known[2].items():
            held = second if low_seat == seat else low
            if held < 11:
                lowest_held[letter] = held
        by_seat[seat] = lowest_held
    return lowest_held


_lowest_of: dict[int, tuple[object, object, dict[str, tuple[int, int, int]], dict[int, dict[str, int]]]] = {}


# Every seat's bests by the identity of the state's `kept` (shared by every state until a party
# ends) and `lists`, checked by both; the dicts are never changed once made.
_bests_of: dict[int, tuple[object, object, list[dict[str, int]]]] = {}


def _gain(best: dict[str, int] | None, card: str) -> int:
    if best is None:
        return 0
    held = best.get(card[0])
    if held is None:
        return 0
    number = CARD_NUMBER[card]
    return number - held if number > held else 0


# The cards of each colour by letter, numbers 1 to 10 in order: those above a seat's best of the
# colour are the slice after it.
_CARDS_BY_LETTER: dict[str, tuple[tuple[str, int], ...]] = {
    letter: tuple(sorted(((c, CARD_NUMBER[c]) for c in ALL_CARDS if c[0] == letter), key=lambda p: p[1]))
    for letter in {card[0] for card in ALL_CARDS}
}


def _expected_gain(state: GameState, seat: int, best: dict[str, int] | None) -> float:
    """What a face-down gift the seat has not seen would add, on average over the cards it does
    not know the place of (`cards_known_to`): any of them may lie under it, for all it can tell."""
    if best is None:
        return 0.0
    known = cards_known_to(state, seat)
    pool_size = len(ALL_CARDS) - len(known)
    if pool_size <= 0:
        return 0.0
    total = 0
    for letter, held in best.items():
        for card, number in _CARDS_BY_LETTER[letter][held:]:
            if card not in known:
                total += number - held
    return total / pool_size


class GreedyBot:
    """Brings what helps itself least and its rivals least; steals what helps it most.

    It reads of the cards only what its seat knows (`wecore.views.cards_known_to`): the opened
    gifts, its own attic and its own brought card, never another attic or face-down gift.
    """

    name = "greedy"

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        # The moves offered at once are of one phase: brings; opens and steals; keep or swaps.
        first = moves[0]
        if is_chance(first):
            raise ValueError("a bot never chooses chance: whoever plays the game draws it")
        match first:
            case Bring():
                return self._bring(state, moves)  # type: ignore[arg-type]
            case Swap():
                return self._swap(state, moves)  # type: ignore[arg-type]
            case Open() | Steal():
                return self._move(state, moves, rng)
            case _:
                assert_never(first)

    def _swap(self, state: GameState, moves: Sequence[Swap]) -> Swap:
        """Swap for the gift worth most to it, if that beats the one it holds; else keep."""
        seat = state.to_move
        assert seat is not None
        best_of = _bests(state, seat)
        own = state.holding[seat]
        keep_value = _gain(best_of, own) if own is not None else 0
        best = max(moves, key=lambda m: -1 if m.takes is None else _gain(best_of, m.takes))
        if best.takes is not None and _gain(best_of, best.takes) > keep_value:
            return best
        return moves[0]

    def _bring(self, state: GameState, moves: Sequence[Bring]) -> Bring:
        seat = state.seat_of[moves[0].player]
        mine_best = _bests(state, seat)
        lowest_held = _lowest_rival_bests(state, seat)
        # The first of the cheapest: (2 x own gain + the best rival's gain, own gain, number).
        chosen = moves[0]
        lowest: tuple[int, int, int] | None = None
        for move in moves:
            card = move.card
            if card is None:
                cost = (0, 0, 0)
            else:
                mine = _gain(mine_best, card)
                number = CARD_NUMBER[card]
                floor = lowest_held.get(card[0], 11)
                theirs = number - floor if number > floor else 0
                cost = (2 * mine + theirs, mine, number)
            if lowest is None or cost < lowest:
                chosen, lowest = move, cost
        return chosen

    def _move(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        seat = state.to_move
        assert seat is not None
        own = state.brought_cards[seat]
        best = _bests(state, seat)
        best_steal: Move | None = None
        steal_gain = -1
        opens: list[Open] = []
        own_open: Open | None = None
        for move in moves:
            if isinstance(move, Steal):
                value = _gain(best, move.card)  # type: ignore[arg-type]
                if value > steal_gain:  # the first of the best, as max() picks
                    best_steal, steal_gain = move, value
            elif isinstance(move, Open):
                opens.append(move)
                if own is not None and move.card == own and own_open is None:
                    own_open = move
        # The expected gain of an unknown gift is weighed only against a steal or the seat's
        # own gift still face down: without either, the choice is a random open whatever it is.
        # A gain of 0 never beats an expected gain (never below 0): asked only when one may.
        own_gain = _gain(best, own) if own_open is not None else 0  # type: ignore[arg-type]
        if steal_gain > 0 or own_gain > 0:
            expected = _expected_gain(state, seat, best)
            if best_steal is not None and steal_gain > expected:
                return best_steal
            if own_open is not None and own_gain > expected:
                return own_open
        unknown = [m for m in opens if m.card != own]
        return rng.choice(unknown or opens)


def play_game(
    seed: int | str,
    player_count: int = 5,
    bots: Sequence[Bot] | Bot | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, object] | None = None,
    title: str | None = None,
) -> tuple[list[Event], GameState]:
    """A complete bot game, dealt and played from `seed`: its events and the final state."""
    from wecore.events import parse_event

    payloads, state = play_payloads(seed, player_count, bots, players, options, title)
    return [parse_event(event_type, data) for event_type, data in payloads], state


def play_payloads(
    seed: int | str,
    player_count: int = 5,
    bots: Sequence[Bot] | Bot | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, object] | None = None,
    title: str | None = None,
) -> tuple[list[tuple[str, dict[str, Any]]], GameState]:
    """`play_game` as the log's (type, data) payloads, for simulations that write logs.

    Moves go through the reducer's rule functions directly: every move is still checked, but no
    event model is built for it.
    """
    names = tuple(players or DEFAULT_NAMES[:player_count])
    if bots is None:
        bots = RandomBot()
    seat_bots: Sequence[Bot] = [bots] * len(names) if not isinstance(bots, Sequence) else bots
    rng = SeededRandom(seed)
    payloads, state = _set_up(seed, names, options, title)
    play_rng = rng.fork("play")
    chance_rng = rng.fork("chance")  # its own stream: a game without chance draws the same moves
    append = payloads.append
    while state.phase is not Phase.OVER:
        if state.phase in CHANCE_PHASES:
            state = play_and_record(state, draw_outcome(chance_outcomes(state), chance_rng), append)
            continue
        moves = legal_moves(state)
        if state.phase is Phase.BRINGING:
            # Brings are simultaneous: each player still to bring picks from their own attic.
            by_player: dict[str, list[Move]] = {}
            for move in moves:
                assert move.player is not None  # a legal move always names its player
                by_player.setdefault(move.player, []).append(move)
            for name, own_moves in by_player.items():
                move = seat_bots[state.seat_of[name]].choose(state, own_moves, play_rng)
                state = play_and_record(state, move, append)
            continue
        move = seat_bots[state.to_move].choose(state, moves, play_rng)  # type: ignore[index]
        state = play_and_record(state, move, append)
    return payloads, state


def _set_up(
    seed: int | str, names: tuple[str, ...], options: Mapping[str, object] | None, title: str | None
) -> tuple[list[tuple[str, dict[str, Any]]], GameState]:
    """The dealt set-up events as payloads, and the state after them.

    Each payload is folded by the fast path when it is in the form the log holds (plain names,
    options as the registry shapes them: every simulation); anything else goes through its event
    model, which normalises it as the log must hold it.
    """
    from wecore.fastpath import fast_fold

    written: list[tuple[str, dict[str, Any]]] = []
    state = INITIAL_STATE
    for kind, data in deal_payloads(seed, names, options=options, title=title):
        folded = fast_fold(state, kind, data)
        if folded is None:
            from wecore.events import event_payload, parse_event

            event = parse_event(kind, data)
            kind, data = event_payload(event)
            folded = evolve(state, event)
        written.append((kind, data))
        state = folded
    return written, state


def apply_move(state: GameState, move: Move) -> GameState:
    """`play_and_record` without writing the event down: what a rollout, which keeps no log, needs."""
    kind, data = move_event(state, move)
    return RULES[kind](state, *data.values())


def play_and_record(
    state: GameState, move: Move, record: Callable[[tuple[str, dict[str, Any]]], None]
) -> GameState:
    """Make `move`: write its event down with `record`, and fold it by its kind's rule function
    (every move is checked; no event model is built)."""
    kind, data = move_event(state, move)
    record((kind, data))
    return RULES[kind](state, *data.values())


def draw_outcome(outcomes: Sequence[tuple[Move, float]], rng: SeededRandom) -> Move:
    """One chance outcome drawn from `rng` with its probability (every chance move declared so
    far has equally likely outcomes, which this holds it to)."""
    if len({chance for _, chance in outcomes}) != 1:
        raise ValueError("chance outcomes of unequal probability are not drawn yet")
    return rng.choice(outcomes)[0]


def bot_move(state: GameState, player: str, bot: Bot, seed: str) -> Move | None:
    """The move the bot at `player`'s seat makes now (None when none is theirs to make), as
    `we simulate` has its bots choose: from that player's legal moves, with a random source
    drawn from `seed` (a served game's id), the event count and the player, so a game played
    again from the same log makes the same choices."""
    if chance_outcomes(state):
        return None  # a bot never chooses chance: whoever plays the game draws it
    if state.phase is Phase.BRINGING:
        if player not in state.waiting_to_bring:
            return None
    elif state.player_to_move != player:
        return None
    own = [m for m in legal_moves(state) if m.player == player]
    if not own:
        return None
    return bot.choose(state, own, SeededRandom(f"{seed}/{state.seq}/{player}"))
