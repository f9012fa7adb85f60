"""Card notation, colours, the people on the gift lists, gift-list text."""

import pytest

from wecore import ALL_CARDS, PERSON_OF, CardNotationError, Colour, ColourError, parse_card, parse_colour
from wecore.cards import describe_card, parse_gift_list


@pytest.mark.parametrize(
    ("text", "card"),
    [("R7", "R7"), ("r7", "R7"), ("b10", "B10"), ("B10", "B10"), ("r10", "R10"), ("y1", "Y1"), ("G5", "G5")],
)
def test_card_notation_in_any_case(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["P11", "R0", "red7", "R11", "", "R", "7", "R 7", "RR7", "R07", "B1O"])
def test_bad_card_notation_shows_the_valid_form(text):
    with pytest.raises(CardNotationError) as info:
        parse_card(text)
    message = str(info.value)
    assert repr(text) in message
    assert "R, O, Y, G or B" in message
    assert "1-10" in message
    assert "R7" in message


@pytest.mark.parametrize("value", [None, 7, ("R", 7)])
def test_non_text_is_not_a_card(value):
    with pytest.raises(CardNotationError):
        parse_card(value)


def test_card_notation_errors_are_value_errors():
    # A caller that only knows ValueError still catches them.
    with pytest.raises(ValueError):
        parse_card("P11")


def test_fifty_cards_five_colours_one_to_ten_each_once():
    assert len(ALL_CARDS) == 50
    assert len(set(ALL_CARDS)) == 50
    for letter in "ROYGB":
        assert [c for c in ALL_CARDS if c[0] == letter] == [f"{letter}{n}" for n in range(1, 11)]


@pytest.mark.parametrize(
    ("colour", "name", "letter", "person"),
    [
        (Colour.RED, "red", "R", "Mother-in-Law"),
        (Colour.ORANGE, "orange", "O", "Crazy Neighbor"),
        (Colour.YELLOW, "yellow", "Y", "Fluffy the Cat"),
        (Colour.GREEN, "green", "G", "Great Uncle Irwin"),
        (Colour.BLUE, "blue", "B", "Random Stranger"),
    ],
)
def test_colour_names_letters_and_people(colour, name, letter, person):
    assert colour.value == name
    assert colour.letter == letter
    assert colour.person == person
    assert PERSON_OF[colour] == person
    assert parse_colour(name) is colour
    assert parse_colour(name.upper()) is colour
    assert parse_colour(letter) is colour
    assert parse_colour(letter.lower()) is colour


def test_exactly_five_colours():
    assert [c.value for c in Colour] == ["red", "orange", "yellow", "green", "blue"]


@pytest.mark.parametrize("text", ["purple", "P", "", "rd", "reds"])
def test_unknown_colour(text):
    with pytest.raises(ColourError) as info:
        parse_colour(text)
    assert "red, orange, yellow, green or blue" in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("RGY", ("red", "green", "yellow")),
        ("rgy", ("red", "green", "yellow")),
        ("OYB", ("orange", "yellow", "blue")),
        ("red,green,yellow", ("red", "green", "yellow")),
        ("red, green, yellow", ("red", "green", "yellow")),
        ("Blue Orange Red", ("blue", "orange", "red")),
        ("R/O/B", ("red", "orange", "blue")),
        ("  YGB ", ("yellow", "green", "blue")),
    ],
)
def test_parse_gift_list(text, expected):
    assert tuple(c.value for c in parse_gift_list(text)) == expected


@pytest.mark.parametrize(
    "text", ["RRG", "RG", "R,G,Y,B", "red,red,green", "red,green", "red green blue yellow"]
)
def test_gift_list_needs_three_different_colours(text):
    with pytest.raises(ColourError, match="three different colours"):
        parse_gift_list(text)


@pytest.mark.parametrize("text", ["RGP", "RGYB", "red,green,pink"])
def test_gift_list_with_a_non_colour(text):
    with pytest.raises(ColourError):
        parse_gift_list(text)


def test_describe_card_as_said_out_loud():
    assert describe_card("R7") == "the red 7"
    assert describe_card("B10") == "the blue 10"
