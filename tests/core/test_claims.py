"""Claims settled by the core alone (wecore.claims), the way `we audit --claim` asks."""

from __future__ import annotations

from wecore.cards import HIGHEST_SCORE
from wecore.claims import CardHistory, check_claim, explain_difference
from wecore.scoring import score

from .games import game_one_winner


def test_a_true_claim_holds_and_a_false_one_is_left_to_explain() -> None:
    table = game_one_winner()
    state = table.state
    board = score(state)
    held = check_claim(state, board, "ann", 14)
    assert held is not None and held.holds and held.player == "Ann"
    assert check_claim(state, board, "Ann", 15) is None
    untrusted = check_claim(state, board, "Ann", 14, failed_at=(7, "rules"))
    assert untrusted is not None and not untrusted.holds
    assert "failed the audit at line 7 (rules)" in untrusted.explanation


def test_a_failed_claim_is_told_card_by_card() -> None:
    table = game_one_winner()
    state = table.state
    history = CardHistory.of((table.log[seq - 1] for seq in state.seqs_in_effect()), state.players)
    result = explain_difference(state, score(state), "Ben", 12, history)
    assert result.actual == 10 and not result.holds
    assert result.explanation.startswith("Ben claims 12 but scores 10: red counts R6")
    assert "Ben would need any one of R8 as red (R8 in place of R6" in result.explanation
    # Alternatives are joined with "or", never with "; " as if every one were needed.
    needs = result.explanation.split("would need any one of ")[1]
    assert ", or " in needs and "; " not in needs.split(" (")[0]
    beyond = explain_difference(state, score(state), "Ben", HIGHEST_SCORE + 1, history)
    assert beyond.explanation.endswith(f"no score can be above {HIGHEST_SCORE}")
