"""The layers are checked, not promised: `[tool.importlinter]` in pyproject.toml. wecore imports
neither the store nor the service nor the cli; eventstore imports no wecore; service imports no
cli; cli reaches neither the core's deciding and folding nor a store backend directly, only
through service/ (its use cases, written once for every face)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_linter_keeps_every_contract() -> None:
    # From the checkout (import-linter puts its working directory first on the path), and
    # with no cache written into it.
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
