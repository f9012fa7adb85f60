"""The decider: commands from the table become events, or are refused in table language."""

import pytest

from wecore import (
    INITIAL_STATE,
    AddNote,
    BreakTie,
    Bring,
    CardNotationError,
    Colour,
    DealAttics,
    DealLists,
    Open,
    RuleViolation,
    StartGame,
    Steal,
    Undo,
    UnknownPlayerError,
    WeError,
    decide,
    event_payload,
    evolve,
    fold,
    legal_moves,
    resolve_player,
)

from .games import game_two_way_tie
from .helpers import ANN, BEN, CAT, LISTS3, Table, started, three_players

A3 = {ANN: ["R7", "B3"], BEN: ["Y9", "G5"], CAT: ["O4", "R2"]}


def payloads(events):
    return [event_payload(e) for e in events]


def run(table: Table, command):
    """Decide, then record the events; the events' payloads."""
    events = decide(table.state, command)
    for event in events:
        table.do(event)
    return payloads(events)


def test_start_game():
    command = StartGame(("Zoe\u0308", BEN, CAT), "cat", {"attic_sizes": {"3": 2}}, "Cocoa night")
    with pytest.raises(RuleViolation, match="dealer 'cat' is not one of the players"):
        decide(INITIAL_STATE, command)
    command = StartGame(("Zoe\u0308", BEN, CAT), CAT, {"attic_sizes": {"3": 2}}, "Cocoa night")
    assert payloads(decide(INITIAL_STATE, command)) == [
        (
            "game_started",
            {
                "players": ["Zo\u00eb", BEN, CAT],
                "dealer": CAT,
                "ruleset": "white-elephant-2011",
                "options": {"attic_sizes": {"3": 2}},
                "title": "Cocoa night",
            },
        )
    ]


def test_deal_lists_and_attics_resolve_names():
    table = Table([started(options={"attic_sizes": {"3": 2}})])
    lists = {
        "ann": (Colour.RED, Colour.YELLOW, Colour.GREEN),
        "b": ("red", "orange", "blue"),
        "CAT": LISTS3[CAT],
    }
    assert run(table, DealLists(lists)) == [("gift_lists_dealt", {"lists": LISTS3})]
    assert run(table, DealAttics({"a": ("r7", "b3"), "Ben": ("Y9", "G5"), "c": ("O4", "R2")})) == [
        ("attics_dealt", {"attics": A3})
    ]


def test_bring_resolves_the_player_and_the_card():
    table = three_players(A3, sizes=2)
    assert run(table, Bring("ben", "y9")) == [("gift_brought", {"party": 1, "player": BEN, "card": "Y9"})]
    with pytest.raises(RuleViolation, match="G5 is not in Cat's attic"):
        decide(table.state, Bring("Cat", "G5"))
    with pytest.raises(RuleViolation, match="Ben has already brought a gift to party 1"):
        decide(table.state, Bring("Ben", "G5"))


def test_open_while_bringing_without_attics_records_the_missing_brings_unseen():
    table = three_players(None, sizes=2)  # dealer Cat: Ann opens first
    table.bring(BEN, "B5")
    events = run(table, Open("r7"))
    assert events == [
        ("gift_brought", {"party": 1, "player": ANN, "card": None}),
        ("gift_brought", {"party": 1, "player": CAT, "card": None}),
        ("gift_opened", {"party": 1, "player": ANN, "card": "R7"}),
    ]
    assert table.state.player_to_move == BEN


def test_open_while_bringing_by_the_wrong_player_records_nothing():
    table = three_players(None, sizes=2)
    state = table.state
    with pytest.raises(RuleViolation, match="it is Ann's turn, not Ben's"):
        decide(state, Open("R7", "Ben"))
    assert table.state is state


def test_open_while_bringing_with_attics_is_refused():
    table = three_players(A3, sizes=2)
    table.bring(ANN, "R7")
    with pytest.raises(RuleViolation) as info:
        decide(table.state, Open("R7"))
    assert "waiting for gifts from Ben, Cat" in str(info.value)


def test_open_needs_the_card():
    table = three_players(None, sizes=2)
    with pytest.raises(RuleViolation, match="say which card"):
        decide(table.state, Open(None))


@pytest.mark.parametrize("card", ["P11", "R0", "red7", ""])
def test_bad_card_notation_in_a_command(card):
    table = three_players(None, sizes=2)
    with pytest.raises(CardNotationError, match="R7"):
        decide(table.state, Open(card))
    with pytest.raises(WeError):
        decide(table.state, Bring(ANN, card))


def test_open_by_name_or_prefix():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    with pytest.raises(RuleViolation, match="it is Ann's turn, not Ben's"):
        decide(table.state, Open("R7", "b"))
    assert run(table, Open("O4", "an")) == [("gift_opened", {"party": 1, "player": ANN, "card": "O4"})]


def test_steal_fills_in_the_card():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    table.open(ANN, "Y9")
    assert run(table, Steal("ann")) == [
        ("gift_stolen", {"party": 1, "player": BEN, "from": ANN, "card": "Y9"})
    ]


def test_steal_with_the_card_named_in_any_case():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    table.open(ANN, "Y9")
    assert run(table, Steal(ANN, BEN, "y9")) == [
        ("gift_stolen", {"party": 1, "player": BEN, "from": ANN, "card": "Y9"})
    ]


def test_illegal_steals_in_table_language():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    with pytest.raises(RuleViolation, match="Ann cannot steal from Ben: Ben holds no gift"):
        decide(table.state, Steal(BEN))
    table.open(ANN, "Y9")
    # One predicate words a steal for the decider and the reducer alike: R7 is still face down.
    with pytest.raises(RuleViolation, match="Ben cannot steal R7: it has not been opened yet"):
        decide(table.state, Steal(ANN, card="R7"))
    with pytest.raises(RuleViolation, match="Ben cannot steal B2 from Ann: Ann holds Y9"):
        decide(table.state, Steal(ANN, card="B2"))
    with pytest.raises(RuleViolation, match="it is Ben's turn, not Cat's"):
        decide(table.state, Steal(ANN, player=CAT))
    table.steal(BEN, ANN, "Y9")
    with pytest.raises(RuleViolation, match="Ben just stole it and no gift has been opened since"):
        decide(table.state, Steal(BEN))
    with pytest.raises(UnknownPlayerError, match="'Dan' is not a player here"):
        decide(table.state, Steal("Dan"))


def test_undo_voids_the_latest_event_in_effect():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    table.open(ANN, "Y9")  # seq 7
    table.steal(BEN, ANN, "Y9")  # seq 8
    table.note()  # seq 9
    assert run(table, Undo("wrong card")) == [("event_voided", {"voids": 8, "reason": "wrong card"})]
    assert run(table, Undo()) == [("event_voided", {"voids": 7, "reason": "undone at the table"})]
    assert run(table, Undo())[0][1]["voids"] == 6  # Cat's bring
    assert table.state.waiting_to_bring == (CAT,)


def test_nothing_to_undo_after_game_started():
    table = Table([started()])
    with pytest.raises(RuleViolation, match="nothing to undo"):
        decide(table.state, Undo())


def test_break_tie_and_notes():
    table = game_two_way_tie()
    with pytest.raises(RuleViolation, match="Ben is not among the tied leaders"):
        decide(table.state, BreakTie("ben", "x"))
    assert run(table, BreakTie("c", "best speech")) == [
        ("tie_broken", {"winner": CAT, "reason": "best speech"})
    ]
    assert run(table, AddNote("well played")) == [("note", {"text": "well played"})]


def test_moves_after_the_game_is_over():
    table = game_two_way_tie()
    with pytest.raises(RuleViolation, match="the game is over"):
        decide(table.state, Open("B10"))
    with pytest.raises(RuleViolation, match="the game is over"):
        decide(table.state, Steal(ANN))


def test_what_decide_returns_the_reducer_accepts():
    table = three_players(None, sizes=1)
    events = decide(table.state, Open("G4"))
    assert fold(events, table.state).holdings == {ANN: "G4"}


# --- resolve_player -------------------------------------------------------------------

NAMES = ("Ann", "Anna", "Ben", "Zo\u00eb")


@pytest.fixture
def named_table():
    return fold([started(NAMES, "Ben")])


@pytest.mark.parametrize(
    ("text", "player"),
    [
        ("Ann", "Ann"),
        ("ann", "Ann"),  # a whole name, in any case, even though it starts "Anna" too
        ("ANNA", "Anna"),
        ("anna", "Anna"),
        ("b", "Ben"),
        ("BE", "Ben"),
        (" ben ", "Ben"),
        ("zo", "Zo\u00eb"),
        ("Zoe\u0308", "Zo\u00eb"),
        ("ZOË", "Zo\u00eb"),
    ],
)
def test_resolve_player(named_table, text, player):
    assert resolve_player(named_table, text) == player


def test_ambiguous_prefix(named_table):
    with pytest.raises(UnknownPlayerError) as info:
        resolve_player(named_table, "an")
    assert "could be Ann or Anna" in str(info.value)
    assert "type more" in str(info.value)


@pytest.mark.parametrize("text", ["Dan", "", "Benny", "x"])
def test_unknown_player(named_table, text):
    with pytest.raises(UnknownPlayerError) as info:
        resolve_player(named_table, text)
    assert "is not a player here (Ann, Anna, Ben, Zoë)" in str(info.value)


def test_unknown_player_is_a_rule_violation(named_table):
    with pytest.raises(RuleViolation):
        resolve_player(named_table, "Dan")


# --- legal_moves ------------------------------------------------------------------------


def test_legal_moves_while_bringing_with_attics():
    table = three_players(A3, sizes=2)
    table.bring(BEN, "Y9")
    assert legal_moves(table.state) == [
        Bring(ANN, "R7"),
        Bring(ANN, "B3"),
        Bring(CAT, "R2"),
        Bring(CAT, "O4"),
    ]


def test_legal_moves_while_bringing_unseen():
    table = three_players(None, sizes=2)
    table.bring(CAT, None)
    assert legal_moves(table.state) == [Bring(ANN, None), Bring(BEN, None)]


def test_legal_moves_in_play():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    assert set(legal_moves(table.state)) == {Open("R7", ANN), Open("Y9", ANN), Open("O4", ANN)}
    table.open(ANN, "Y9")
    assert set(legal_moves(table.state)) == {Open("R7", BEN), Open("O4", BEN), Steal(ANN, BEN, "Y9")}
    table.steal(BEN, ANN, "Y9")
    assert set(legal_moves(table.state)) == {Open("R7", ANN), Open("O4", ANN)}


def test_legal_moves_offer_unseen_gifts_as_open_none():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: "B5", CAT: None})
    assert set(legal_moves(table.state)) == {Open("B5", ANN), Open(None, ANN)}
    table.open(ANN, "R1")
    table.open(BEN, "R2")
    assert set(legal_moves(table.state)) == {Open("B5", CAT), Steal(ANN, CAT, "R1"), Steal(BEN, CAT, "R2")}


def test_legal_moves_before_and_after():
    assert legal_moves(INITIAL_STATE) == []
    assert legal_moves(fold([started()])) == []
    assert legal_moves(game_two_way_tie().state) == []


def test_every_legal_move_is_decided_into_an_accepted_event():
    table = three_players(A3, sizes=2)
    table.bring_all({ANN: "R7", BEN: "Y9", CAT: "O4"})
    table.open(ANN, "Y9")
    for move in legal_moves(table.state):
        events = decide(table.state, move)
        assert len(events) == 1
        evolve(table.state, events[0])
