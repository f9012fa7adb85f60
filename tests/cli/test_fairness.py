"""`we simulate --report`, `we stats --fairness`, `--by evening`, `--versus`, and their plots.

The fairness figures are recomputed here from the simulated logs themselves (folded by the
engine, counted by this test), so the report is checked against the games it claims to be
about, not against its own code.
"""

from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from weharness import ROOT, we

from wecore.events import parse_event
from wecore.reducer import fold
from wecore.stats import chi_square_p_value


def report_of(*args: object) -> dict:
    result = we("simulate", *args, "--report", "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def recount(directory) -> dict:
    """The fairness figures, counted from the logs in `directory` by this test."""
    seats: dict[int, list[float]] = {}
    lists: dict[str, list[float]] = {}
    games = 0
    for path in sorted(directory.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        state = fold(parse_event(line["type"], line["data"]) for line in lines)
        games += 1
        players = list(state.players)
        n = len(players)
        first = (players.index(state.dealer) + 1) % n  # left of the dealer starts party 1
        scores = state.scores
        top = max(scores.values())
        winners = [p for p in players if scores[p] == top]
        for seat, name in enumerate(players):
            win = 1 / len(winners) if name in winners else 0.0
            row = seats.setdefault((seat - first) % n + 1, [0, 0.0, 0])
            row[0] += 1
            row[1] += win
            row[2] += scores[name]
            letters = "".join(
                c for c in "ROYGB" if c in {colour[0].upper() for colour in lines[1]["data"]["lists"][name]}
            )
            entry = lists.setdefault(letters, [0, 0.0, 0])
            entry[0] += 1
            entry[1] += win
            entry[2] += scores[name]
    return {"games": games, "seats": seats, "lists": lists}


def test_simulate_report_equals_the_figures_of_its_logs(tmp_path):
    args = ("--players", "4", "--games", "60", "--seed", "fair", "--bot", "greedy", "--bot", "random")
    without_logs = report_of(*args)
    with_logs = report_of(*args, "--out", tmp_path / "logs")
    assert with_logs == without_logs  # the same games with or without --out
    counted = recount(tmp_path / "logs")
    report = with_logs
    assert list(report) == ["games", "by_seat", "by_list", "by_players", "equal_seats"]
    assert report["games"] == counted["games"] == 60
    for row in report["by_seat"]:
        games, wins, points = counted["seats"][row["seat"]]
        assert (row["games"], row["wins"], row["mean_score"]) == (
            games,
            round(wins, 4),
            round(points / games, 4),
        )
        assert row["win_rate"] == round(wins / games, 4)
        assert row["low"] < row["win_rate"] < row["high"]
    assert {row["list"]: row["games"] for row in report["by_list"]} == {
        k: v[0] for k, v in counted["lists"].items()
    }
    for row in report["by_list"]:
        assert row["wins"] == round(counted["lists"][row["list"]][1], 4)
    (four,) = report["by_players"]
    assert (four["players"], four["games"], four["win_rate"]) == (4, 60, 0.25)
    # Chi-square over the seats: 15 expected wins each.
    statistic = sum((counted["seats"][s][1] - 15) ** 2 / 15 for s in range(1, 5))
    assert report["equal_seats"]["test"] == "chi-square"
    assert report["equal_seats"]["statistic"] == pytest.approx(statistic, abs=1e-4)
    assert report["equal_seats"]["p_value"] == pytest.approx(chi_square_p_value(statistic, 3), rel=1e-5)


def test_stats_fairness_over_the_library_agrees_with_simulate(tmp_path):
    db = tmp_path / "club.db"
    args = ("--players", "3", "--games", "25", "--seed", "lib")
    simulated = report_of(*args, "--db", db)
    result = we("stats", "--fairness", "--json", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == simulated
    text = we("stats", "--fairness", "--db", db)
    assert "By seat (1 = left of the dealer" in text.stdout
    assert "shared win" in text.stdout and "tie_broken" in text.stdout
    assert "chance allows" in text.stdout or "Too few games" in text.stdout


def test_replays_library_counts_a_broken_tie_as_one_win(tmp_path):
    db = tmp_path / "replays.db"
    assert we("import", ROOT / "replays" / "tie-5p.jsonl", "--db", db).exit_code == 0
    report = json.loads(we("stats", "--fairness", "--json", "--db", db).stdout)
    assert report["games"] == 1
    assert sorted(row["wins"] for row in report["by_seat"]) == [0, 0, 0, 0, 1]


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR"
    return struct.unpack(">II", header[16:24])


def svg_size(path) -> tuple[str, str]:
    root = ElementTree.parse(path).getroot()
    assert root.tag.endswith("svg")
    return root.get("width"), root.get("height")


def test_plots_are_images_of_the_stated_size(tmp_path):
    pytest.importorskip("matplotlib")
    png, svg = tmp_path / "seats.png", tmp_path / "seats.svg"
    args = ("--players", "5", "--games", "30", "--seed", "plot", "--report")
    assert we("simulate", *args, "--plot", png).exit_code == 0
    assert we("simulate", *args, "--plot", svg).exit_code == 0
    assert png_size(png) == (800, 500)  # 8 x 5 inches at 100 dpi
    assert svg_size(svg) == ("576pt", "360pt")  # 8 x 5 inches at 72 points an inch
    db = tmp_path / "plot.db"
    assert we("simulate", "--players", "3", "--games", "8", "--seed", "ev", "--db", db).exit_code == 0
    evenings = tmp_path / "evenings.png"
    result = we("stats", "--by", "evening", "--db", db, "--plot", evenings)
    assert result.exit_code == 0, result.stderr
    assert png_size(evenings) == (800, 500)
    rivals = tmp_path / "rivals.svg"
    assert we("stats", "--versus", "ann", "ben", "--db", db, "--plot", rivals).exit_code == 0
    assert svg_size(rivals) == ("576pt", "360pt")


def test_plot_errors(tmp_path):
    wrong = we("simulate", "--games", "2", "--report", "--plot", tmp_path / "seats.jpg")
    assert wrong.exit_code == 2 and ".png or .svg" in wrong.stderr
    alone = we("simulate", "--games", "2", "--plot", tmp_path / "seats.png", "--out", tmp_path)
    assert alone.exit_code == 2


def test_without_matplotlib_plot_says_how_to_get_it(tmp_path):
    blocker = tmp_path / "blocked" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib is not installed here')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'blocked'}{os.pathsep}{ROOT}"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "simulate",
            "--games",
            "2",
            "--report",
            "--plot",
            tmp_path / "x.png",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1
    assert "python -m pip install '.[plots]' in a clone of we" in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def stats_json(db, *args, tz: str = "UTC") -> dict:
    env = {**os.environ, "TZ": tz, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "cli.main", "stats", *map(str, args), "--json", "--db", str(db)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_evenings_are_local_dates(tmp_path):
    # Simulated game i starts at 2011-12-24 18:00 UTC plus i - 1 hours: games 1-6 that day in
    # UTC, 7-13 the next. In New York (UTC-5) games 1-11 start on the 24th, 12 and 13 at
    # midnight and one in the morning of the 25th.
    db = tmp_path / "club.db"
    assert we("simulate", "--players", "3", "--games", "13", "--seed", "night", "--db", db).exit_code == 0
    utc = stats_json(db, "--by", "evening")
    assert [(e["date"], len(e["games"])) for e in utc["evenings"]] == [("2011-12-24", 6), ("2011-12-25", 7)]
    new_york = stats_json(db, "--by", "evening", tz="America/New_York")
    assert [(e["date"], len(e["games"])) for e in new_york["evenings"]] == [
        ("2011-12-24", 11),
        ("2011-12-25", 2),
    ]
    first = utc["evenings"][0]["games"][0]
    assert first["game"] == "sim-night-1" and set(first["scores"]) == {"Ann", "Ben", "Cat"}
    assert set(utc["longest_streaks"]) == {"Ann", "Ben", "Cat"}
    # Streaks, recounted from the games in order.
    games = [g for e in utc["evenings"] for g in e["games"]]
    for name, longest in utc["longest_streaks"].items():
        run = best = 0
        for game in games:
            run = run + 1 if name in game["winners"] else 0
            best = max(best, run)
        assert longest == best


def test_versus_matches_names_case_insensitively(tmp_path):
    db = tmp_path / "club.db"
    assert we("simulate", "--players", "3", "--games", "12", "--seed", "rivals", "--db", db).exit_code == 0
    head = stats_json(db, "--versus", "ANN", "cat")
    assert head["players"] == ["Ann", "Cat"] and head["games"] == 12
    evenings = stats_json(db, "--by", "evening")
    games = [g for e in evenings["evenings"] for g in e["games"]]
    differences = [g["scores"]["Ann"] - g["scores"]["Cat"] for g in games]
    assert head["mean_difference"] == round(sum(differences) / 12, 4)
    shares = [1 / len(g["winners"]) if "Ann" in g["winners"] else 0 for g in games]
    assert head["wins"][0] == round(sum(shares), 4)
    assert head["ahead"][0] == sum(d > 0 for d in differences) and head["level"] == differences.count(0)
    assert head["low"] <= head["mean_difference"] <= head["high"]
    assert not math.isnan(head["low"])
    text = we("stats", "--versus", "ann", "CAT", "--db", db)
    assert "Ann and Cat played 12 finished games together." in text.stdout
    unknown = we("stats", "--versus", "Ann", "Zed", "--db", db)
    assert unknown.exit_code == 1 and "Zed" in unknown.stderr
    # One player named twice is a usage error; a name nobody has is said first.
    same = we("stats", "--versus", "ann", "ANN", "--db", db)
    assert same.exit_code == 2 and "name two different players" in same.stderr
    nobody_twice = we("stats", "--versus", "Zed", "zed", "--db", db)
    assert nobody_twice.exit_code == 1 and "player called 'Zed'" in nobody_twice.stderr
    both = we("stats", "--fairness", "--versus", "Ann", "Cat", "--db", db)
    assert both.exit_code == 2


def test_report_under_house_rules_names_them_and_plays_the_final_swap(tmp_path):
    args = ("--players", "3", "--games", "20", "--seed", "house", "--starter-final-swap", "--bot", "greedy")
    report = report_of(*args, "--out", tmp_path / "logs")
    counted = recount(tmp_path / "logs")
    assert report["games"] == counted["games"] == 20
    for row in report["by_seat"]:
        assert row["wins"] == round(counted["seats"][row["seat"]][1], 4)
    assert any('"final_swap"' in path.read_text() for path in (tmp_path / "logs").glob("*.jsonl"))
    text = we("simulate", *args, "--report")
    assert "with house rules:" in text.stdout.splitlines()[0]


def test_the_plot_of_one_game_says_game():
    from cli.stats_report import win_rates_title

    assert (win_rates_title(1), win_rates_title(2)) == ("Win rates over 1 game", "Win rates over 2 games")


def test_plain_stats_counts_seats_as_the_fairness_report_does_from_the_dealers_left(tmp_path):
    db, logs = tmp_path / "club.db", tmp_path / "logs"
    args = ("--players", "4", "--games", "16", "--seed", "seats")
    simulated = we("simulate", *args, "--db", db, "--out", logs)
    assert simulated.exit_code == 0, simulated.stderr
    counted = recount(logs)
    listed: dict[int, float] = {}
    for path in sorted(logs.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        state = fold(parse_event(line["type"], line["data"]) for line in lines)
        top = max(state.scores.values())
        winners = [p for p in state.players if state.scores[p] == top]
        for seat, name in enumerate(state.players, start=1):
            listed[seat] = listed.get(seat, 0.0) + (1 / len(winners) if name in winners else 0.0)
    by_dealers_left = {seat: row[1] for seat, row in counted["seats"].items()}
    assert by_dealers_left != listed  # a library where the two numberings differ
    plain = we("stats", "--db", db)
    assert plain.exit_code == 0, plain.stderr
    text = plain.stdout
    assert "By seat (1 = left of the dealer, who starts party 1)" in text
    table = text.split("By seat", 1)[1].splitlines()
    rows = [[cell.strip() for cell in line.split("\u2502")] for line in table]
    shown = {int(row[0]): float(row[2]) for row in rows if row[0].isdigit()}
    assert shown == {seat: pytest.approx(wins, abs=0.05) for seat, wins in by_dealers_left.items()}
    fairness = json.loads(we("stats", "--fairness", "--json", "--db", db).stdout)
    assert {row["seat"]: row["wins"] for row in fairness["by_seat"]} == {
        seat: pytest.approx(wins, abs=0.05) for seat, wins in shown.items()
    }
