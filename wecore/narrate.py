"""Each event told in one plain sentence, for replays."""

from __future__ import annotations

from wecore.cards import PERSON_OF, Colour
from wecore.events import (
    AtticsDealt,
    Event,
    EventVoided,
    FinalSwap,
    GameStarted,
    GiftBrought,
    GiftListsDealt,
    GiftOpened,
    GiftStolen,
    Note,
    TieBroken,
)
from wecore.rulesets import house_rules_text
from wecore.state import GameState, Phase

__all__ = ["describe", "house_rules_text"]


def _list_text(colours: tuple[str, ...]) -> str:
    return ", ".join(f"{c} ({PERSON_OF[Colour(c)]})" for c in colours)


def describe(
    event: Event, before: GameState, after: GameState, viewer: str | None = None, omniscient: bool = True
) -> str:
    """One sentence for `event`, told from `viewer`'s seat unless `omniscient`."""
    match event:
        case GameStarted():
            title = f" \u201c{event.title}\u201d" if event.title else ""
            rules = f" with house rules: {house_rules_text(event.options)}" if event.options else ""
            return (
                f"Game{title} starts: {', '.join(event.players)} in clockwise order,"
                f" {event.dealer} deals{rules}."
            )
        case GiftListsDealt():
            return (
                "Gift lists dealt: "
                + "; ".join(
                    f"{name} shops for {_list_text(colours)}" for name, colours in event.lists.items()
                )
                + "."
            )
        case AtticsDealt():
            if omniscient:
                return (
                    "Attics dealt: "
                    + "; ".join(f"{name} {' '.join(cards)}" for name, cards in event.attics.items())
                    + "."
                )
            if viewer is not None and viewer in event.attics:
                yours = " ".join(event.attics[viewer])
                return f"Attics dealt ({after.attic_size} cards each); yours: {yours}."
            return f"Attics dealt, {after.attic_size} cards each."
        case GiftBrought():
            shown = event.card is not None and (omniscient or viewer == event.player)
            what = f"brings {event.card} face down" if shown else "brings a gift face down"
            tail = ""
            if after.phase is Phase.PLAYING:
                tail = f"; all gifts are in, {after.player_to_move} opens first"
            return f"{event.player} {what}{tail}."
        case GiftOpened():
            text = f"{event.player} opens {event.card}"
            if after.phase is Phase.FINAL_SWAP:
                return (
                    f"{text}: the last gift; {after.starter_name}, who started party {before.party},"
                    " may swap gifts with anyone or keep."
                )
            if after.party != before.party or after.phase is Phase.OVER:
                ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
                return f"{text}: the last gift, {ending}."
            return f"{text}; {after.player_to_move} is next."
        case GiftStolen():
            return (
                f"{event.player} steals {event.card} from {event.from_player}, who moves next;"
                f" {event.card} is locked until a gift is opened."
            )
        case FinalSwap():
            ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
            if event.with_player is None:
                own = before.holding[before.starter] if before.starter is not None else None
                return f"{event.player} keeps {own}, no final swap: {ending}."
            own = before.holding[before.seat_of[event.player]]
            return (
                f"{event.player} swaps {own} for {event.takes}, {event.with_player}'s gift: {ending}."
            )
        case EventVoided():
            return f"Event {event.voids} is voided ({event.reason})."
        case TieBroken():
            return f"Tie broken: {event.winner} wins ({event.reason})."
        case Note():
            return f"Note: {event.text}"
    return event.TYPE
