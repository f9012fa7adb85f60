"""Bots that play over `legal_moves`, and whole bot games from a seed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from wecore.cards import CARD_COLOUR, CARD_NUMBER
from wecore.dealing import DEFAULT_NAMES, deal_payloads
from wecore.moves import Bring, Move, Open, Steal, Swap, legal_moves
from wecore.reducer import bring_gift, evolve, final_swap, open_gift, steal_gift
from wecore.rng import SeededRandom
from wecore.state import INITIAL_STATE, GameState, Phase

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
    colour = CARD_COLOUR[card]
    if state.lists is None or colour not in state.lists[seat]:
        return 0
    best = max((CARD_NUMBER[c] for c in state.kept[seat] if CARD_COLOUR[c] is colour), default=0)
    return max(0, CARD_NUMBER[card] - best)


_CARDS_BY_COLOUR = {
    colour: tuple((card, CARD_NUMBER[card]) for card in CARD_COLOUR if CARD_COLOUR[card] is colour)
    for colour in set(CARD_COLOUR.values())
}


def expected_gain(state: GameState, seat: int, own: str | None) -> float:
    """The public expectation of an unknown gift for this seat: the average gain over the cards
    not yet seen (and the face-down ones), leaving out the seat's own brought card.

    Only cards of the seat's list colours can gain anything, so only those are visited; the
    gains are whole numbers, so the sum (and the bot's choices) do not depend on the order.
    """
    seen = state.seen
    face_down = state.face_down
    pool_size = len(CARD_COLOUR) - len(seen) + len(face_down)
    if own is not None and (own in face_down or own not in seen):
        pool_size -= 1
    if pool_size <= 0:
        return 0.0
    if state.lists is None:
        return 0.0
    kept = state.kept[seat]
    total = 0
    for colour in state.lists[seat]:
        best = max((CARD_NUMBER[c] for c in kept if CARD_COLOUR[c] is colour), default=0)
        for card, number in _CARDS_BY_COLOUR[colour]:
            if number > best and card != own and (card not in seen or card in face_down):
                total += number - best
    return total / pool_size


class GreedyBot:
    """Brings what helps itself least and its rivals least; steals what helps it most.

    It knows only what its seat knows: its own brought card, not the other face-down ones.
    """

    name = "greedy"

    def choose(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        first = moves[0]
        if isinstance(first, Bring):
            return self._bring(state, moves)  # type: ignore[arg-type]
        if isinstance(first, Swap):
            return self._swap(state, moves)  # type: ignore[arg-type]
        return self._move(state, moves, rng)

    def _swap(self, state: GameState, moves: Sequence[Swap]) -> Swap:
        """Swap for the gift worth most to it, if that beats the one it holds; else keep."""
        seat = state.starter
        assert seat is not None
        own = state.holding[seat]
        keep_value = gain(state, seat, own) if own is not None else 0
        best = max(moves, key=lambda m: -1 if m.takes is None else gain(state, seat, m.takes))
        if best.takes is not None and gain(state, seat, best.takes) > keep_value:
            return best
        return moves[0]

    def _bring(self, state: GameState, moves: Sequence[Bring]) -> Bring:
        seat = state.seat_of[moves[0].player]
        rivals = [s for s in range(len(state.players)) if s != seat]

        def cost(move: Bring) -> tuple[int, int, int]:
            if move.card is None:
                return (0, 0, 0)
            mine = gain(state, seat, move.card)
            theirs = max((gain(state, s, move.card) for s in rivals), default=0)
            return (2 * mine + theirs, mine, CARD_NUMBER[move.card])

        return min(moves, key=cost)

    def _move(self, state: GameState, moves: Sequence[Move], rng: SeededRandom) -> Move:
        seat = state.to_move
        assert seat is not None
        steals = [m for m in moves if isinstance(m, Steal)]
        opens = [m for m in moves if isinstance(m, Open)]
        own = state.brought_cards[seat]
        unknown = [m for m in opens if m.card != own]
        expected = expected_gain(state, seat, own)
        best_steal = max(steals, key=lambda m: gain(state, seat, m.card), default=None)  # type: ignore[arg-type]
        if best_steal is not None and gain(state, seat, best_steal.card) > expected:  # type: ignore[arg-type]
            return best_steal
        if own is not None and gain(state, seat, own) > expected and any(m.card == own for m in opens):
            return next(m for m in opens if m.card == own)
        return rng.choice(unknown or opens)


BOTS: Mapping[str, Callable[[], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


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
    append = payloads.append
    while state.phase is not Phase.OVER:
        moves = legal_moves(state)
        if state.phase is Phase.BRINGING:
            # Brings are simultaneous: each player still to bring picks from their own attic.
            by_player: dict[str, list[Move]] = {}
            for move in moves:
                by_player.setdefault(move.player, []).append(move)  # type: ignore[union-attr]
            for name, own_moves in by_player.items():
                move = seat_bots[state.seat_of[name]].choose(state, own_moves, play_rng)
                state = _play(state, move, append)
            continue
        move = seat_bots[state.to_move].choose(state, moves, play_rng)  # type: ignore[index]
        state = _play(state, move, append)
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


def _play(state: GameState, move: Move, record: Callable[[tuple[str, dict[str, Any]]], None]) -> GameState:
    party = state.party
    if isinstance(move, Open):
        record(("gift_opened", {"party": party, "player": move.player, "card": move.card}))
        return open_gift(state, party, move.player, move.card)  # type: ignore[arg-type]
    if isinstance(move, Steal):
        record(
            (
                "gift_stolen",
                {"party": party, "player": move.player, "from": move.from_player, "card": move.card},
            )
        )
        return steal_gift(state, party, move.player, move.from_player, move.card)  # type: ignore[arg-type]
    if isinstance(move, Swap):
        data = {"party": party, "player": move.player, "with": move.with_player, "takes": move.takes}
        record(("final_swap", data))
        return final_swap(state, party, move.player, move.with_player, move.takes)  # type: ignore[arg-type]
    record(("gift_brought", {"party": party, "player": move.player, "card": move.card}))
    return bring_gift(state, party, move.player, move.card)


def bot_move(state: GameState, player: str, bot: Bot, seed: str) -> Move | None:
    """The move the bot at `player`'s seat makes now (None when none is theirs to make), as
    `we simulate` has its bots choose: from that player's legal moves, with a random source
    drawn from `seed` (a served game's id), the event count and the player, so a game played
    again from the same log makes the same choices."""
    if state.phase is Phase.BRINGING:
        if player not in state.waiting_to_bring:
            return None
    elif state.player_to_move != player:
        return None
    own = [m for m in legal_moves(state) if m.player == player]
    if not own:
        return None
    return bot.choose(state, own, SeededRandom(f"{seed}/{state.seq}/{player}"))
