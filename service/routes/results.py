"""What a served game comes to: its audit, its play for BG Stats (service.bgstats) and its seal
into the folder's season (service.season)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request

from service.keys import HOST, SEAT
from service.routes.answers import ApiError, responses
from service.routes.served import ServedDep

router = APIRouter()

# Twelve hex digits or more: a fingerprint, or a part of a line's hash a message quotes.
_HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}")


@router.get("/api/v1/games/{game_id}/audit", responses=responses(401, 403, 404))
def audit(game_id: str, request: Request, served: ServedDep) -> dict[str, Any]:
    role, game = served.game_for(request, game_id)
    if role.kind == SEAT:
        raise ApiError(403, "a seat's key cannot audit: use the table's or the host's key")
    from service.audit import audit_one
    from service.reading import GameSource

    source = GameSource(label=game.label, path=game.path)
    result = audit_one(source, read=lambda _source, **how: served.folder.read_game(game, **how)).to_json()
    return result if role.kind == HOST or result["complete"] else without_hashes(result)


@router.get("/api/v1/games/{game_id}/play", responses=responses(401, 403, 404, 422))
def play(game_id: str, request: Request, served: ServedDep) -> dict[str, Any]:
    _, game = served.game_for(request, game_id)
    from service.bgstats import served_play

    try:
        return served_play(game)
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None


@router.post("/api/v1/games/{game_id}/seal", responses=responses(401, 403, 404, 409, 422))
def seal_game(game_id: str, request: Request, served: ServedDep) -> dict[str, Any]:
    served.host_only(request, "seal a game into the season")
    _, game = served.game_for(request, game_id)
    if served.directory is None or game.path is None:
        raise ApiError(422, "a season ledger lives beside the games of a folder: use `we season add`")
    from service.reading import GameSource
    from service.season import SEASON_FILE, seal_in_folder

    result = seal_in_folder(served.directory, GameSource(label=game.label, path=game.path))
    if result.refused:
        reason = result.refused[0].reason
        raise ApiError(409 if "already sealed" in reason else 422, f"{game.game}: {reason}")
    sealed, season = result.sealed[0], {"file": SEASON_FILE, "games": len(result.season.games)}
    return {
        "game": sealed.game,
        "fingerprint": sealed.fingerprint,
        "season": {**season, "fingerprint": result.fingerprint},
    }


def without_hashes(audit: dict[str, Any]) -> dict[str, Any]:
    """An audit as a table key may read it before the game is complete: no fingerprint, and no
    run of a hash in a problem's words (a hash of a line with one hidden card is broken by
    trying 50 cards)."""
    problems = [{**p, "message": _HEX_RUN.sub("(a hash)", p["message"])} for p in audit["problems"]]
    return {**audit, "fingerprint": None, "stored_fingerprint": None, "problems": problems}
