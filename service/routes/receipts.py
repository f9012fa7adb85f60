"""A seat's receipt of a finished game (service.receipts): the phone asks for it, signs it and
posts it back; the server keeps it beside the game (not as an event of it)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request

from eventstore.errors import StoreError
from eventstore.receipts import MAX_RECEIPT_BYTES, Receipt, ReceiptError
from service.keys import SEAT, Role
from service.live import LiveGame
from service.routes.answers import ApiError, responses
from service.routes.bodies import RECEIPT_BODY, ReceiptBody, read_body
from service.routes.served import Served, ServedDep

router = APIRouter()
# The event count of the receipt a phone holds already.
Seen = Annotated[int | None, Query(ge=1, le=2**63 - 1)]


def _seat_of(role: Role) -> str:
    if role.kind != SEAT or role.seat is None:
        raise ApiError(403, "a receipt is a player's: use that seat's key")
    return role.seat


@router.get("/api/v1/games/{game_id}/receipt", responses=responses(401, 403, 404, 409))
def get_receipt(game_id: str, request: Request, served: ServedDep, seen: Seen = None) -> dict[str, Any]:
    role, game = served.game_for(request, game_id)
    from service.receipts import receipt_for

    try:
        receipt = receipt_for(game, _seat_of(role)).as_data()
    except ReceiptError as exc:
        raise ApiError(409, str(exc)) from None
    if seen is not None:
        # The phone's receipt saw the log end at `seen` events: is that line still the one?
        with game.lock:
            receipt["seen_hash"] = game.envelopes[seen - 1]["hash"] if seen <= game.head else None
    return receipt


@router.post(
    "/api/v1/games/{game_id}/receipt",
    status_code=201,
    responses=responses(401, 403, 404, 413, 422, 503),
    openapi_extra={"requestBody": RECEIPT_BODY},
)
async def post_receipt(game_id: str, request: Request, served: ServedDep) -> dict[str, Any]:
    role, game = served.game_for(request, game_id)
    player = _seat_of(role)
    body: ReceiptBody = await read_body(request, ReceiptBody)
    data = body.model_dump()
    if len(orjson.dumps(data)) > MAX_RECEIPT_BYTES:
        raise ApiError(413, f"a receipt is at most {MAX_RECEIPT_BYTES} bytes")
    receipt = await asyncio.to_thread(_keep, served, game, player, data)
    return {"kept": True, "player": receipt.player, "events": receipt.events, "key": receipt.key_fingerprint}


def _keep(served: Served, game: LiveGame, player: str, data: dict[str, Any]) -> Receipt:
    from service.receipts import accepted_receipt, keep_receipt

    try:
        receipt = accepted_receipt(game, player, data)
    except ReceiptError as exc:
        raise ApiError(422, str(exc)) from None
    pool = getattr(served.folder, "pool", None)
    try:
        if pool is None:
            keep_receipt(game, receipt, None)
        else:
            with pool.library() as library:
                keep_receipt(game, receipt, library)
    except OSError as exc:
        raise ApiError(503, f"the receipt could not be kept: {exc.strerror or exc}") from None
    except StoreError as exc:
        raise ApiError(503, f"the receipt could not be kept: {exc}") from None
    return receipt
