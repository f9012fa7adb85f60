"""schemathesis over the published OpenAPI schema of a real `we serve`, bounded so CI stays fast:
no response is a 500, and none has a status (or content type) the schema does not document."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    status_code_conformance,
)
from served import Server, new_game, start_server  # noqa: E402


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("fuzzed"))
    new_game(running, title="Fuzzed")  # a game to find: most generated ids are 404
    yield running
    assert running.stop() == 0


@pytest.fixture(scope="module")
def api_schema(fuzzed: Server) -> Any:
    return schemathesis.openapi.from_url(f"{fuzzed.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_500_and_only_documented_statuses(case: Any, fuzzed: Server) -> None:
    for headers in ({"Authorization": f"Bearer {fuzzed.host_key}"}, {}):
        case.call_and_validate(
            base_url=fuzzed.url,
            headers=headers,
            checks=[not_a_server_error, status_code_conformance, content_type_conformance],
        )
