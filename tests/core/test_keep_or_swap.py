"""keep_or_swap_on_open worked by hand (rules.md): after each open its opener keeps the gift or
swaps it for an opened gift another player holds that could be stolen now. Each refusal is
checked in the reducer, in legal_moves, in the decider and on the audit's fast path."""

from __future__ import annotations

import pytest

from wecore import RuleViolation, check_events, decide, event_payload, legal_moves
from wecore.events import parse_event
from wecore.moves import Steal, Swap
from wecore.state import Phase

from .helpers import ANN, BEN, CAT, DEV, Table, four_players

OPTIONS = {"max_steals_per_gift": 1, "keep_or_swap_on_open": True}


def decision(table: Table, player: str, other: str | None, takes: str | None):
    data = {"party": table.state.party, "player": player, "with": other, "takes": takes}
    return parse_event("swap_after_open", data)


def swaps(state):
    return sorted((m.with_player or "", m.takes or "") for m in legal_moves(state) if isinstance(m, Swap))


def audited(table: Table, extra):
    rows = [event_payload(e) for e in table.log] + [event_payload(extra)]
    return check_events((seq, kind, data) for seq, (kind, data) in enumerate(rows, start=1))


def refused_everywhere(table: Table, event, words: str) -> None:
    """The reducer, the decider and the audit's fast path refuse it, in the same words."""
    table.refuse(event, words)
    move = Swap(event.with_player, event.player, event.takes)
    with pytest.raises(RuleViolation, match=words):
        decide(table.state, move)
    problem = audited(table, event).problem
    assert problem is not None and words in problem.message


def frozen_table() -> Table:
    """Four players, unseen brings, a gift stolen once is frozen. Ann opens R7 and keeps it
    (nobody else holds a gift), Ben steals it (now frozen), Ann opens Y9."""
    table = four_players(None, options=OPTIONS)
    table.bring_all({ANN: None, BEN: None, CAT: None, DEV: None})
    table.open(ANN, "R7")
    assert table.state.phase is Phase.KEEP_OR_SWAP and table.state.player_to_move == ANN
    assert legal_moves(table.state) == [Swap(None, ANN, None)]
    table.do(decision(table, ANN, None, None))
    table.steal(BEN, ANN, "R7")
    table.open(ANN, "Y9")
    return table


def test_the_opener_decides_before_anything_else():
    table = frozen_table()
    assert table.state.phase is Phase.KEEP_OR_SWAP and table.state.player_to_move == ANN
    table.refuse(table.open_event(CAT, "B5"), "Ann has just opened a gift and must first keep it or swap it")
    table.refuse(table.steal_event(ANN, BEN, "R7"), "must first keep it or swap it")
    table.refuse(table.swap_event(ANN, None, None), "there is no final swap in this game")
    refused_everywhere(table, decision(table, CAT, None, None), "only Ann, who has just opened a gift")
    table.note()  # notes come between freely
    assert table.state.phase is Phase.KEEP_OR_SWAP


def test_a_frozen_gift_cannot_be_taken_in_a_swap():
    table = frozen_table()
    assert swaps(table.state) == [("", "")]  # R7 is frozen: keeping is all Ann may do
    refused_everywhere(table, decision(table, ANN, BEN, "R7"), "is frozen")


def test_the_gift_taken_is_locked_and_nothing_is_counted():
    table = frozen_table()
    table.do(decision(table, ANN, None, None))
    table.open(CAT, "B5")
    assert swaps(table.state) == [("", ""), (ANN, "Y9")]
    counts = table.state.counts
    table.do(decision(table, CAT, ANN, "Y9"))
    state = table.state
    assert state.phase is Phase.PLAYING and state.player_to_move == DEV
    assert state.holdings == {ANN: "B5", BEN: "R7", CAT: "Y9"}
    assert state.locked == {"Y9"} and "Y9" not in state.frozen
    assert state.counts == counts  # the swap is not a steal: it counts toward no limit
    steals = sorted((m.from_player, m.card) for m in legal_moves(state) if isinstance(m, Steal))
    assert steals == [(ANN, "B5")]
    table.refuse(table.steal_event(DEV, CAT, "Y9"), "Cat just took it and no gift has been opened since")


def test_voiding_the_decision_waits_for_it_again():
    table = frozen_table()
    table.do(decision(table, ANN, None, None))
    table.void(table.seq)
    assert table.state.phase is Phase.KEEP_OR_SWAP and table.state.player_to_move == ANN


def test_without_the_house_rule_the_decision_is_a_rules_problem():
    table = four_players(None)
    table.bring_all({ANN: None, BEN: None, CAT: None, DEV: None})
    table.open(ANN, "R7")
    assert table.state.phase is Phase.PLAYING and table.state.player_to_move == BEN
    table.refuse(
        decision(table, ANN, None, None),
        "there is no swap after an open in this game: its house rule is not played (whoever opens"
        " a gift may keep it or swap it for another player's opened gift)",
    )
