"""`we score GAME`: standings, --explain, --json, and invalid games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from weharness import NEW3, VECTORS, one_error_line, read_log, we

FOUR = VECTORS / "four-players-dealt.jsonl"


def test_json_shape_and_values_for_the_four_player_vector():
    result = we("score", FOUR, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == ["game", "complete", "scores", "winners", "breakdown", "kept"]
    assert data["game"] == "vector-two"
    assert data["complete"] is True
    assert data["scores"] == {"Ann": 22, "Ben": 22, "Cat": 4, "Dev": 4}
    assert data["winners"] == ["Ann", "Ben"]
    assert data["breakdown"] == {
        "Ann": {"red": "R8", "orange": "O8", "blue": "B6"},
        "Ben": {"red": "R5", "yellow": "Y9", "blue": "B8"},
        "Cat": {"orange": None, "yellow": "Y1", "green": "G3"},
        "Dev": {"orange": "O1", "yellow": None, "blue": "B3"},
    }
    assert data["kept"]["Ann"] == ["R8", "Y6", "R3", "Y2", "Y10", "Y3", "B6", "O8"]
    assert {name: len(cards) for name, cards in data["kept"].items()} == dict.fromkeys(data["scores"], 8)


def test_json_of_the_one_party_vector():
    data = json.loads(we("score", VECTORS / "one-party.jsonl", "--json").stdout)
    assert data["scores"] == {"Zo\u00eb": 0, "Ben": 4, "Cat": 10}
    assert data["winners"] == ["Cat"]
    assert data["kept"] == {"Zo\u00eb": ["B2"], "Ben": ["Y4"], "Cat": ["R10"]}


def test_an_unfinished_game_names_the_leaders_so_far(tmp_path):
    log = tmp_path / "half.jsonl"
    log.write_bytes(b"".join(FOUR.read_bytes().splitlines(keepends=True)[:30]))
    data = json.loads(we("score", log, "--json").stdout)
    # After two parties: Ann R8 Y6 -> 8, Ben B8 O9 -> 8, Cat B10 Y1 -> 1, Dev O1 B1 -> 2.
    assert data["complete"] is False
    assert data["scores"] == {"Ann": 8, "Ben": 8, "Cat": 1, "Dev": 2}
    assert data["winners"] == ["Ann", "Ben"]
    text = we("score", log).stdout
    assert "in progress \u2014 2 of 8 parties played" in text
    assert "Standings so far" in text and "(winner)" not in text


def test_a_broken_tie_has_one_winner(tmp_path):
    log = tmp_path / "tie.jsonl"
    script = "open R7\nopen B7\nopen Y1\ntie bob the best speech\n"
    assert we("record", log, *NEW3, "--attic-size", "1", input=script).exit_code == 0
    data = json.loads(we("score", log, "--json").stdout)
    assert data["scores"] == {"Ann": 7, "Bob": 7, "Cat": 0}
    assert data["winners"] == ["Bob"]
    assert "Winner: Bob (tie broken: the best speech)." in we("score", log).stdout


def test_plain_standings_and_explain():
    plain = we("score", FOUR)
    assert plain.exit_code == 0
    assert "vector-two: complete" in plain.stdout
    assert "Tie: Ann, Ben share the win." in plain.stdout
    assert "not counted" not in plain.stdout
    assert plain.stdout.splitlines()[-1] == "Fingerprint: 533f2d2596f7"
    explained = we("score", FOUR, "--explain").stdout
    assert "Ann: red R8 (party 1) + orange O8 (party 8) + blue B6 (party 7) = 22" in explained
    assert "not counted: R3 (lower than R8), Y2 Y3 Y6 Y10 (yellow is not on the list)" in explained
    assert "Cat: orange - + yellow Y1 (party 2) + green G3 (party 6) = 4" in explained
    assert "\x1b[" not in explained


def test_an_invalid_game_exits_1_with_its_first_problem():
    result = we("score", VECTORS / "four-players-edited.jsonl", "--json")
    assert result.exit_code == 1
    assert result.stdout == ""
    line = one_error_line(result)
    assert "line 20: integrity: `hash` does not match the content" in line


def test_a_game_breaking_a_rule_exits_1(tmp_path):
    from eventstore.envelope import seal

    envelopes = read_log(VECTORS / "one-party.jsonl")[:5]
    bad = seal(
        "vector-one",
        6,
        "2026-11-26T19:00:06Z",
        "gift_opened",
        {"party": 1, "player": "Ben", "card": "Y4"},
        envelopes[-1]["hash"],
    )
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in envelopes) + bad.to_line())
    result = we("score", log)
    assert result.exit_code == 1
    assert "line 6: rules: gift_opened: it is Zo\u00eb's turn, not Ben's" in one_error_line(result)


def test_no_such_game(tmp_path):
    result = we("score", "no-such-game", "--db", tmp_path / "games.db")
    assert result.exit_code == 1
    assert "no game 'no-such-game'" in one_error_line(result)


def test_after_a_tie_break_the_winner_is_listed_first():
    """Ben and Cat tie on 19; Cat wins the tie-break, so Cat heads the standings, alone in first."""
    from weharness import ROOT

    result = we("score", ROOT / "replays" / "tie-5p.jsonl")
    assert result.exit_code == 0, result.stderr
    rows = [line.split("│") for line in result.stdout.splitlines() if "│" in line]
    assert [(r[0].strip(), r[1].strip()) for r in rows[:2]] == [("1", "Cat (winner)"), ("2", "Ben")]


@pytest.mark.parametrize("command", ["score", "audit", "replay", "analyse"])
def test_a_file_that_is_no_game_log_is_said_so_in_one_line_not_as_a_list_of_problems(
    tmp_path: Path, command: str
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# we\n\nWhite Elephant at the table.\n" + "A line of prose.\n" * 900)
    result = we(command, readme)
    assert result.exit_code == 1
    said = "line 1: integrity: not a game log (its first line is not a JSON object)"
    if command == "audit":  # a verdict, as for any log given to the audit (one problem, not 901)
        assert said in result.output and "1 problem" in result.output, result.output
        assert "more" not in result.output
        return
    line = one_error_line(result)
    assert line == f"we: error: {readme}: {said}"
