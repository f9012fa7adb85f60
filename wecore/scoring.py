"""Scores with their explanation, card by card."""

from __future__ import annotations

from dataclasses import dataclass

from wecore.cards import CARD_COLOUR, CARD_NUMBER, Colour, sort_key
from wecore.state import GameState


@dataclass(frozen=True)
class UnusedCard:
    card: str
    reason: str


@dataclass(frozen=True)
class PlayerScore:
    player: str
    gift_list: tuple[Colour, ...]
    counted: dict[Colour, str | None]  # per list colour, the card that counts (or none)
    unused: tuple[UnusedCard, ...]  # kept cards that did not count, and why
    total: int

    def explain(self) -> str:
        parts = [f"{colour.value} {card or '-'}" for colour, card in self.counted.items()]
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

    def of(self, player: str) -> PlayerScore:
        for entry in self.players:
            if entry.player == player:
                return entry
        raise KeyError(player)


def score_player(player: str, gift_list: tuple[Colour, ...], kept: tuple[str, ...]) -> PlayerScore:
    best: dict[Colour, str | None] = dict.fromkeys(gift_list)
    for card in kept:
        colour = CARD_COLOUR[card]
        if colour in best:
            current = best[colour]
            if current is None or CARD_NUMBER[card] > CARD_NUMBER[current]:
                best[colour] = card
    unused = []
    for card in sorted(kept, key=sort_key):
        colour = CARD_COLOUR[card]
        if colour not in best:
            unused.append(UnusedCard(card, f"{colour.value} is not on the list"))
        elif best[colour] != card:
            unused.append(UnusedCard(card, f"lower than {best[colour]}"))
    total = sum(CARD_NUMBER[c] for c in best.values() if c is not None)
    return PlayerScore(player, gift_list, best, tuple(unused), total)


def score(state: GameState) -> Scoreboard:
    """Standings from the cards kept so far; final when the game is over."""
    lists = state.lists or tuple(() for _ in state.players)
    entries = tuple(
        score_player(name, gift_list, kept)
        for name, gift_list, kept in zip(state.players, lists, state.kept, strict=True)
    )
    top = max((e.total for e in entries), default=0)
    leaders = tuple(e.player for e in entries if e.total == top)
    winners = (state.tie_broken_by,) if state.tie_winner is not None else leaders
    return Scoreboard(
        players=entries,
        winners=winners,  # type: ignore[arg-type]
        complete=state.is_over,
        tie_broken_by=state.tie_broken_by,
        tie_reason=state.tie_reason,
    )


def tied_leaders(state: GameState) -> tuple[str, ...]:
    """Everyone sharing the top score, ignoring any tie_broken."""
    entries = score(state.replace(tie_winner=None)).players
    top = max(e.total for e in entries)
    return tuple(e.player for e in entries if e.total == top)
