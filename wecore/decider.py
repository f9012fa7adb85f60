"""The decider: commands from the table become events, or are refused with the rule.

`decide(state, command)` returns the events that carry the command out; every one is
checked by the reducer before it is returned, so what `decide` accepts, `evolve` accepts.
`legal_moves(state)` lists the moves the rules allow now.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from wecore.cards import Colour, parse_card
from wecore.errors import RuleViolation, UnknownPlayerError, shown
from wecore.events import (
    EVENT_TYPES,
    AnyEvent,
    AtticsDealt,
    EventVoided,
    GameStarted,
    GiftBrought,
    GiftListsDealt,
    Note,
    TieBroken,
    nfc,
)
from wecore.moves import Bring, ChanceMove, Move, Open, Steal, Swap, is_chance, move_event, move_kind
from wecore.reducer import MAX_TITLE_LENGTH, evolve
from wecore.rules import brought_with_first_open, not_now, steal_refusal, swap_refusal
from wecore.rulesets import RULESET_2011
from wecore.state import GameState, Phase


@dataclass(frozen=True)
class StartGame:
    players: tuple[str, ...]
    dealer: str
    options: Mapping[str, object] = field(default_factory=dict)
    title: str | None = None
    ruleset: str = RULESET_2011


@dataclass(frozen=True)
class DealLists:
    lists: Mapping[str, tuple[Colour, ...]]


@dataclass(frozen=True)
class DealAttics:
    attics: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Undo:
    reason: str = "undone at the table"


@dataclass(frozen=True)
class BreakTie:
    winner: str
    reason: str


@dataclass(frozen=True)
class AddNote:
    text: str


# Every move of a player (`wecore.moves.Move`, one class per kind of move), and the records.
Command = StartGame | DealLists | DealAttics | Move | Undo | BreakTie | AddNote


def decide(state: GameState, command: Command) -> list[AnyEvent]:
    """The events for `command`; RuleViolation (in table language) if it is not allowed."""
    return decide_folded(state, command)[0]


def decide_folded(state: GameState, command: Command) -> tuple[list[AnyEvent], list[GameState]]:
    """`decide`, with the game after each of its events: they are folded to be judged, so a
    writer that goes on to show the game need not fold them again."""
    events = _events_for(state, command)
    states = []
    for event in events:
        state = evolve(state, event)
        states.append(state)
    return events, states


# C0 controls, DEL and C1 controls: a newline or an escape sequence in a name would break
# every line printed about that player (docs/decisions.md, "Control characters in names").
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def control_refusal(what: str, text: str) -> str | None:
    """Why `text` (a player's name, a title) is refused as typed: it holds a control character."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    return f"{what} {shown(text)} holds a control character ({found.group()!r}): type plain text"


def title_refusal(title: str | None) -> str | None:
    """Why a game's title is refused as typed, or None."""
    if title is None:
        return None
    if len(title) > MAX_TITLE_LENGTH:
        return f"the title is longer than {MAX_TITLE_LENGTH} characters"
    return control_refusal("the title", title)


def _events_for(state: GameState, command: Command) -> list[AnyEvent]:
    if is_chance(command):
        return [_chance(state, command)]
    match command:
        case StartGame():
            # Refused at input only: a log written elsewhere with such a name still reads (the
            # format does not forbid it), and the renderers show it escaped.
            for name in command.players:
                if (refusal := control_refusal("player name", name)) is not None:
                    raise RuleViolation(refusal)
            if (refusal := title_refusal(command.title)) is not None:
                raise RuleViolation(refusal)
            return [
                GameStarted(
                    players=tuple(nfc(p) for p in command.players),
                    dealer=nfc(command.dealer),
                    ruleset=command.ruleset,
                    options=dict(command.options),
                    title=command.title,
                )
            ]
        case DealLists():
            return [
                GiftListsDealt(
                    lists={
                        resolve_player(state, name): tuple(Colour(c).value for c in colours)
                        for name, colours in command.lists.items()
                    }
                )
            ]
        case DealAttics():
            return [
                AtticsDealt(attics={resolve_player(state, n): tuple(c) for n, c in command.attics.items()})
            ]
        case Bring():
            card = None if command.card is None else parse_card(command.card)
            return [_made(state, Bring(resolve_player(state, command.player), card))]
        case Open():
            return _open(state, command)
        case Steal():
            return [_steal(state, command)]
        case Swap():
            return [_swap(state, command)]
        case Undo():
            if state.undo is None:
                raise RuleViolation("there is nothing to undo")
            return [EventVoided(voids=state.undo[0], reason=command.reason)]
        case BreakTie():
            return [TieBroken(winner=resolve_player(state, command.winner), reason=command.reason)]
        case AddNote():
            return [Note(text=command.text)]
        case _:
            assert_never(command)


def _made(state: GameState, move: Move) -> AnyEvent:
    """The event `move` makes now, as its kind declares it (`moves.move_event`)."""
    kind, data = move_event(state, move)
    return _model(kind, data)


def _model(kind: str, data: dict[str, Any]) -> AnyEvent:
    return EVENT_TYPES[kind].model_validate(data)


def _open(state: GameState, command: Open) -> list[AnyEvent]:
    if command.card is None:
        raise RuleViolation("say which card was turned over, e.g. 'open R7'")
    card = parse_card(command.card)  # CardNotationError (a WeError) before anything is recorded
    events: list[AnyEvent] = []
    # At a real table nobody types the brings: gifts not yet recorded went down unseen.
    for name in brought_with_first_open(state):
        event = GiftBrought(party=state.party, player=name, card=None)
        events.append(event)
        state = evolve(state, event)
    mover = _mover(state, command.player, "open a gift")
    events.append(_made(state, Open(card, mover)))
    return events


def _steal(state: GameState, command: Steal) -> AnyEvent:
    mover = _mover(state, command.player, "steal")
    victim = resolve_player(state, command.from_player)
    card = state.holding[state.seat_of[victim]] if command.card is None else parse_card(command.card)
    refusal = steal_refusal(state, mover, victim, card)
    if refusal is not None:
        raise RuleViolation(refusal)
    return _made(state, Steal(victim, mover, card))


def _swap(state: GameState, command: Swap) -> AnyEvent:
    player = state.player_to_move if command.player is None else resolve_player(state, command.player)
    other = None if command.with_player is None else resolve_player(state, command.with_player)
    takes = None
    if other is not None:
        takes = state.holding[state.seat_of[other]] if command.takes is None else parse_card(command.takes)
    refusal = swap_refusal(state, player or "", other, takes)
    if refusal is not None:
        raise RuleViolation(refusal)
    return _made(state, Swap(other, player, takes))


def _chance(state: GameState, command: ChanceMove) -> AnyEvent:
    """The outcome the table reports of a chance move (a face rolled), by whoever must make it
    unless named, refused in its kind's words."""
    # Out of its phase nobody must make it: the starter is named, and the kind says why not now.
    mover = state.player_to_move or state.starter_name
    player = mover if command.player is None else resolve_player(state, command.player)
    kind = move_kind(state, command)
    assert kind.chance_refusal is not None  # the registry holds a chance kind to it
    refusal = kind.chance_refusal(state, player or "", command.value)
    if refusal is not None:
        raise RuleViolation(refusal)
    return _made(state, type(command)(command.value, player))


def _mover(state: GameState, named: str | None, action: str) -> str:
    if state.phase is not Phase.PLAYING or state.player_to_move is None:
        raise RuleViolation(not_now(state, action))
    if named is None:
        return state.player_to_move
    player = resolve_player(state, named)
    if player != state.player_to_move:
        raise RuleViolation(f"it is {state.player_to_move}'s turn, not {player}'s")
    return player


def resolve_player(state: GameState, text: str) -> str:
    """The player `text` names: exact, then any case, then a unique prefix of any case."""
    name = nfc(text.strip())
    if name in state.seat_of:
        return name
    folded = name.casefold()
    exact = [p for p in state.players if p.casefold() == folded]
    if exact:
        return exact[0]
    matches = [p for p in state.players if p.casefold().startswith(folded)] if folded else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UnknownPlayerError(f"{shown(text)} could be {' or '.join(matches)}: type more of the name")
    by_folded = {p.casefold(): p for p in state.players}
    close = difflib.get_close_matches(folded, list(by_folded), n=1, cutoff=0.6)
    hint = f"; did you mean {by_folded[close[0]]}?" if close else ""
    raise UnknownPlayerError(f"{shown(text)} is not a player here ({', '.join(state.players)}){hint}")
