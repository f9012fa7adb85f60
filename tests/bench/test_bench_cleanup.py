"""The benchmark fails fast, in one line, without a test extra it needs, and never leaves a `we
serve` running however it ends; `--write-docs` writes the speed page from a real run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "bench" / "bench.py"


def bench_without(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """bench.py with `module` unimportable, the way Python itself reads a None in sys.modules."""
    code = (
        f"import runpy, sys; sys.modules[{module!r}] = None; sys.argv = ['bench.py', *sys.argv[1:]]; "
        f"runpy.run_path({str(BENCH)!r}, run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_service_bench_without_httpx_says_so_in_one_line_and_starts_nothing() -> None:
    done = bench_without("httpx", "--service", "--seconds", "1")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "bench.py: error: httpx not installed: python -m pip install '.[test]'"
    ]
    assert "we serve" not in done.stdout


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize("stop_with", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_service_bench_stopped_midway_leaves_no_server(stop_with: signal.Signals) -> None:
    pytest.importorskip("httpx", reason="the service bench needs httpx (pip install '.[test]')")
    bench = subprocess.Popen(
        [sys.executable, str(BENCH), "--service", "--seconds", "600"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the signal goes to the bench alone, not to its server too
    )
    server_pid = None
    try:
        assert bench.stdout is not None
        for line in bench.stdout:  # readiness: the bench names the server it started
            if found := re.match(r"bench: we serve \(pid (\d+)\)", line):
                server_pid = int(found.group(1))
                break
        assert server_pid is not None, bench.stderr.read() if bench.stderr else ""
        assert alive(server_pid)
        bench.send_signal(stop_with)
        bench.communicate(timeout=120)
        assert not alive(server_pid), "the bench ended and left its we serve running"
    finally:
        if server_pid is not None and alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()


def test_write_docs_writes_the_speed_page_with_machine_load_and_date(tmp_path: Path) -> None:
    page = tmp_path / "speed.md"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--audit",
            "--games",
            "8",
            "--jobs",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--write-docs",
            str(page),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: a target missed is not an error here
    text = page.read_text()
    assert text.startswith("# Speed and reliability figures\n")
    assert re.search(r"Written by `python tests/bench/bench.py --write-docs` on \d{4}-\d\d-\d\d", text)
    assert re.search(r"load average \(1 / 5 / 15 min\) before the measurements: [\d.]+ / ", text)
    assert re.search(r"load average \(1 / 5 / 15 min\) after them: [\d.]+ / ", text)
    assert "cpu:" in text and "logical core" in text
    assert re.search(r"^\| floor", text, re.MULTILINE), text
    assert re.search(r"^\| we audit", text, re.MULTILINE), text

    # The service's run writes its own section of the same page, and keeps the rest.
    pytest.importorskip("httpx", reason="the service bench needs httpx (pip install '.[test]')")
    service = subprocess.run(
        [sys.executable, str(BENCH), "--service", "--seconds", "2", "--write-docs", str(page)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert service.returncode in (0, 1), service.stderr[-2000:]
    both = page.read_text()
    assert both.startswith(text.split("How these figures were won")[0])
    assert "## The service under load" in both
    assert re.search(r"load average \(1 / 5 / 15 min\) before: [\d.]+ / .*; after: [\d.]+ / ", both)
    assert "moves per second, in all" in both and "server peak memory" in both
    # We serve against its peer, round by round, and the bots at a served table.
    assert re.search(r"we serve vs its peer .*: 4 rounds each, alternated", both)
    assert re.search(r"server CPU per move +[\d.]+ ms +[\d.]+ ms +[\d.]+x", both)
    assert "bots at a served table: one person and six ismcts" in both
    assert both.rstrip().endswith("[reliability](explanation/reliability.md).")


def test_the_main_run_keeps_the_service_section_of_the_page(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH.parent))
    import speed_page

    page = tmp_path / "speed.md"
    figures = ["  moves per second, in all  300.0"]
    section = speed_page.service_section(figures, ["cpu: x"], None, None, ["--service"])
    old, new = (f"# Speed\n\n{what} figures\n\nHow these figures were won.\n" for what in ("old", "new"))
    page.write_text(speed_page.with_service_section(old, section))
    kept = speed_page.kept_service_section(page)
    assert kept == section
    rewritten = speed_page.with_service_section(new, kept)
    assert "new figures" in rewritten and "old figures" not in rewritten
    assert rewritten.index("moves per second") < rewritten.index("How these figures were won")
