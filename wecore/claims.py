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
from wecore.events import (
    AnyEvent,
    AtticsDealt,
    Exchange,
    GameStarted,
    GiftOpened,
    GiftStolen,
)
from wecore.kinds import KINDS, Kind
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


@dataclass(frozen=True)
class Transfer:
    """A card changing hands in a party: stolen (`swap` None) or exchanged in a swap (`swap`
    says which, e.g. "the final swap of party 2")."""

    party: int
    giver: str
    taker: str
    swap: str | None = None


@dataclass
class CardHistory:
    """Where each card went, from the events in effect (voided ones taken back)."""

    transfers: dict[str, list[Transfer]]  # card -> each time it changed hands, in order
    held_by: dict[str, set[str]]  # card -> everyone who held it this game
    attic_of: dict[str, str]  # card -> whose attic it was dealt to (when attics were dealt)
    attics_dealt: bool
    holding: dict[str, str] = field(default_factory=dict)  # player -> the gift held, as read so far
    players: tuple[str, ...] = ()  # in seat order, as the game started

    @classmethod
    def of(cls, in_effect: Iterable[AnyEvent], players: tuple[str, ...]) -> CardHistory:
        """From the events still in effect, oldest first (`GameState.seqs_in_effect`, which
        leaves out game_started: `players` are the game's, in seat order)."""
        history = cls({}, {}, {}, False, players=players)
        for event in in_effect:
            history.read(event)
        return history

    def read(self, event: AnyEvent) -> None:
        match event:
            case AtticsDealt():
                self.attics_dealt = True
                for name, cards in event.attics.items():
                    for card in cards:
                        self.attic_of[card] = name
            case GiftOpened():
                self._holds(event.player, event.card)
            case GiftStolen():
                self._holds(event.player, event.card)
                self.transfers.setdefault(event.card, []).append(
                    Transfer(event.party, event.from_player, event.player)
                )
            case Exchange():  # every kind of swap: the gifts change hands as its fields say
                self._exchange(event, KINDS[event.TYPE].called.format(party=event.party))
            case GameStarted():
                self.players = event.players
            case _ if (kind := KINDS[event.TYPE]).passes_gifts is not None:
                # A chance move (a die): the gifts change hands as its outcome, its last field, says.
                fields = event.__dict__
                self._chance(fields["party"], kind, fields[kind.attrs[-1]])
            case _:
                pass  # the gift lists, a bring, a void, a tie-break or a note: no gift changes hands

    def _holds(self, player: str, card: str) -> None:
        self.holding[player] = card
        self.held_by.setdefault(card, set()).add(player)

    def _chance(self, party: int, kind: Kind, outcome: int) -> None:
        """Every gift of the party moves as `kind`'s outcome moves them (a die's pass on a 6)."""
        assert kind.passes_gifts is not None
        before = tuple(self.holding.get(name) for name in self.players)
        after = kind.passes_gifts(before, outcome)
        giver_of = {card: name for name, card in zip(self.players, before, strict=True) if card is not None}
        called = kind.called.format(party=party)
        for name, card in zip(self.players, after, strict=True):
            if card is not None and giver_of[card] != name:
                self._holds(name, card)
                self.transfers.setdefault(card, []).append(Transfer(party, giver_of[card], name, called))

    def _exchange(self, event: Exchange, swap: str) -> None:
        """`event.player` gives the gift they hold for `event.takes`, the gift `event.with_player`
        holds (nothing changes hands on a keep)."""
        partner, takes = event.with_player, event.takes
        if partner is None or takes is None:
            return
        given = self.holding.get(event.player)
        self._holds(event.player, takes)
        self.transfers.setdefault(takes, []).append(Transfer(event.party, partner, event.player, swap))
        if given is not None:
            self._holds(partner, given)
            self.transfers.setdefault(given, []).append(Transfer(event.party, event.player, partner, swap))


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
    lost = [move for move in history.transfers.get(card, []) if move.giver == player]
    if lost:
        last = lost[-1]
        if last.swap is not None:
            return f"{card} went from {player} to {last.taker} in {last.swap}"
        by = "" if last.taker == keeper else f" by {last.taker}"
        return f"{card} was stolen from {player}{by} in party {last.party} and kept by {keeper}"
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
    needs: list[str] = []  # alternatives: any one card of these would make the claim
    beyond: list[str] = []  # colours where no card is high enough
    for colour, card in entry.counted.items():
        part, need, possible = _colour_part(player, colour, card, gap, state, history)
        parts.append(part)
        if need is not None:
            (needs if possible else beyond).append(need)
    text = f"{player} claims {claimed} but scores {actual}: " + "; ".join(parts)
    if entry.unused:
        text += "; did not count: " + ", ".join(
            f"{' '.join(cards)} ({reason})" for reason, cards in entry.unused_by_reason().items()
        )
    if needs:
        # Alternatives, so joined with "or": "; " would read as if every one were needed.
        what = needs[0] if len(needs) == 1 else "any one of " + ", or ".join(needs)
        text += f"; to score {claimed}, {player} would need {what}"
    if beyond:
        through = beyond[0] if len(beyond) == 1 else ", ".join(beyond[:-1]) + " or " + beyond[-1]
        text += f"; {gap} more through {through} would need a card above {HIGHEST_NUMBER}: no such card"
    if gap < 0:
        text += f"; the cards that count add up to {actual}, {-gap} more than claimed"
    if claimed > HIGHEST_SCORE:
        text += f"; no score can be above {HIGHEST_SCORE}"
    return ClaimResult(player, claimed, actual, False, text)


def _colour_part(
    player: str, colour: Colour, card: str | None, gap: int, state: GameState, history: CardHistory
) -> tuple[str, str | None, bool]:
    """What counts for `colour` (with the higher cards the player held and lost), and what would
    close the gap in that colour: a card and its story, or the colour and the card it would take
    when no card is that high (as "yellow (Y12)", and False)."""
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
    if gap <= 0:
        return text, None, False
    wanted = number + gap
    if wanted > HIGHEST_NUMBER:
        return text, f"{colour.value} ({colour.letter}{wanted})", False
    need = f"{colour.letter}{wanted}"
    fate = "" if need in told else f", and {card_fate(need, player, state, history)}"
    return text, f"{need} as {colour.value} ({need} in place of {card or 'nothing'}{fate})", True
