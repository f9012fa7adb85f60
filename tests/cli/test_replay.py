"""`we replay GAME`: the story, --at, --party, --as, --json, --html, damaged logs."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from weharness import VECTORS, one_error_line, read_log, we

from wecore.events import parse_event
from wecore.reducer import fold
from wecore.views import view

ONE = VECTORS / "one-party.jsonl"
FOUR = VECTORS / "four-players-dealt.jsonl"
EDITED = VECTORS / "four-players-edited.jsonl"


def expected_json(path, seq, viewer):
    envelopes = read_log(path)
    state = fold(parse_event(e["type"], e["data"]) for e in envelopes[:seq])
    data = json.loads(json.dumps(view(state, viewer, omniscient=viewer is None).to_dict()))
    data.update(game=envelopes[0]["game"], seq=seq, fingerprint=envelopes[seq - 1]["hash"][7:19])
    return data


def test_the_story_with_party_header_voided_event_and_standings():
    result = we("replay", ONE)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("   1  Game \u201cTest vector one\u201d starts: Zo\u00eb, Ben, Cat in")
    assert "\u2500\u2500 Party 1 of 1 \u00b7 Zo\u00eb starts \u2500\u2500" in lines
    assert "   7  Ben steals Y4 from Zo\u00eb, who moves next; Y4 is locked until a gift is opened." in lines
    assert '   8  Note: Zo\u00eb says: "I\'ll remember that"' in lines
    # The voided open is shown, marked, and the void says what it took back.
    assert "  10  Cat opens B2: the last gift, the game is over.  [voided by event 11]" in lines
    assert (
        "  11  Event 10 is taken back (Cat stole instead; typed the wrong move): Cat opening B2 never"
        " happened; Cat to move." in lines
    )
    assert "  13  Zo\u00eb opens B2: the last gift, the game is over." in lines
    assert "Winner: Cat." in lines
    assert lines[-1] == "Fingerprint: abb6aa1e5ad9"
    assert "\x1b[" not in result.stdout  # not a terminal: plain text


def test_at_stops_the_story_and_shows_the_table():
    result = we("replay", FOUR, "--at", "12")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "  12  Dev steals O1 from Cat" in out and "  13  " not in out
    assert "The table after event 12" in out
    assert "Party 1 of 8: Cat to move." in out
    assert "Locked: O1" in out
    assert "Face down: 1 gift \u2014 known: R8" in out  # omniscient: the face-down card is shown
    assert "Fingerprint at event 12: 1497d57fff0c" in out


def test_party_shows_only_that_party_and_the_table_at_its_end():
    result = we("replay", FOUR, "--party", "2")
    assert result.exit_code == 0, result.stderr
    seqs = [int(line.split()[0]) for line in result.stdout.splitlines() if line[:4].strip().isdigit()]
    assert seqs == list(range(16, 28))
    assert "The table after party 2 (event 27)" in result.stdout
    ann = next(line for line in result.stdout.splitlines() if line.startswith("Ann "))
    assert "R8 Y6" in ann  # kept after two parties


def test_as_a_player_hides_what_that_seat_could_not_know():
    result = we("replay", FOUR, "--as", "dEV", "--at", "19")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "As seen from Dev's seat." in out
    assert "   4  Ann brings a gift face down." in out
    assert "   5  Dev brings O1 face down." in out
    assert "Attics dealt (8 cards each); yours: Y3 R3 O1 O9 Y8 B2 Y2 Y10." in out
    assert "B10 face down" not in out and "Ann O10" not in out
    assert "Face down: 4 gifts \u2014 known: O9, and 3 unseen" in out
    assert "6 cards" in out  # other attics only as counts (8 dealt, two brought)


def test_json_is_the_view_plus_game_seq_fingerprint():
    cases = (([], 87, None), (["--at", "30"], 30, None), (["--at", "30", "--as", "ben"], 30, "Ben"))
    for args, seq, viewer in cases:
        result = we("replay", FOUR, "--json", *args)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == expected_json(FOUR, seq, viewer)
    final = json.loads(we("replay", FOUR, "--json").stdout)
    assert final["complete"] is True and final["winners"] == ["Ann", "Ben"] and final["seq"] == 87
    assert final["fingerprint"] == "533f2d2596f7"


def test_json_for_a_party_is_the_table_at_its_end():
    data = json.loads(we("replay", FOUR, "--json", "--party", "1").stdout)
    assert data == expected_json(FOUR, 15, None)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--at", "88"], "--at 88: "),
        (["--as", "Zed"], "--as: 'Zed' is not a player here (Ann, Ben, Cat, Dev)"),
        (["--party", "9"], "--party 9: no events of party 9"),
        (["--party", "3", "--at", "20"], "--party 3: no events of party 3"),
    ],
)
def test_requests_the_game_cannot_answer_exit_1_with_one_line(args, message):
    result = we("replay", FOUR, *args)
    assert result.exit_code == 1
    assert message in one_error_line(result)
    assert result.stdout == ""


def test_at_beyond_the_end_names_the_length():
    assert "has only 87 events" in one_error_line(we("replay", FOUR, "--at", "88"))


def test_usage_errors_exit_2():
    assert we("replay", FOUR, "--at", "0").exit_code == 2
    assert we("replay", FOUR, "--party", "x").exit_code == 2
    assert we("replay").exit_code == 2


def test_a_missing_game_is_one_line(tmp_path):
    result = we("replay", tmp_path / "nope.jsonl", "--db", tmp_path / "none.db")
    assert result.exit_code == 1
    assert "nope.jsonl" in one_error_line(result)


def test_a_damaged_log_is_replayed_up_to_its_first_problem(tmp_path):
    result = we("replay", EDITED)
    assert result.exit_code == 1
    assert "  19  Ann brings Y1 face down" in result.stdout
    assert "  20  " not in result.stdout
    assert "The table after event 19, the last that can be read" in result.stdout
    line = one_error_line(result)
    assert "replay stopped after event 19" in line and "line 20: integrity: `hash` does not match" in line


def test_a_log_breaking_a_rule_is_replayed_up_to_that_line(tmp_path):
    from eventstore.envelope import seal

    envelopes = read_log(ONE)[:6]
    bad = seal(
        "vector-one",
        7,
        "2026-11-26T19:00:07Z",
        "gift_stolen",
        {"party": 1, "player": "Ben", "from": "Cat", "card": "Y4"},
        envelopes[-1]["hash"],
    )
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in envelopes) + bad.to_line())
    result = we("replay", log)
    assert result.exit_code == 1
    assert "   6  Zo\u00eb opens Y4" in result.stdout
    line = one_error_line(result)
    assert "line 7: rules: gift_stolen: Ben cannot steal from Cat: Cat holds no gift" in line


def test_a_torn_log_stops_before_the_torn_line(tmp_path):
    log = tmp_path / "torn.jsonl"
    log.write_bytes(ONE.read_bytes()[:-30])
    result = we("replay", log)
    assert result.exit_code == 1
    assert "  12  Cat steals R10" in result.stdout
    assert "line 13: integrity: torn last line" in one_error_line(result)


def test_html_writes_the_page(tmp_path):
    out = tmp_path / "replay.html"
    result = we("replay", ONE, "--html", out)
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!") and "abb6aa1e5ad9" in page
    assert "Wrote" in result.stderr


def test_html_as_a_player(tmp_path):
    out = tmp_path / "ben.html"
    assert we("replay", FOUR, "--html", out, "--as", "be").exit_code == 0
    assert "seen from <bdi>Ben</bdi>" in out.read_text(encoding="utf-8")  # the name isolated


def test_html_says_so_when_the_renderer_is_missing(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "service.replay_page", None)  # import fails
    result = we("replay", ONE, "--html", tmp_path / "x.html")
    assert result.exit_code == 1
    assert "--html is not available" in one_error_line(result)


def test_a_game_in_the_library_by_its_id(tmp_path):
    from eventstore.sqlite import Library

    db = tmp_path / "games.db"
    with Library(db) as library:
        library.import_log(ONE)
    result = we("replay", "vector-one", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "Fingerprint: abb6aa1e5ad9"
    assert we("replay", "vector-one", "--json", env={"WE_DB": str(db)}).exit_code == 0


def test_replay_of_a_game_recorded_with_a_note_and_undo(tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(ONE, log)
    assert we("record", log, input="undo\nnote we replayed it\n").exit_code == 0
    out = we("replay", log).stdout
    assert "  13  Zo\u00eb opens B2: the last gift, the game is over.  [voided by event 14]" in out
    assert (
        "  14  Event 13 is taken back (undone at the table): Zo\u00eb opening B2 never happened;"
        " Zo\u00eb to move." in out
    )
    assert "  15  Note: we replayed it" in out
    assert "The game is not over yet" in out


def test_json_of_a_damaged_log_is_the_last_readable_table_and_exit_1():
    result = we("replay", EDITED, "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == expected_json(EDITED, 19, None)
    assert "line 20: integrity" in one_error_line(result)


def test_undoing_the_move_that_ended_a_party_keeps_it_in_that_party(tmp_path):
    # Party 1 ends with Cat's open of B1, which is undone (event 10 voids event 9).
    log = tmp_path / "g.jsonl"
    lists = ["--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO"]
    script = "open R7\nsteal ann\nopen G9\nopen B1\nundo\nsteal ann\nopen R5\nopen O8\n"
    assert we("record", log, *lists, "--attic-size", "2", "--no-library", input=script).exit_code == 0
    story = we("replay", log).stdout
    headers = re.findall(r"Party (\d) of 2", story)
    assert headers == ["1", "2"], story
    assert story.index("Event 9 is taken back") < story.index("Party 2 of 2")
    party_two = we("replay", log, "--party", "2").stdout
    assert "taken back" not in party_two
    assert re.findall(r"^\s+(\d+)  ", party_two, re.M)[0] == "13"  # the brings of party 2, not event 10
    party_one = we("replay", log, "--party", "1").stdout
    assert "Event 9 is taken back" in party_one
