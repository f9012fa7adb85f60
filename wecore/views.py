"""The table as one seat, or a spectator, may see it.

A seat sees its own attic and the gift it brought; other attics and face-down gifts it
did not bring are only counts. Opened, held and kept cards are public.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wecore.cards import sort_key
from wecore.state import GameState, Phase

SPECTATOR = None


@dataclass(frozen=True)
class SeatView:
    viewer: str | None  # None: a spectator
    phase: str
    party: int
    parties: int
    players: tuple[str, ...]
    dealer: str | None
    starter: str | None
    to_move: str | None
    gift_lists: dict[str, list[str]]
    attics: dict[str, list[str] | int] | None  # cards for the viewer, counts for others
    face_down_known: list[str]  # face-down gifts this viewer knows (their own bring)
    face_down_hidden: int
    waiting_to_bring: list[str]
    holding: dict[str, str]
    locked: list[str]
    frozen: list[str]
    kept: dict[str, list[str]]
    scores: dict[str, int]
    complete: bool
    winners: list[str] | None
    tie_broken_by: str | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def view(state: GameState, viewer: str | None = SPECTATOR, omniscient: bool = False) -> SeatView:
    """What `viewer` can know (a spectator when None); `omniscient` shows everything."""
    seat = None if viewer is None else state.seat_of[viewer]
    attics: dict[str, list[str] | int] | None = None
    if state.attics is not None:
        attics = {
            name: sorted(cards, key=sort_key) if omniscient or s == seat else len(cards)
            for s, (name, cards) in enumerate(zip(state.players, state.attics, strict=True))
        }
    if omniscient:
        known = list(state.face_down)
    elif seat is not None and state.brought_cards and state.brought_cards[seat] in state.face_down:
        known = [state.brought_cards[seat]]  # type: ignore[list-item]
    else:
        known = []
    board = state.scoreboard
    return SeatView(
        viewer=viewer,
        phase=state.phase.value,
        party=state.party,
        parties=state.attic_size,
        players=state.players,
        dealer=state.dealer,
        starter=state.starter_name,
        to_move=state.player_to_move,
        gift_lists={name: [c.value for c in colours] for name, colours in state.gift_lists.items()},
        attics=attics,
        face_down_known=known,
        face_down_hidden=state.face_down_count - len(known),
        waiting_to_bring=list(state.waiting_to_bring),
        holding=state.holdings,
        locked=sorted(state.locked, key=sort_key),
        frozen=sorted(state.frozen, key=sort_key),
        kept={name: list(cards) for name, cards in state.kept_by.items()},
        scores=board.totals,
        complete=state.is_over,
        winners=list(board.winners) if state.is_over else None,
        tie_broken_by=state.tie_broken_by,
    )


def turn_line(state: GameState) -> str:
    """Where the game stands, in one sentence: whose move it is, or who is still to bring."""
    if state.phase is Phase.BRINGING:
        waiting = ", ".join(state.waiting_to_bring)
        return f"Party {state.party}/{state.attic_size}: waiting for gifts from {waiting}."
    if state.phase is Phase.PLAYING:
        return f"Party {state.party}/{state.attic_size}: {state.player_to_move} to move."
    if state.phase is Phase.FINAL_SWAP:
        return (
            f"Party {state.party}/{state.attic_size}: every gift is open;"
            f" {state.starter_name}, who started, may swap or keep."
        )
    if state.phase is Phase.OVER:
        return "The game is over."
    if state.phase is Phase.SETTING_UP:
        return "Setting up: the gift lists are not dealt yet."
    return "No game yet."
