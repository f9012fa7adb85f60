"""Golden playthroughs: seeded games written out state by state, compared on every run.

The files are tests/core/golden/*.txt. Regenerate them ONLY on purpose, after a deliberate
change to dealing, bots, rules or the rendering, and review the diff:

    python -m tests.core.regen_golden
or
    WE_REGEN_GOLDEN=1 python -m pytest tests/core/test_golden.py
"""

import difflib
import os

import pytest

from .golden_render import GAMES, REGEN_COMMAND, golden_path, golden_text

REGEN = os.environ.get("WE_REGEN_GOLDEN") == "1"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name):
    path = golden_path(name)
    text = golden_text(name)
    if REGEN:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run {REGEN_COMMAND}"
    stored = path.read_text(encoding="utf-8")
    if stored != text:
        diff = "".join(
            list(
                difflib.unified_diff(
                    stored.splitlines(keepends=True), text.splitlines(keepends=True), "stored", "now", n=2
                )
            )[:60]
        )
        pytest.fail(
            f"{path.name} differs from the game played now (regenerate on purpose: {REGEN_COMMAND})\n{diff}"
        )


def test_golden_games_are_complete():
    for name in GAMES:
        lines = golden_path(name).read_text(encoding="utf-8").splitlines()
        phases = [line for line in lines if line.startswith("  phase: ")]
        assert phases[-1].startswith("  phase: over")
        assert "winners:" in lines[-1]


def test_hand_golden_game_ends_with_the_tie_broken_for_cat():
    # Worked out by hand (games.py): Ann 9, Ben 8, Cat 9, and the tie goes to Cat.
    last = golden_path("3p-hand-void-note-tie").read_text(encoding="utf-8").splitlines()[-1]
    assert last == "  scores: Ann=9 Ben=8 Cat=9 | winners: Cat"
