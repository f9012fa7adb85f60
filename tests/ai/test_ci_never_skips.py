"""Without the `ai` extra its tests skip, saying so; on CI (CI=true) they fail instead, as the
PostgreSQL tests do. The extra is hidden from a real pytest run by a module of the same name
that refuses to import, first on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_without_openspiel(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    hidden = tmp_path / "hidden"
    hidden.mkdir(exist_ok=True)
    (hidden / "pyspiel.py").write_text('raise ImportError("hidden by the test")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hidden), str(ROOT)])}
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    command = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*command, "tests/ai/test_frameworks.py"], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_without_the_extra_its_tests_skip_saying_why(tmp_path: Path) -> None:
    done = _run_without_openspiel(tmp_path, ci=None)
    # 5: pytest collected no test (the module skipped itself), which is no failure.
    assert done.returncode in (0, 5), done.stdout + done.stderr
    assert "the `ai` extra (open-spiel) is not installed" in done.stdout
    assert "failed" not in done.stdout and "error" not in done.stdout.lower()


def test_on_ci_without_the_extra_its_tests_fail(tmp_path: Path) -> None:
    done = _run_without_openspiel(tmp_path, ci="true")
    assert done.returncode != 0, done.stdout + done.stderr
    assert "CI must run the ai extra's tests, but the `ai` extra (open-spiel) is not installed" in done.stdout
