"""party_die worked by hand (rules.md): at each party's end its starter rolls a die, recorded as
die_rolled; on a 6 every gift kept passes one seat left. The roll is chance: `chance_outcomes`
gives its six faces at 1/6, and no bot ever chooses one."""

from __future__ import annotations

import pytest

from wecore import RuleViolation, decide, legal_moves
from wecore.bots import GreedyBot, bot_move, draw_outcome, play_payloads
from wecore.claims import CardHistory, card_fate
from wecore.events import parse_event
from wecore.levels import BOTS
from wecore.moves import Roll, chance_outcomes
from wecore.rng import SeededRandom
from wecore.state import Phase

from .helpers import ANN, BEN, CAT, Table, three_players

DIE = {"party_die": True}


def rolled(table: Table, player: str, value: int):
    return parse_event("die_rolled", {"party": table.state.party, "player": player, "value": value})


def waiting_for_the_roll(options=None) -> Table:
    """Ann, Ben, Cat, one party, unseen brings: Ann opens G8, Ben B3, Cat B5 (tests/vectors)."""
    table = three_players(None, sizes=1, options={**DIE, **(options or {})})
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "G8")
    table.open(BEN, "B3")
    table.open(CAT, "B5")
    return table


def test_the_party_waits_for_its_starters_roll():
    table = waiting_for_the_roll()
    state = table.state
    assert state.phase is Phase.ROLLING and state.player_to_move == ANN
    outcomes = chance_outcomes(state)
    assert outcomes == tuple((Roll(face, ANN), 1 / 6) for face in range(1, 7))
    assert legal_moves(state) == [move for move, _ in outcomes]  # what may be recorded
    table.refuse(table.open_event(ANN, "R1"), "party 1 is waiting for its starter Ann to roll the die")
    table.refuse(rolled(table, BEN, 6), "only party 1's starter, Ann, may roll the die now, not Ben")
    table.refuse(rolled(table, ANN, 0), "a die has faces 1 to 6, not 0")
    table.refuse(rolled(table, ANN, 7), "a die has faces 1 to 6, not 7")


def test_no_chance_anywhere_else():
    table = three_players(None, sizes=1, options=DIE)
    assert chance_outcomes(table.state) == ()
    table.bring_all({ANN: None, BEN: None, CAT: None})
    assert chance_outcomes(table.state) == ()
    table.refuse(
        rolled(table, ANN, 6), "party 1 is not over: its starter rolls the die once its last gift is open"
    )


def test_a_six_passes_every_gift_left_and_the_cards_history_says_so():
    table = waiting_for_the_roll()
    table.do(rolled(table, ANN, 6))
    state = table.state
    assert state.is_over
    assert state.kept_by == {ANN: ("B5",), BEN: ("G8",), CAT: ("B3",)}
    assert state.winners == (CAT,)  # without the pass Ann would have won with G8
    history = CardHistory.of((table.log[seq - 1] for seq in state.seqs_in_effect()), state.players)
    assert card_fate("G8", ANN, state, history) == "G8 went from Ann to Ben in the pass on a 6 after party 1"


def test_a_void_of_a_roll_waits_for_the_roll_again():
    table = waiting_for_the_roll()
    table.do(rolled(table, ANN, 6))
    table.void(table.seq)
    assert table.state.phase is Phase.ROLLING and table.state.player_to_move == ANN
    table.do(rolled(table, ANN, 2))
    assert table.state.kept_by == {ANN: ("G8",), BEN: ("B3",), CAT: ("B5",)}


def test_the_roll_comes_after_the_final_swap_and_the_decider_records_it():
    table = waiting_for_the_roll({"starter_final_swap": True})
    assert table.state.phase is Phase.FINAL_SWAP
    table.refuse(rolled(table, ANN, 6), "party 1 is waiting for its starter Ann's final swap")
    table.swap(ANN, None, None)
    assert table.state.phase is Phase.ROLLING
    with pytest.raises(RuleViolation, match="not Ben"):
        decide(table.state, Roll(6, BEN))
    (event,) = decide(table.state, Roll(3))
    assert event.payload() == {"party": 1, "player": ANN, "value": 3}


def test_no_bot_chooses_a_face():
    table = waiting_for_the_roll()
    for name, make in BOTS.items():
        for player in (ANN, BEN, CAT):
            assert bot_move(table.state, player, make(), "seed") is None, name
    with pytest.raises(ValueError, match="never chooses chance"):
        GreedyBot().choose(table.state, legal_moves(table.state), SeededRandom(1))
    # A simulation draws each face from the game's seeded randomness, whoever sits at the table:
    # the same seed rolls the same faces with random bots as with greedy ones.
    options = {"party_die": True, "attic_sizes": {"4": 6}}
    faces = {}
    for name in ("random", "greedy"):
        payloads, _ = play_payloads("faces", 4, BOTS[name](), options=options)
        faces[name] = [data["value"] for kind, data in payloads if kind == "die_rolled"]
    assert len(faces["random"]) == 6
    assert faces["random"] == faces["greedy"]


def test_an_outcome_is_drawn_with_its_chance():
    outcomes = chance_outcomes(waiting_for_the_roll().state)
    rng = SeededRandom("fair")
    counts = {face: 0 for face in range(1, 7)}
    for _ in range(6000):
        counts[draw_outcome(outcomes, rng).value] += 1  # type: ignore[union-attr]
    assert all(900 < count < 1100 for count in counts.values()), counts
