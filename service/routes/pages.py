"""The pages a browser opens (service.pages renders them): the host's lobby, and a game's live
table for a key."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from service.routes.answers import PAGE_HEADERS, ApiError, key_text, responses
from service.routes.served import ServedDep

router = APIRouter()

# Which page of the unfinished games (service.pages.LOBBY_PAGE a page); past the last: the last.
# Read here rather than by FastAPI, so that a bad one is refused after the key and as a page.
LobbyPage = Annotated[str | None, Query(description="The page of unfinished games: a whole number from 1")]


@router.get("/", response_class=HTMLResponse, responses=responses(401, 403, 422, page=True))
def lobby(request: Request, served: ServedDep, page: LobbyPage = None) -> HTMLResponse:
    served.host_only(request, "open the lobby")
    from service.pages import lobby_page

    number = 1
    if page is not None:
        if not (page.isascii() and page.isdigit() and len(page) <= 9 and int(page) >= 1):
            raise ApiError(422, "page must be a whole number from 1 (the lobby's first page is 1)")
        number = int(page)
    shown = lobby_page(served.folder, served.links, served.host_key, served.bot_seats.of, number)
    return HTMLResponse(shown, headers=PAGE_HEADERS)


@router.get("/t/{game_id}", response_class=HTMLResponse, responses=responses(401, 403, 404, 422, page=True))
def table_page(game_id: str, request: Request, served: ServedDep) -> HTMLResponse:
    role, game = served.game_for(request, game_id)
    from service.pages import live_page

    key = key_text(request) or ""
    return HTMLResponse(live_page(game, role, key), headers=PAGE_HEADERS)
