"""Whether the server answers at all: GET /healthz, which needs no key.

Under the test-only switch WE_SERVE_TRACEMALLOC=1 (set by tests/service/test_stream_fairness.py,
never by `we serve` itself) the server traces its memory (tracemalloc) and GET /healthz/memory,
left out of the published schema, says how much Python holds after a collection and how many live
streams are counted: a test outside the process can then prove a stream's memory is given back
when it closes. It is a switch, not always on, because tracing slows every allocation of the
server, and a server's memory is no guest's business.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from typing import Any

from fastapi import APIRouter

from service.routes.answers import responses
from service.routes.served import ServedDep

TRACING_SWITCH = "WE_SERVE_TRACEMALLOC"

router = APIRouter()


@router.get("/healthz", responses=responses())
async def healthz() -> dict[str, bool]:
    # async: answered on the event loop, never queued behind the worker threads' work.
    return {"ok": True}


def traced_memory_if_asked() -> APIRouter | None:
    """The test-only route, with tracing started, when the switch is on; else None."""
    if os.environ.get(TRACING_SWITCH) != "1":
        return None
    tracemalloc.start()
    memory = APIRouter()

    @memory.get("/healthz/memory", include_in_schema=False)
    async def traced(served: ServedDep) -> dict[str, Any]:
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
        return {"traced_bytes": held, "live_streams": len(served.streams)}

    return memory
