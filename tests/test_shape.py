"""The shape of the code the guide asks for, kept true: no function in service/ over 150 lines
(issue 34: `create_app` had grown into a 383-line closure)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LONGEST = 150


def long_functions(folder: Path, longest: int = LONGEST) -> list[str]:
    """`path:line name (N lines)` for each function below `folder` longer than `longest` lines,
    nested ones included (a closure that holds the routes counts as one long function)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > longest:
                    found.append(
                        f"{path.relative_to(folder.parent)}:{node.lineno} {node.name} ({lines} lines)"
                    )
    return found


def test_no_function_in_service_is_over_150_lines() -> None:
    assert long_functions(ROOT / "service") == []


def test_a_long_function_is_found(tmp_path: Path) -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(LONGEST))
    (tmp_path / "long.py").write_text(f"def f():\n{body}\ndef g():\n    return 1\n", encoding="utf-8")
    found = long_functions(tmp_path)
    assert len(found) == 1 and found[0].endswith(f" f ({LONGEST + 1} lines)")
