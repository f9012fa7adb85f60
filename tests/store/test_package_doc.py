"""The store's package docstring names every one of its modules: it is the map a reader opens
first (a new module left off it was how postgres, libraries, limits and problems went missing)."""

from __future__ import annotations

from pathlib import Path

import eventstore


def test_every_eventstore_module_is_named_in_the_package_docstring() -> None:
    modules = {path.stem for path in Path(eventstore.__file__).parent.glob("*.py")} - {"__init__"}
    doc = eventstore.__doc__ or ""
    assert {module for module in modules if f"`{module}`" not in doc} == set()
