"""Each event told in one plain sentence, for replays, and in a short phrase ("Ann opening
R7") for lines that refer back to it. Cards only their owner may see are told as
`views.sees_private` allows."""

from __future__ import annotations

from wecore.cards import PERSON_OF, Colour
from wecore.events import (
    AnyEvent,
    AtticsDealt,
    EventVoided,
    GameStarted,
    GiftListsDealt,
)
from wecore.kinds import CLOSING, KINDS
from wecore.kinds.base import Gist, Telling
from wecore.rulesets import house_rules_text
from wecore.scoring import Scoreboard
from wecore.state import GameState, Phase

__all__ = ["describe", "house_rules_text"]


def _list_text(colours: tuple[str, ...]) -> str:
    return ", ".join(f"{c} ({PERSON_OF[Colour(c)]})" for c in colours)


def describe(
    event: AnyEvent, before: GameState, after: GameState, viewer: str | None = None, omniscient: bool = True
) -> str:
    """One sentence for `event`, told from `viewer`'s seat unless `omniscient`."""
    return _TELLING[event.TYPE](event, before, after, viewer, omniscient)


def gist(event: AnyEvent, viewer: str | None = None, omniscient: bool = True) -> str:
    """A short phrase for an event, for 'taken back: ...' lines."""
    return _GIST[event.TYPE](event, viewer, omniscient)


# The story of the kinds that record no move; every kind of move tells its own, in its module.


def _game_started(
    event: GameStarted, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    title = f" \u201c{event.title}\u201d" if event.title else ""
    rules = f" with house rules: {house_rules_text(event.options)}" if event.options else ""
    return f"Game{title} starts: {', '.join(event.players)} in clockwise order, {event.dealer} deals{rules}."


def _lists_dealt(
    event: GiftListsDealt, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    return (
        "Gift lists dealt: "
        + "; ".join(f"{name} shops for {_list_text(colours)}" for name, colours in event.lists.items())
        + "."
    )


def _attics_dealt(
    event: AtticsDealt, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
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


_TELLING: dict[str, Telling] = {
    "game_started": _game_started,
    "gift_lists_dealt": _lists_dealt,
    "attics_dealt": _attics_dealt,
    "event_voided": lambda event, before, after, viewer, omniscient: (
        f"Event {event.voids} is voided ({event.reason})."
    ),
    "tie_broken": lambda event, before, after, viewer, omniscient: (
        f"Tie broken: {event.winner} wins ({event.reason})."
    ),
    "note": lambda event, before, after, viewer, omniscient: f"Note: {event.text}",
}


_GIST: dict[str, Gist] = {
    "game_started": lambda event, viewer, omniscient: "the start of the game",
    "gift_lists_dealt": lambda event, viewer, omniscient: "the dealing of the gift lists",
    "attics_dealt": lambda event, viewer, omniscient: "the dealing of the attics",
    "tie_broken": lambda event, viewer, omniscient: f"the tie-break for {event.winner}",
    "note": lambda event, viewer, omniscient: "a note",
    "event_voided": lambda event, viewer, omniscient: f"the void of event {event.voids}",
}
for _kind in KINDS.values():
    if (_kind.telling is None) != (_kind.type in _TELLING) or (_kind.gist is None) != (_kind.type in _GIST):
        raise ImportError(f"wecore.narrate: {_kind.type} is told by its kind or by the core, once")
    if _kind.telling is not None and _kind.gist is not None:
        _TELLING[_kind.type] = _kind.telling
        _GIST[_kind.type] = _kind.gist


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


def after_open_told(before: GameState, after: GameState) -> str:
    """What follows an open once it is kept or swapped: who moves next, a step of the party's
    end (its starter's final swap, the roll of the die), or the end of the party or game."""
    step = _NEXT_STEP.get(after.phase)
    if step is not None:
        return f": the last gift; {_step_told(step, before, after)}"
    if after.party != before.party or after.phase is Phase.OVER:
        ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
        return f": the last gift, {ending}"
    return f"; {after.player_to_move} is next"


def party_ending(before: GameState, after: GameState) -> str:
    """How a step of a party's end (a final swap) leaves it: over, over with the game, or
    waiting for its next step (the starter's roll of the die)."""
    step = _NEXT_STEP.get(after.phase)
    if step is not None:
        return _step_told(step, before, after)
    return "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"


# What each step of a party's end is, in words, by its phase.
_NEXT_STEP: dict[Phase, str] = {kind.phase: kind.next_step for kind in CLOSING if kind.phase is not None}


def _step_told(step: str, before: GameState, after: GameState) -> str:
    return step.format(starter=after.starter_name, party=before.party)
