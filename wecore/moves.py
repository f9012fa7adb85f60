"""Moves at the table, and every legal move in a state: what bots choose from and what a
recorder offers. Plain values; no event models, so a simulation never loads pydantic."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from wecore.cards import sort_key
from wecore.rules import held_gift_refusal, no_steal_reason, swap_refusal
from wecore.state import GameState, Phase


@dataclass(frozen=True)
class Bring:
    player: str
    card: str | None  # None: the gift goes on the table unseen


@dataclass(frozen=True)
class Open:
    """The player to move opens `card`; None in a legal move means "any unseen gift"."""

    card: str | None
    player: str | None = None  # None: whoever is to move


@dataclass(frozen=True)
class Steal:
    from_player: str
    player: str | None = None  # None: whoever is to move
    card: str | None = None  # filled in by legal_moves; decide reads it from the table


@dataclass(frozen=True)
class Swap:
    """starter_final_swap: the starter takes `takes` from `with_player`, or keeps (both None)."""

    with_player: str | None
    player: str | None = None  # None: the party's starter
    takes: str | None = None  # filled in by legal_moves; decide reads it from the table


# Legal moves are values, and a simulation asks for them a million times: the same move is
# handed out again instead of built again (a frozen dataclass costs ~0.3 us to construct).
_bring_move = functools.lru_cache(maxsize=4096)(Bring)
_open_move = functools.lru_cache(maxsize=4096)(Open)
_steal_move = functools.lru_cache(maxsize=4096)(Steal)


Move = Bring | Open | Steal | Swap


def legal_moves(state: GameState) -> list[Move]:
    """Every legal move now.

    While gifts are being brought (simultaneously) these are the brings of everyone still
    to bring; while a party is played, the opens and steals of the player to move; at a final
    swap, the starter's swaps and `Swap(None)` (keep). An unseen face-down gift shows as
    `Open(None, player)`: its card is known only once turned.
    """
    if state.phase is Phase.BRINGING:
        moves: list[Move] = []
        for seat, name in enumerate(state.players):
            if state.brought[seat]:
                continue
            if state.attics is None:
                moves.append(_bring_move(name, None))
            else:
                attic = sorted(state.attics[seat], key=sort_key)
                moves.extend([_bring_move(name, card) for card in attic])
        return moves
    if state.phase is Phase.FINAL_SWAP:
        starter = state.starter_name
        swaps: list[Move] = [Swap(None, starter, None)]
        for name, card in zip(state.players, state.holding, strict=True):
            if name != starter and swap_refusal(state, starter, name, card) is None:  # type: ignore[arg-type]
                swaps.append(Swap(name, starter, card))
        return swaps
    if state.phase is not Phase.PLAYING or state.to_move is None:
        return []
    mover = state.players[state.to_move]
    moves = [_open_move(card, mover) for card in state.face_down]
    if state.unseen_face_down:
        moves.append(_open_move(None, mover))
    # The opens above are the face-down gifts themselves. A steal is generated only for a gift
    # another player holds, which leaves the rules of rules.gift_refusal that can still say no:
    # a reason no steal is allowed (asked once: it refuses every steal or none), and each gift's
    # lock and freeze.
    if no_steal_reason(state) is not None:
        return moves
    players = state.players
    for seat, card in enumerate(state.holding):
        if card is not None and held_gift_refusal(state, card, players[seat]) is None:
            moves.append(_steal_move(players[seat], mover, card))
    return moves


def move_object(move: Move) -> dict[str, Any]:
    """A move as JSON, in the move objects of docs/service.md (the API's `legal`, `we analyse
    --json`): `"card": null` is an unseen gift, `"with": null` a starter keeping their gift."""
    match move:
        case Bring():
            return {"type": "bring", "as": move.player, "card": move.card}
        case Open():
            return {"type": "open", "as": move.player, "card": move.card}
        case Steal():
            return {"type": "steal", "as": move.player, "from": move.from_player}
        case Swap():
            return {"type": "swap", "as": move.player, "with": move.with_player}
    raise TypeError(f"not a move: {move!r}")
