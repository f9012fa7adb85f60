"""A game told event by event: the state before and after each event, the party it belongs to,
and which events a later `event_voided` took back. `we replay`, its web page and anything else
that walks through a game read it from here."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from wecore.events import AnyEvent, AtticsDealt, EventVoided, GameStarted, GiftListsDealt
from wecore.reducer import evolve
from wecore.state import INITIAL_STATE, GameState


@dataclass(frozen=True)
class Step:
    seq: int
    event: AnyEvent
    before: GameState
    after: GameState
    party: int  # the party the event belongs to; 0 for set-up


def steps(events: Iterable[AnyEvent]) -> Iterator[Step]:
    """One step per event, folding as it goes (events[i] has seq i + 1)."""
    state = INITIAL_STATE
    for seq, event in enumerate(events, start=1):
        before, state = state, evolve(state, event)
        party = getattr(event, "party", None)
        if isinstance(event, EventVoided):
            # A void belongs to the party the game stands in once it is taken back: undoing the
            # move that ended party 3 is part of party 3, not a glimpse of party 4.
            party = state.party
        elif party is None:  # set-up is party 0; a note or tie belongs where it was recorded
            setup = isinstance(event, GameStarted | GiftListsDealt | AtticsDealt)
            party = 0 if setup else before.party
        yield Step(seq, event, before, state, party)


def voided_by(events: Iterable[AnyEvent]) -> dict[int, int]:
    """{seq of a voided event: seq of the void that took it back}."""
    return {e.voids: seq for seq, e in enumerate(events, start=1) if isinstance(e, EventVoided)}
