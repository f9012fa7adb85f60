"""Settling a claimed score ("Ben=25"): it holds, or it fails with the reason, card by card.

`check_claim` decides from the final state alone. Only a claim that fails on a valid, complete
game needs the story of the cards (who held what, who stole it from whom); the caller reads
the events in effect into a `CardHistory` then, once, and `explain_difference` tells it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from wecore.cards import CARD_COLOUR, CARD_NUMBER, HIGHEST_NUMBER, HIGHEST_SCORE, Colour
from wecore.decider import resolve_player
from wecore.errors import WeError
from wecore.events import AtticsDealt, Event, FinalSwap, GiftOpened, GiftStolen
from wecore.scoring import Scoreboard
from wecore.state import GameState
from wecore.turns import status_line, turn


@dataclass(frozen=True)
class ClaimResult:
    player: str
    claimed: int
    actual: int | None
    holds: bool
    explanation: str

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "claimed": self.claimed,
            "actual": self.actual,
            "holds": self.holds,
            "explanation": self.explanation,
        }


def check_claim(
    state: GameState,
    board: Scoreboard | None,
    player_text: str,
    claimed: int,
    failed_at: tuple[int, str] | None = None,
) -> ClaimResult | None:
    """The verdict on `player_text` (any case, a unique prefix) scoring `claimed`, or None when
    it fails on a valid, complete game (explain_difference tells why).

    `board` is the scoring of `state` (None before the gift lists are dealt); `failed_at` is
    the (line, kind) of the log's first problem, when it has one: then no score is trusted.
    """
    if not state.players:
        return ClaimResult(player_text, claimed, None, False, "the log has no game_started")
    try:
        player = resolve_player(state, player_text)
    except WeError as exc:
        return ClaimResult(player_text, claimed, None, False, str(exc))
    if failed_at is not None:
        line, kind = failed_at
        return ClaimResult(
            player,
            claimed,
            None,
            False,
            f"no score can be trusted: the log failed the audit at line {line} ({kind})",
        )
    if board is None:
        return ClaimResult(player, claimed, 0, False, "the gift lists have not been dealt yet")
    entry = board.of(player)
    if not state.is_over:
        return ClaimResult(
            player,
            claimed,
            entry.total,
            False,
            f"the game is not over ({status_line(turn(state))}); {player} scores {entry.total} so far: "
            + entry.explain(),
        )
    if entry.total == claimed:
        # The verdict says "holds" (the CLI's line, the JSON's field): the explanation only explains.
        return ClaimResult(player, claimed, entry.total, True, entry.explain())
    return None


@dataclass
class CardHistory:
    """Where each card went, from the events in effect (voided ones taken back)."""

    taken_from: dict[str, list[tuple[int, str, str]]]  # card -> (party, victim, thief) in order
    held_by: dict[str, set[str]]  # card -> everyone who held it this game
    attic_of: dict[str, str]  # card -> whose attic it was dealt to (when attics were dealt)
    attics_dealt: bool
    # starter_final_swap: (party, starter, partner, the card the starter took) for each swap made
    final_swaps: list[tuple[int, str, str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, in_effect: Iterable[Event]) -> CardHistory:
        """From the events still in effect, oldest first (`GameState.seqs_in_effect`)."""
        history = cls({}, {}, {}, False)
        for event in in_effect:
            if isinstance(event, AtticsDealt):
                history.attics_dealt = True
                for name, cards in event.attics.items():
                    for card in cards:
                        history.attic_of[card] = name
            elif isinstance(event, GiftOpened):
                history.held_by.setdefault(event.card, set()).add(event.player)
            elif isinstance(event, GiftStolen):
                history.held_by.setdefault(event.card, set()).add(event.player)
                history.taken_from.setdefault(event.card, []).append(
                    (event.party, event.from_player, event.player)
                )
            elif isinstance(event, FinalSwap) and event.with_player is not None and event.takes is not None:
                history.held_by.setdefault(event.takes, set()).add(event.player)
                history.final_swaps.append((event.party, event.player, event.with_player, event.takes))
        return history


def card_fate(card: str, player: str, state: GameState, history: CardHistory) -> str:
    """Where `card` went, told from `player`'s side: '(Y10 was stolen from Ben ...)'."""
    keeper, party = None, None
    for name, kept in zip(state.players, state.kept, strict=True):
        if card in kept:
            keeper, party = name, kept.index(card) + 1
    if keeper is None:
        if history.attics_dealt and card not in history.attic_of:
            return f"{card} was not dealt in this game"
        if card in history.attic_of:
            return f"{card} was never brought by {history.attic_of[card]}"
        return f"{card} never came into play"
    if keeper == player:
        return f"{card} was kept by {player} in party {party}"
    for swap_party, starter, partner, taken in history.final_swaps:
        # What the starter gave in a swap is what the partner kept from that party.
        given = state.kept[state.seat_of[partner]][swap_party - 1]
        if (card, player) in ((taken, partner), (given, starter)):
            other = starter if player == partner else partner
            return f"{card} went from {player} to {other} in the final swap of party {swap_party}"
    lost = [entry for entry in history.taken_from.get(card, []) if entry[1] == player]
    if lost:
        lost_party, _, thief = lost[-1]
        by = "" if thief == keeper else f" by {thief}"
        return f"{card} was stolen from {player}{by} in party {lost_party} and kept by {keeper}"
    return f"{card} was kept by {keeper} in party {party}; {player} never held it"


def explain_difference(
    state: GameState, board: Scoreboard, player_text: str, claimed: int, history: CardHistory
) -> ClaimResult:
    """Why a claim on a valid, complete game fails: what counts per list colour, the higher
    cards the player held and lost, and the card the claim would need."""
    player = resolve_player(state, player_text)
    entry = board.of(player)
    actual = entry.total
    gap = claimed - actual
    parts: list[str] = []
    for colour, card in entry.counted.items():
        parts.append(_colour_part(player, colour, card, gap, state, history))
    text = f"{player} claims {claimed} but scores {actual}: " + "; ".join(parts)
    if entry.unused:
        text += "; did not count: " + ", ".join(
            f"{' '.join(cards)} ({reason})" for reason, cards in entry.unused_by_reason().items()
        )
    if gap < 0:
        text += f"; the cards that count add up to {actual}, {-gap} more than claimed"
    if claimed > HIGHEST_SCORE:
        text += f"; no score can be above {HIGHEST_SCORE}"
    return ClaimResult(player, claimed, actual, False, text)


def _colour_part(
    player: str, colour: Colour, card: str | None, gap: int, state: GameState, history: CardHistory
) -> str:
    number = CARD_NUMBER[card] if card else 0
    text = f"{colour.value} counts {card}" if card else f"{colour.value} counts nothing"
    # Higher cards of this colour the player held at some point and did not keep.
    lost = sorted(
        (
            c
            for c, holders in history.held_by.items()
            if CARD_COLOUR[c] is colour and CARD_NUMBER[c] > number and player in holders
        ),
        key=lambda c: CARD_NUMBER[c],
    )
    told = {c: card_fate(c, player, state, history) for c in lost}
    if told:
        text += " (" + "; ".join(told.values()) + ")"
    if gap > 0:
        wanted = number + gap
        if wanted > HIGHEST_NUMBER:
            text += f"; {gap} more through {colour.value} would need {colour.letter}{wanted}: no such card"
        else:
            need = f"{colour.letter}{wanted}"
            fate = "" if need in told else f" ({card_fate(need, player, state, history)})"
            text += f"; the claim would need {need} here{fate}"
    return text
