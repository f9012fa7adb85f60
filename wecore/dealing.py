"""Dealing for games the engine runs itself: the same seed, the same deal, everywhere."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wecore.cards import ALL_CARDS, Colour, parse_colour
from wecore.rng import SeededRandom
from wecore.rulesets import RULESET_2011, make_ruleset

if TYPE_CHECKING:
    from wecore.events import Event

# rules.md: the engine's own deck of seven lists; every colour appears four or five times.
GIFT_LIST_DECK: tuple[tuple[Colour, Colour, Colour], ...] = tuple(
    tuple(parse_colour(letter) for letter in triple)  # type: ignore[misc]
    for triple in ("RYG", "RYB", "ROG", "ROB", "OYG", "OYB", "YGB")
)


def deal(
    seed: int | str,
    players: Sequence[str],
    dealer: str | None = None,
    options: Mapping[str, object] | None = None,
    title: str | None = None,
    deal_attics: bool = True,
) -> list[Event]:
    """game_started, gift_lists_dealt and (unless told not to) attics_dealt for a new game.

    The dealer, when not given, is drawn from the seed too.
    """
    from wecore.events import parse_event

    return [
        parse_event(kind, data)
        for kind, data in deal_payloads(seed, players, dealer, options, title, deal_attics)
    ]


def deal_payloads(
    seed: int | str,
    players: Sequence[str],
    dealer: str | None = None,
    options: Mapping[str, object] | None = None,
    title: str | None = None,
    deal_attics: bool = True,
) -> list[tuple[str, dict[str, Any]]]:
    """`deal` as the log's (type, data) payloads, without building event models: a simulation
    deals thousands of games and need not load pydantic for it."""
    rng = SeededRandom(seed)
    # Written in NFC, as every name in a payload is read: the keys of `lists` and `attics`
    # must be the players' names exactly.
    players = [unicodedata.normalize("NFC", name) for name in players]
    if dealer is not None:
        dealer = unicodedata.normalize("NFC", dealer)
    options = dict(options or {})
    ruleset = make_ruleset(RULESET_2011, options, len(players))
    if dealer is None:
        dealer = rng.fork("dealer").choice(list(players))
    started: dict[str, Any] = {
        "players": list(players),
        "dealer": dealer,
        "ruleset": RULESET_2011,
        "options": options,
    }
    if title is not None:
        started["title"] = title
    payloads: list[tuple[str, dict[str, Any]]] = [("game_started", started)]
    lists = rng.fork("gift-lists").shuffled(GIFT_LIST_DECK)
    payloads.append(
        (
            "gift_lists_dealt",
            {
                "lists": {
                    name: [colour.value for colour in gift_list]
                    for name, gift_list in zip(players, lists, strict=False)
                }
            },
        )
    )
    if deal_attics:
        size = ruleset.attic_size(len(players))
        deck = rng.fork("gift-cards").shuffled(ALL_CARDS)
        attics = {name: list(deck[seat * size : (seat + 1) * size]) for seat, name in enumerate(players)}
        payloads.append(("attics_dealt", {"attics": attics}))
    return payloads


DEFAULT_NAMES = ("Ann", "Ben", "Cat", "Dev", "Eve", "Fay", "Gus")
