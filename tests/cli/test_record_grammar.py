"""The recorder's grammar is one table (cli.record_grammar.MOVE_WORDS): every kind of move has
words in it, a move its kind types (`roll N`) is read generically, and a word it does not know
is refused in one line."""

from __future__ import annotations

import dataclasses

import pytest
from weharness import NEW3, read_log, rejections, we

from cli.record_grammar import (
    COMMAND_WORDS,
    MOVE_WORDS,
    MOVES,
    TYPED_KINDS,
    VERBS,
    WITHOUT_WORDS,
    Rejected,
    _typed,
)
from wecore.kinds import MOVE_KINDS, MOVE_TYPE_NAMES, die
from wecore.moves import Roll, Swap


def test_every_kind_of_move_has_words_in_the_recorder() -> None:
    assert {words.move for words in MOVE_WORDS.values()} == set(MOVE_TYPE_NAMES)
    typed = [kind.typed.split()[0] for kind in MOVE_KINDS if kind.typed]
    assert typed == ["roll"]
    for verb in ("open", "steal", "swap", "keep", "bring", *typed):
        assert verb in MOVE_WORDS and verb in COMMAND_WORDS
        assert all(VERBS[form] == verb for form in MOVE_WORDS[verb].forms)
    assert MOVES == ("open", "steal", "swap", "keep", "roll")  # a name may come first: "Cat steal Ann"
    assert "keep" in WITHOUT_WORDS and "bring" not in MOVES
    assert MOVE_WORDS["keep"].parse(None, [], "Ann") == Swap(with_player=None, player="Ann")  # type: ignore[arg-type]


def test_a_typed_kind_is_read_generically() -> None:
    """A kind that types itself another way (`spin N`) gets its verb, parser and refusal from its
    declaration alone, with no word of the recorder written for it."""
    spinner = dataclasses.replace(die.KIND, typed="spin N")
    words = _typed(spinner)
    assert words.forms == ("spin", "spins") and words.move == "roll"
    assert words.parse(None, ["4"], "Ann") == Roll(4, "Ann")  # type: ignore[arg-type]
    with pytest.raises(Rejected, match=r"say what came up, e.g. `spin 6`"):
        words.parse(None, ["four"], "Ann")  # type: ignore[arg-type]
    assert set(TYPED_KINDS) == {"roll"}


def test_an_unknown_verb_is_refused_in_one_line_and_nothing_is_recorded(tmp_path) -> None:
    log = tmp_path / "g.jsonl"
    result = we("record", log, *NEW3, "--attic-size", "1", "--party-die", input="dance Ann\nopen R7\n")
    assert result.exit_code == 1, result.stderr
    refused = rejections(result)
    assert len(refused) == 1, refused
    assert "'dance' is not a command" in refused[0] and "type `help` for the list" in refused[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert [e["type"] for e in read_log(log)][-1] == "gift_opened"  # the next line is still read
