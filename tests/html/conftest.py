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
