"""The "not a player" refusal when the name differs from a player only in its Unicode encoding:
printed as they are the two would read the same, so both are spelled with escapes."""

from __future__ import annotations

import pytest

from wecore.names import not_a_player

PLAYERS = ["Ann", "Zo\u00eb", "Cat"]


@pytest.mark.parametrize(
    ("name", "player"),
    [("Zoe\u0308", "Zo\u00eb"), ("\uff21nn", "Ann")],  # decomposed; a fullwidth A (NFKC)
)
def test_a_name_that_differs_only_in_encoding_is_spelled_with_escapes(name: str, player: str) -> None:
    sentence = not_a_player(name, PLAYERS)
    assert sentence.startswith(f"{name!a} is not a player in this game (Ann, Zoë, Cat)")
    assert f"it differs from {player!a} only in how its characters are encoded" in sentence
    assert name not in sentence  # never as it prints: it would read as the player's name


def test_any_other_name_is_quoted_as_before() -> None:
    assert not_a_player("Dan", PLAYERS) == "'Dan' is not a player in this game (Ann, Zoë, Cat)"
