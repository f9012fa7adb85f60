"""`we analyse GAME` and `we replay --html --analyse`: the commands around wecore.analysis."""

from __future__ import annotations

import json
import re

from weharness import ROOT, we

REPLAYS = ROOT / "replays"
TIE_5P = REPLAYS / "tie-5p.jsonl"
NIGHT_3P = REPLAYS / "game-night-3p.jsonl"


def analysed(*args: object) -> dict:
    result = we("analyse", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_same_seed_same_bytes_with_any_jobs():
    serial = we("analyse", TIE_5P, "--rollouts", "3", "--seed", "club", "--json")
    parallel = we("analyse", TIE_5P, "--rollouts", "3", "--seed", "club", "--json", "--jobs", "2")
    assert serial.exit_code == parallel.exit_code == 0, serial.stderr + parallel.stderr
    assert serial.stdout == parallel.stdout
    other = we("analyse", TIE_5P, "--rollouts", "3", "--seed", "other", "--json")
    assert other.stdout != serial.stdout
    text = we("analyse", TIE_5P, "--rollouts", "3", "--seed", "club", "--jobs", "2")
    assert text.stdout == we("analyse", TIE_5P, "--rollouts", "3", "--seed", "club").stdout


def test_json_shape_and_every_decision_in_effect_in_order():
    data = analysed(NIGHT_3P, "--rollouts", "2", "--policy", "random", "--seed", "7")
    assert list(data) == ["game", "policy", "rollouts", "margin", "seed", "decisions", "think_times"]
    assert (data["game"], data["policy"], data["rollouts"], data["seed"]) == (
        "game-night-2026-12-05",
        "random",
        2,
        "7",
    )
    lines = [json.loads(line) for line in NIGHT_3P.read_text().splitlines()]
    voided = {line["data"]["voids"] for line in lines if line["type"] == "event_voided"}
    moves = [
        line["seq"]
        for line in lines
        if line["type"] in ("gift_brought", "gift_opened", "gift_stolen") and line["seq"] not in voided
    ]
    # Unseen brings written with an open that was voided are voided too: not decisions.
    assert [d["seq"] for d in data["decisions"]] == moves
    for decision in data["decisions"]:
        assert {"seq", "party", "player", "played", "alternatives", "swing"} <= set(decision)
        assert decision["played"] in [a["move"] for a in decision["alternatives"]]
        assert decision["played"]["as"] == decision["player"]
        for alternative in decision["alternatives"]:
            assert {"move", "mean", "low", "high", "win_chance", "rollouts"} <= set(alternative)
            assert 1 <= alternative["rollouts"] <= 2
            assert alternative["low"] <= alternative["mean"] <= alternative["high"]
            assert 0 <= alternative["win_chance"] <= 1
        if len(decision["alternatives"]) == 1:
            assert decision["swing"] == 0
        else:
            played = next(a for a in decision["alternatives"] if a["move"] == decision["played"])
            best = max(a["mean"] for a in decision["alternatives"])
            # The swing is the mean of paired differences: the difference of the two means.
            assert abs(decision["swing"] - (best - played["mean"])) < 1e-3


def test_text_names_the_pivotal_decisions_in_table_language():
    result = we("analyse", TIE_5P, "--rollouts", "4", "--top", "2")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    ranked = re.findall(r"^(\d)\. \[event (\d+)\] Party (\d): (\w+) (.*)$", result.stdout, re.M)
    assert [rank for rank, *_ in ranked] == ["1", "2"]
    assert "instead was worth +" in ranked[0][4] and "win chance" in ranked[0][4]
    assert "(played)" in result.stdout


def test_errors_are_one_line():
    missing = we("analyse", "no-such-game.jsonl")
    assert missing.exit_code == 1 and missing.stderr.count("\n") == 1
    bad_policy = we("analyse", TIE_5P, "--policy", "clever")
    assert bad_policy.exit_code == 2 and "clever" in bad_policy.stderr
    zero = we("analyse", TIE_5P, "--rollouts", "0")
    assert zero.exit_code == 2


def test_a_damaged_log_is_refused_with_its_first_problem():
    result = we("analyse", REPLAYS / "disputed-edited.jsonl", "--rollouts", "1")
    assert result.exit_code == 1 and "line 66" in result.stderr


def test_replay_page_marks_the_pivotal_moves(tmp_path):
    out = tmp_path / "night.html"
    result = we("replay", NIGHT_3P, "--html", out, "--analyse")
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    embedded = re.search(r'<script type="application/json" id="we-replay">(.*?)</script>', page, re.S)
    data = json.loads(embedded.group(1))
    analysis = data["analysis"]
    assert (analysis["policy"], analysis["rollouts"], analysis["seed"]) == ("greedy", 100, "0")
    ranked = sorted((d["rank"], int(seq)) for seq, d in analysis["decisions"].items() if d["rank"])
    # The same decisions, in the same order, as `we analyse` at its defaults ranks them.
    full = analysed(NIGHT_3P)
    swung = sorted((d for d in full["decisions"] if d["swing"] > 0), key=lambda d: (-d["swing"], d["seq"]))
    assert [seq for _, seq in ranked] == [d["seq"] for d in swung[:5]]
    for seq, decision in analysis["decisions"].items():
        assert sum(a["played"] for a in decision["alternatives"]) == 1
        assert int(seq) in {d["seq"] for d in full["decisions"]}
    # Without --analyse there is no analysis on the page.
    plain = tmp_path / "plain.html"
    assert we("replay", NIGHT_3P, "--html", plain).exit_code == 0
    assert '"analysis"' not in plain.read_text(encoding="utf-8")


def test_replay_analyse_needs_html_and_no_seat():
    assert we("replay", NIGHT_3P, "--analyse").exit_code == 2
    seat = we("replay", NIGHT_3P, "--html", "x.html", "--analyse", "--as", "Maria")
    assert seat.exit_code == 2 and "--as" in seat.stderr


def test_a_game_without_moves_has_no_decisions(tmp_path):
    started = tmp_path / "started.jsonl"
    started.write_text("".join(TIE_5P.read_text().splitlines(keepends=True)[:2]))
    assert analysed(started)["decisions"] == []
    text = we("analyse", started)
    assert text.exit_code == 0 and "nothing to analyse" in text.stdout


def test_the_search_bot_as_the_rollout_policy_is_the_same_bytes_with_any_jobs():
    serial = we("analyse", NIGHT_3P, "--policy", "ismcts", "--rollouts", "1", "--json", "--jobs", "1")
    parallel = we("analyse", NIGHT_3P, "--policy", "ismcts", "--rollouts", "1", "--json", "--jobs", "2")
    assert serial.exit_code == parallel.exit_code == 0, serial.stderr + parallel.stderr
    assert serial.stdout == parallel.stdout
    data = json.loads(serial.stdout)
    assert data["policy"] == "ismcts" and data["decisions"]


def test_a_roll_of_the_die_is_never_a_decision(tmp_path):
    """Under party_die each party ends with its starter's roll: chance, which nobody chooses, so
    `we analyse` values no roll and lists none among the pivotal moves."""
    simulated = we("simulate", "-n", "3", "--party-die", "--bot", "greedy", "-s", "die", "-o", tmp_path)
    assert simulated.exit_code == 0, simulated.stderr
    (log,) = tmp_path.glob("*.jsonl")
    rolls = [line for line in log.read_text().splitlines() if '"die_rolled"' in line]
    assert rolls
    data = analysed(log, "--rollouts", "1")
    assert data["decisions"]
    for decision in data["decisions"]:
        assert decision["played"]["type"] != "roll"
        assert all(a["move"]["type"] != "roll" for a in decision["alternatives"])
    text = we("analyse", log, "--rollouts", "1", "--top", "100")
    assert text.exit_code == 0, text.stderr
    assert "rolled" not in text.stdout and "rolling" not in text.stdout
