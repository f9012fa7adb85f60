"""Proof by deletion: a part of a kind left out fails at import, naming the kind. Each case copies
wecore/ with one place deleted and imports it in a process of its own."""

from __future__ import annotations

import inspect
import pathlib
import shutil
import subprocess
import sys

import pytest

from wecore.kinds import union_refusal
from wecore.state import Phase
from wecore.turns import Turn, page_marks, status_line, table_heading, worded

ROOT = pathlib.Path(__file__).resolve().parents[2]

DELETIONS = [
    ("events.py", "    | DieRolled\n", "AnyEvent leaves out die_rolled"),
    ("kinds/__init__.py", "    swap_after_open.KIND,\n", "the registry leaves out swap_after_open"),
    ("kinds/final_swap.py", '    typed_prompt="may swap (swap NAME / keep)",\n', "final_swap must say how"),
    ("kinds/die.py", '    acting_badge="rolls",\n', "die_rolled must say how its phase is worded"),
    ("kinds/die.py", "    chance_refusal=refusal,\n", "must carry its refusal of an outcome"),
    ("moves.py", "class Roll(ChanceMove):", "Move leaves out roll"),
]


@pytest.mark.parametrize(("path", "deleted", "said"), DELETIONS)
def test_a_part_left_out_fails_at_import(tmp_path: pathlib.Path, path: str, deleted: str, said: str) -> None:
    copy = tmp_path / "wecore"
    shutil.copytree(ROOT / "wecore", copy)
    source = (copy / path).read_text(encoding="utf-8")
    assert deleted in source
    replacement = "class Roll:" if deleted.startswith("class Roll") else ""
    (copy / path).write_text(source.replace(deleted, replacement, 1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", "import wecore.events, wecore.moves, wecore.turns"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "ImportError" in done.stderr and said in done.stderr, done.stderr[-500:]


def test_a_union_is_told_what_it_leaves_out_and_what_it_names_wrongly() -> None:
    assert union_refusal("U", {"a", "b"}, ["a", "b"]) is None
    assert union_refusal("U", {"a", "x"}, ["a", "b"]) == (
        "U leaves out b and names x, which wecore.kinds does not declare"
    )


def test_worded_has_one_wording_for_every_house_rules_phase() -> None:
    keywords = set(inspect.signature(worded).parameters) - {"t"}
    assert keywords == {"playing", "first_open", "bringing", "over", "setting_up", "not_started", "acting"}
    for phase in Phase:
        t = Turn(phase, 1, 3, "Ann", "Ann", (), True)
        assert status_line(t) and table_heading(t) and isinstance(page_marks(t)["turn_badge"], str)
