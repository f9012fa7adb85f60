"""The store knows envelopes, not game rules: it must never import the engine or the CLI."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

from .helpers import ROOT

MODULES = sorted(path.stem for path in (ROOT / "eventstore").glob("*.py") if path.stem != "__init__")


def test_no_imports_of_wecore_or_cli_in_the_source() -> None:
    for path in sorted((ROOT / "eventstore").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in {"wecore", "cli"}, f"{path.name} imports {name}"


def test_importing_the_store_loads_no_engine() -> None:
    code = (
        "import sys\n"
        + "".join(f"import eventstore.{m}\n" for m in MODULES)
        + "print(sorted(m for m in sys.modules if m.split('.')[0] in ('wecore', 'cli')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    assert out.strip() == "[]"
