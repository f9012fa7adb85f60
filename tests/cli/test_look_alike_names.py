"""Names a person cannot tell apart, and names read exactly (issue 35; log-format "Names"):
writers refuse a look-alike set, `we audit` warns about one, and payload names are compared
code point for code point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from weharness import ROOT, VECTORS, sealed, we

from wecore.names import (
    _prototypes,
    look_alike,
    look_alike_sentence,
    name_refusal,
    players_refusal,
    skeleton,
    without_invisibles,
)

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


ASTRONAUT, RAINBOW_FLAG = "\U0001f469\u200d\U0001f680", "\U0001f3f3\ufe0f\u200d\U0001f308"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("\u202eneB", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
        ("Ben\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
        ("Ben\u061c", "U+061C ARABIC LETTER MARK, a bidi control"),
        ("\u200eBen", "U+200E LEFT-TO-RIGHT MARK, a bidi control"),
        ("Ben\u2069", "U+2069 POP DIRECTIONAL ISOLATE, a bidi control"),
        ("Ben\u2800", "U+2800 BRAILLE PATTERN BLANK, which draws nothing"),
        ("Ben\u3164", "U+3164 HANGUL FILLER, which draws nothing"),
        ("B\u115fen", "U+115F HANGUL CHOSEONG FILLER, which draws nothing"),
        ("Be\uffa0n", "U+FFA0 HALFWIDTH HANGUL FILLER, which draws nothing"),
        ("Ben\u00ad", "U+00AD SOFT HYPHEN, which draws nothing"),
        ("Ben\u2060", "U+2060 WORD JOINER, which draws nothing"),
        ("B\U000e0041en", "U+E0041 TAG LATIN CAPITAL LETTER A, which draws nothing"),
        ("Ann\u00a0Lee", "U+00A0 NO-BREAK SPACE, a space that reads as the ordinary one"),
        ("Ann\tLee", "U+0009, a space that reads as the ordinary one"),
        ("A\u200dnn", "U+200D ZERO WIDTH JOINER, which draws nothing"),  # not between emoji
        ("Ann\ufe0f", "U+FE0F VARIATION SELECTOR-16, which draws nothing"),  # not after an emoji
        ("\u2800", "is only characters that draw nothing (U+2800 BRAILLE PATTERN BLANK)"),
        ("\u00ad\u200b", "is only characters that draw nothing (U+00AD SOFT HYPHEN)"),
    ],
)
def test_a_name_a_person_cannot_read_as_it_is_is_refused_naming_the_character(name: str, said: str) -> None:
    refusal = name_refusal(name)
    assert refusal is not None and said in refusal, refusal
    assert repr(name) in refusal
    assert players_refusal(["Ann", name, "Cat"]) == refusal or name.startswith("Ann")


@pytest.mark.parametrize(
    "name",
    [
        "Ann",
        "Zoë",
        "李雷",
        "🎅 Santa",
        "Ann Lee",
        ASTRONAUT,
        RAINBOW_FLAG,
        "❤\ufe0f",
        "1\ufe0f\u20e3",
        "👍🏽",
    ],
)
def test_names_and_emoji_that_show_as_they_are_pass(name: str) -> None:
    assert name_refusal(name) is None


@pytest.mark.parametrize(
    ("players", "pair"),
    [
        (["Ann", "Ben", "Ben\u2800"], ("Ben", "Ben\u2800")),  # a Braille blank
        (["Ann", "Ben", "Ben\u3164"], ("Ben", "Ben\u3164")),  # a Hangul filler
        (["Ann Lee", "Ann\u00a0Lee", "Cat"], ("Ann Lee", "Ann\u00a0Lee")),  # another space
        (["Ann", "Ben", "B\u00aden"], ("Ben", "B\u00aden")),  # a soft hyphen
    ],
)
def test_a_pair_alike_once_what_draws_nothing_is_taken_out_is_found(
    players: list[str], pair: tuple[str, str]
) -> None:
    found = look_alike(players)
    assert found is not None and found[:2] == pair


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ("Ann,Ben,\u202eneB", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Ann,Ben,Ben\u2800", "U+2800 BRAILLE PATTERN BLANK"),
        ("Ann,\u2800,Cat", "only characters that draw nothing"),
    ],
)
def test_we_record_refuses_a_name_a_person_cannot_read(tmp_path: Path, players: str, said: str) -> None:
    out = tmp_path / "new.jsonl"
    result = we("record", out, "--players", players, "--dealer", "Cat" if "Cat" in players else "Ann",
                "--lists", "Ann=RGY", input="")  # fmt: skip
    assert result.exit_code == 2, result.stderr
    assert said in result.stderr
    assert not out.exists() or b"game_started" not in out.read_bytes()


def test_we_record_takes_an_emoji_name(tmp_path: Path) -> None:
    out = tmp_path / "new.jsonl"
    players = f"{ASTRONAUT},Ben,Cat"
    lists = f"{ASTRONAUT}=RGY,Ben=BGO,Cat=RBO"
    result = we("record", out, "--players", players, "--dealer", "Cat", "--lists", lists, input="quit\n")
    assert "draws nothing" not in result.stderr and "bidi" not in result.stderr, result.stderr
    first = orjson.loads(out.read_bytes().splitlines()[0])
    assert first["data"]["players"] == [ASTRONAUT, "Ben", "Cat"]


def test_we_audit_warns_on_a_name_a_writer_would_refuse_and_the_log_passes(tmp_path: Path) -> None:
    log = sealed(tmp_path / "override.jsonl", _four({"Ann": "\u202eneB", "Ben": "Ben\u2800"}))
    as_json = orjson.loads(we("audit", "--json", log).stdout)
    assert as_json["ok"] is True
    warnings = " | ".join(as_json["warnings"])
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in warnings and "U+2800 BRAILLE PATTERN BLANK" in warnings
    audited = we("audit", log)
    assert audited.exit_code == 0 and audited.stdout.startswith("OK")
    assert "\u202e" not in audited.stdout  # the override itself never reaches the terminal


def test_an_ascii_character_has_the_prototype_the_confusables_data_gives() -> None:
    # ASCII names take a short table instead of the data (`_ASCII_PROTOTYPES`): it must be the
    # data's own answer for every ASCII character, whatever version of the data is installed.
    prototypes = _prototypes()
    for code in range(128):
        char = chr(code)
        seen = without_invisibles(char)
        assert skeleton(char) == "".join(prototypes.get(c, c) for c in seen), repr(char)


def test_names_in_ascii_are_told_apart_without_loading_the_confusables_data() -> None:
    code = (
        "import sys\n"
        "from wecore.names import look_alike, players_refusal\n"
        "assert look_alike(['Al', 'AI', 'Cat'])[:2] == ('Al', 'AI')\n"
        "assert players_refusal(['Ann', 'Ben', 'Cat', 'O|ga']) is None\n"
        "print(sorted(m for m in sys.modules if m.startswith('confusable_homoglyphs')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "[]"
