"""A seat's view (wecore.views.view, as a dict) as numbers, for learners: made from the view
alone, so it holds nothing the seat has not seen."""

from __future__ import annotations

from typing import Any

from wecore.cards import ALL_CARDS, CARD_ORDER, COLOUR_OF_LETTER
from wecore.kinds import Phase

# The phases a view shows, as the core declares them (a house rule's phase included); before
# the deal is done the view says "dealing".
_BEFORE_PLAY = (Phase.NOT_STARTED, Phase.SETTING_UP)
PHASES = ("dealing", *(phase.value for phase in Phase if phase not in _BEFORE_PLAY))
_COLOUR_INDEX = {colour.value: i for i, colour in enumerate(COLOUR_OF_LETTER.values())}


def tensor_size(players: int) -> int:
    """Card planes (own attic, own face-down gift, locked, frozen, held by each seat, kept by
    each seat), the gift lists, the phase, whose turn, the viewer, who still brings, and three
    numbers: party and parties (as shares of 10), hidden face-down gifts (a share of 7)."""
    cards = len(ALL_CARDS)
    return cards * (4 + 2 * players) + 5 * players + len(PHASES) + 3 * players + 3


def view_values(seat_view: dict[str, Any], players: tuple[str, ...] | list[str]) -> list[float]:
    """The view as `tensor_size(len(players))` numbers in [0, 1]."""
    count = len(players)
    cards = len(ALL_CARDS)
    values = [0.0] * tensor_size(count)
    seat_of = {name: seat for seat, name in enumerate(players)}
    viewer = seat_view.get("viewer")

    def mark(plane: int, card: str) -> None:
        values[plane * cards + CARD_ORDER[card]] = 1.0

    attics = seat_view.get("attics") or {}
    own = attics.get(viewer)
    for card in own if isinstance(own, list) else []:
        mark(0, card)
    for card in seat_view.get("face_down_known", []):
        mark(1, card)
    for card in seat_view.get("locked", []):
        mark(2, card)
    for card in seat_view.get("frozen", []):
        mark(3, card)
    for name, card in seat_view.get("holding", {}).items():
        mark(4 + seat_of[name], card)
    for name, kept in seat_view.get("kept", {}).items():
        for card in kept:
            mark(4 + count + seat_of[name], card)
    at = cards * (4 + 2 * count)
    for name, colours in seat_view.get("gift_lists", {}).items():
        for colour in colours:
            values[at + 5 * seat_of[name] + _COLOUR_INDEX[colour]] = 1.0
    at += 5 * count
    values[at + PHASES.index(seat_view.get("phase", "dealing"))] = 1.0
    at += len(PHASES)
    if seat_view.get("to_move") is not None:
        values[at + seat_of[seat_view["to_move"]]] = 1.0
    at += count
    if viewer in seat_of:
        values[at + seat_of[viewer]] = 1.0
    at += count
    for name in seat_view.get("waiting_to_bring", []):
        values[at + seat_of[name]] = 1.0
    at += count
    values[at] = seat_view.get("party", 0) / 10
    values[at + 1] = seat_view.get("parties", 0) / 10
    values[at + 2] = seat_view.get("face_down_hidden", 0) / 7
    return values
