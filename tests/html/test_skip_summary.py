"""Without Chromium the browser tests skip, and the run says so without -rs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BROWSER_TESTS = sorted(
    str(path.relative_to(ROOT)) for path in (ROOT / "tests" / "html").glob("test_*_browser.py")
)


def test_a_run_without_chromium_says_why_the_browser_tests_skipped(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WE_CHROMIUM"}
    env["PATH"] = str(tmp_path)  # nowhere to find a browser
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "0",  # in one process: its first line is the progress line read below
            *BROWSER_TESTS,  # not this file: it would run itself
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    skipped = [line for line in done.stdout.splitlines() if "browser test" in line and "skipped:" in line]
    assert len(skipped) == 1, done.stdout
    assert "of the HTML pages skipped: no Chromium installed" in skipped[0]
    count = int(skipped[0].split()[0])
    progress = done.stdout.splitlines()[0].split("[")[0].strip()
    assert count == len(progress) == progress.count("s")  # every browser test skipped, and counted
