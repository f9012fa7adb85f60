"""wecore is the pure core: no I/O, no clock, no unseeded randomness, and it never imports the
store, the service or the CLI (the same guard as tests/store/test_isolation.py for eventstore).

The source is read rather than trusted to what gets loaded: the libraries wecore uses (pydantic)
load `socket` or `datetime` themselves, which says nothing about wecore's own code."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Modules that reach outside the process (files, network, other processes, terminals), read the
# clock, or draw unseeded random numbers; and our own outer layers.
FORBIDDEN = {
    "asyncio", "datetime", "fcntl", "glob", "http", "io", "mmap", "multiprocessing", "os",
    "pathlib", "random", "secrets", "select", "shutil", "signal", "socket", "sqlite3",
    "subprocess", "sys", "tempfile", "threading", "time", "urllib", "uuid",
    "eventstore", "service", "cli",
}  # fmt: skip
OUTER_LAYERS = ("eventstore", "service", "cli")


def imported_names(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every import in a file, wherever it stands (a function too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.lineno, (node.module or "").split(".")[0]))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("__import__", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value.split(".")[0]))
    return found


def test_the_core_imports_no_io_clock_randomness_or_outer_layer() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / "wecore").rglob("*.py"))
        for line, name in imported_names(path)
        if name in FORBIDDEN
    ]
    assert offences == []


def test_the_guard_sees_imports_inside_functions(tmp_path: pathlib.Path) -> None:
    # A guard that only read the top of a file would miss the lazy imports this code base uses.
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import time\n    from eventstore.jsonl import JsonlLog\n")
    assert [name for _, name in imported_names(sample)] == ["time", "eventstore"]


def test_importing_every_core_module_loads_no_outer_layer() -> None:
    code = (
        "import importlib, pkgutil, sys, wecore\n"
        "for m in pkgutil.iter_modules(wecore.__path__):\n"
        "    importlib.import_module('wecore.' + m.name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {OUTER_LAYERS!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    assert out.strip() == "[]"
