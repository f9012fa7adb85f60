"""The two house rules added with the registry, worked by hand: max_steals_between_opens and
starter_final_swap (rules.md). Each refusal is checked in the reducer, in legal_moves, in the
decider and on the audit's fast path, since all four ask the one predicate."""

from __future__ import annotations

import pytest

from wecore import RuleViolation, check_events, decide, event_payload, legal_moves
from wecore.moves import Open, Steal, Swap
from wecore.state import Phase

from .helpers import ANN, BEN, CAT, DEV, Table, ev, four_players, three_players


def steals(state):
    return sorted((m.from_player, m.card) for m in legal_moves(state) if isinstance(m, Steal))


def swaps(state):
    return sorted((m.with_player or "", m.takes or "") for m in legal_moves(state) if isinstance(m, Swap))


def audited(table: Table, extra=None):
    """check_events over the table's payloads (the audit's fast path), plus `extra` at the end."""
    rows = [event_payload(e) for e in table.log] + ([event_payload(extra)] if extra is not None else [])
    return check_events((seq, kind, data) for seq, (kind, data) in enumerate(rows, start=1))


# --- max_steals_between_opens ----------------------------------------------------------------


def chain_table(cap: int) -> Table:
    """Four players, unseen brings, Ann starts; Ann opens R7, Ben opens Y9."""
    table = four_players(None, sizes=2, options={"max_steals_between_opens": cap})
    table.bring_all({ANN: None, BEN: None, CAT: None, DEV: None})
    table.open(ANN, "R7")
    table.open(BEN, "Y9")
    return table


def test_no_steal_chains_the_victim_must_open():
    table = chain_table(1)
    table.steal(CAT, ANN, "R7")  # Ann is to move; Y9 (Ben) could be stolen under the printed rules
    assert table.state.player_to_move == ANN and table.state.counts.steals_since_open == 1
    refused = table.steal_event(ANN, BEN, "Y9")
    message = table.refuse(refused, "Ann must open a gift")
    assert message.startswith("Ann cannot steal Y9: 1 steal has been made since the last open")
    assert steals(table.state) == []
    assert all(isinstance(m, Open) for m in legal_moves(table.state))
    with pytest.raises(RuleViolation, match="Ann must open a gift"):
        decide(table.state, Steal(BEN))
    problem = audited(table, refused).problem
    assert (problem.line, problem.kind) == (len(table.log) + 1, "rules")
    assert problem.message == f"gift_stolen: {message}"
    table.open(ANN, "O4")  # an open ends the chain: Dev may steal again
    assert table.state.counts.steals_since_open == 0
    assert steals(table.state) == [(ANN, "O4"), (BEN, "Y9"), (CAT, "R7")]


def test_a_cap_of_two_allows_two_steals_in_a_row():
    table = chain_table(2)
    table.steal(CAT, ANN, "R7")
    table.steal(ANN, BEN, "Y9")
    assert table.state.player_to_move == BEN
    table.refuse(table.steal_event(BEN, CAT, "R7"), "2 steals have been made since the last open")
    assert steals(table.state) == []


def test_a_voided_steal_counts_toward_nothing():
    table = chain_table(1)
    table.steal(CAT, ANN, "R7")
    table.void(table.seq)  # the steal never happened: Cat is to move again, with no steal made
    assert table.state.player_to_move == CAT and table.state.counts.steals_since_open == 0
    table.steal(CAT, BEN, "Y9")  # allowed: the voided steal is not counted
    table.refuse(table.steal_event(BEN, ANN, "R7"), "Ben must open a gift")
    assert audited(table).problem is None


def test_the_count_starts_again_in_every_party():
    table = four_players(None, sizes=2, options={"max_steals_between_opens": 1})
    table.bring_all({ANN: None, BEN: None, CAT: None, DEV: None})
    table.open(ANN, "R7")
    table.steal(BEN, ANN, "R7")
    table.open(ANN, "Y9")
    table.open(CAT, "O4")
    table.steal(DEV, CAT, "O4")
    table.open(CAT, "G1")  # the last open of party 1
    assert table.state.party == 2 and table.state.counts.steals_since_open == 0


# --- starter_final_swap --------------------------------------------------------------------------


def swap_table(sizes: int = 2, options=None) -> Table:
    """Ann, Ben, Cat, unseen brings, Ann starts party 1. Ann opens R7, Ben opens Y9, Cat steals
    R7, Ann opens O4: the last gift; holdings Ann O4, Ben Y9, Cat R7."""
    table = three_players(None, sizes=sizes, options={"starter_final_swap": True, **(options or {})})
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "R7")
    table.open(BEN, "Y9")
    table.steal(CAT, ANN, "R7")
    table.open(ANN, "O4")
    return table


def test_after_the_last_open_the_starter_swaps_and_the_party_ends():
    table = swap_table()
    state = table.state
    assert state.phase is Phase.FINAL_SWAP and state.party == 1
    assert state.player_to_move == ANN and state.holdings == {ANN: "O4", BEN: "Y9", CAT: "R7"}
    assert state.locked == frozenset()  # the last open unlocked R7, stolen just before
    assert swaps(state) == [("", ""), (BEN, "Y9"), (CAT, "R7")]
    table.swap(ANN, CAT, "R7")
    assert table.state.phase is Phase.BRINGING and table.state.party == 2
    assert table.state.kept_by == {ANN: ("R7",), BEN: ("Y9",), CAT: ("O4",)}
    assert audited(table).problem is None


def test_the_starter_may_keep():
    table = swap_table()
    table.swap(ANN, None, None)
    assert table.state.kept_by == {ANN: ("O4",), BEN: ("Y9",), CAT: ("R7",)}


def test_only_the_starter_swaps_and_only_what_is_held():
    table = swap_table()
    table.refuse(table.swap_event(BEN, CAT, "R7"), "only party 1's starter, Ann, may swap now, not Ben")
    table.refuse(table.swap_event(ANN, CAT, "Y9"), "Ann cannot take Y9 from Cat: Cat holds R7")
    table.refuse(table.swap_event(ANN, ANN, "O4"), "Ann cannot swap with themselves")
    table.refuse(table.swap_event(ANN, CAT, "R7", party=2), "wrong party")
    with pytest.raises(RuleViolation, match="only party 1's starter, Ann"):
        decide(table.state, Swap(CAT, player=BEN))
    assert [event_payload(e) for e in decide(table.state, Swap("cat"))] == [
        ("final_swap", {"party": 1, "player": ANN, "with": CAT, "takes": "R7"})
    ]


def test_nothing_else_happens_until_the_starter_decides():
    table = swap_table()
    table.refuse(table.bring_event(BEN, None, party=2), "waiting for its starter Ann's final swap")
    table.refuse(table.open_event(BEN, "B2"), "waiting for its starter Ann's final swap")
    table.refuse(table.steal_event(BEN, CAT, "R7"), "waiting for its starter Ann's final swap")
    assert not table.state.is_over


def test_the_last_party_is_complete_only_after_its_swap():
    table = swap_table(sizes=1)
    assert table.state.phase is Phase.FINAL_SWAP and not table.state.is_over
    table.refuse(ev("tie_broken", winner=ANN, reason="speech"), "waiting for its starter Ann's final swap")
    assert audited(table).state.is_over is False
    table.swap(ANN, BEN, "Y9")
    assert table.state.is_over
    assert table.state.kept_by == {ANN: ("Y9",), BEN: ("O4",), CAT: ("R7",)}


def test_voiding_a_final_swap_waits_for_the_starter_again():
    table = swap_table()
    before = table.state
    table.swap(ANN, CAT, "R7")
    table.void(table.seq)
    assert table.state == before and table.state.phase is Phase.FINAL_SWAP
    table.swap(ANN, None, None)
    assert table.state.kept_by[ANN] == ("O4",)
    assert audited(table).problem is None


def test_a_frozen_gift_is_neither_given_nor_taken():
    table = swap_table(options={"max_steals_per_gift": 1})  # Cat's steal froze R7
    assert table.state.frozen == {"R7"}
    assert swaps(table.state) == [("", ""), (BEN, "Y9")]
    table.refuse(table.swap_event(ANN, CAT, "R7"), "R7 has been stolen 1 times this party and is frozen")


def test_a_starter_holding_a_frozen_gift_can_only_keep():
    table = three_players(None, sizes=2, options={"starter_final_swap": True, "max_steals_per_gift": 1})
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "R7")
    table.steal(BEN, ANN, "R7")  # R7 frozen, now Ben's
    table.open(ANN, "Y9")
    table.steal(CAT, ANN, "Y9")  # Y9 frozen
    table.open(ANN, "O4")  # last gift; Ann holds O4, not frozen
    assert swaps(table.state) == [("", "")]  # every other gift is frozen
    table.swap(ANN, None, None)
    # Party 2: Ben starts. Ben's own gift frozen: only keeping is left.
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(BEN, "B1")
    table.open(CAT, "B2")
    table.steal(ANN, BEN, "B1")  # B1 frozen; Ben to move
    table.steal(BEN, CAT, "B2")  # B2 frozen; Cat to move, Ben holds B2
    table.open(CAT, "B3")
    assert table.state.phase is Phase.FINAL_SWAP
    assert swaps(table.state) == [("", "")]
    table.refuse(table.swap_event(BEN, CAT, "B3"), "B2 has been stolen 1 times this party and is frozen")


def test_a_final_swap_without_the_house_rule_is_a_rules_problem():
    table = three_players(None, sizes=1)
    table.bring_all({ANN: None, BEN: None, CAT: None})
    table.open(ANN, "R7")
    table.open(BEN, "Y9")
    swap = table.swap_event(ANN, None, None)
    table.refuse(swap, "there is no final swap in this game: its house rule is not played")
    problem = audited(table, swap).problem
    assert problem is not None and problem.kind == "rules"
    table.open(CAT, "O4")
    assert table.state.is_over


def test_the_swap_is_not_a_steal():
    # Under both rules, a chain capped at 1 and a swap at the end: the swap counts toward nothing
    # and the next party starts with no steal made.
    table = swap_table(options={"max_steals_between_opens": 1, "max_steals_per_gift": 2})
    table.swap(ANN, CAT, "R7")
    assert table.state.counts.steals_since_open == 0
    assert table.state.counts.steals_of_gift == {}
