"""The search bot of this checkout against the search bot of an older commit, on the same deals
(`bench.py --ladder --compare-with REV`, or `--compare-tree DIR`).

Each bot plays against three greedy bots on the same N deals of the ladder's first match-up (the
same seeds, the bot at the same seat, going round the table), at the same playouts a move. Both
are played by one runner (compare_runner.py) in subprocesses whose PYTHONPATH is their own tree:
this checkout, or a throwaway `git worktree add --detach` of REV (removed afterwards), or DIR as
it is (nothing is written into it, bytecode neither). For every deal the runner reports digests
of the deal events as played and of an all-greedy game from its seed: they must be the same
bytes in both trees, or the comparison says so and fails. Reported per bot: its win share (a
k-way tie counts 1/k) with a 95% Wilson interval, the CPU time of its searched moves (median and
p99), and the verdict of issue 45's criterion: the new bot's share at least the old one's minus
MARGIN_POINTS points.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wecore.stats import wilson_interval

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("compare_runner.py")
MARGIN_POINTS = 3.0
BEGIN, END = "<!-- older search bot: begin -->", "<!-- older search bot: end -->"


def _git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()[-300:]}")
    return done.stdout.strip()


def describe(tree: Path) -> str:
    """The tree's commit (short), marked when its files differ from it; its path when not in git."""
    try:
        commit = _git("rev-parse", "--short", "HEAD", cwd=tree)
        dirty = _git("status", "--porcelain", "--untracked-files=no", cwd=tree)
    except (RuntimeError, OSError):
        return str(tree)
    return commit + (" with uncommitted changes" if dirty else "")


@contextmanager
def older_tree(rev: str | None, tree: Path | None) -> Iterator[Path]:
    """DIR as given, or a detached worktree of REV in a temporary directory, removed afterwards."""
    if tree is not None:
        yield tree.resolve()
        return
    assert rev is not None
    parent = Path(tempfile.mkdtemp(prefix="we-compare-"))
    path = parent / "tree"
    _git("worktree", "add", "--detach", "--quiet", str(path), rev)
    try:
        yield path
    finally:
        try:
            _git("worktree", "remove", "--force", str(path))
        finally:
            shutil.rmtree(parent, ignore_errors=True)
            _git("worktree", "prune")


@dataclass
class Side:
    """One search bot's games: `label` names its tree."""

    label: str
    tree: Path
    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    wecore: str = ""
    default_iterations: int = 0

    @property
    def played(self) -> int:
        return len(self.games)

    @property
    def wins(self) -> float:
        return float(sum(game["win"] for game in self.games.values()))

    @property
    def share(self) -> float:
        return self.wins / self.played

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.played)

    @property
    def cpu(self) -> list[float]:
        return [t for game in self.games.values() for t in game["cpu"]]

    @property
    def problems(self) -> int:
        return sum(bool(game["problem"]) for game in self.games.values())


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Comparison:
    new: Side
    old: Side
    games: int
    iterations: int
    jobs: int
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None
    seconds: float = 0.0

    @property
    def paired(self) -> list[int]:
        """The deals both bots have played."""
        return sorted(set(self.new.games) & set(self.old.games))

    @property
    def deals_differ(self) -> list[int]:
        return [g for g in self.paired if self.new.games[g]["deal"] != self.old.games[g]["deal"]]

    @property
    def fields_differ(self) -> list[int]:
        return [g for g in self.paired if self.new.games[g]["field"] != self.old.games[g]["field"]]

    @property
    def same_games(self) -> int:
        """Deals both bots played move for move alike."""
        return sum(self.new.games[g]["played"] == self.old.games[g]["played"] for g in self.paired)

    @property
    def difference_points(self) -> float:
        return (self.new.share - self.old.share) * 100

    @property
    def passed(self) -> bool:
        return self.difference_points >= -MARGIN_POINTS

    @property
    def failed(self) -> int:
        """1 when the deals or the field differ, a game broke the rules, or a deal is missing."""
        broken = self.new.problems or self.old.problems or self.deals_differ or self.fields_differ
        return int(bool(broken) or self.new.played != self.games or self.old.played != self.games)


def play_piece(tree: Path, first: int, last: int, iterations: int, runner: str) -> dict[str, Any]:
    """Games `first` to `last` played by `runner` (the runner's source, read once for the whole
    comparison) with `tree`'s wecore (nothing written there)."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    request = json.dumps({"first": first, "last": last, "iterations": iterations})
    command = [sys.executable, "-c", runner, request]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"games {first}-{last} with {tree}: {done.stderr.strip()[-600:]}")
    answer: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if Path(answer["wecore"]).resolve() != (tree / "wecore" / "__init__.py").resolve():
        raise RuntimeError(f"the runner for {tree} imported {answer['wecore']}")
    return answer


def _shares(name: str, side: Side) -> str:
    if not side.played:
        return f"{name}: no games yet"
    cpu = side.cpu
    median = f", CPU median {_ms(statistics.median(cpu))} a searched move" if cpu else ""
    return f"{name} won {side.share:.1%} of {side.played}{median}"


def run_compare(
    games: int,
    iterations: int,
    jobs: int,
    rev: str | None = None,
    tree: Path | None = None,
    log: Callable[[str], object] = print,
) -> Comparison:
    """Both search bots on the same `games` deals, `jobs` runner processes at a time, their pieces
    interleaved (so the machine's load falls on both alike, and a run stopped early has played
    about as many deals with each)."""
    started = time.perf_counter()
    runner = RUNNER.read_text(encoding="utf-8")
    with older_tree(rev, tree) as old_path:
        new = Side(f"this checkout ({describe(ROOT)})", ROOT)
        old = Side(describe(old_path), old_path)
        load = os.getloadavg()
        comparison = Comparison(new, old, games, iterations, jobs, load_before=load)
        log(
            f"compare: ismcts vs 3 greedy at {iterations} playouts a move, {games} deals, {jobs} jobs;"
            f" new: {new.label}; old: {old.label} at {old_path}"
        )
        log(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
        chunk = max(1, min(25, games // (jobs * 4)))
        pieces = [(side, g, min(games, g + chunk)) for g in range(0, games, chunk) for side in (old, new)]
        with ThreadPoolExecutor(jobs) as pool:
            futures = {
                pool.submit(play_piece, side.tree, first, last, iterations, runner): (side, first, last)
                for side, first, last in pieces
            }
            for future in as_completed(futures):
                side, first, last = futures[future]
                answer = future.result()
                side.wecore, side.default_iterations = answer["wecore"], answer["default_iterations"]
                side.games.update((game["game"], game) for game in answer["games"])
                log(
                    f"  {'old' if side is old else 'new'} games {first}-{last - 1} done"
                    f" ({time.perf_counter() - started:.0f} s): {_shares('new', new)}; {_shares('old', old)}"
                )
    comparison.seconds = time.perf_counter() - started
    comparison.load_after = os.getloadavg()
    for line in report_lines(comparison):
        log(line)
    return comparison


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def report_lines(comparison: Comparison) -> list[str]:
    lines = []
    for name, side in (("old", comparison.old), ("new", comparison.new)):
        low, high = side.interval
        cpu = side.cpu
        lines.append(
            f"{name} ismcts ({side.label}) vs 3 greedy: won {side.share:.1%} of {side.played}"
            f" (95% Wilson {low:.1%} to {high:.1%}); {len(cpu)} searched moves, CPU median"
            f" {_ms(statistics.median(cpu))}, p99 {_ms(_quantile(cpu, 0.99))}"
            + (f"; {side.problems} games broke the rules" if side.problems else "")
        )
    paired = comparison.paired
    differ, fields = comparison.deals_differ, comparison.fields_differ
    lines.append(
        f"deals: {len(paired) - len(differ)} of {len(paired)} dealt byte for byte alike in both trees"
        f"; all-greedy games from the same seeds: {len(paired) - len(fields)} of {len(paired)} alike"
        f"; the two bots played {comparison.same_games} of the {len(paired)} deals move for move alike"
    )
    verdict = "PASS" if comparison.passed else "MISS"
    lines.append(
        f"difference: {comparison.difference_points:+.1f} points (new - old);"
        f" new >= old - {MARGIN_POINTS:.0f} points: {verdict}"
    )
    if comparison.failed:
        lines.append("WRONG: the deals or the field differ, a game broke the rules, or deals are missing")
    load = comparison.load_after
    if load is not None:
        lines.append(
            f"{comparison.seconds:.0f} s; load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
    return lines


SECTION_TEXT = """\
Issue 45 made the search bot's playouts cheaper; its strength criterion asks that the bot lose
no more than {margin:.0f} points of win share for it. `python tests/bench/bench.py --ladder
--compare-with REV` (or `--compare-tree DIR`) plays the search bot of this checkout and that of
an older commit against three greedy bots on the same deals of the first match-up (the same
seeds, the same seats), each with its own tree's code, run by one runner
(`tests/bench/compare_runner.py`) in processes whose import path is that tree. For every deal
the runner digests the deal events as played and an all-greedy game from the same seed: the
deals and the field are checked to be the same bytes in both trees."""


def compare_section(comparison: Comparison, header: list[str], argv: list[str], when: str) -> str:
    """The page's section for a comparison, between its markers."""
    import shlex

    from speed_page import cell, load_text

    paired = comparison.paired
    differ, fields = comparison.deals_differ, comparison.fields_differ
    out = [
        BEGIN,
        "## The search bot against an older commit's",
        "",
        f"*Written by `python tests/bench/bench.py --ladder --compare-with ... --write-docs` on {when} UTC.*",
        "",
        SECTION_TEXT.format(margin=MARGIN_POINTS),
        "",
        f"Command: `{shlex.join(['python', 'tests/bench/bench.py', *argv])}`",
        "",
        # the runner's processes write no bytecode, whatever the bench's own processes do
        *[f"- {line.strip()}" for line in header if not line.startswith("bytecode")],
        f"- processes: {comparison.jobs}",
        f"- load average (1 / 5 / 15 min) before: {load_text(comparison.load_before)}",
        f"- load average (1 / 5 / 15 min) after: {load_text(comparison.load_after)}",
        "",
        "| search bot | ismcts playouts a move | games | win share | 95% Wilson | moves searched"
        " | CPU median | CPU p99 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, side in (("old", comparison.old), ("new", comparison.new)):
        low, high = side.interval
        cpu = side.cpu
        cells = (
            f"{name}: {side.label}",
            f"{comparison.iterations}",
            f"{side.played:,}",
            f"{side.share:.1%}",
            f"{low:.1%} to {high:.1%}",
            f"{len(cpu):,}",
            _ms(statistics.median(cpu)),
            _ms(_quantile(cpu, 0.99)),
        )
        out.append("| " + " | ".join(cell(c) for c in cells) + " |")
    verdict = "PASS" if comparison.passed else "MISS"
    out += [
        "",
        f"Difference (new - old): **{comparison.difference_points:+.1f} points**;"
        f" new >= old - {MARGIN_POINTS:.0f} points: **{verdict}**.",
        "",
        f"Deals dealt byte for byte alike in both trees: {len(paired) - len(differ)} of {len(paired)};"
        f" all-greedy games from the same seeds alike: {len(paired) - len(fields)} of {len(paired)};"
        f" deals the two bots played move for move alike: {comparison.same_games} of {len(paired)}."
        + (
            f" **{comparison.new.problems + comparison.old.problems} games broke the rules.**"
            if comparison.new.problems or comparison.old.problems
            else " Every game followed the rules."
        ),
        END,
    ]
    return "\n".join(out)


def kept_section(page: Path) -> str | None:
    """The comparison's section of the page as it is, to keep when the rest is written again."""
    try:
        text = page.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if BEGIN in text and END in text:
        return text[text.index(BEGIN) : text.index(END) + len(END)]
    return None


def with_section(page_text: str, section: str | None) -> str:
    """`page_text` with its comparison section replaced by `section` (added before the analysis
    section, or at the end, when it had none)."""
    if section is None:
        return page_text
    if BEGIN in page_text and END in page_text:
        start, end = page_text.index(BEGIN), page_text.index(END) + len(END)
        return page_text[:start] + section + page_text[end:]
    anchor = "## The search bot as the analysis's rollout policy"
    if anchor in page_text:
        at = page_text.index(anchor)
        return page_text[:at] + section + "\n\n" + page_text[at:]
    return page_text.rstrip("\n") + "\n\n" + section + "\n"
