"""The CLI's input edges, as a hostile or clumsy user meets them: what is piped into `we record`,
arguments that are not UTF-8, --jobs, output into a closed pipe, odd files where logs are
expected, control characters in names. Real processes wherever the behaviour is about one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from peakmem_run import run_measured
from weharness import ROOT

SET_UP = ["--no-library", "--players", "Xena,Yuri,Zoe", "--dealer", "Xena"]
SET_UP += ["--lists", "Xena=RGY,Yuri=BGO,Zoe=RBO"]


def run_we(*args: object, stdin: bytes | None = None, cwd: Path | None = None, shell: str | None = None):
    """`we ARGS` as a real process (or, with `shell`, a bash pipeline in which `we` is a function)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if shell is not None:
        script = f'we() {{ "{sys.executable}" -m cli.main "$@"; }}\nset -o pipefail\n{shell}'
        command: list[str | bytes] = ["bash", "-c", script]
    else:
        command = [sys.executable, "-m", "cli.main", *[a if isinstance(a, bytes) else str(a) for a in args]]
    return subprocess.run(
        command, input=stdin, capture_output=True, cwd=cwd or ROOT, env=env, timeout=300, check=False
    )


# --- 1. a piped recorder reads lines of bounded length -----------------------------------


def test_an_overlong_piped_line_is_refused_in_bounded_memory_and_the_rest_recorded(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    script = b"x" * 8_000_000 + b"\nopen R3\n" + b"\0" * 8_000_000  # the last one with no newline at all
    code, peak, err = run_measured("record", *SET_UP, log, stdin=script)
    assert code == 1 and "Traceback" not in err, err
    assert peak < 100, f"{peak:.0f} MiB"
    assert len(err) < 1000, err[:300]
    assert "input line 1: xxxxx" in err and "input line 3: " in err
    assert err.count("longer than 4,096 characters") == 2
    assert "R3" in log.read_text()
