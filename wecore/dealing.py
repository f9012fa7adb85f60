"""Dealing for games the engine runs itself: the same seed, the same deal, everywhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wecore.cards import ALL_CARDS, Colour, parse_colour
from wecore.events import AtticsDealt, Event, GameStarted, GiftListsDealt
from wecore.rng import SeededRandom
from wecore.rulesets import RULESET_2011, make_ruleset

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
    rng = SeededRandom(seed)
    options = dict(options or {})
    ruleset = make_ruleset(RULESET_2011, options, len(players))
    if dealer is None:
        dealer = rng.fork("dealer").choice(list(players))
    events: list[Event] = [
        GameStarted(players=tuple(players), dealer=dealer, ruleset=RULESET_2011, options=options, title=title)
    ]
    lists = rng.fork("gift-lists").shuffled(GIFT_LIST_DECK)
    events.append(
        GiftListsDealt(
            lists={
                name: tuple(c.value for c in gift_list)
                for name, gift_list in zip(players, lists, strict=False)
            }  # type: ignore[arg-type]
        )
    )
    if deal_attics:
        size = ruleset.attic_size(len(players))
        deck = rng.fork("gift-cards").shuffled(ALL_CARDS)
        events.append(
            AtticsDealt(
                attics={
                    name: tuple(deck[seat * size : (seat + 1) * size]) for seat, name in enumerate(players)
                }
            )
        )
    return events


DEFAULT_NAMES = ("Ann", "Ben", "Cat", "Dev", "Eve", "Fay", "Gus")
