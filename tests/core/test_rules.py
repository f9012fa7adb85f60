"""Every rule and bound of rules.md (and the rules part of log-format.md), one test each.

Hand-written logs; expected values worked out from the rules, not read off the engine.
Standard table: Ann, Ben, Cat clockwise, dealer Cat, so Ann starts party 1 and Ben party 2.
"""

import pytest

from wecore import EVENT_TYPES, INITIAL_STATE, Phase, RuleViolation, deal, evolve, fold, legal_moves
from wecore.decider import Open, Steal

from .games import game_one_winner
from .helpers import ANN, BEN, CAT, DEV, LISTS3, THREE, Table, ev, four_players, started, three_players

# Two parties: Ann R7 B3, Ben Y9 G5, Cat O4 R2.
A3 = {ANN: ["R7", "B3"], BEN: ["Y9", "G5"], CAT: ["O4", "R2"]}


def party_one(**options) -> Table:
    """Party 1 of the standard two-party table, all gifts brought (Ann R7, Ben Y9, Cat O4)."""
    table = three_players(A3, sizes=2, options=options)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    return table


def four_r(sizes: int = 1) -> Table:
    """Ann, Ben, Cat, Dev (dealer Dev: Ann starts) bringing R1, R2, R3, R4 to party 1."""
    table = four_players({ANN: ["R1"], BEN: ["R2"], CAT: ["R3"], DEV: ["R4"]}, sizes=sizes)
    table.bring_all({ANN: "R1", BEN: "R2", CAT: "R3", DEV: "R4"})
    return table


def finish_party(table: Table, cards: list[str]) -> None:
    """Whoever is to move opens the next of `cards` until the party is over."""
    party = table.state.party
    for card in cards:
        assert table.state.party == party and table.state.phase is Phase.PLAYING
        table.open(table.state.player_to_move, card)
    assert table.state.party != party or table.state.is_over


# --- set-up ---------------------------------------------------------------------------


def test_log_begins_with_game_started():
    assert "must begin with game_started" in Table().refuse(ev("note", text="hi"))
    assert "must begin with game_started" in Table().refuse(ev("gift_lists_dealt", lists=LISTS3))


def test_game_started_only_once():
    table = Table([started()])
    assert "already started" in table.refuse(started())


@pytest.mark.parametrize("count", [3, 4, 5, 6, 7])
def test_three_to_seven_players(count):
    names = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"][:count]
    assert Table([started(names, "P1")]).state.phase is Phase.SETTING_UP


@pytest.mark.parametrize("count", [1, 2, 8])
def test_not_fewer_than_three_nor_more_than_seven_players(count):
    names = [f"P{i}" for i in range(count)]
    assert "3 to 7 players" in Table().refuse(started(names, "P0"))


@pytest.mark.parametrize("bad", ["", "x" * 33, " Ann", "Ann ", "\tAnn"])
def test_player_names_one_to_32_characters_no_outer_space(bad):
    Table().refuse(started([bad, BEN, CAT], BEN))


def test_a_32_character_name_is_fine():
    name = "x" * 32
    assert Table([started([name, BEN, CAT], name)]).state.players[0] == name


@pytest.mark.parametrize("other", ["ann", "ANN", "Ann"])
def test_player_names_unique_ignoring_case(other):
    assert "two players are called" in Table().refuse(started([ANN, other, CAT], CAT))


def test_dealer_is_one_of_the_players_exactly():
    assert "dealer 'Dan' is not one of the players" in Table().refuse(started(THREE, "Dan"))
    Table().refuse(started(THREE, "cat"))


def test_title_up_to_200_characters():
    assert Table([started(title="t" * 200)]).state.title == "t" * 200
    assert "200" in Table().refuse(started(title="t" * 201))


def test_gift_lists_every_player_exactly_once():
    table = Table([started()])
    message = table.refuse(ev("gift_lists_dealt", lists={ANN: LISTS3[ANN], BEN: LISTS3[BEN]}))
    assert "no gift list was dealt to Cat" in message
    table.refuse(ev("gift_lists_dealt", lists={**LISTS3, "Dan": ["red", "green", "blue"]}), "not a player")


@pytest.mark.parametrize(
    "colours", [["red", "red", "green"], ["red", "green"], ["red", "green", "blue", "yellow"]]
)
def test_gift_list_is_three_different_colours(colours):
    table = Table([started()])
    table.refuse(ev("gift_lists_dealt", lists={**LISTS3, ANN: colours}), "three different colours")


def test_no_two_players_hold_the_same_gift_list():
    table = Table([started()])
    # Same three colours in another order is the same list.
    lists = {**LISTS3, CAT: ["green", "red", "yellow"]}
    assert "Ann and Cat cannot hold the same gift list" in table.refuse(ev("gift_lists_dealt", lists=lists))


def test_any_three_different_colours_when_recorded_at_a_table():
    # Not in the engine's own deck (R, O, Y is on none of its seven lists): still accepted.
    table = Table([started()])
    table.lists({**LISTS3, ANN: ["red", "orange", "yellow"]})
    assert table.state.phase is Phase.BRINGING


def test_gift_lists_once():
    table = three_players(None)
    assert "already been dealt" in table.refuse(ev("gift_lists_dealt", lists=LISTS3))


def test_attics_right_after_the_gift_lists():
    table = Table([started(options={"attic_sizes": {"3": 2}})])
    table.refuse(ev("attics_dealt", attics=A3))  # before the lists
    table.lists(LISTS3)
    table.note("attics next")  # a note in between is fine
    table.attics(A3)
    assert table.state.attics_by_player[ANN] == frozenset({"R7", "B3"})


def test_attics_not_after_a_gift_is_brought():
    table = three_players(None, sizes=2)
    table.bring(ANN, None)
    assert "before any gift is brought" in table.refuse(ev("attics_dealt", attics=A3))


def test_attics_dealt_once():
    table = three_players(A3, sizes=2)
    assert "already been dealt" in table.refuse(ev("attics_dealt", attics=A3))


def test_attics_every_player_with_exactly_the_attic_size():
    table = three_players(None, sizes=2)
    assert "no attic was dealt to Cat" in table.refuse(
        ev("attics_dealt", attics={ANN: ["R1", "R2"], BEN: ["R3", "R4"]})
    )
    short = {**A3, BEN: ["Y9"]}
    assert "Ben's attic has 1 cards; with 3 players each attic has 2" in table.refuse(
        ev("attics_dealt", attics=short)
    )
    long = {**A3, BEN: ["Y9", "G5", "G6"]}
    table.refuse(ev("attics_dealt", attics=long), "each attic has 2")


def test_no_card_dealt_twice():
    table = three_players(None, sizes=2)
    assert "R7 is dealt twice" in table.refuse(ev("attics_dealt", attics={**A3, CAT: ["O4", "R7"]}))
    assert "R7 is dealt twice" in table.refuse(ev("attics_dealt", attics={**A3, ANN: ["R7", "r7"]}))


def test_cards_not_dealt_are_out_of_the_game_unseen():
    table = three_players(A3, sizes=2)
    table.refuse(table.bring_event(ANN, "G10"), "not in Ann's attic")


# --- starter and turns -------------------------------------------------------------


@pytest.mark.parametrize(("dealer", "starter"), [(CAT, ANN), (ANN, BEN), (BEN, CAT)])
def test_party_one_starts_left_of_the_dealer(dealer, starter):
    table = three_players(None, sizes=1, dealer=dealer)
    assert table.state.starter_name == starter
    table.bring_all({ANN: None, BEN: None, CAT: None})
    assert table.state.player_to_move == starter


def test_each_later_party_starts_one_seat_further():
    table = three_players(None, sizes=4)  # dealer Cat
    starters = []
    cards = iter(["R1", "R2", "R3", "O1", "O2", "O3", "Y1", "Y2", "Y3", "G1", "G2", "G3"])
    for _ in range(4):
        table.bring_all({ANN: None, BEN: None, CAT: None})
        starters.append(table.state.player_to_move)
        finish_party(table, [next(cards) for _ in range(3)])
    assert starters == [ANN, BEN, CAT, ANN]
    assert table.state.is_over


def test_party_ends_when_every_player_holds_a_gift_opened_in_turn_from_the_starter():
    # Party 2 starts with Ben: Ben, then Cat, then (round the table) Ann open.
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: None, CAT: None})
    finish_party(table, ["R1", "R2", "R3"])
    table.bring_all({ANN: None, BEN: None, CAT: None})
    order = []
    for card in ["Y1", "Y2", "Y3"]:
        order.append(table.state.player_to_move)
        table.open(table.state.player_to_move, card)
    assert order == [BEN, CAT, ANN]
    assert table.state.kept_by == {ANN: ("R1", "Y3"), BEN: ("R2", "Y1"), CAT: ("R3", "Y2")}


def test_starters_first_move_is_an_open():
    table = party_one()
    assert table.state.player_to_move == ANN
    assert "has not been opened yet" in table.refuse(table.steal_event(ANN, BEN, "Y9"))
    assert "Ben holds no gift" in table.refuse(table.steal_event(ANN, BEN, "R1"))
    assert all(isinstance(m, Open) for m in legal_moves(table.state))
    table.open(ANN, "R7")


def test_the_victim_moves_next():
    table = party_one()
    table.open(ANN, "Y9")
    assert table.state.player_to_move == BEN
    table.steal(BEN, ANN, "Y9")
    assert table.state.player_to_move == ANN
    assert table.state.holdings == {BEN: "Y9"}


def test_after_an_open_the_first_player_without_a_gift_from_the_starter_moves():
    table = four_r()
    table.open(ANN, "R1")
    table.steal(BEN, ANN, "R1")
    table.open(ANN, "R2")
    # Ben (next after the opener) holds R1, so the turn goes on to Cat.
    assert table.state.player_to_move == CAT
    table.open(CAT, "R3")
    assert table.state.player_to_move == DEV
    table.steal(DEV, BEN, "R1")
    table.steal(BEN, CAT, "R3")
    table.steal(CAT, ANN, "R2")
    assert table.state.player_to_move == ANN
    table.refuse(table.steal_event(ANN, DEV, "R1"), "just stole it")
    table.open(ANN, "R4")
    assert table.state.kept_by == {ANN: ("R4",), BEN: ("R3",), CAT: ("R2",), DEV: ("R1",)}


def test_the_player_to_move_never_holds_a_gift():
    table = four_r()
    for step in [
        lambda: table.open(ANN, "R1"),
        lambda: table.steal(BEN, ANN, "R1"),
        lambda: table.open(ANN, "R2"),
        lambda: table.open(CAT, "R3"),
        lambda: table.steal(DEV, CAT, "R3"),
    ]:
        step()
        assert table.state.player_to_move not in table.state.holdings


def test_an_open_unlocks_the_gift_just_stolen():
    table = party_one()
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    assert table.state.locked == frozenset({"Y9"})
    table.open(ANN, "R7")
    assert table.state.locked == frozenset()
    table.steal(CAT, BEN, "Y9")
    assert table.state.holdings == {ANN: "R7", CAT: "Y9"}


def test_the_gift_just_opened_can_be_stolen_straight_away():
    table = party_one()
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    table.open(ANN, "R7")
    table.steal(CAT, ANN, "R7")
    assert table.state.player_to_move == ANN


def test_the_victim_cannot_steal_straight_back():
    table = party_one()
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    message = table.refuse(table.steal_event(ANN, BEN, "Y9"))
    assert "just stole it and no gift has been opened since" in message
    assert "Ann cannot steal Y9" in message


def test_each_gift_at_most_once_between_two_opens():
    table = four_r()
    table.open(ANN, "R1")
    table.steal(BEN, ANN, "R1")
    table.open(ANN, "R2")
    table.steal(CAT, ANN, "R2")
    table.steal(ANN, BEN, "R1")
    # Ben: R1 and R2 were both stolen since the last open, so Ben must open.
    table.refuse(table.steal_event(BEN, CAT, "R2"), "Cat just stole it and no gift has been opened since")
    table.refuse(table.steal_event(BEN, ANN, "R1"), "Ann just stole it and no gift has been opened since")
    assert legal_moves(table.state) == [Open("R3", BEN), Open("R4", BEN)]
    table.open(BEN, "R3")
    table.steal(DEV, CAT, "R2")


def test_no_stealing_from_yourself_or_from_someone_empty_handed():
    table = party_one()
    table.open(ANN, "Y9")
    assert "holds no gift" in table.refuse(table.steal_event(BEN, CAT, "Y9"))
    assert "cannot steal from themselves" in table.refuse(table.steal_event(BEN, BEN, "Y9"))


def test_the_stolen_card_must_be_the_one_the_victim_holds():
    table = party_one()
    table.open(ANN, "Y9")
    assert "Ann holds Y9" in table.refuse(table.steal_event(BEN, ANN, "R2"))
    assert "has not been opened yet" in table.refuse(table.steal_event(BEN, ANN, "O4"))


def test_kept_cards_cannot_be_stolen_or_opened():
    table = party_one()
    table.open(ANN, "R7")
    table.open(BEN, "Y9")
    table.open(CAT, "O4")  # Ann keeps R7, Ben Y9, Cat O4
    table.bring_all({ANN: "B3", BEN: "G5", CAT: "R2"})
    table.open(BEN, "G5")
    assert table.state.player_to_move == CAT
    message = table.refuse(table.steal_event(CAT, ANN, "R7"))
    assert "kept in an earlier party" in message
    table.refuse(table.steal_event(CAT, BEN, "Y9"), "kept in an earlier party")
    table.refuse(table.open_event(CAT, "O4"), "not a face-down gift")
    assert Steal(ANN, CAT, "R7") not in legal_moves(table.state)


def test_the_party_ends_on_its_last_open():
    table = party_one()
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    table.open(ANN, "R7")
    table.steal(CAT, ANN, "R7")
    table.steal(ANN, BEN, "Y9")
    assert table.state.phase is Phase.PLAYING
    table.open(BEN, "O4")
    state = table.state
    assert state.phase is Phase.BRINGING
    assert state.party == 2
    assert state.holdings == {}
    assert state.to_move is None
    assert state.kept_by == {ANN: ("Y9",), BEN: ("O4",), CAT: ("R7",)}
    assert state.starter_name == BEN
    assert state.face_down_count == 0
    assert state.locked == frozenset()
    table.refuse(table.bring_event(ANN, "B3", party=1), "wrong party: this is party 2, not party 1")
    table.bring(ANN, "B3", party=2)
    assert state.waiting_to_bring == (ANN, BEN, CAT)
    assert table.state.waiting_to_bring == (BEN, CAT)


def test_a_party_has_exactly_n_opens():
    table = four_r()
    table.open(ANN, "R1")
    table.steal(BEN, ANN, "R1")
    table.open(ANN, "R2")
    table.open(CAT, "R3")
    assert table.state.phase is Phase.PLAYING
    assert table.state.face_down_count == 1
    table.open(DEV, "R4")
    assert table.state.is_over


# --- house rules -----------------------------------------------------------------------


def test_max_steals_per_gift_freezes_a_gift_for_the_party():
    table = party_one(max_steals_per_gift=1)
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    table.open(ANN, "R7")  # the open unlocks Y9, but it stays frozen
    message = table.refuse(table.steal_event(CAT, BEN, "Y9"))
    assert "frozen" in message
    assert "1 times" in message
    assert Steal(BEN, CAT, "Y9") not in legal_moves(table.state)
    table.steal(CAT, ANN, "R7")


def test_max_steals_two_and_frozen_only_for_that_party():
    attics = {ANN: ["R1", "O1"], BEN: ["R2", "O2"], CAT: ["R3", "O3"], DEV: ["R4", "O4"]}
    table = four_players(attics, sizes=2, options={"max_steals_per_gift": 2})
    table.bring_all({ANN: "R1", BEN: "R2", CAT: "R3", DEV: "R4"})
    table.open(ANN, "R1")
    table.steal(BEN, ANN, "R1")
    table.open(ANN, "R2")
    table.steal(CAT, BEN, "R1")  # second steal of R1: frozen
    assert table.state.frozen == frozenset({"R1"})
    table.steal(BEN, ANN, "R2")
    table.open(ANN, "R3")
    table.refuse(table.steal_event(DEV, CAT, "R1"), "frozen")
    table.steal(DEV, BEN, "R2")  # second steal of R2
    assert table.state.frozen == frozenset({"R1", "R2"})
    table.steal(BEN, ANN, "R3")
    table.open(ANN, "R4")
    assert table.state.party == 2
    assert table.state.frozen == frozenset()
    table.bring_all({ANN: "O1", BEN: "O2", CAT: "O3", DEV: "O4"})
    table.open(BEN, "O1")
    table.steal(CAT, BEN, "O1")
    table.open(BEN, "O2")
    table.steal(DEV, CAT, "O1")
    assert table.state.frozen == frozenset({"O1"})


def test_without_the_house_rule_a_gift_can_be_stolen_again_after_every_open():
    table = four_r()
    table.open(ANN, "R1")
    table.steal(BEN, ANN, "R1")
    table.open(ANN, "R2")
    table.steal(CAT, BEN, "R1")
    table.steal(BEN, ANN, "R2")
    table.open(ANN, "R3")
    table.steal(DEV, CAT, "R1")  # a third steal of R1 in one party
    assert table.state.frozen == frozenset()


# --- moves and bringing -------------------------------------------------------------


def test_there_is_no_passing():
    assert not any("pass" in name for name in EVENT_TYPES)
    table = party_one()
    table.open(ANN, "Y9")
    table.note("Ben thinks")
    assert table.state.player_to_move == BEN
    assert "it is Ben's turn, not Cat's" in table.refuse(table.open_event(CAT, "R7"))


def test_gifts_are_brought_before_the_first_open():
    table = three_players(A3, sizes=2)
    table.bring(ANN, "R7")
    message = table.refuse(table.open_event(ANN, "R7"))
    assert "waiting for gifts from Ben, Cat" in message
    table.refuse(table.steal_event(ANN, BEN, "R7"), "waiting for gifts from Ben, Cat")


def test_no_bringing_once_the_party_is_under_way():
    table = party_one()
    table.open(ANN, "Y9")
    assert "under way" in table.refuse(table.bring_event(BEN, "G5"))


def test_bring_order_does_not_matter():
    table = three_players(A3, sizes=2)
    table.bring(CAT, "R2")
    table.bring(ANN, "B3")
    assert table.state.phase is Phase.BRINGING
    table.bring(BEN, "G5")
    assert table.state.phase is Phase.PLAYING
    assert table.state.player_to_move == ANN


def test_bring_once_per_party():
    table = three_players(A3, sizes=2)
    table.bring(ANN, "R7")
    assert "Ann has already brought a gift to party 1" in table.refuse(table.bring_event(ANN, "B3"))


def test_brought_card_comes_from_the_bringers_attic():
    table = three_players(A3, sizes=2)
    assert "Y9 is not in Ann's attic" in table.refuse(table.bring_event(ANN, "Y9"))
    table.refuse(table.bring_event(ANN, "G10"), "not in Ann's attic")
    assert "must be named" in table.refuse(table.bring_event(ANN, None))


def test_a_brought_card_leaves_the_attic():
    table = party_one()
    finish_party(table, ["R7", "Y9", "O4"])
    assert table.state.attics_by_player == {ANN: {"B3"}, BEN: {"G5"}, CAT: {"R2"}}
    table.refuse(table.bring_event(ANN, "R7"), "not in Ann's attic")


def test_opened_card_must_be_a_face_down_gift_of_this_party():
    table = party_one()
    assert "not a face-down gift" in table.refuse(table.open_event(ANN, "B3"))  # still in her attic
    table.refuse(table.open_event(ANN, "G10"), "not a face-down gift")  # never dealt
    table.open(ANN, "O4")  # any face-down gift, not only her own
    table.refuse(table.open_event(BEN, "O4"), "not a face-down gift")  # opened already


def test_unseen_gifts_open_as_cards_never_seen_before():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "B7")
    table.refuse(table.open_event(BEN, "B7"), "seen before")
    table.open(BEN, "R1")
    table.open(CAT, "G2")
    table.bring_all({ANN: None, BEN: None, CAT: None})
    assert "seen before" in table.refuse(table.open_event(BEN, "G2"))  # kept in party 1
    table.open(BEN, "G3")


def test_unseen_and_seen_brings_mixed():
    table = three_players(None, sizes=1)
    table.bring_all({ANN: None, BEN: None, CAT: "B5"})
    table.open(ANN, "R1")
    table.open(BEN, "R2")
    # Only Cat's seen gift B5 is still face down: another card cannot come out of it.
    assert "not a face-down gift" in table.refuse(table.open_event(CAT, "R3"))
    table.open(CAT, "B5")
    assert table.state.kept_by == {ANN: ("R1",), BEN: ("R2",), CAT: ("B5",)}


def test_a_seen_bring_is_a_card_not_seen_before():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: None, CAT: "B5"})
    finish_party(table, ["R1", "B5", "R2"])
    assert "B5 has already been seen" in table.refuse(table.bring_event(ANN, "B5"))
    assert "R1 has already been seen" in table.refuse(table.bring_event(ANN, "R1"))
    table.bring(BEN, "B4")
    table.refuse(table.bring_event(ANN, "B4"), "already been seen")


def test_no_card_opened_twice_in_a_game():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: None, CAT: None})
    finish_party(table, ["R1", "R2", "R3"])
    table.bring_all({ANN: None, BEN: None, CAT: None})
    for card in ["R1", "R2", "R3"]:
        table.refuse(table.open_event(BEN, card), "seen before")


@pytest.mark.parametrize("party", [0, 2, -1, 99])
def test_wrong_party_number(party):
    table = three_players(A3, sizes=2)
    message = table.refuse(table.bring_event(ANN, "R7", party=party))
    assert f"wrong party: this is party 1, not party {party}" in message
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    table.refuse(table.open_event(ANN, "R7", party=party), "wrong party")
    table.open(ANN, "R7")
    table.refuse(table.steal_event(BEN, ANN, "R7", party=party), "wrong party")


def test_only_the_player_to_move_moves():
    table = party_one()
    assert "it is Ann's turn, not Ben's" in table.refuse(table.open_event(BEN, "R7"))
    table.open(ANN, "R7")
    assert "it is Ben's turn, not Cat's" in table.refuse(table.steal_event(CAT, ANN, "R7"))
    assert "it is Ben's turn, not Ann's" in table.refuse(table.open_event(ANN, "Y9"))


def test_unknown_names_in_moves():
    table = party_one()
    assert "'Dan' is not a player" in table.refuse(table.open_event("Dan", "R7"))
    table.refuse(table.open_event("ann", "R7"), "not a player")  # exactly as in game_started
    table.open(ANN, "R7")
    table.refuse(table.steal_event(BEN, "Dan", "R7"), "not a player")


def test_nothing_after_the_game_is_over_but_notes_voids_and_a_tie_break():
    table = game_one_winner()
    assert table.state.is_over
    assert "the game is over" in table.refuse(ev("gift_brought", party=4, player=ANN, card="B3"))
    assert "the game is over" in table.refuse(ev("gift_brought", party=3, player=ANN, card="B3"))
    assert "the game is over" in table.refuse(ev("gift_opened", party=3, player=ANN, card="B10"))
    assert "the game is over" in table.refuse(ev("gift_stolen", party=3, player=ANN, from_=BEN, card="R6"))
    table.refuse(ev("gift_lists_dealt", lists=LISTS3))
    table.refuse(started())
    table.note("well played")
    assert table.state.is_over
    assert legal_moves(table.state) == []


def test_a_note_changes_nothing():
    table = party_one()
    table.open(ANN, "Y9")
    before = table.state
    table.note()
    assert table.state == before


# --- voids --------------------------------------------------------------------------


def test_a_void_restores_the_state_before_the_event():
    table = party_one()
    table.open(ANN, "Y9")
    before = table.state
    table.steal(BEN, ANN, "Y9")
    table.void(table.seq)
    assert table.state == before
    assert table.state.player_to_move == BEN


def test_void_must_name_the_latest_event_in_effect():
    table = party_one()
    table.open(ANN, "Y9")
    latest = table.seq
    message = table.refuse(ev("event_voided", voids=latest - 1, reason="x"))
    assert f"the latest event still in effect is {latest}" in message
    table.refuse(
        ev("event_voided", voids=latest + 1, reason="x"), f"latest event still in effect is {latest}"
    )
    table.void(latest)


def test_a_note_in_between_does_not_block_a_void():
    table = party_one()
    table.open(ANN, "Y9")
    opened = table.seq
    table.note("oops, that was the R7")
    table.void(opened)
    assert table.state.player_to_move == ANN
    assert table.state.holdings == {}


def test_notes_and_voids_cannot_be_voided():
    table = party_one()
    table.open(ANN, "Y9")
    table.note()
    table.refuse(ev("event_voided", voids=table.seq, reason="x"), "cannot be voided")
    table.steal(BEN, ANN, "Y9")
    table.void(table.seq)
    table.refuse(ev("event_voided", voids=table.seq, reason="x"), "cannot be voided")


def test_voids_chain_as_an_undo_stack():
    table = party_one()
    states = [table.state]
    seqs = []
    for move in [
        lambda: table.open(ANN, "Y9"),
        lambda: table.steal(BEN, ANN, "Y9"),
        lambda: table.open(ANN, "R7"),
    ]:
        move()
        states.append(table.state)
        seqs.append(table.seq)
    for seq, state in zip(reversed(seqs), reversed(states[:-1]), strict=True):
        table.note("taking it back")
        table.void(seq)
        assert table.state == state
    # Further back: the brings, then the attics and the lists.
    table.void(6)  # Cat's bring
    assert table.state.waiting_to_bring == (CAT,)
    table.void(5)
    table.void(4)
    table.void(3)  # attics_dealt
    assert table.state.attics is None
    table.void(2)  # gift_lists_dealt
    assert table.state.phase is Phase.SETTING_UP


def test_game_started_cannot_be_voided():
    table = Table([started()])
    assert "no event to void" in table.refuse(ev("event_voided", voids=1, reason="x"))
    table.lists(LISTS3)
    table.void(2)
    assert "no event to void" in table.refuse(ev("event_voided", voids=1, reason="x"))
    assert table.state.phase is Phase.SETTING_UP


def test_after_a_void_the_next_move_is_judged_from_the_state_before():
    table = party_one()
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    table.void(table.seq)
    assert "it is Ben's turn, not Cat's" in table.refuse(table.steal_event(CAT, ANN, "Y9"))
    table.open(BEN, "R7")
    assert table.state.holdings == {ANN: "Y9", BEN: "R7"}


def test_a_voided_card_counts_as_never_seen():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "R7")
    table.void(table.seq)
    table.open(ANN, "R7")  # the same card again: the voided open never happened
    table.void(table.seq)
    table.open(ANN, "B2")
    table.open(BEN, "R7")
    assert table.state.holdings == {ANN: "B2", BEN: "R7"}


def test_a_voided_seen_bring_frees_the_card():
    table = three_players(None, sizes=2)
    table.bring(CAT, "B5")
    table.void(table.seq)
    table.bring(ANN, "B5")
    assert table.state.face_down == ("B5",)


def test_a_voided_bring_returns_the_card_to_the_attic():
    table = three_players(A3, sizes=2)
    table.bring(ANN, "R7")
    assert table.state.attics_by_player[ANN] == {"B3"}
    table.void(table.seq)
    assert table.state.attics_by_player[ANN] == {"R7", "B3"}
    table.bring(ANN, "B3")


def test_a_void_does_not_excuse_an_illegal_event():
    # Every event must be legal when appended, voided or not: fold stops at the illegal one.
    events = [*party_one().log, ev("gift_opened", party=1, player=BEN, card="R7")]
    with pytest.raises(RuleViolation):
        fold([*events, ev("event_voided", voids=len(events), reason="x")])


def test_voiding_the_last_open_reopens_the_game():
    table = game_one_winner()
    table.void(table.seq)
    assert table.state.phase is Phase.PLAYING
    assert table.state.player_to_move == ANN
    table.open(ANN, "O8")
    assert table.state.is_over


# --- bounds ---------------------------------------------------------------------------


def test_three_player_party_reaches_six_moves():
    # Every player steals whenever a steal is allowed: 3 opens and 0 + 1 + 2 steals.
    table = party_one()
    moves = [
        table.open_event(ANN, "Y9"),
        table.steal_event(BEN, ANN, "Y9"),
        table.open_event(ANN, "R7"),
        table.steal_event(CAT, BEN, "Y9"),
        table.steal_event(BEN, ANN, "R7"),
        table.open_event(ANN, "O4"),
    ]
    for event in moves:
        assert table.state.phase is Phase.PLAYING
        table.do(event)
    assert table.state.party == 2
    assert len(moves) == 3 * 4 // 2


def test_four_player_party_reaches_ten_moves():
    table = four_r()
    for event in [
        table.open_event(ANN, "R1"),
        table.steal_event(BEN, ANN, "R1"),
        table.open_event(ANN, "R2"),
        table.steal_event(CAT, BEN, "R1"),
        table.steal_event(BEN, ANN, "R2"),
        table.open_event(ANN, "R3"),
        table.steal_event(DEV, CAT, "R1"),
        table.steal_event(CAT, BEN, "R2"),
        table.steal_event(BEN, ANN, "R3"),
        table.open_event(ANN, "R4"),
    ]:
        table.do(event)
    assert table.state.is_over
    assert len(table.log) - 7 == 4 * 5 // 2  # 7 = start, lists, attics, four brings


def test_after_the_last_party_attics_are_empty_and_one_card_kept_per_party():
    state = game_one_winner().state
    assert state.is_over
    assert all(attic == frozenset() for attic in state.attics)
    assert all(len(cards) == 3 for cards in state.kept)
    assert sorted(card for cards in state.kept for card in cards) == sorted(
        ["R7", "B3", "Y2", "Y9", "G5", "R6", "O4", "R2", "O8"]
    )


def test_fold_from_scratch():
    assert fold([]) is INITIAL_STATE
    log = game_one_winner().log
    state = INITIAL_STATE
    for event in log:
        state = evolve(state, event)
    assert fold(log) == state


@pytest.mark.parametrize("count", [3, 4, 5, 6, 7])
def test_every_party_reaches_the_bound_when_everyone_steals_all_they_can(count):
    # After the k-th open there are k gifts to steal, each at most once: 0 + 1 + ... + (N-1)
    # steals and N opens make N(N+1)/2 moves in every party.
    state = fold(deal(count, ["P1", "P2", "P3", "P4", "P5", "P6", "P7"][:count]))
    moves_per_party = []
    while not state.is_over:
        for move in legal_moves(state):  # the brings, in attic order
            if not state.brought[state.seat(move.player)]:
                state = evolve(
                    state, ev("gift_brought", party=state.party, player=move.player, card=move.card)
                )
        moves = 0
        party = state.party
        while state.party == party and not state.is_over:
            legal = legal_moves(state)
            steals = [m for m in legal if isinstance(m, Steal)]
            move = steals[0] if steals else legal[0]
            if isinstance(move, Steal):
                event = ev(
                    "gift_stolen", party=party, player=move.player, from_=move.from_player, card=move.card
                )
            else:
                event = ev("gift_opened", party=party, player=move.player, card=move.card)
            state = evolve(state, event)
            moves += 1
        moves_per_party.append(moves)
    assert moves_per_party == [count * (count + 1) // 2] * state.party_count
