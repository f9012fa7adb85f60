"""Rulesets and house rules: validation, and the attic sizes they give."""

import re

import pytest

from wecore import EventSchemaError, RulesetError, RuleViolation, deal, fold, make_ruleset

from .helpers import RULESET, THREE, Table, ev, started

FIVE = ("Ann", "Ben", "Cat", "Dev", "Eve")


@pytest.mark.parametrize(("players", "cards"), [(3, 9), (4, 8), (5, 5), (6, 6), (7, 7)])
def test_printed_attic_sizes(players, cards):
    assert make_ruleset().attic_size(players) == cards
    assert make_ruleset(player_count=players).attic_size(players) == cards


def test_printed_rules_have_no_options_and_no_steal_cap():
    ruleset = make_ruleset(RULESET, {})
    assert ruleset.max_steals_per_gift is None
    assert ruleset.options() == {}


def test_attic_sizes_override_only_the_counts_named():
    ruleset = make_ruleset(RULESET, {"attic_sizes": {"5": 10, "3": 2}})
    assert ruleset.attic_size(5) == 10
    assert ruleset.attic_size(3) == 2
    assert ruleset.attic_size(4) == 8
    assert ruleset.attic_size(7) == 7


def test_options_written_back_for_game_started():
    ruleset = make_ruleset(RULESET, {"attic_sizes": {"5": 10}, "max_steals_per_gift": 2})
    assert ruleset.options() == {"attic_sizes": {"5": 10}, "max_steals_per_gift": 2}


def test_wrong_ruleset_name():
    with pytest.raises(RulesetError) as info:
        make_ruleset("white-elephant-2012")
    assert "white-elephant-2012" in str(info.value)
    assert "white-elephant-2011" in str(info.value)


def test_unknown_option_names_it_and_the_known_ones():
    with pytest.raises(RulesetError) as info:
        make_ruleset(RULESET, {"allow_passing": True})
    message = str(info.value)
    assert "allow_passing" in message
    assert "attic_sizes" in message
    assert "max_steals_per_gift" in message


@pytest.mark.parametrize(("players", "size"), [(5, 11), (7, 8), (6, 9), (3, 17), (4, 13)])
def test_too_many_cards_for_this_player_count(players, size):
    with pytest.raises(RulesetError) as info:
        make_ruleset(RULESET, {"attic_sizes": {str(players): size}}, player_count=players)
    message = str(info.value)
    assert str(players * size) in message
    assert "50" in message


@pytest.mark.parametrize(("players", "size"), [(5, 10), (7, 7), (3, 16), (6, 8), (4, 12)])
def test_up_to_fifty_cards_is_fine(players, size):
    assert make_ruleset(RULESET, {"attic_sizes": {str(players): size}}, players).attic_size(players) == size


def test_too_many_cards_only_matters_for_this_games_count():
    # 7 x 8 = 56 would not fit, but this is a 3-player game.
    assert make_ruleset(RULESET, {"attic_sizes": {"7": 8}}, player_count=3).attic_size(3) == 9


@pytest.mark.parametrize("size", [0, -1, True, "5", 2.0, None])
def test_attic_size_must_be_a_positive_whole_number(size):
    with pytest.raises(RulesetError, match="positive whole number"):
        make_ruleset(RULESET, {"attic_sizes": {"5": size}})


@pytest.mark.parametrize("key", ["2", "8", "0", "five", "03", "", True, 3.0])
def test_attic_sizes_keys_are_player_counts_3_to_7(key):
    with pytest.raises(RulesetError) as info:
        make_ruleset(RULESET, {"attic_sizes": {key: 4}})
    assert '"3" to "7"' in str(info.value)


def test_attic_sizes_must_be_a_mapping():
    with pytest.raises(RulesetError, match="attic_sizes must map"):
        make_ruleset(RULESET, {"attic_sizes": [5, 5]})


@pytest.mark.parametrize("value", [0, -2, True, "2", 1.5])
def test_max_steals_per_gift_must_be_a_positive_whole_number(value):
    with pytest.raises(RulesetError, match="max_steals_per_gift must be a positive whole number"):
        make_ruleset(RULESET, {"max_steals_per_gift": value})


def test_max_steals_per_gift_accepted():
    assert make_ruleset(RULESET, {"max_steals_per_gift": 1}).max_steals_per_gift == 1


@pytest.mark.parametrize("count", [0, 1, 2, 8, 9])
def test_player_count_3_to_7(count):
    with pytest.raises(RulesetError, match="3 to 7 players"):
        make_ruleset(RULESET, {}, player_count=count)


# --- the five-player figure, via dealing and via the reducer -------------------------


def test_five_players_are_dealt_five_cards_each():
    state = fold(deal(1, FIVE))
    assert state.attic_size == 5
    assert state.party_count == 5
    assert all(len(attic) == 5 for attic in state.attics)
    attics = deal(1, FIVE)[2].attics
    assert sorted(len(cards) for cards in attics.values()) == [5, 5, 5, 5, 5]


def test_five_players_dealt_otherwise_when_attic_sizes_says_so():
    events = deal(1, FIVE, options={"attic_sizes": {"5": 10}})
    assert all(len(cards) == 10 for cards in events[2].attics.values())
    state = fold(events)
    assert state.attic_size == 10
    assert sum(len(attic) for attic in state.attics) == 50


def test_dealing_refuses_bad_options():
    with pytest.raises(RulesetError):
        deal(1, FIVE, options={"attic_sizes": {"5": 11}})


def test_reducer_five_players_five_cards_each():
    table = Table(
        [
            started(FIVE, "Eve"),
            ev(
                "gift_lists_dealt",
                lists={
                    "Ann": ["red", "yellow", "green"],
                    "Ben": ["red", "yellow", "blue"],
                    "Cat": ["red", "orange", "green"],
                    "Dev": ["red", "orange", "blue"],
                    "Eve": ["orange", "yellow", "green"],
                },
            ),
        ]
    )
    assert table.state.attic_size == 5
    four = {name: [f"{c}{n}" for n in range(1, 5)] for name, c in zip(FIVE, "ROYGB", strict=True)}
    table.refuse(
        ev("attics_dealt", attics=four), match="Ann's attic has 4 cards; with 5 players each attic has 5"
    )
    five = {name: [f"{c}{n}" for n in range(1, 6)] for name, c in zip(FIVE, "ROYGB", strict=True)}
    table.do(ev("attics_dealt", attics=five))
    assert table.state.attics[0] == frozenset({"R1", "R2", "R3", "R4", "R5"})


def test_reducer_honours_attic_sizes():
    table = Table([started(FIVE, "Eve", {"attic_sizes": {"5": 2}})])
    assert table.state.attic_size == 2


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"attic_sizes": {"3": 17}}, "51"),
        ({"attic_sizes": {"9": 1}}, '"3" to "7"'),
    ],
)
def test_reducer_refuses_bad_option_values_as_rules(options, match):
    with pytest.raises(RuleViolation, match=re.escape(match)):
        Table([started(THREE, "Cat", options)])


@pytest.mark.parametrize(
    "options",
    [
        {"attic_sizes": {"3": 0}},
        {"attic_sizes": {"3": 2, "5": -1}},
        {"max_steals_per_gift": 0},
        {"max_steals_between_opens": -2},
    ],
)
def test_a_positive_integer_option_given_0_or_less_is_a_schema_problem(options):
    # log-format.md: the option's type is "positive integer", so 0 or less is its shape, not a rule.
    with pytest.raises(EventSchemaError, match="must be a positive whole number"):
        ev("game_started", players=list(THREE), dealer="Cat", ruleset=RULESET, options=options)


def test_reducer_refuses_another_ruleset():
    event = ev("game_started", players=list(THREE), dealer="Cat", ruleset="uno", options={})
    with pytest.raises(RuleViolation, match="unknown ruleset 'uno'"):
        Table([event])
