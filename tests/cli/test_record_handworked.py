"""A three-player game worked out by hand, typed through a pipe in two sittings.

Ann, Bob, Cat clockwise; Cat deals, so Ann starts party 1 and Bob party 2. `--attic-size 2`:
two cards each, two parties. Lists: Ann red/green/yellow, Bob blue/green/orange,
Cat red/blue/orange.

First sitting (party 1; the three unseen brings are seq 3-5):
    6  Ann opens R7                      Bob is next
    7  Bob steals R7 from Ann            R7 locked; Ann moves
       Ann tries to steal R7 back        REJECTED: locked
    8  Ann opens G9                      locks cleared; Cat is next
    9  Cat opens Y2                      (the last gift: the party would end here)
   10  undo (voids 9)                    Y2 never seen; Cat to move again
   11  Cat steals G9 from Ann            Ann moves
   12  Ann opens R5                      the last gift: Ann keeps R5, Bob R7, Cat G9
Second sitting (party 2; unseen brings seq 13-15):
   16  Bob opens O8                      Cat is next
   17  Cat steals O8 from Bob            O8 locked; Bob moves
       Bob tries to steal O8 back        REJECTED: locked
   18  Bob opens Y2                      allowed: the voided Y2 counts as never seen; Ann is next
   19  Ann steals Y2 from Bob            Bob moves
   20  Bob opens B10                     the last gift: Ann keeps Y2, Bob B10, Cat O8

Scores by hand (highest kept card per list colour):
    Ann  R5 Y2   red 5 + green - + yellow 2          =  7
    Bob  R7 B10  blue 10 + green - + orange -        = 10   (R7: red is not on Bob's list)
    Cat  G9 O8   red - + blue - + orange 8           =  8   (G9: green is not on Cat's list)
Bob wins alone.
"""

from __future__ import annotations

import json

from freezegun import freeze_time
from weharness import NEW3, one_error_line, read_log, rejections, we

from cli.opening import read_game
from eventstore.integrity import verify_log
from service.reading import GameSource

FIRST_SITTING = """\
# party 1: Ann starts
open R7
steal Ann
Ann steal Bob
ann open g9
cat o Y2
undo Cat stole, she did not open
cat steal ann
open R5
quit
"""

SECOND_SITTING = """\
bob open O8
steal bob
steal cat
open Y2
Ann s Bob
o b10
"""


def test_hand_worked_game_in_two_sittings(tmp_path):
    log = tmp_path / "family.jsonl"
    with freeze_time("2026-11-26 19:00:00"):
        first = we("record", log, *NEW3, "--attic-size", "2", "--title", "Family", input=FIRST_SITTING)
    assert first.exit_code == 1, first.stderr
    assert rejections(first) == [
        "rejected (input line 4: Ann steal Bob): Ann cannot steal R7: Bob just stole it and no gift has"
        " been opened since. Ann can open a gift (`open CARD`); nothing can be stolen now."
    ]
    assert "Undone: event 9, Cat opening Y2 (Cat stole, she did not open)." in first.stdout
    assert "Party 1 ends: Ann keeps R5, Bob keeps R7, Cat keeps G9." in first.stdout
    assert "Party 2 of 2 \u00b7 Bob starts" in first.stdout
    assert len(read_log(log)) == 12

    with freeze_time("2026-11-27 10:00:00"):
        second = we("record", log, input=SECOND_SITTING)  # end of input quits
    assert second.exit_code == 1, second.stderr
    assert "Carrying on with game family" in second.stdout
    assert rejections(second) == [
        "rejected (input line 3: steal cat): Bob cannot steal O8: Cat just stole it and no gift has"
        " been opened since. Bob can open a gift (`open CARD`); nothing can be stolen now."
    ]
    assert "Party 2 ends: Ann keeps Y2, Bob keeps B10, Cat keeps O8." in second.stdout
    assert "Winner: Bob." in second.stdout
    assert "Bob: blue B10 (party 2) + green - + orange - = 10" in second.stdout

    events = read_log(log)
    assert [(e["seq"], e["type"]) for e in events if e["type"] != "gift_brought"] == [
        (1, "game_started"),
        (2, "gift_lists_dealt"),
        (6, "gift_opened"),
        (7, "gift_stolen"),
        (8, "gift_opened"),
        (9, "gift_opened"),
        (10, "event_voided"),
        (11, "gift_stolen"),
        (12, "gift_opened"),
        (16, "gift_opened"),
        (17, "gift_stolen"),
        (18, "gift_opened"),
        (19, "gift_stolen"),
        (20, "gift_opened"),
    ]
    assert events[9]["data"] == {"voids": 9, "reason": "Cat stole, she did not open"}
    assert {e["at"] for e in events[:12]} == {"2026-11-26T19:00:00.000000Z"}
    assert {e["at"] for e in events[12:]} == {"2026-11-27T10:00:00.000000Z"}
    fingerprint = events[-1]["hash"][7:19]
    assert f"Fingerprint: {fingerprint} (note it down; `we audit` proves a log against it)" in second.stdout

    # The file is sound, chain and rules alike, and scores as worked out by hand.
    assert verify_log(log).ok
    report = read_game(GameSource(str(log), path=log))
    assert report.ok and report.complete and report.fingerprint == fingerprint
    score = json.loads(we("score", log, "--json").stdout)
    assert score == {
        "game": "family",
        "complete": True,
        "scores": {"Ann": 7, "Bob": 10, "Cat": 8},
        "winners": ["Bob"],
        "breakdown": {
            "Ann": {"red": "R5", "green": None, "yellow": "Y2"},
            "Bob": {"blue": "B10", "green": None, "orange": None},
            "Cat": {"red": None, "blue": None, "orange": "O8"},
        },
        "kept": {"Ann": ["R5", "Y2"], "Bob": ["R7", "B10"], "Cat": ["G9", "O8"]},
    }

    # A third sitting on the finished game takes no more moves.
    third = we("record", log, input="open R1\n")
    assert third.exit_code == 1
    assert len(rejections(third)) == 1 and len(read_log(log)) == 20


def test_the_same_game_refused_once_its_last_line_is_torn(tmp_path):
    log = tmp_path / "family.jsonl"
    assert we("record", log, *NEW3, "--attic-size", "2", input=FIRST_SITTING).exit_code == 1
    log.write_bytes(log.read_bytes()[:-1])  # drop the final newline: a torn last write
    result = we("record", log, input=SECOND_SITTING)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "line 12 is torn (an append was cut off), so nothing can be added after it" in line
    assert line.endswith(f"run `we repair {log}`, then `we record {log}` again")
