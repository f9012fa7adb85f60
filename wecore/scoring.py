"""Scores with their explanation, card by card."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar, overload

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


_Value = TypeVar("_Value")


class worked_out_once(Generic[_Value]):  # lower case: a decorator, as cached_property
    """A read-only attribute worked out the first time it is read, then kept in the instance's
    `__dict__` (which it then reads as any attribute). functools.cached_property does the same
    but takes a lock on every first read in Python 3.11, and scoreboards are read on every move
    served: two threads working one value out at once both get an equal value."""

    def __init__(self, work_out: Callable[[Any], _Value]) -> None:
        self.work_out = work_out
        self.name = work_out.__name__
        self.__doc__ = work_out.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> worked_out_once[_Value]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _Value: ...

    def __get__(self, instance: object, owner: type | None = None) -> _Value | worked_out_once[_Value]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.work_out(instance)
        return value


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

    @worked_out_once
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
        return dict(self._totals)

    @worked_out_once
    def _totals(self) -> tuple[tuple[str, int], ...]:
        return tuple([(p.player, p.total) for p in self.players])

    @worked_out_once
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
    return _scoreboard(
        state.players, state.lists, state.kept, state.is_over, state.tie_broken_by, state.tie_reason
    )


# A served move scores its state for its answer and for each kind of key following the game,
# and the kept cards change only when a party ends: the same standings are asked for again and
# again, and a board handed out again keeps what it worked out (`unused`, `ranked`).
@functools.lru_cache(maxsize=1024)
def _scoreboard(
    players: tuple[str, ...],
    lists: tuple[tuple[Colour, ...], ...] | None,
    kept: tuple[tuple[str, ...], ...],
    complete: bool,
    tie_broken_by: str | None,
    tie_reason: str | None,
) -> Scoreboard:
    entries = tuple(
        [
            score_player(name, gift_list, cards)
            for name, gift_list, cards in zip(players, lists or tuple(() for _ in players), kept, strict=True)
        ]
    )
    top = max([e.total for e in entries], default=0)
    winners = (
        (tie_broken_by,)
        if tie_broken_by is not None
        else tuple([e.player for e in entries if e.total == top])
    )
    return Scoreboard(entries, winners, complete, tie_broken_by, tie_reason)


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
