"""How the API answers: a refusal in one sentence (JSON, or a page to read where a browser opened
a page), views as JSON through orjson, and the refusals a route documents.

No route of the package has a docstring: FastAPI would publish it as the operation's description
in the OpenAPI schema, and the API reference (docs_hooks.py) is generated from that schema.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

PAGE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


class FastJSON(JSONResponse):
    """JSON through orjson: views are sent hundreds of times a second."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    def __init__(self, status: int, sentence: str, **extra: Any) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence
        self.extra = extra


def refused(request: Request, status: int, sentence: str, **extra: Any) -> Response:
    """{"error": sentence} for the API; for a page (the lobby, a table), a page to read."""
    path = request.url.path
    if path == "/" or path.startswith("/t/"):
        from service.pages import error_page

        return HTMLResponse(error_page(status, sentence), status_code=status, headers=PAGE_HEADERS)
    return JSONResponse({"error": sentence, **extra}, status_code=status)


def responses(*statuses: int, page: bool = False) -> dict[int | str, dict[str, Any]]:
    words = {
        400: "Bad request",
        401: "No key, or not a key of this service",
        403: "The key is not enough for this",
        404: "No such game",
        409: "expect is not the head",
        413: "The body is over 16 KiB",
        422: "The body or the move is refused",
        429: "Too many live streams from this client address",
        503: "The game library (a database) cannot be reached just now",
    }
    error: dict[str, Any] = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    if page:  # a page's refusal is a page to read (pages.error_page)
        error = {"text/html": {"schema": {"type": "string"}}}
    return {s: {"description": words[s], "content": error} for s in statuses}


def key_text(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header and header[:7].lower() == "bearer ":
        return header[7:].strip()
    return request.query_params.get("k")


def shortened(text: str, keep: int = 64) -> str:
    """What a request named, cut to be echoed in one short line."""
    return text if len(text) <= keep else text[: keep - 3] + "..."
