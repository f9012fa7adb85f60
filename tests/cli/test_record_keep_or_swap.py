"""`we record` and `we simulate` under --keep-or-swap (keep_or_swap_on_open): after every open
its opener keeps the gift (`keep`) or swaps it (`swap NAME`), recorded as swap_after_open."""

from __future__ import annotations

import itertools

from weharness import NEW3, read_log, rejections, we

from eventstore.integrity import verify_log


def test_keep_or_swap_at_the_table(tmp_path):
    log = tmp_path / "g.jsonl"
    script = "\n".join(
        [
            "open R7",  # Ann
            "open Y9",  # refused: Ann keeps or swaps first
            "keep",  # Ann keeps R7; Bob is next
            "open Y9",  # Bob
            "status",
            "swap ann",  # Bob takes R7, Ann takes Y9; R7 locked
            "steal bob",  # Cat: refused, R7 was just taken
            "open B5",  # Cat: the last gift
            "swap ann",  # Cat takes Y9, Ann takes B5: the game is over
        ]
    )
    result = we("record", log, *NEW3, "--attic-size", "1", "--keep-or-swap", input=script + "\n")
    assert result.exit_code == 1, result.stderr  # some lines were refused
    events = read_log(log)
    assert events[0]["data"]["options"] == {"attic_sizes": {"3": 1}, "keep_or_swap_on_open": True}
    decisions = [e["data"] for e in events if e["type"] == "swap_after_open"]
    assert decisions == [
        {"party": 1, "player": "Ann", "with": None, "takes": None},
        {"party": 1, "player": "Bob", "with": "Ann", "takes": "R7"},
        {"party": 1, "player": "Cat", "with": "Ann", "takes": "Y9"},
    ]
    refused = rejections(result)
    assert len(refused) == 2
    assert "Ann has just opened a gift and must first keep it or swap it" in refused[0]
    assert "Ann can keep their gift (`keep`)." in refused[0]
    assert "Cat cannot steal R7: Bob just took it and no gift has been opened since" in refused[1]
    out = result.stdout
    assert "Ann opens R7 and may keep it or swap it for another opened gift." in out
    assert "Ann keeps R7; Bob is next." in out
    assert "Bob has just opened a gift and may keep it, or swap it for another opened gift." in out  # status
    assert "Bob swaps Y9 for R7, Ann's gift; R7 is locked until a gift is opened; Cat is next." in out
    assert "Cat swaps B5 for Y9, Ann's gift: the last gift, the game is over." in out
    assert verify_log(log).ok
    audit = we("audit", log, "--claim", "Cat=9")
    assert audit.exit_code == 1, audit.stdout
    # Cat kept Y9, which is not on her list; the claim's story names the swap.
    assert "a swap after an open in party 1" in audit.stdout


def test_the_prompt_and_help_name_the_decision(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we("record", log, *NEW3, "--keep-or-swap", input="open R7\nkeep\nopen Y9\nhelp\n")
    assert result.exit_code == 0, result.stderr
    assert "after each open, its opener (keep_or_swap_on_open)" in result.stdout
    from cli.record_setup import resume

    session = resume(log, greet=False)
    assert session.prompt() == "party 1 \u00b7 Bob may swap (swap NAME / keep)> "


def test_100_simulated_games_under_keep_or_swap_pass_the_audit(tmp_path):
    result = we(
        "simulate",
        "-k",
        "100",
        "--players",
        "5",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--keep-or-swap",
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    audit = we("audit", tmp_path)
    assert audit.exit_code == 0, audit.stdout
    assert "100 games audited: 100 OK" in audit.stdout
    swaps = 0
    for path in sorted(tmp_path.glob("*.jsonl")):
        events = read_log(path)
        assert events[0]["data"]["options"] == {"keep_or_swap_on_open": True}
        for event, following in itertools.pairwise(events):
            if event["type"] == "gift_opened":
                assert following["type"] == "swap_after_open", (path.name, event["seq"])
                assert following["data"]["player"] == event["data"]["player"]
        decided = [e for e in events if e["type"] == "swap_after_open"]
        assert len(decided) == sum(e["type"] == "gift_opened" for e in events)
        swaps += sum(e["data"]["with"] is not None for e in decided)
    assert swaps > 0
