"""Fixtures: a real `we serve` process per test module (or per test, where a test stops it)."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from served import Server, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("games")
    running = start_server(directory)
    yield running
    assert running.stop(signal.SIGTERM) == 0
