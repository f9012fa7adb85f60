"""Scores with their explanation, card by card."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any, Protocol

from wecore.cards import CARD_COLOUR, CARD_NUMBER, CARD_ORDER, COLOUR_NAME, Colour


class ScoredGame(Protocol):
    """What scoring reads of a game (a `wecore.state.GameState`, which imports this module for
    its scoreboard): the players' lists and kept cards, whether it is over, a tie broken."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def lists(self) -> tuple[tuple[Colour, ...], ...] | None: ...

    @property
    def kept(self) -> tuple[tuple[str, ...], ...]: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def tie_broken_by(self) -> str | None: ...

    @property
    def tie_reason(self) -> str | None: ...

    def replace(self, **changes: Any) -> ScoredGame: ...


class NotCounted(StrEnum):
    """Why a kept card does not count."""

    OFF_THE_LIST = "not on the list"  # its colour is not on the player's gift list
    LOWER = "lower"  # a higher card of its colour counts instead


@dataclass(frozen=True)
class UnusedCard:
    card: str
    reason: str  # in words: "lower than Y9", "orange is not on the list"
    why: NotCounted


@dataclass(frozen=True)
class PlayerScore:
    player: str
    gift_list: tuple[Colour, ...]
    counted: dict[Colour, str | None]  # per list colour, the card that counts (or none)
    kept: tuple[str, ...]
    total: int

    @cached_property
    def unused(self) -> tuple[UnusedCard, ...]:
        """Kept cards that did not count, and why (worked out only when asked: an audit of a
        whole archive needs the totals, not the wording)."""
        best = self.counted
        unused = []
        for card in sorted(self.kept, key=CARD_ORDER.__getitem__):
            colour = CARD_COLOUR[card]
            if colour not in best:
                reason = f"{COLOUR_NAME[colour]} is not on the list"
                unused.append(UnusedCard(card, reason, NotCounted.OFF_THE_LIST))
            elif best[colour] != card:
                unused.append(UnusedCard(card, f"lower than {best[colour]}", NotCounted.LOWER))
        return tuple(unused)

    def unused_by_reason(self) -> dict[str, list[str]]:
        """The kept cards that did not count, grouped by the words of their reason, in order."""
        grouped: dict[str, list[str]] = {}
        for unused in self.unused:
            grouped.setdefault(unused.reason, []).append(unused.card)
        return grouped

    def explain(self) -> str:
        parts = [f"{COLOUR_NAME[colour]} {card or '-'}" for colour, card in self.counted.items()]
        return f"{self.player}: {' + '.join(parts)} = {self.total}"


@dataclass(frozen=True)
class Scoreboard:
    players: tuple[PlayerScore, ...]  # seat order
    winners: tuple[str, ...]  # seat order; only the tie_broken winner when there is one
    complete: bool
    tie_broken_by: str | None = None
    tie_reason: str | None = None

    @property
    def totals(self) -> dict[str, int]:
        return {p.player: p.total for p in self.players}

    @property
    def ranked(self) -> tuple[PlayerScore, ...]:
        """The standings' order: highest score first, and once the game is over its winners
        ahead of everyone (after a tie-break, the winner before those it was tied with); seat
        order between equals."""
        winners = set(self.winners) if self.complete else set()
        return tuple(sorted(self.players, key=lambda e: (e.player not in winners, -e.total)))

    def ranks(self) -> list[tuple[int, PlayerScore]]:
        """`ranked` with each place: equal places for equal scores, but a tie-break's winner
        alone in first."""
        winners = set(self.winners) if self.complete else set()
        places: list[tuple[int, PlayerScore]] = []
        previous: tuple[bool, int] | None = None
        place = 0
        for position, entry in enumerate(self.ranked, start=1):
            standing = (entry.player in winners, entry.total)
            if standing != previous:
                place, previous = position, standing
            places.append((place, entry))
        return places

    def of(self, player: str) -> PlayerScore:
        for entry in self.players:
            if entry.player == player:
                return entry
        raise KeyError(player)


def score_player(player: str, gift_list: tuple[Colour, ...], kept: tuple[str, ...]) -> PlayerScore:
    best: dict[Colour, str | None] = dict.fromkeys(gift_list)
    total = 0
    for card in kept:
        colour = CARD_COLOUR[card]
        if colour in best:
            current = best[colour]
            if current is None:
                best[colour] = card
                total += CARD_NUMBER[card]
            elif CARD_NUMBER[card] > CARD_NUMBER[current]:
                best[colour] = card
                total += CARD_NUMBER[card] - CARD_NUMBER[current]
    return PlayerScore(player, gift_list, best, kept, total)


def score(state: ScoredGame) -> Scoreboard:
    """Standings from the cards kept so far; final when the game is over."""
    lists = state.lists or tuple(() for _ in state.players)
    entries = tuple(
        [
            score_player(name, gift_list, kept)
            for name, gift_list, kept in zip(state.players, lists, state.kept, strict=True)
        ]
    )
    top = max([e.total for e in entries], default=0)
    tie_broken_by = state.tie_broken_by
    winners = (
        (tie_broken_by,)
        if tie_broken_by is not None
        else tuple([e.player for e in entries if e.total == top])
    )
    return Scoreboard(entries, winners, state.is_over, tie_broken_by, state.tie_reason)


def library_summary(state: ScoredGame, board: Scoreboard | None = None) -> tuple[bool, str | None]:
    """(complete, winner) as a game library lists a game: the winners joined by commas (a tie
    not broken names them all), and no winner before the game is over. `board`: the state's
    score, if already made."""
    if not state.is_over:
        return False, None
    return True, ", ".join((score(state) if board is None else board).winners)


def tied_leaders(state: ScoredGame) -> tuple[str, ...]:
    """Everyone sharing the top score, ignoring any tie_broken."""
    entries = score(state.replace(tie_winner=None)).players
    top = max(e.total for e in entries)
    return tuple(e.player for e in entries if e.total == top)
