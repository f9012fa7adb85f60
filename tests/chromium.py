"""The headless Chromium every browser test drives (the replay page, the analysis page, the live
pages of `we serve`): found once, launched with one set of flags, skipped with one reason.

The flags keep Chromium off the network it would otherwise reach for at start (updates, sync,
QUIC), which this machine and CI refuse."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    for candidate in (os.environ.get("WE_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def launched_chromium() -> Iterator[Any]:
    """A Playwright browser for a fixture to yield from; the test skips, saying why, without one."""
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="Playwright for Python is not installed (pip install playwright); no browser test",
    )
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set WE_CHROMIUM to its path)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield launched
        launched.close()
