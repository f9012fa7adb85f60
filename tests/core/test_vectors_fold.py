"""The shared test vectors (written by an independent implementation), folded by the core.

Only the payloads are used here: the envelope and hash chain are the store's business.
"""

import json
from pathlib import Path

import pytest

from wecore import check_events

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
EXPECTED = json.loads((VECTORS / "expected.json").read_text(encoding="utf-8"))
GOOD = sorted(name for name, verdict in EXPECTED.items() if verdict["ok"])


def rows(name):
    lines = (VECTORS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("name", GOOD)
def test_vector_scores_and_winners(name):
    verdict = EXPECTED[name]
    result = check_events((row["seq"], row["type"], row["data"]) for row in rows(name))
    assert result.problem is None
    assert result.events == verdict["events"]
    assert result.state.is_over == verdict["complete"]
    assert result.state.scores == verdict["scores"]
    assert list(result.state.winners) == verdict["winners"]


def test_one_party_vector_holdings():
    # vectors/README.md: Zoë ends with B2, Ben with Y4, Cat with R10.
    state = check_events((r["seq"], r["type"], r["data"]) for r in rows("one-party.jsonl")).state
    assert state.kept_by == {"Zoë": ("B2",), "Ben": ("Y4",), "Cat": ("R10",)}


def test_a_changed_card_is_caught_by_the_rules_when_it_breaks_them():
    data = rows("one-party.jsonl")
    data[12]["data"]["card"] = "B3"  # Zoë's last open: B3 is fine (unseen gift, never seen)...
    assert check_events((r["seq"], r["type"], r["data"]) for r in data).problem is None
    data[12]["data"]["card"] = "Y4"  # ... but Y4 was seen: a rules problem at line 13
    problem = check_events((r["seq"], r["type"], r["data"]) for r in data).problem
    assert (problem.line, problem.kind) == (13, "rules")
    data[12]["data"]["card"] = "Y11"
    problem = check_events((r["seq"], r["type"], r["data"]) for r in data).problem
    assert (problem.line, problem.kind) == (13, "schema")


@pytest.mark.parametrize("name", sorted(n for n, v in EXPECTED.items() if v.get("kind") == "rules"))
def test_vector_broken_rules_are_found_on_their_line(name):
    verdict = EXPECTED[name]
    problem = check_events((r["seq"], r["type"], r["data"]) for r in rows(name)).problem
    assert (problem.line, problem.kind) == (verdict["first_wrong_line"], "rules")


def test_keep_or_swap_vector_holdings():
    # vectors/README.md: Ann keeps Y4, Ben B9, Cat R7 (Ann's swap after her open, then her final swap).
    state = check_events((r["seq"], r["type"], r["data"]) for r in rows("keep-or-swap.jsonl")).state
    assert state.kept_by == {"Ann": ("Y4",), "Ben": ("B9",), "Cat": ("R7",)}
