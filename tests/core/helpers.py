"""Builders for hand-written logs: every event goes through parse_event, as from a file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from wecore import INITIAL_STATE, GameState, RuleViolation, evolve, parse_event
from wecore.events import Event

ANN, BEN, CAT, DEV = "Ann", "Ben", "Cat", "Dev"
THREE = (ANN, BEN, CAT)
RULESET = "white-elephant-2011"
# Three different triples from the engine's deck, for hand-made games.
LISTS3 = {ANN: ["red", "yellow", "green"], BEN: ["red", "orange", "blue"], CAT: ["orange", "yellow", "blue"]}
LISTS4 = {**LISTS3, DEV: ["yellow", "green", "blue"]}


def ev(event_type: str, **data: Any) -> Event:
    """An event from keyword data; `from_` stands for the payload field `from`."""
    if "from_" in data:
        data["from"] = data.pop("from_")
    return parse_event(event_type, data)


def started(
    players: Sequence[str] = THREE,
    dealer: str = CAT,
    options: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Event:
    data: dict[str, Any] = {
        "players": list(players),
        "dealer": dealer,
        "ruleset": RULESET,
        "options": dict(options or {}),
    }
    if title is not None:
        data["title"] = title
    return parse_event("game_started", data)


class Table:
    """A game being recorded by hand: each call appends one event, which must be legal."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.state: GameState = INITIAL_STATE
        self.log: list[Event] = []
        for event in events:
            self.do(event)

    def do(self, event: Event) -> GameState:
        self.state = evolve(self.state, event)
        self.log.append(event)
        return self.state

    def refuse(self, event: Event, match: str | None = None) -> str:
        """Assert the event is refused here with `match` in the message; the message."""
        with pytest.raises(RuleViolation) as info:
            evolve(self.state, event)
        message = str(info.value)
        if match is not None:
            assert match in message
        return message

    @property
    def seq(self) -> int:
        return len(self.log)

    # --- shortcuts -----------------------------------------------------------------
    def start(self, players=THREE, dealer=CAT, options=None, title=None) -> GameState:
        return self.do(started(players, dealer, options, title))

    def lists(self, lists: Mapping[str, Sequence[str]]) -> GameState:
        return self.do(ev("gift_lists_dealt", lists={k: list(v) for k, v in lists.items()}))

    def attics(self, attics: Mapping[str, Sequence[str]]) -> GameState:
        return self.do(ev("attics_dealt", attics={k: list(v) for k, v in attics.items()}))

    def bring(self, player: str, card: str | None, party: int | None = None) -> GameState:
        return self.do(self.bring_event(player, card, party))

    def bring_event(self, player: str, card: str | None, party: int | None = None) -> Event:
        return ev(
            "gift_brought", party=self.state.party if party is None else party, player=player, card=card
        )

    def bring_all(self, cards: Mapping[str, str | None]) -> GameState:
        for player, card in cards.items():
            self.bring(player, card)
        return self.state

    def open(self, player: str, card: str, party: int | None = None) -> GameState:
        return self.do(self.open_event(player, card, party))

    def open_event(self, player: str, card: str, party: int | None = None) -> Event:
        return ev("gift_opened", party=self.state.party if party is None else party, player=player, card=card)

    def steal(self, player: str, victim: str, card: str, party: int | None = None) -> GameState:
        return self.do(self.steal_event(player, victim, card, party))

    def steal_event(self, player: str, victim: str, card: str, party: int | None = None) -> Event:
        return ev(
            "gift_stolen",
            party=self.state.party if party is None else party,
            player=player,
            from_=victim,
            card=card,
        )

    def swap(self, player: str, other: str | None, takes: str | None, party: int | None = None) -> GameState:
        return self.do(self.swap_event(player, other, takes, party))

    def swap_event(
        self, player: str, other: str | None, takes: str | None, party: int | None = None
    ) -> Event:
        data = {"party": self.state.party if party is None else party, "player": player}
        return parse_event("final_swap", {**data, "with": other, "takes": takes})

    def void(self, seq: int, reason: str = "recorded by mistake") -> GameState:
        return self.do(ev("event_voided", voids=seq, reason=reason))

    def note(self, text: str = "more cocoa") -> GameState:
        return self.do(ev("note", text=text))

    def break_tie(self, winner: str, reason: str = "best speech") -> GameState:
        return self.do(ev("tie_broken", winner=winner, reason=reason))


def three_players(
    attics: Mapping[str, Sequence[str]] | None,
    sizes: int | None = None,
    dealer: str = CAT,
    options: Mapping[str, Any] | None = None,
) -> Table:
    """Ann, Ben, Cat with LISTS3; `sizes` cards each (printed 9 when None); attics when given."""
    opts = dict(options or {})
    if sizes is not None:
        opts["attic_sizes"] = {"3": sizes}
    table = Table()
    table.start(THREE, dealer, opts)
    table.lists(LISTS3)
    if attics is not None:
        table.attics(attics)
    return table


def four_players(
    attics: Mapping[str, Sequence[str]] | None,
    sizes: int = 1,
    dealer: str = DEV,
    options: Mapping[str, Any] | None = None,
) -> Table:
    """Ann, Ben, Cat, Dev (dealer Dev, so Ann starts party 1) with LISTS4."""
    table = Table()
    table.start((ANN, BEN, CAT, DEV), dealer, {"attic_sizes": {"4": sizes}, **(options or {})})
    table.lists(LISTS4)
    if attics is not None:
        table.attics(attics)
    return table
