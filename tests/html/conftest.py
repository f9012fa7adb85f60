"""Fixtures for the HTML replay tests; the helpers are in replay_support."""

from __future__ import annotations

from typing import Any

import pytest
from replay_support import frozen_game, load_log


@pytest.fixture
def one_party() -> list[dict[str, Any]]:
    return load_log("one-party.jsonl")


@pytest.fixture
def four_dealt() -> list[dict[str, Any]]:
    return load_log("four-players-dealt.jsonl")


@pytest.fixture(scope="session")
def frozen_log() -> list[dict[str, Any]]:
    return frozen_game()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say why the browser tests did not run, without -rs: a green run that skipped them all
    should not look like a run that checked the page in a browser."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if "_browser.py" not in report.nodeid or not isinstance(report.longrepr, tuple):
            continue
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in reasons.items():
        plural = "s" if count != 1 else ""
        terminalreporter.write_line(
            f"{count} browser test{plural} of the HTML pages skipped: {reason}", yellow=True
        )
