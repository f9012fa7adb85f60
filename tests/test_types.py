"""The type checker is part of the suite: `[tool.mypy]` in pyproject.toml, strict on wecore/,
service/ and eventstore/. Every `match` over the kinds of wecore.kinds ends in `assert_never`, so
a kind that a consumer forgets is a type error here, not a game that folds wrongly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
