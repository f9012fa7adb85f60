"""Each event told in one plain sentence, for replays, and in a short phrase ("Ann opening
R7") for lines that refer back to it. Cards only their owner may see are told as
`views.sees_private` allows."""

from __future__ import annotations

from typing import assert_never

from wecore.cards import PERSON_OF, Colour
from wecore.events import (
    AnyEvent,
    AtticsDealt,
    DieRolled,
    EventVoided,
    FinalSwap,
    GameStarted,
    GiftBrought,
    GiftListsDealt,
    GiftOpened,
    GiftStolen,
    Note,
    SwapAfterOpen,
    TieBroken,
)
from wecore.rules import no_steal_reason
from wecore.rulesets import house_rules_text
from wecore.scoring import Scoreboard
from wecore.state import GameState, Phase
from wecore.views import sees_private

__all__ = ["describe", "house_rules_text"]


def _list_text(colours: tuple[str, ...]) -> str:
    return ", ".join(f"{c} ({PERSON_OF[Colour(c)]})" for c in colours)


def describe(
    event: AnyEvent, before: GameState, after: GameState, viewer: str | None = None, omniscient: bool = True
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
            shown = event.card is not None and sees_private(event.player, viewer, omniscient)
            what = f"brings {event.card} face down" if shown else "brings a gift face down"
            tail = ""
            if after.phase is Phase.PLAYING:
                tail = f"; all gifts are in, {after.player_to_move} opens first"
            return f"{event.player} {what}{tail}."
        case GiftOpened():
            text = f"{event.player} opens {event.card}"
            if after.phase is Phase.KEEP_OR_SWAP:
                return f"{text} and may keep it or swap it for another opened gift."
            return f"{text}{_after_open(before, after)}."
        case GiftStolen():
            frozen = event.card in after.frozen
            held = "is frozen for the rest of the party" if frozen else "is locked until a gift is opened"
            return (
                f"{event.player} steals {event.card} from {event.from_player}, who moves next;"
                f" {event.card} {held}{_must_open(after)}."
            )
        case SwapAfterOpen():
            if event.with_player is None:
                told = f"{event.player} keeps {before.holding[before.seat_of[event.player]]}"
            else:
                own = before.holding[before.seat_of[event.player]]
                told = f"{event.player} swaps {own} for {event.takes}, {event.with_player}'s gift"
                if after.phase is Phase.PLAYING:  # the lock matters only while the party goes on
                    told += f"; {event.takes} is locked until a gift is opened"
            return f"{told}{_after_open(before, after)}."
        case FinalSwap():
            ending = _party_ending(before, after)
            if event.with_player is None:
                own = before.holding[before.starter] if before.starter is not None else None
                return f"{event.player} keeps {own}, no final swap: {ending}."
            own = before.holding[before.seat_of[event.player]]
            return f"{event.player} swaps {own} for {event.takes}, {event.with_player}'s gift: {ending}."
        case DieRolled():
            ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
            kept_now = tuple(cards[-1] if cards else None for cards in after.kept)
            if after.phase is Phase.ROLLING or kept_now == before.holding:
                return f"{event.player} rolls a {event.value}: nothing passes; {ending}."
            passed = ", ".join(f"{name} now keeps {cards[-1]}" for name, cards in after.kept_by.items())
            return (
                f"{event.player} rolls a {event.value}: every gift kept in party {before.party}"
                f" passes one seat left ({passed}); {ending}."
            )
        case EventVoided():
            return f"Event {event.voids} is voided ({event.reason})."
        case TieBroken():
            return f"Tie broken: {event.winner} wins ({event.reason})."
        case Note():
            return f"Note: {event.text}"
        case _:
            assert_never(event)


def gist(event: AnyEvent, viewer: str | None = None, omniscient: bool = True) -> str:
    """A short phrase for an event, for 'taken back: ...' lines."""
    match event:
        case GameStarted():
            return "the start of the game"
        case GiftListsDealt():
            return "the dealing of the gift lists"
        case AtticsDealt():
            return "the dealing of the attics"
        case GiftBrought():
            shown = event.card is not None and sees_private(event.player, viewer, omniscient)
            return f"{event.player} bringing {event.card if shown else 'a gift'}"
        case GiftOpened():
            return f"{event.player} opening {event.card}"
        case GiftStolen():
            return f"{event.player} stealing {event.card} from {event.from_player}"
        case SwapAfterOpen():
            if event.with_player is None:
                return f"{event.player} keeping the gift just opened"
            return f"{event.player}'s swap with {event.with_player} for {event.takes}"
        case FinalSwap():
            if event.with_player is None:
                return f"{event.player} keeping their gift (no final swap)"
            return f"{event.player}'s final swap with {event.with_player} for {event.takes}"
        case DieRolled():
            return f"{event.player}'s roll of {event.value}"
        case TieBroken():
            return f"the tie-break for {event.winner}"
        case Note():
            return "a note"
        case EventVoided():
            return f"the void of event {event.voids}"
        case _:
            assert_never(event)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def unseen_brings(names: list[str]) -> str:
    """The gifts brought unseen for a party's first open, in one sentence."""
    verb = "brings a gift" if len(names) == 1 else "bring gifts"
    return f"{_and(names)} {verb} face down, unseen."


def party_end(before: GameState, after: GameState) -> str:
    """What everyone keeps when a party ends (`after` is the state once it has)."""
    kept = ", ".join(f"{name} keeps {cards[-1]}" for name, cards in after.kept_by.items())
    return f"Party {before.party} ends: {kept}."


def taken_back(
    void: EventVoided, voided: AnyEvent, after: GameState, viewer: str | None = None, omniscient: bool = True
) -> str:
    """A void told as the story goes (`we replay`): what never happened, and who moves now."""
    now = after.player_to_move
    tail = f"; {now} to move" if now else ""
    taken = gist(voided, viewer, omniscient)
    return f"Event {void.voids} is taken back ({void.reason}): {taken} never happened{tail}."


def party_heading(state: GameState, party: int) -> str:
    """'Party 2 of 3 · Cat starts', from a state in that party (no starter from another)."""
    starter = state.starter_name if state.party == party else None
    text = f"Party {party} of {state.attic_size}"
    if starter is not None:
        text += f" \u00b7 {starter} starts"
    return text


def parties_played(state: GameState) -> str:
    """How far a game not over has come: '2 of 5 parties played'."""
    if state.party == 0:
        return "no party played yet"
    return f"{state.party - 1} of {state.attic_size} parties played"


def winners_line(board: Scoreboard) -> str:
    """Who won, in one sentence (or that the game is not over yet)."""
    if not board.complete:
        return "The game is not over yet: standings so far."
    if board.tie_broken_by is not None:
        return f"Winner: {board.tie_broken_by} (tie broken: {board.tie_reason})."
    if len(board.winners) > 1:
        return f"Tie: {', '.join(board.winners)} share the win."
    return f"Winner: {board.winners[0]}."


def _after_open(before: GameState, after: GameState) -> str:
    """What follows an open once it is kept or swapped: who moves next, the starter's final
    swap, or the end of the party or game."""
    if after.phase is Phase.FINAL_SWAP:
        return (
            f": the last gift; {after.starter_name}, who started party {before.party},"
            " may swap gifts with anyone or keep"
        )
    if after.phase is Phase.ROLLING:
        return f": the last gift; {_rolls(before, after)}"
    if after.party != before.party or after.phase is Phase.OVER:
        ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
        return f": the last gift, {ending}"
    return f"; {after.player_to_move} is next"


def _party_ending(before: GameState, after: GameState) -> str:
    """How a party's end step (a final swap) leaves it: over, over with the game, or waiting
    for its starter's roll of the die."""
    if after.phase is Phase.ROLLING:
        return _rolls(before, after)
    return "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"


def _rolls(before: GameState, after: GameState) -> str:
    who = f"{after.starter_name}, who started party {before.party}"
    return f"{who}, rolls the die (on a 6 every gift passes left)"


def _must_open(after: GameState) -> str:
    """After a steal that leaves no steal allowed (a house rule): who must open, and why."""
    reason = no_steal_reason(after) if after.phase is Phase.PLAYING else None
    if reason is None:
        return ""
    return f"; {after.player_to_move} must open a gift: {reason}"
