"""wecore.analysis on hand-made endgames whose values can be worked out by hand.

The endgame: three players, one party (attic size 1, so every card is seen when the attics are
dealt and every bring is forced), lists Ann RYG, Ben ROB, Cat OYB, attics Ann R9, Ben Y2,
Cat B5, dealer Cat so Ann starts. As played: Ann opens R9, Ben opens Y2, Cat steals R9 from
Ann, Ann steals Y2 from Ben, Ben opens B5 (the last gift).

Cat's decision, worked out with the greedy bot's rule: steal the best gain when it beats the
average gain of an unknown gift, that average taken over every card not seen (the 47 cards
never dealt, and the face-down B5), else open:
- open B5: the last gift, the game ends: Cat keeps B5 = 5 (Ann's R9 = 9 wins).
- steal R9 (played): Ann's steal of Y2 gains 2, less than her average 154/48 = 3.2 (reds but
  R9 46, yellows but Y2 53, greens 55), so she opens B5 and the game ends 0-0-0: Cat scores 0,
  a three-way shared win (1/3).
- steal Y2: Cat Y2 = 2; Ben's steal of R9 gains 9, more than his 156/48: he steals it; Ann
  must open B5. Cat scores 2, Ben 9 wins.
So the played steal is worth 0, the best move (open, 5) 5 more: swing 5, win chance 33% to 0%.
Ann's decision after it: open B5 ends the game at 0-0-0 (a third of a win); steal Y2 (played)
leaves Ben only B5 to open: Ann 2, Ben 5. The played steal scores more: swing 0.
"""

from __future__ import annotations

import pytest

from wecore.analysis import (
    analyse,
    decision_object,
    decision_points,
    first_move,
    hidden_pool,
    play_out,
    rollouts,
    sentence,
)
from wecore.bots import GreedyBot
from wecore.moves import Open, Steal
from wecore.rng import SeededRandom
from wecore.state import Phase

from .helpers import Table, ev

ONE_PARTY = {"attic_sizes": {"3": 1}}
LISTS = {
    "Ann": ["red", "yellow", "green"],
    "Ben": ["red", "orange", "blue"],
    "Cat": ["orange", "yellow", "blue"],
}


def endgame(voided_typo: bool = False) -> list:
    table = Table()
    table.start(dealer="Cat", options=ONE_PARTY)
    table.lists(LISTS)
    table.attics({"Ann": ["R9"], "Ben": ["Y2"], "Cat": ["B5"]})
    for player, card in (("Ann", "R9"), ("Ben", "Y2"), ("Cat", "B5")):
        table.do(ev("gift_brought", party=1, player=player, card=card))
    table.do(ev("gift_opened", party=1, player="Ann", card="R9"))
    if voided_typo:
        table.do(ev("gift_opened", party=1, player="Ben", card="B5"))
        table.do(ev("event_voided", voids=table.seq, reason="Ben opened the other one"))
    table.do(ev("gift_opened", party=1, player="Ben", card="Y2"))
    table.do(ev("gift_stolen", party=1, player="Cat", from_="Ann", card="R9"))
    table.do(ev("gift_stolen", party=1, player="Ann", from_="Ben", card="Y2"))
    table.do(ev("gift_opened", party=1, player="Ben", card="B5"))
    assert table.state.is_over
    return table.log


def by_seq(decisions):
    return {d.seq: d for d in decisions}


def test_decisions_are_the_moves_in_effect_with_their_alternatives():
    points = decision_points(endgame())
    assert [(p.seq, p.player, len(p.moves)) for p in points] == [
        (4, "Ann", 1),  # brings from an attic of one card: forced
        (5, "Ben", 1),
        (6, "Cat", 1),
        (7, "Ann", 2),  # open R9 (her own) or "open a gift" (Y2 or B5, not seen by her)
        (8, "Ben", 3),  # open Y2 (his own) or a gift (B5), or steal R9
        (9, "Cat", 3),  # open B5, steal R9, steal Y2
        (10, "Ann", 2),  # open a gift (B5) or steal Y2 (R9 is locked)
        (11, "Ben", 1),  # both held gifts are locked: open a gift (B5)
    ]
    cat = points[5]
    assert cat.moves[cat.played] == Steal("Ann", "Cat", "R9")
    ann, ben = points[3], points[4]
    assert ann.moves == (Open("R9", "Ann"), Open(None, "Ann")) and ann.played == 0
    assert ben.moves[ben.played] == Open("Y2", "Ben")
    assert points[7].moves == (Open(None, "Ben"),)


def test_voided_moves_are_not_decisions():
    seqs = [p.seq for p in decision_points(endgame(voided_typo=True))]
    assert 8 not in seqs and 9 not in seqs  # Ben's mistaken open and its void
    assert seqs == [4, 5, 6, 7, 10, 11, 12, 13]


def test_hand_worked_values_and_swing():
    decisions = by_seq(analyse(decision_points(endgame()), "greedy", 8, "hand", margin=0))
    cat = decisions[9]
    values = {str(a.move): (a.mean, a.low, a.high, a.win_chance) for a in cat.alternatives}
    assert values == {
        str(Open("B5", "Cat")): (5.0, 5.0, 5.0, 0.0),
        str(Steal("Ann", "Cat", "R9")): (0.0, 0.0, 0.0, 0.3333),
        str(Steal("Ben", "Cat", "Y2")): (2.0, 2.0, 2.0, 0.0),
    }
    assert cat.swing == 5.0 and cat.swing_margin == 0.0
    assert cat.alternatives[cat.best].move == Open("B5", "Cat")
    assert sentence(cat) == (
        "Party 1: Cat stole R9 from Ann; opening B5 instead was worth +5.0 points (±0.0), win chance 33% → 0%"
    )
    ann = decisions[10]
    opened, stole = ann.alternatives
    assert (opened.move, opened.mean, opened.win_chance) == (Open(None, "Ann"), 0.0, 0.3333)
    assert (stole.move, stole.mean, stole.win_chance) == (Steal("Ben", "Ann", "Y2"), 2.0, 0.0)
    assert ann.swing == 0.0  # the played steal was the best


def test_forced_moves_have_one_alternative_and_swing_zero():
    decisions = analyse(decision_points(endgame()), "random", 5, 1, margin=0)
    forced = [d for d in decisions if d.forced]
    assert [d.seq for d in forced] == [4, 5, 6, 11]
    for decision in forced:
        assert decision.swing == 0.0 and decision.played == 0
        assert decision_object(decision)["swing"] == 0.0
        assert len(decision_object(decision)["alternatives"]) == 1
    # Ben's last open ends the game: every rollout is the game as it ended (Ben B5 = 5, wins).
    last = forced[-1].alternatives[0]
    assert (last.mean, last.low, last.high, last.win_chance) == (5.0, 5.0, 5.0, 1.0)


def test_random_policy_values_worked_out_by_hand():
    # After Cat steals R9, Ann picks at random between opening B5 (0-0-0 at the end... Ann
    # keeps B5 = 0, Ben holds Y2 = 0, Cat R9 = 0) and stealing Y2 (then Ben must open B5:
    # Cat 0). Either way Cat scores 0; Cat's open B5 ends the game at once with Cat 5.
    decisions = by_seq(analyse(decision_points(endgame()), "random", 40, "r", margin=0))
    cat = decisions[9]
    means = {str(a.move): a.mean for a in cat.alternatives}
    assert means[str(Open("B5", "Cat"))] == 5.0
    assert means[str(Steal("Ann", "Cat", "R9"))] == 0.0


def test_same_seed_same_values_different_seed_may_differ():
    points = decision_points(endgame())
    first = analyse(points, "random", 30, "x", margin=0)
    assert analyse(points, "random", 30, "x", margin=0) == first
    # Rollout i of a decision depends on (seed, seq, i) only: one alternative alone gives the
    # same outcomes as within the whole analysis.
    assert rollouts(points[3], 1, "random", 30, "x") == rollouts(points[3], 1, "random", 30, "x")


def unseen_game() -> list:
    """Three players without attics: every gift brought unseen; Ann has opened one (G4)."""
    table = Table()
    table.start(dealer="Cat", options=ONE_PARTY)
    table.lists(LISTS)
    for player in ("Ann", "Ben", "Cat"):
        table.do(ev("gift_brought", party=1, player=player, card=None))
    table.do(ev("gift_opened", party=1, player="Ann", card="G4"))
    table.do(ev("gift_opened", party=1, player="Ben", card="O7"))
    return table.log


def test_unseen_gifts_are_drawn_among_cards_not_seen_then():
    points = decision_points(unseen_game())
    ben = next(p for p in points if p.player == "Ben" and p.seq == 7)
    # Ben's open of an unseen gift is the move "open a gift", whatever it turned out to be.
    assert ben.moves[ben.played] == Open(None, "Ben")
    pool = hidden_pool(ben.before)
    assert "G4" not in pool and "O7" in pool and len(pool) == 49
    # A rollout turns unseen gifts over from the hidden cards it is given, and from nothing else.
    hidden = ["B1", "R10"]
    final = play_out(ben.before, ben.moves[ben.played], GreedyBot(), SeededRandom(1), hidden)
    kept = {card for cards in final.kept for card in cards}
    assert kept == {"G4", "B1", "R10"} and hidden == []


def test_with_attics_dealt_every_gift_the_player_has_not_seen_is_one_open():
    """The log names every brought card, but a player knows only their own: the others' gifts
    are one move, "open a gift", which turns over any of them."""
    from wecore.bots import play_game
    from wecore.views import face_down_known

    events, _ = play_game("unseen-once", 5, GreedyBot())
    points = decision_points(events)
    checked = 0
    for point in points:
        face_down = point.before.face_down
        if point.before.phase is not Phase.PLAYING or not face_down:
            continue
        known = set(face_down_known(point.before, point.player))
        opens = [m for m in point.moves if isinstance(m, Open)]
        unseen_opens = [m for m in opens if m.card is None]
        named = [m.card for m in opens if m.card is not None]
        assert set(named) <= known, (point.seq, named, known)
        assert len(unseen_opens) == (1 if set(face_down) - known else 0), point.seq
        checked += 1
    assert checked > 10
    # "Open a gift" turns over one of the gifts the player had not seen, each in some rollout.
    point = next(
        p
        for p in points
        if len(set(p.before.face_down) - set(face_down_known(p.before, p.player))) >= 2
        and Open(None, p.player) in p.moves
    )
    alternative = point.moves.index(Open(None, point.player))
    turned = {first_move(point, alternative, "any", index).card for index in range(60)}
    assert turned == set(point.before.face_down) - set(face_down_known(point.before, point.player))
    assert len(rollouts(point, alternative, "random", 3, "any")) == 3


def test_decision_object_moves_are_service_move_objects():
    decisions = by_seq(analyse(decision_points(endgame()), "greedy", 2, 0, margin=0))
    cat = decision_object(decisions[9])
    assert cat["played"] == {"type": "steal", "as": "Cat", "from": "Ann"}
    assert [a["move"] for a in cat["alternatives"]] == [
        {"type": "open", "as": "Cat", "card": "B5"},
        {"type": "steal", "as": "Cat", "from": "Ann"},
        {"type": "steal", "as": "Cat", "from": "Ben"},
    ]
    assert set(cat) >= {"seq", "party", "player", "played", "alternatives", "swing"}
    assert set(cat["alternatives"][0]) >= {"move", "mean", "low", "high", "win_chance"}
    bring = decision_object(decisions[4])
    assert bring["played"] == {"type": "bring", "as": "Ann", "card": "R9"}
    unseen = by_seq(analyse(decision_points(unseen_game()), "greedy", 2, 0, margin=0))
    assert decision_object(unseen[7])["played"] == {"type": "open", "as": "Ben", "card": None}


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_every_rollout_ends_the_game(policy):
    points = decision_points(unseen_game())
    for point in points:
        for alternative in range(len(point.moves)):
            for outcome in rollouts(point, alternative, policy, 3, "end"):
                assert 0 <= outcome.win <= 1 and outcome.score >= 0


def final_swap_game(keep: bool) -> list:
    """The endgame above under starter_final_swap: after Ben's last open Ann (the starter)
    holds Y2, Ben B5, Cat R9, and Ann swaps or keeps."""
    table = Table()
    table.start(dealer="Cat", options={**ONE_PARTY, "starter_final_swap": True})
    table.lists(LISTS)
    table.attics({"Ann": ["R9"], "Ben": ["Y2"], "Cat": ["B5"]})
    for player, card in (("Ann", "R9"), ("Ben", "Y2"), ("Cat", "B5")):
        table.do(ev("gift_brought", party=1, player=player, card=card))
    table.do(ev("gift_opened", party=1, player="Ann", card="R9"))
    table.do(ev("gift_opened", party=1, player="Ben", card="Y2"))
    table.do(ev("gift_stolen", party=1, player="Cat", from_="Ann", card="R9"))
    table.do(ev("gift_stolen", party=1, player="Ann", from_="Ben", card="Y2"))
    table.do(ev("gift_opened", party=1, player="Ben", card="B5"))
    swap = {"with": None, "takes": None} if keep else {"with": "Cat", "takes": "R9"}
    table.do(ev("final_swap", party=1, player="Ann", **swap))
    assert table.state.is_over
    return table.log


def test_the_final_swap_is_a_decision_like_any_other():
    import wecore.moves

    if not hasattr(wecore.moves, "Swap"):
        pytest.skip("this build has no starter_final_swap house rule yet")
    # Ann's choices at the end, every card known: keep Y2 (2), take B5 from Ben (0 on RYG),
    # take R9 from Cat (9). Keeping was worth 7 less than taking R9.
    kept = by_seq(analyse(decision_points(final_swap_game(keep=True)), "greedy", 3, 0, margin=0))[12]
    values = {move_text(a.move): a.mean for a in kept.alternatives}
    assert values == {
        "kept their gift (no swap)": 2.0,
        "swapped with Ben for B5": 0.0,
        "swapped with Cat for R9": 9.0,
    }
    assert kept.swing == 7.0
    assert decision_object(kept)["played"] == {"type": "swap", "as": "Ann", "with": None}
    assert sentence(kept).startswith(
        "Party 1: Ann kept their gift (no swap); swapping with Cat for R9 instead"
    )
    took = by_seq(analyse(decision_points(final_swap_game(keep=False)), "random", 3, 0, margin=0))[12]
    assert took.swing == 0.0 and decision_object(took)["played"] == {
        "type": "swap",
        "as": "Ann",
        "with": "Cat",
    }


def move_text(move) -> str:
    from wecore.analysis import describe_move

    return describe_move(move)


def test_the_race_keeps_the_margin_and_spends_less_on_moves_told_apart():
    from wecore.analysis import Race, value_decision
    from wecore.bots import play_game

    events, _ = play_game("race", 3, GreedyBot())
    race = Race(most=48, margin=1.0, first=8, batch=8)
    spent = full = 0
    for point in decision_points(events)[-12:]:
        decision = value_decision(point, "greedy", "r", race)
        played = decision.alternatives[decision.played]
        assert decision.swing_margin <= race.margin or played.rollouts == race.most
        # The move played and the best one race to the end together: the swing is paired.
        assert decision.alternatives[decision.best].rollouts == played.rollouts
        for alternative in decision.alternatives:
            assert race.first <= alternative.rollouts <= race.most
            assert (alternative.rollouts - race.first) % race.batch == 0
        spent += sum(a.rollouts for a in decision.alternatives)
        full += race.most * len(decision.alternatives)
        # Margin 0 plays every alternative out `most` times: the values the race builds on.
        if point is decision_points(events)[-1]:
            exhaustive = value_decision(point, "greedy", "r", Race(most=48, margin=0))
            assert {a.rollouts for a in exhaustive.alternatives} == {48}
    assert spent < full / 2
