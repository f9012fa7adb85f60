"""Gift cards, colours and the people on the gift lists.

Cards are canonical upper-case strings ("R7", "B10"): cheap to hash and compare,
and exactly what the log writes.
"""

from __future__ import annotations

from enum import StrEnum

from wecore.errors import CardNotationError, ColourError, shown


class Colour(StrEnum):
    RED = "red"
    ORANGE = "orange"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"

    @property
    def letter(self) -> str:
        return _LETTER_OF[self]

    @property
    def person(self) -> str:
        """Who this colour stands for on a gift list."""
        return PERSON_OF[self]


COLOURS: tuple[Colour, ...] = tuple(Colour)
COLOUR_OF_LETTER: dict[str, Colour] = {
    "R": Colour.RED,
    "O": Colour.ORANGE,
    "Y": Colour.YELLOW,
    "G": Colour.GREEN,
    "B": Colour.BLUE,
}
_LETTER_OF: dict[Colour, str] = {colour: letter for letter, colour in COLOUR_OF_LETTER.items()}
PERSON_OF: dict[Colour, str] = {
    Colour.RED: "Mother-in-Law",
    Colour.ORANGE: "Crazy Neighbor",
    Colour.YELLOW: "Fluffy the Cat",
    Colour.GREEN: "Great Uncle Irwin",
    Colour.BLUE: "Random Stranger",
}

NUMBERS = range(1, 11)  # every colour has one card of each number
HIGHEST_NUMBER = NUMBERS[-1]
LIST_LENGTH = 3  # colours on a gift list
# A score counts one card per list colour: three 10s at best.
HIGHEST_SCORE = LIST_LENGTH * HIGHEST_NUMBER
ALL_CARDS: tuple[str, ...] = tuple(f"{letter}{number}" for letter in COLOUR_OF_LETTER for number in NUMBERS)
CARD_COLOUR: dict[str, Colour] = {card: COLOUR_OF_LETTER[card[0]] for card in ALL_CARDS}
# Position in ALL_CARDS: colour by colour, low to high (sort_key).
CARD_ORDER: dict[str, int] = {card: position for position, card in enumerate(ALL_CARDS)}
CARD_NUMBER: dict[str, int] = {card: int(card[1:]) for card in ALL_CARDS}
# Each colour's name as a plain str (a dict's lookup: an enum's `.value` is a property call,
# and views and scoreboards ask for dozens of them on every move served).
COLOUR_NAME: dict[Colour, str] = {colour: colour.value for colour in Colour}
# Every accepted spelling maps straight to the canonical card, so parsing is one lookup.
CARD_SPELLINGS: dict[str, str] = {}
for _card in ALL_CARDS:
    CARD_SPELLINGS[_card] = _card
    CARD_SPELLINGS[_card.lower()] = _card

CARD_FORM_HINT = "a colour letter R, O, Y, G or B and a number 1-10, e.g. R7 or b10"


def parse_card(text: object) -> str:
    """The canonical card for `text` in any letter case; CardNotationError otherwise."""
    if isinstance(text, str):
        card = CARD_SPELLINGS.get(text) or CARD_SPELLINGS.get(text.upper())
        if card is not None:
            return card
    raise CardNotationError(f"{shown(text)} is not a card: write {CARD_FORM_HINT}")


def is_card(text: object) -> bool:
    return isinstance(text, str) and text in CARD_SPELLINGS


def describe_card(card: str) -> str:
    """'the red 7' -- how people say a card out loud."""
    return f"the {CARD_COLOUR[card].value} {CARD_NUMBER[card]}"


_COLOURCARD_SPELLINGS: dict[str, Colour] = {}
for _colour in COLOURS:
    _COLOURCARD_SPELLINGS[_colour.value] = _colour
    _COLOURCARD_SPELLINGS[_colour.letter.lower()] = _colour


def parse_colour(text: str) -> Colour:
    """A colour from its name or letter, any case."""
    colour = _COLOURCARD_SPELLINGS.get(text.strip().lower())
    if colour is None:
        raise ColourError(
            f"{shown(text)} is not a colour: use red, orange, yellow, green or blue (or R, O, Y, G, B)"
        )
    return colour


def parse_gift_list(text: str) -> tuple[Colour, Colour, Colour]:
    """Three colours from letters ("RGY") or names ("red,green,yellow")."""
    cleaned = text.strip()
    parts = (
        [p for p in cleaned.replace(",", " ").replace("/", " ").split() if p]
        if any(sep in cleaned for sep in ", /")
        else ([cleaned] if len(cleaned) > 3 else list(cleaned))
    )
    colours = tuple(parse_colour(p) for p in parts)
    if len(colours) != LIST_LENGTH or len(set(colours)) != LIST_LENGTH:
        raise ColourError(f"{shown(text)} is not a gift list: give three different colours, e.g. RGY")
    return colours  # type: ignore[return-value]


def sort_key(card: str) -> int:
    """Cards in table order: colour by colour, low to high."""
    return CARD_ORDER[card]
