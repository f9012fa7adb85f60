"""The benchmark's archive builder makes valid, complete, reproducible games (nothing is timed)."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import orjson

from eventstore.integrity import verify_log
from wecore.conformance import GameChecker
from wecore.search import DEFAULT_ITERATIONS

_SPEC = importlib.util.spec_from_file_location("we_bench", Path(__file__).with_name("bench.py"))
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules["we_bench"] = bench
_SPEC.loader.exec_module(bench)

GAMES = 20


def test_archive_games_verify_and_fold_complete(tmp_path: Path) -> None:
    archive = bench.build_archive(tmp_path, GAMES, jobs=1)
    files = sorted(archive.games_dir.glob("*.jsonl"))
    assert len(files) == archive.games == GAMES
    halves: Counter[tuple[int, bool]] = Counter()
    events = 0
    for i, path in enumerate(files):
        assert path.name == f"{bench.game_id(i)}.jsonl"
        verified = verify_log(path)
        assert verified.ok, (path.name, verified.problems[:3])
        assert verified.game == bench.game_id(i)

        lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        checker = GameChecker()
        for obj in lines:
            assert checker.feed(obj["seq"], obj["type"], obj["data"]), (path.name, checker.problem)
        assert checker.problem is None
        assert checker.state.is_over, path.name

        types = [obj["type"] for obj in lines]
        brought = [obj["data"]["card"] for obj in lines if obj["type"] == "gift_brought"]
        opened = [obj["data"]["card"] for obj in lines if obj["type"] == "gift_opened"]
        seen = "attics_dealt" in types
        players, want_seen = bench.game_shape(i)
        assert seen == want_seen
        assert len(checker.state.players) == players
        assert opened and all(card is not None for card in opened)
        if seen:
            assert all(card is not None for card in brought)
        else:
            assert brought and all(card is None for card in brought)
        halves[(players, seen)] += 1
        events += len(lines)
    assert events == archive.events
    # Both halves, and every player count 3-7 in each.
    assert {seen for _, seen in halves} == {True, False}
    for seen in (True, False):
        assert {p for p, s in halves if s == seen} == set(bench.PLAYER_COUNTS)


def test_archive_is_reproducible_and_cached(tmp_path: Path) -> None:
    first = bench.build_archive(tmp_path / "a", 10, jobs=1)
    second = bench.build_archive(tmp_path / "b", 10, jobs=1)
    for i in range(10):
        name = f"{bench.game_id(i)}.jsonl"
        assert (first.games_dir / name).read_bytes() == (second.games_dir / name).read_bytes()
    # A smaller archive is linked from the bigger one, file for file.
    small = bench.build_archive(tmp_path / "a", 4, jobs=1)
    assert small.games == 4
    for i in range(4):
        name = f"{bench.game_id(i)}.jsonl"
        assert (small.games_dir / name).read_bytes() == (first.games_dir / name).read_bytes()
    # Built once: the cached archive is returned as it is.
    assert bench.build_archive(tmp_path / "a", 10, jobs=1) == first


def test_tampered_logs_are_broken(tmp_path: Path) -> None:
    archive = bench.build_archive(tmp_path, 6, jobs=1)
    expected = bench.build_tampered(tmp_path, archive)
    assert len(expected) == 6
    for name in expected:
        assert bench.check_log(tmp_path / "tampered" / name) is not None, name


def test_the_spaced_copy_holds_the_same_games_written_with_spaces(tmp_path: Path) -> None:
    archive = bench.build_archive(tmp_path, 6, jobs=1)
    spaced = bench.build_spaced(tmp_path, archive)
    assert (spaced.games, spaced.events) == (archive.games, archive.events)
    for path in sorted(archive.games_dir.glob("*.jsonl")):
        copy = spaced.games_dir / path.name
        assert b'": ' in copy.read_bytes() and b'", "' in copy.read_bytes()
        assert [orjson.loads(line) for line in copy.read_bytes().splitlines()] == [
            orjson.loads(line) for line in path.read_bytes().splitlines()
        ]
        verified = verify_log(copy)
        assert verified.ok, (copy.name, verified.problems[:3])
    assert bench.build_spaced(tmp_path, archive) == spaced  # built once


def test_the_ladder_reports_every_match_up_with_an_interval() -> None:
    # The ladder's bookkeeping at a toy size (the figures themselves come from `--ladder`).
    sys.path.insert(0, str(Path(__file__).parent))
    from ladder import MATCHUPS, run_ladder

    lines: list[str] = []
    assert run_ladder(4, iterations=2, jobs=1, log=lines.append).failed == 0
    for tested, field_bot in MATCHUPS:
        (line,) = [x for x in lines if x.startswith(f"{tested} vs 3 {field_bot}: won ")]
        assert "of 4 (95% Wilson " in line and "broke the rules" not in line
    assert sum("ismcts move time: all " in x for x in lines) == 2


def test_the_strength_page_is_the_ladder_run_with_machine_load_and_date() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from ladder import SampleAnalysis, run_ladder
    from strength_page import strength_page

    run = run_ladder(3, iterations=2, jobs=1, log=lambda line: None, default_games=2)
    swings = ["[event 4] Party 1: Ann"]
    run.analyses.append(SampleAnalysis("x.jsonl", "greedy", 1.5, 2.0, "x: 9 moves", swings))
    page = strength_page(run, ["cpu: test cpu, 2 logical core(s)"], ["--ladder", "--write-docs"])
    assert page.startswith("# Strength: the bots' ladder\n")
    written = r"Written by `python tests/bench/bench.py --ladder --write-docs` on \d{4}-\d\d-\d\d"
    assert re.search(written, page)
    assert re.search(r"load average \(1 / 5 / 15 min\) before the ladder: [\d.]+ / ", page)
    assert "- cpu: test cpu, 2 logical core(s)" in page
    # the three match-ups at 2 playouts, and the search bot at its default on the first 2 deals
    rows = re.findall(r"^\| (\w+ vs 3 \w+) \| (\d*) \| (\d+) \| ", page, re.MULTILINE)
    assert rows[:4] == [
        ("ismcts vs 3 greedy", "2", "3"),
        ("greedy vs 3 random", "", "3"),
        ("ismcts vs 3 random", "2", "3"),
        ("ismcts vs 3 greedy", str(DEFAULT_ITERATIONS), "2"),
    ]
    assert "With greedy rollouts, 1.5 s of CPU (2.0 s wall clock): x: 9 moves" in page
    assert "1. [event 4] Party 1: Ann" in page


def test_the_search_bot_compared_with_itself_plays_the_ladders_deals_alike(tmp_path: Path) -> None:
    # `--ladder --compare-tree` with this very checkout as the "older" tree, at a toy size: the
    # same deals, the same games, the same shares; its section written into the page, the
    # page's other sections kept, and kept in turn when the ladder writes the page again.
    sys.path.insert(0, str(Path(__file__).parent))
    from compare import BEGIN, END, kept_section, run_compare, with_section
    from ladder import play_chunk

    lines: list[str] = []
    comparison = run_compare(2, iterations=2, jobs=1, tree=bench.ROOT, log=lines.append)
    assert comparison.failed == 0 and comparison.paired == [0, 1]
    assert not comparison.deals_differ and not comparison.fields_differ and comparison.same_games == 2
    assert comparison.new.share == comparison.old.share and comparison.passed
    # the ladder's own first match-up on these deals, seats and playouts
    assert play_chunk(("ismcts", "greedy", 0, 2, 2)).wins == comparison.new.wins
    assert any(line.endswith("new >= old - 3 points: PASS") for line in lines)

    page = tmp_path / "strength.md"
    analysis = "## The search bot as the analysis's rollout policy\n\nkept\n"
    page.write_text(f"# Strength: the bots' ladder\n\n## Win shares\n\nkept\n\n{analysis}")
    argv = ["--ladder", "--ladder-games", "2", "--iterations", "2", "--jobs", "1"]
    for _ in range(2):  # written again, the section is replaced, not repeated
        assert bench.main([*argv, "--compare-tree", str(bench.ROOT), "--write-docs", str(page)]) == 0
    text = page.read_text()
    assert text.count(BEGIN) == 1 and text.index("## Win shares") < text.index(BEGIN)
    assert text.index(END) < text.index(analysis)
    shares = re.findall(r"^\| (old|new): .*? \| 2 \| 2 \| ([\d.]+%) \| ", text, re.MULTILINE)
    assert [side for side, _ in shares] == ["old", "new"] and shares[0][1] == shares[1][1]
    assert "Deals dealt byte for byte alike in both trees: 2 of 2" in text
    section = kept_section(page)
    assert section is not None and with_section("# Strength\n\n## Win shares\n", section).endswith(END + "\n")
