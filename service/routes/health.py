"""Whether the server answers at all: GET /healthz, which needs no key."""

from __future__ import annotations

from fastapi import APIRouter

from service.routes.answers import responses

router = APIRouter()


@router.get("/healthz", responses=responses())
def healthz() -> dict[str, bool]:
    return {"ok": True}
