"""`we record` and `we simulate` under the two house rules added with the registry:
--max-steals-between-opens N and --starter-final-swap (`swap NAME` and `keep` at the table)."""

from __future__ import annotations

from weharness import NEW3, read_log, rejections, we

from eventstore.integrity import verify_log
from wecore.rulesets import HOUSE_RULES

RULES = ["--attic-size", "2", "--max-steals-between-opens", "1", "--starter-final-swap"]


def test_both_rules_at_the_table(tmp_path):
    log = tmp_path / "g.jsonl"
    script = "\n".join(
        [
            "open R7",  # Ann
            "open Y9",  # Bob
            "steal ann",  # Cat takes R7; Ann must open (no steal chains)
            "steal bob",  # refused
            "open O4",  # Ann: the last gift of party 1; Ann, who started, may swap
            "bob open B2",  # refused: waiting for the swap
            "swap ann",  # refused: Ann cannot swap with herself
            "swap R7",  # Ann takes R7 from Cat (named by the card it is)
            "undo",  # back to the swap
            "keep",
            "open G1",  # party 2, Bob starts
            "open G2",
            "open G3",  # last: Bob may swap
            "status",
            "swap cat",
        ]
    )
    result = we("record", log, *NEW3, *RULES, input=script + "\n")
    assert result.exit_code == 1, result.stderr
    events = read_log(log)
    assert events[0]["data"]["options"] == {
        "attic_sizes": {"3": 2},
        "max_steals_between_opens": 1,
        "starter_final_swap": True,
    }
    swaps = [e["data"] for e in events if e["type"] == "final_swap"]
    assert swaps == [
        {"party": 1, "player": "Ann", "with": "Cat", "takes": "R7"},
        {"party": 1, "player": "Ann", "with": None, "takes": None},
        {"party": 2, "player": "Bob", "with": "Cat", "takes": "G2"},
    ]
    refused = rejections(result)
    assert len(refused) == 3
    assert "Ann cannot steal Y9: 1 steal has been made since the last open" in refused[0]
    assert "Ann must open a gift" in refused[0]
    assert "waiting for its starter Ann's final swap" in refused[1]
    assert "Ann can keep their gift (`keep`) or swap it for Y9 (Bob), R7 (Cat)" in refused[1]
    assert "Ann cannot swap with themselves" in refused[2]
    out = result.stdout
    assert "Ann opens O4: the last gift; Ann, who started party 1, may swap gifts with anyone or keep." in out
    assert "Ann swaps O4 for R7, Cat's gift: party 1 ends." in out
    assert "Undone: event" in out and "Ann's final swap with Cat for R7" in out
    assert "every gift is open; Bob, who started, may swap gifts with anyone, or keep." in out  # status
    assert "Bob swaps G1 for G2, Cat's gift: the game is over." in out
    assert verify_log(log).ok
    audit = we("audit", log)
    assert audit.exit_code == 0 and "complete" in audit.stdout


def test_the_prompt_and_hint_name_the_swap(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we("record", log, *NEW3, *RULES, input="open R7\nopen Y9\nopen O4\nstatus\n")
    assert result.exit_code == 0, result.stderr
    assert "Ann can keep their gift (`keep`) or swap it for Y9 (Bob), O4 (Cat)." in result.stdout
    from cli.record_setup import resume

    session = resume(log, greet=False)
    assert session.prompt() == "party 1 \u00b7 Ann may swap (swap NAME / keep)> "


def test_flags_only_for_a_new_game(tmp_path):
    log = tmp_path / "g.jsonl"
    assert we("record", log, *NEW3, input="").exit_code == 0
    again = we("record", log, "--starter-final-swap", input="")
    assert again.exit_code == 2 and "--starter-final-swap" in again.stderr


def test_every_registry_rule_has_its_flag_on_record_and_simulate():
    for command in ("record", "simulate"):
        text = we(command, "--help").stdout
        for rule in HOUSE_RULES:
            assert rule.flag in text, (command, rule.flag)


def test_simulated_games_under_both_rules_verify(tmp_path):
    result = we(
        "simulate",
        "-k",
        "40",
        "--players",
        "5",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--max-steals-between-opens",
        "1",
        "--starter-final-swap",
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    audit = we("audit", tmp_path)
    assert audit.exit_code == 0, audit.stdout
    assert "40 games audited: 40 OK" in audit.stdout
    first = read_log(tmp_path / "sim-0-1.jsonl")
    assert first[0]["data"]["options"] == {"max_steals_between_opens": 1, "starter_final_swap": True}
    assert sum(e["type"] == "final_swap" for e in first) == 5


def test_a_disputed_score_names_the_final_swap(tmp_path):
    """Ann opens R7 (red is on her list), then swaps it away for Cat's G5 at the final swap."""
    log = tmp_path / "g.jsonl"
    script = "open R7\nopen Y9\nopen G5\nswap cat\n"
    assert we("record", log, *NEW3, "--attic-size", "1", "--starter-final-swap", input=script).exit_code == 0
    audit = we("audit", log, "--claim", "Ann=12")
    assert audit.exit_code == 1
    assert "red counts nothing (R7 went from Ann to Cat in the final swap of party 1)" in audit.stdout
