"""`we record`, `we simulate`, `we audit` and `we replay` under --party-die: at each party's end
its starter rolls the die (`roll N`), recorded as die_rolled; on a 6 every gift kept passes left."""

from __future__ import annotations

import json

from weharness import NEW3, read_log, rejections, we

from eventstore.integrity import verify_log


def test_the_die_at_the_table(tmp_path):
    log = tmp_path / "g.jsonl"
    script = "\n".join(
        [
            "open R7",  # Ann
            "roll 6",  # refused: the party is not over
            "open Y9",  # Bob
            "open B5",  # Cat: the last gift; Ann rolls
            "open R8",  # refused: the party waits for the roll
            "Bob roll 6",  # refused: only the starter rolls
            "roll 7",  # refused: no such face
            "roll six",  # refused: a face is a number
            "roll 6",  # Ann: every gift passes left
        ]
    )
    result = we("record", log, *NEW3, "--attic-size", "1", "--party-die", input=script + "\n")
    assert result.exit_code == 1, result.stderr  # some lines were refused
    events = read_log(log)
    assert events[0]["data"]["options"] == {"attic_sizes": {"3": 1}, "party_die": True}
    assert [e["data"] for e in events if e["type"] == "die_rolled"] == [
        {"party": 1, "player": "Ann", "value": 6}
    ]
    refused = rejections(result)
    assert len(refused) == 5, refused
    assert "party 1 is not over: its starter rolls the die once its last gift is open" in refused[0]
    assert (
        "party 1 is waiting for its starter Ann to roll the die: nobody can open a gift before that"
        in refused[1]
    )
    assert "it is Ann's turn, not Bob's" in refused[2] or "only party 1's starter, Ann" in refused[2]
    assert "a die has faces 1 to 6, not 7" in refused[3]
    assert "say what came up, e.g. `roll 6`" in refused[4]
    out = result.stdout
    assert "Cat opens B5: the last gift; Ann, who started party 1, rolls the die" in out
    assert "Ann rolls a 6: every gift kept in party 1 passes one seat left" in out
    assert "(Ann now keeps B5, Bob now keeps R7, Cat now keeps Y9); the game is over." in out
    assert verify_log(log).ok
    # Bob kept R7, which is not on his list, only through the pass: the claim's story says so.
    audit = we("audit", log, "--claim", "Ann=7")
    assert audit.exit_code == 1, audit.stdout
    assert "R7 went from Ann to Bob in the pass on a 6 after party 1" in audit.stdout


def test_the_prompt_help_and_completion_name_the_roll(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we(
        "record", log, *NEW3, "--attic-size", "1", "--party-die", input="open R7\nopen Y9\nopen B5\nhelp\n"
    )
    assert result.exit_code == 0, result.stderr
    assert "roll N" in result.stdout and "(party_die)" in result.stdout
    assert "Roll of the die" not in result.stderr
    helped = we("record", "--help")
    assert "roll N" in helped.stdout
    assert "after each open, its opener (keep_or_swap_on_open)" in helped.stdout  # issue 47, friction 2


def test_a_void_of_a_roll_waits_for_the_roll_again(tmp_path):
    log = tmp_path / "g.jsonl"
    script = "open R7\nopen Y9\nopen B5\nroll 6\nundo the die fell off the table\nroll 2\n"
    result = we("record", log, *NEW3, "--attic-size", "1", "--party-die", input=script)
    assert result.exit_code == 0, result.stderr
    events = read_log(log)
    assert [e["type"] for e in events[-3:]] == ["die_rolled", "event_voided", "die_rolled"]
    replay = we("replay", log, "--json")
    assert replay.exit_code == 0, replay.stderr
    final = json.loads(replay.stdout)
    assert final["kept"] == {"Ann": ["R7"], "Bob": ["Y9"], "Cat": ["B5"]}


def test_simulated_die_games_pass_the_audit(tmp_path):
    die = tmp_path / "die"
    every = tmp_path / "every"
    assert we("simulate", "-k", "100", "--party-die", "-o", die).exit_code == 0
    all_rules = ["--party-die", "--keep-or-swap", "--starter-final-swap", "--max-steals", "2"]
    all_rules += ["--max-steals-between-opens", "1", "--attic-size", "3"]
    assert (
        we("simulate", "-k", "100", "--bot", "greedy", "--bot", "random", *all_rules, "-o", every).exit_code
        == 0
    )
    rolls = [e for path in sorted(die.iterdir()) for e in read_log(path) if e["type"] == "die_rolled"]
    assert {e["data"]["value"] for e in rolls} == {1, 2, 3, 4, 5, 6}
    audit = we("audit", die, every)
    assert audit.exit_code == 0, audit.stdout
    assert "200 games audited: 200 OK, 0 FAILED." in audit.stdout


def test_every_word_the_recorder_knows_is_handled(tmp_path):
    """The recorder's dispatch ends in a refusal for a verb it knows but does not handle, so a
    verb added to the grammar without its branch is never swallowed (as `roll 6` once was)."""
    from cli.record_grammar import VERBS

    log = tmp_path / "g.jsonl"
    words = sorted({word for word, verb in VERBS.items() if verb not in ("quit", "start")})
    lines = [f"{word} 1" if VERBS[word] not in ("status", "help", "keep") else word for word in words]
    result = we("record", log, *NEW3, "--party-die", input="\n".join(lines) + "\n")
    assert "known but not handled" not in result.stderr, result.stderr
