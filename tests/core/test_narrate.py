"""Replays tell each event in one sentence; hidden cards stay hidden from a seat."""

from wecore import INITIAL_STATE, evolve
from wecore.narrate import describe

from .games import game_one_winner
from .helpers import ANN


def sentences(log, viewer=None, omniscient=True):
    state = INITIAL_STATE
    told = []
    for event in log:
        after = evolve(state, event)
        told.append(describe(event, state, after, viewer, omniscient))
        state = after
    return told


def test_sentences_of_a_hand_game():
    told = sentences(game_one_winner().log)
    assert (
        told[0] == "Game starts: Ann, Ben, Cat in clockwise order, Cat deals"
        " with house rules: 3 cards each for 3 players."
    )
    assert told[5] == "Cat brings O4 face down; all gifts are in, Ann opens first."
    assert told[6] == "Ann opens Y9; Ben is next."
    assert told[7] == "Ben steals Y9 from Ann, who moves next; Y9 is locked until a gift is opened."
    assert told[11] == "Ben opens O4: the last gift, party 1 ends."
    assert told[-1] == "Ann opens O8: the last gift, the game is over."


def test_a_seat_does_not_hear_other_seats_cards():
    told = sentences(game_one_winner().log, viewer=ANN, omniscient=False)
    assert told[2] == "Attics dealt (3 cards each); yours: R7 B3 Y2."
    assert told[3] == "Ann brings R7 face down."
    assert told[4] == "Ben brings a gift face down."


def test_a_steal_tells_when_the_house_rules_stop_the_next_steal():
    """A phone shows the sentence, not the rule: after the last steal allowed in a row the victim
    is told they must open, and a gift frozen by its steal is not said to be merely locked."""
    from .helpers import BEN, CAT, DEV, four_players

    table = four_players(None, sizes=2, options={"max_steals_between_opens": 1, "max_steals_per_gift": 2})
    table.bring_all({ANN: None, BEN: None, CAT: None, DEV: None})
    table.open(ANN, "R7")
    table.open(BEN, "Y9")
    before = table.state
    table.steal(CAT, ANN, "R7")
    told = describe(table.log[-1], before, table.state)
    assert told == (
        "Cat steals R7 from Ann, who moves next; R7 is locked until a gift is opened;"
        " Ann must open a gift: 1 steal has been made since the last open, the most the house"
        " rule allows in a row."
    )
    table.open(ANN, "O4")
    before = table.state
    table.steal(DEV, CAT, "R7")  # its second steal: frozen
    told = describe(table.log[-1], before, table.state)
    assert told == (
        "Dev steals R7 from Cat, who moves next; R7 is frozen for the rest of the party;"
        " Cat must open a gift: 1 steal has been made since the last open, the most the house"
        " rule allows in a row."
    )
