"""Complete games scored by hand (see games.py for the working), ties and their breaking."""

import pytest

from wecore import Colour, RuleViolation, score
from wecore.scoring import score_player

from .games import game_one_winner, game_three_way_tie, game_two_way_tie, game_unseen
from .helpers import ANN, BEN, CAT, ev

R, OR, Y, G, B = Colour.RED, Colour.ORANGE, Colour.YELLOW, Colour.GREEN, Colour.BLUE


def test_one_winner_scores():
    state = game_one_winner().state
    assert state.is_over
    assert state.scores == {ANN: 14, BEN: 10, CAT: 5}
    assert state.winners == (ANN,)
    assert state.kept_by == {ANN: ("Y9", "G5", "O8"), BEN: ("O4", "R2", "R6"), CAT: ("R7", "B3", "Y2")}


def test_one_winner_explained_card_by_card():
    board = game_one_winner().state.scoreboard
    assert board.complete
    ann, ben, cat = board.of(ANN), board.of(BEN), board.of(CAT)
    assert ann.counted == {R: None, Y: "Y9", G: "G5"}
    # Reasons: a colour not on the list, or a higher card of that colour that counts instead.
    assert [u.card for u in ann.unused] == ["O8"]
    assert "orange is not on" in ann.unused[0].reason
    assert ben.counted == {R: "R6", OR: "O4", B: None}
    assert [u.card for u in ben.unused] == ["R2"]
    assert "R6" in ben.unused[0].reason
    assert cat.counted == {OR: None, Y: "Y2", B: "B3"}
    assert [u.card for u in cat.unused] == ["R7"]
    assert "red is not on" in cat.unused[0].reason
    assert ann.explain() == "Ann: red - + yellow Y9 + green G5 = 14"
    assert ben.explain() == "Ben: red R6 + orange O4 + blue - = 10"
    assert [p.player for p in board.players] == [ANN, BEN, CAT]


def test_two_way_tie_shares_the_win():
    state = game_two_way_tie().state
    assert state.scores == {ANN: 9, BEN: 8, CAT: 9}
    assert state.winners == (ANN, CAT)
    board = state.scoreboard
    assert board.of(ANN).counted == {R: None, Y: "Y1", G: "G8"}
    assert board.of(BEN).counted == {R: "R2", OR: "O6", B: None}
    assert board.of(CAT).counted == {OR: None, Y: "Y8", B: "B1"}
    assert all(not p.unused for p in board.players)


def test_winners_are_in_seat_order_not_name_order():
    # The same game with seats named so that name order and seat order differ.
    state = game_two_way_tie(("Zed", "Bob", "Amy")).state
    assert state.scores == {"Zed": 9, "Bob": 8, "Amy": 9}
    assert state.winners == ("Zed", "Amy")


def test_three_way_tie():
    state = game_three_way_tie().state
    assert state.scores == {ANN: 5, BEN: 5, CAT: 5}
    assert state.winners == (ANN, BEN, CAT)


def test_tie_broken_makes_the_tie_winner_the_only_winner():
    table = game_two_way_tie()
    table.break_tie(CAT, "sang for Fluffy the Cat")
    state = table.state
    assert state.winners == (CAT,)
    assert state.scores == {ANN: 9, BEN: 8, CAT: 9}  # the speech wins, it scores nothing
    board = state.scoreboard
    assert board.tie_broken_by == CAT
    assert board.tie_reason == "sang for Fluffy the Cat"


def test_tie_broken_in_a_three_way_tie():
    table = game_three_way_tie()
    table.break_tie(BEN)
    assert table.state.winners == (BEN,)


def test_tie_broken_only_among_the_tied_leaders():
    table = game_two_way_tie()
    message = table.refuse(ev("tie_broken", winner=BEN, reason="x"))
    assert "Ben is not among the tied leaders (Ann, Cat)" in message


def test_tie_broken_needs_a_tie():
    table = game_one_winner()
    assert "no tie to break: Ann has the top score alone" in table.refuse(
        ev("tie_broken", winner=ANN, reason="x")
    )


def test_tie_broken_at_most_once():
    table = game_two_way_tie()
    table.break_tie(ANN)
    assert "already broken in favour of Ann" in table.refuse(ev("tie_broken", winner=CAT, reason="x"))


def test_tie_broken_again_after_the_first_is_voided():
    table = game_two_way_tie()
    table.break_tie(ANN)
    table.void(table.seq)
    assert table.state.winners == (ANN, CAT)
    table.break_tie(CAT)
    assert table.state.winners == (CAT,)


def test_tie_broken_only_after_the_last_party():
    table = game_two_way_tie()
    table.void(table.seq)  # take back the last open: the game is not over
    assert not table.state.is_over
    assert "only be broken after the last party" in table.refuse(ev("tie_broken", winner=ANN, reason="x"))


def test_tie_broken_names_a_player():
    with pytest.raises(RuleViolation, match="not a player"):
        game_two_way_tie().do(ev("tie_broken", winner="Dan", reason="x"))


def test_unseen_game_scores():
    state = game_unseen().state
    assert state.scores == {ANN: 7, BEN: 18, CAT: 6}
    assert state.winners == (BEN,)
    assert state.attics is None


def test_scores_only_once_over():
    table = game_one_winner()
    table.void(table.seq)
    assert table.state.scores is None
    assert table.state.winners is None
    # Running standings still exist: two parties kept.
    assert score(table.state).totals == {ANN: 14, BEN: 2 + 4, CAT: 3}
    assert not score(table.state).complete


@pytest.mark.parametrize(
    ("gift_list", "kept", "total"),
    [
        ((R, Y, G), (), 0),
        ((R, Y, G), ("O10", "B10"), 0),
        ((R, Y, G), ("R10", "Y10", "G10"), 30),
        ((R, Y, G), ("R10", "Y10", "G10", "R9", "B10"), 30),
        ((OR, Y, B), ("O1", "O2", "O3"), 3),
        ((OR, Y, B), ("Y4", "B7", "R10"), 11),
    ],
)
def test_score_player(gift_list, kept, total):
    assert score_player("Ann", gift_list, kept).total == total
