"""Names a person cannot tell apart, and names read exactly (issue 35; log-format "Names"):
writers refuse a look-alike set, `we audit` warns about one, and payload names are compared
code point for code point."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from weharness import VECTORS, sealed, we

from wecore.names import look_alike, look_alike_sentence

FOUR = VECTORS / "four-players-dealt.jsonl"
COMPOSED, DECOMPOSED = "Zo\u00eb", "Zoe\u0308"


@pytest.mark.parametrize(
    ("players", "pair"),
    [
        (["Ann", "\u0410nn", "Cat"], ("Ann", "\u0410nn")),  # a Cyrillic А
        (["Ann", "Ann\u200b", "Cat"], ("Ann", "Ann\u200b")),  # a zero-width space
        (["Ann", "Ben", "A\u202enn"], ("Ann", "A\u202enn")),  # a bidi override
        (["Ann", "ANN"], ("Ann", "ANN")),
        (["\uff21nn", "Ben", "Ann"], ("\uff21nn", "Ann")),  # a full-width Ａ
        ([COMPOSED, "Ben", DECOMPOSED], (COMPOSED, DECOMPOSED)),
        (["Al", "AI", "Cat"], ("Al", "AI")),  # l and I, one skeleton in UTS #39
    ],
)
def test_a_look_alike_pair_is_found(players: list[str], pair: tuple[str, str]) -> None:
    found = look_alike(players)
    assert found is not None and found[:2] == pair
    sentence = look_alike_sentence(players)
    assert sentence is not None and repr(pair[0]) in sentence and repr(pair[1]) in sentence


@pytest.mark.parametrize(
    "players", [["Ann", "Ben", "Cat"], ["Zoë", "Zoe", "Jo"], ["Mia", "Mía", "Ana", "Anna"]]
)
def test_names_a_person_tells_apart_pass(players: list[str]) -> None:
    assert look_alike(players) is None and look_alike_sentence(players) is None


def test_we_record_refuses_a_look_alike_set_at_set_up(tmp_path: Path) -> None:
    out = tmp_path / "new.jsonl"
    players = "Ann,\u0410nn,Cat"
    result = we("record", out, "--players", players, "--dealer", "Cat", "--lists", "Cat=RGY", input="")
    assert result.exit_code == 2, result.stderr
    assert "cannot be told apart" in result.stderr and "'\u0410nn'" in result.stderr
    assert not out.exists() or b"game_started" not in out.read_bytes()


def _four(renamed: dict[str, str]) -> list[dict]:
    text = FOUR.read_text(encoding="utf-8")
    for old, new in renamed.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    return [orjson.loads(line) for line in text.splitlines()]


def test_a_name_written_another_way_in_a_move_is_an_unknown_player(tmp_path: Path) -> None:
    objs = _four({"Ann": COMPOSED})
    later = next(o for o in objs if o["seq"] > 3 and o["data"].get("player") == COMPOSED)
    later["data"]["player"] = DECOMPOSED
    log = sealed(tmp_path / "zoe-two-ways.jsonl", objs)
    audited = we("audit", log)
    assert audited.exit_code == 1, audited.stdout
    # Spelled with escapes: printed as it is, it would read the same as the player it is not.
    assert f"{DECOMPOSED!a} is not a player" in audited.stdout, audited.stdout
    assert f"it differs from {COMPOSED!a} only in how its characters are encoded" in audited.stdout


def test_two_zoes_composed_and_decomposed_are_two_players_and_a_warning(tmp_path: Path) -> None:
    log = sealed(tmp_path / "two-zoes.jsonl", _four({"Ann": COMPOSED, "Ben": DECOMPOSED}))
    audited = we("audit", log)
    assert audited.exit_code == 0, audited.stdout
    assert audited.stdout.startswith("OK")
    assert "warning" in audited.stdout and "cannot be told apart" in audited.stdout
    as_json = orjson.loads(we("audit", "--json", log).stdout)
    assert as_json["ok"] is True and len(as_json["warnings"]) == 1
    plain = orjson.loads(we("audit", "--json", FOUR).stdout)
    assert plain["ok"] is True and plain["warnings"] == []
