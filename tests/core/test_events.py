"""Event payloads: parsing, exact round trip, immutability, strict shapes, names in NFC."""

import copy

import pytest
from pydantic import ValidationError

from wecore import EVENT_TYPES, EventSchemaError, event_payload, parse_event

PAYLOADS = {
    "game_started": {
        "players": ["Ann", "Ben", "Cat"],
        "dealer": "Ann",
        "ruleset": "white-elephant-2011",
        "options": {"attic_sizes": {"3": 2}, "max_steals_per_gift": 2},
        "title": "Thanksgiving",
    },
    "gift_lists_dealt": {
        "lists": {
            "Ann": ["red", "yellow", "green"],
            "Ben": ["orange", "yellow", "blue"],
            "Cat": ["red", "green", "blue"],
        }
    },
    "attics_dealt": {"attics": {"Ann": ["R7", "B2"], "Ben": ["Y10", "G1"], "Cat": ["O3", "O4"]}},
    "gift_brought": {"party": 1, "player": "Ann", "card": "R7"},
    "gift_opened": {"party": 1, "player": "Ben", "card": "R7"},
    "gift_stolen": {"party": 1, "player": "Cat", "from": "Ben", "card": "R7"},
    "swap_after_open": {"party": 1, "player": "Ben", "with": "Ann", "takes": "R7"},
    "final_swap": {"party": 2, "player": "Ann", "with": "Cat", "takes": "B7"},
    "die_rolled": {"party": 2, "player": "Ann", "value": 6},
    "event_voided": {"voids": 17, "reason": "typed the wrong card"},
    "tie_broken": {"winner": "Ann", "reason": "gave the best speech for Fluffy the Cat"},
    "note": {"text": "Ben spilled cocoa on the red 9"},
}


def test_every_event_type_has_a_sample_payload():
    assert set(EVENT_TYPES) == set(PAYLOADS)


@pytest.mark.parametrize("event_type", sorted(PAYLOADS))
def test_payload_round_trip_is_exact(event_type):
    data = copy.deepcopy(PAYLOADS[event_type])
    event = parse_event(event_type, data)
    assert event_payload(event) == (event_type, PAYLOADS[event_type])
    assert event_type == event.TYPE


@pytest.mark.parametrize(
    ("event_type", "data"),
    [
        ("game_started", {"players": ["Ann", "Ben", "Cat"], "dealer": "Ben", "ruleset": "x", "options": {}}),
        ("gift_brought", {"party": 3, "player": "Ann", "card": None}),
        ("final_swap", {"party": 1, "player": "Ann", "with": None, "takes": None}),
    ],
)
def test_round_trip_of_optional_and_null_fields(event_type, data):
    assert event_payload(parse_event(event_type, dict(data))) == (event_type, data)


def test_lower_case_cards_are_written_upper_case():
    event = parse_event("gift_stolen", {"party": 2, "player": "Cat", "from": "Ben", "card": "b10"})
    assert event_payload(event)[1]["card"] == "B10"
    attics = parse_event("attics_dealt", {"attics": {"Ann": ["r7", "y1"]}})
    assert event_payload(attics)[1] == {"attics": {"Ann": ["R7", "Y1"]}}


def test_stolen_payload_field_is_called_from():
    event = parse_event("gift_stolen", dict(PAYLOADS["gift_stolen"]))
    assert event.from_player == "Ben"
    assert "from_player" not in event_payload(event)[1]


@pytest.mark.parametrize(
    ("event_type", "field"),
    [
        ("gift_brought", "party"),
        ("gift_opened", "card"),
        ("gift_stolen", "from_player"),
        ("note", "text"),
        ("event_voided", "voids"),
        ("tie_broken", "winner"),
        ("game_started", "players"),
    ],
)
def test_events_are_frozen(event_type, field):
    event = parse_event(event_type, copy.deepcopy(PAYLOADS[event_type]))
    with pytest.raises(ValidationError):
        setattr(event, field, getattr(event, field))


@pytest.mark.parametrize("event_type", sorted(PAYLOADS))
def test_extra_payload_fields_are_schema_errors(event_type):
    data = {**copy.deepcopy(PAYLOADS[event_type]), "colour": "red"}
    with pytest.raises(EventSchemaError) as info:
        parse_event(event_type, data)
    assert "unknown field 'colour'" in str(info.value)
    assert str(info.value).startswith(event_type)


def test_the_python_name_of_from_is_not_a_payload_field():
    data = {"party": 1, "player": "Cat", "from_player": "Ben", "card": "R7"}
    with pytest.raises(EventSchemaError, match="from_player"):
        parse_event("gift_stolen", data)


@pytest.mark.parametrize("event_type", sorted(PAYLOADS))
def test_every_field_is_required_except_title(event_type):
    for field in PAYLOADS[event_type]:
        if field == "title":
            continue
        data = {k: v for k, v in copy.deepcopy(PAYLOADS[event_type]).items() if k != field}
        with pytest.raises(EventSchemaError, match=f"missing field '{field}'"):
            parse_event(event_type, data)


@pytest.mark.parametrize(
    ("event_type", "field", "value"),
    [
        ("gift_brought", "party", True),
        ("gift_opened", "party", False),
        ("gift_stolen", "party", True),
        ("event_voided", "voids", True),
        ("gift_brought", "party", "1"),
        ("gift_brought", "party", 1.0),
        ("event_voided", "voids", "17"),
        ("game_started", "options", {"max_steals_per_gift": True}),
        ("game_started", "options", {"attic_sizes": {"3": True}}),
    ],
)
def test_wrong_json_types_for_whole_numbers(event_type, field, value):
    data = {**copy.deepcopy(PAYLOADS[event_type]), field: value}
    with pytest.raises(EventSchemaError):
        parse_event(event_type, data)


@pytest.mark.parametrize(
    ("event_type", "field", "value"),
    [
        ("gift_brought", "player", 7),
        ("gift_brought", "player", None),
        ("gift_opened", "card", None),
        ("gift_stolen", "card", None),
        ("gift_stolen", "from", None),
        ("gift_opened", "card", "P11"),
        ("gift_opened", "card", "R0"),
        ("gift_brought", "card", "red7"),
        ("note", "text", None),
        ("note", "text", 5),
        ("event_voided", "reason", None),
        ("tie_broken", "winner", None),
        ("game_started", "players", "Ann"),
        ("game_started", "dealer", None),
        ("game_started", "ruleset", None),
        ("game_started", "options", None),
        ("game_started", "options", []),
        ("game_started", "title", 5),
        ("game_started", "options", {"passing": True}),
        ("gift_lists_dealt", "lists", {"Ann": ["red", "purple", "blue"]}),
        ("gift_lists_dealt", "lists", {"Ann": ["Red", "yellow", "blue"]}),
        ("gift_lists_dealt", "lists", {"Ann": ["R", "Y", "B"]}),
        ("gift_lists_dealt", "lists", {"Ann": "red"}),
        ("attics_dealt", "attics", {"Ann": ["R7", "Z2"]}),
        ("attics_dealt", "attics", {"Ann": "R7"}),
    ],
)
def test_wrong_shapes_are_schema_errors(event_type, field, value):
    data = {**copy.deepcopy(PAYLOADS[event_type]), field: value}
    with pytest.raises(EventSchemaError):
        parse_event(event_type, data)


def test_bad_card_in_payload_says_what_a_card_looks_like():
    with pytest.raises(EventSchemaError) as info:
        parse_event("gift_opened", {"party": 1, "player": "Ben", "card": "R11"})
    message = str(info.value)
    assert "card" in message
    assert "R11" in message
    assert "1-10" in message


def test_null_title_is_a_schema_error():
    data = {**copy.deepcopy(PAYLOADS["game_started"]), "title": None}
    with pytest.raises(EventSchemaError, match="title"):
        parse_event("game_started", data)


def test_unknown_event_type():
    with pytest.raises(EventSchemaError) as info:
        parse_event("gift_swapped", {})
    assert "gift_swapped" in str(info.value)
    assert "gift_stolen" in str(info.value)


@pytest.mark.parametrize("event_type", [None, 3, "Note", "GIFT_OPENED"])
def test_event_type_must_be_exact(event_type):
    with pytest.raises(EventSchemaError):
        parse_event(event_type, {"text": "x"})


@pytest.mark.parametrize("data", [None, [], "text", 5])
def test_data_must_be_an_object(data):
    with pytest.raises(EventSchemaError, match="data must be an object"):
        parse_event("note", data)


# --- names are NFC ------------------------------------------------------------------

NFD_ZOE = "Zoe\u0308"
NFC_ZOE = "Zo\u00eb"


def test_the_two_spellings_really_differ():
    assert NFD_ZOE != NFC_ZOE


def test_names_in_game_started_are_read_as_written():
    # Code point for code point (log-format "Names"): never normalised.
    event = parse_event(
        "game_started",
        {
            "players": [NFD_ZOE, "Ben", "Cat"],
            "dealer": NFD_ZOE,
            "ruleset": "white-elephant-2011",
            "options": {},
        },
    )
    assert event.players[0] == NFD_ZOE
    assert event.dealer == NFD_ZOE
    assert event_payload(event)[1]["players"] == [NFD_ZOE, "Ben", "Cat"]


@pytest.mark.parametrize(
    ("event_type", "data", "field"),
    [
        ("gift_brought", {"party": 1, "player": NFD_ZOE, "card": None}, "player"),
        ("gift_opened", {"party": 1, "player": NFD_ZOE, "card": "R1"}, "player"),
        ("gift_stolen", {"party": 1, "player": "Ben", "from": NFD_ZOE, "card": "R1"}, "from_player"),
        ("tie_broken", {"winner": NFD_ZOE, "reason": "speech"}, "winner"),
    ],
)
def test_names_in_moves_are_read_as_written(event_type, data, field):
    assert getattr(parse_event(event_type, data), field) == NFD_ZOE


def test_names_as_keys_stay_as_written():
    # Never normalised: two keys that are one name after NFC would merge into one.
    lists = parse_event("gift_lists_dealt", {"lists": {NFD_ZOE: ["red", "yellow", "green"]}})
    assert list(lists.lists) == [NFD_ZOE]
    both = {NFC_ZOE: ["R1"], NFD_ZOE: ["R2"]}
    attics = parse_event("attics_dealt", {"attics": both})
    assert attics.attics == {NFC_ZOE: ("R1",), NFD_ZOE: ("R2",)}


@pytest.mark.parametrize(
    "data",
    [
        {"party": 1, "player": "Ann", "with": "Ben", "takes": None},
        {"party": 1, "player": "Ann", "with": None, "takes": "R7"},
        {"party": 1, "player": "Ann", "with": None},
        {"party": 1, "player": "Ann", "takes": None},
        {"party": 1, "player": "Ann", "with_player": None, "takes": None},
        {"party": 1, "player": "Ann", "with": "Ben", "takes": "P11"},
    ],
)
def test_a_final_swap_names_both_or_neither(data):
    with pytest.raises(EventSchemaError):
        parse_event("final_swap", data)
