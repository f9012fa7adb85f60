"""Chance is one shape in the model (wecore.moves.ChanceMove, `is_chance`): the decider, the bots,
analysis, search and the OpenSpiel adapter ask `is_chance` before their `match` over the moves a
player chooses, so a new chance kind needs no branch in any of them."""

from __future__ import annotations

import pathlib
import re

from wecore.kinds import CHANCE_MOVES, CHOSEN_MOVE_NAMES, MOVE_KINDS
from wecore.moves import CHANCE_CLASSES, MOVE_CLASSES, is_chance

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONSUMERS = ("wecore/decider.py", "wecore/bots.py", "wecore/analysis.py", "wecore/search.py")


def test_no_consumer_names_a_chance_kind() -> None:
    named = re.compile(r"\bRoll\b|\"roll\"|'roll'")
    files = [ROOT / path for path in CONSUMERS] + sorted((ROOT / "weai").glob("*.py"))
    offences = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if named.search(line)
    ]
    assert offences == []


def test_every_chance_kind_is_a_chance_move_and_no_other_is() -> None:
    assert set(CHANCE_CLASSES) == CHANCE_MOVES == {kind.move for kind in MOVE_KINDS if kind.outcomes}
    for cls in MOVE_CLASSES:
        assert (cls.TYPE in CHANCE_MOVES) == (cls in CHANCE_CLASSES.values())
    assert set(CHOSEN_MOVE_NAMES).isdisjoint(CHANCE_MOVES)
    for move_type, cls in CHANCE_CLASSES.items():
        assert is_chance(cls(1)), move_type


def test_openspiel_numbers_no_action_for_chance() -> None:
    from weai import match

    assert set(match.ACTION_BLOCKS) == set(CHOSEN_MOVE_NAMES)


def test_openspiel_exposes_every_house_rule_and_numbers_actions_as_documented() -> None:
    from weai import match
    from wecore.rulesets import HOUSE_RULES

    assert set(match.HOUSE_RULE_PARAMETERS) == {rule.name for rule in HOUSE_RULES}
    # The docstring's numbering is the blocks' (from the kinds), not a second, hand-kept one.
    firsts = {move: (block.first, block.size) for move, block in match.ACTION_BLOCKS.items()}
    assert firsts == {"bring": (0, 51), "open": (51, 8), "steal": (59, 7), "swap": (66, 8)}
    assert match.NUM_ACTIONS == 74 and "NUM_ACTIONS: 74" in (match.__doc__ or "")
