"""The service's peer in the benchmark: the least a server can do for the bench's load.

    python tests/bench/peer_server.py DIR [--port 0]

The same stack as `we serve` (Starlette on uvicorn's h11 protocol, the same Python), the same
URLs the load uses and the same Server-Sent Events framing, and nothing else: a move is one
orjson parse, one expected-head check, one line appended and `os.fsync`'d on a worker thread
(under one lock per game, as `we serve` holds), then one wake-up of the game's followers. No
rules, no hash, no views, no keys but two. `bench_service.compare` puts the same load on it and
on `we serve`, round by round, so the gap between the two is what the service's own work costs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

# What the peer offers as the next move, always: the load picks one and posts it.
LEGAL = [{"type": "open", "as": "Ann", "card": None}]
KEEPALIVE_SECONDS = 10


class PeerGame:
    def __init__(self, path: Path, game_id: str) -> None:
        self.id = game_id
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.head = 0
        self.lock = asyncio.Lock()
        self.messages: list[bytes] = []  # [i]: the stream frame of seq i + 1
        self.changed = asyncio.Event()  # set and replaced once per move: one wake-up for all

    def append(self, line: bytes) -> None:
        os.write(self.fd, line)
        os.fsync(self.fd)


class Peer:
    def __init__(self, directory: Path, host_key: str) -> None:
        self.directory = directory
        self.host_key = host_key
        self.games: dict[str, PeerGame] = {}
        self.table_keys: dict[str, str] = {}

    def key_of(self, request: Request) -> str | None:
        header = request.headers.get("authorization")
        if header and header[:7].lower() == "bearer ":
            return header[7:].strip()
        return request.query_params.get("k")

    def game_of(self, request: Request, host_only: bool) -> PeerGame | Response:
        game = self.games.get(request.path_params["game_id"])
        if game is None:
            return error(404, "no such game")
        key = self.key_of(request)
        if key != self.host_key and (host_only or key != self.table_keys.get(game.id)):
            return error(401, "not a key of this server")
        return game

    async def write(
        self, game: PeerGame, kind: str, data: Any, expect: int | None
    ) -> Response | dict[str, Any]:
        async with game.lock:
            if expect is not None and expect != game.head:
                return error(409, f"expect is {expect} but the head is {game.head}", head=game.head)
            envelope = {
                "v": 1,
                "game": game.id,
                "seq": game.head + 1,
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "type": kind,
                "data": data,
            }
            await asyncio.to_thread(game.append, orjson.dumps(envelope) + b"\n")
            game.head += 1
            game.messages.append(
                b"id: %d\nevent: envelope\ndata: %s\n\n" % (game.head, orjson.dumps({"envelope": envelope}))
            )
            changed, game.changed = game.changed, asyncio.Event()
            changed.set()
            return envelope

    async def new_game(self, request: Request) -> Response:
        if self.key_of(request) != self.host_key:
            return error(401, "not a key of this server")
        body = orjson.loads(await request.body())
        game_id = secrets.token_hex(8)
        game = self.games[game_id] = PeerGame(self.directory / f"{game_id}.jsonl", game_id)
        self.table_keys[game_id] = secrets.token_urlsafe(16)
        await self.write(game, "game_started", body, None)
        base = f"{request.url.scheme}://{request.url.netloc}"
        links = {"table": f"{base}/t/{game_id}?k={self.table_keys[game_id]}", "seats": {}}
        return json({"id": game_id, "links": links}, 201)

    async def view(self, request: Request) -> Response:
        game = self.game_of(request, host_only=False)
        if isinstance(game, Response):
            return game
        return json({"game": game.id, "seq": game.head, "legal": LEGAL})

    async def move(self, request: Request) -> Response:
        game = self.game_of(request, host_only=True)
        if isinstance(game, Response):
            return game
        try:
            asked = orjson.loads(await request.body())
            expect, move = int(asked["expect"]), asked["move"]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return error(422, "the body is not a move")
        written = await self.write(game, str(move.get("type")), move, expect)
        if isinstance(written, Response):
            return written
        seq = written["seq"]
        return json({"seq": seq, "events": [written], "view": {"seq": seq, "legal": LEGAL}}, 201)

    async def stream(self, request: Request) -> Response:
        game = self.game_of(request, host_only=False)
        if isinstance(game, Response):
            return game
        return StreamingResponse(
            follow(game, int(request.query_params.get("after", 0))),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store"},
        )


async def follow(game: PeerGame, last: int) -> AsyncIterator[bytes]:
    while True:
        changed = game.changed
        if last < game.head:
            frames = game.messages[last : game.head]
            last = game.head
            yield b"".join(frames)
        try:
            await asyncio.wait_for(changed.wait(), timeout=KEEPALIVE_SECONDS)
        except TimeoutError:
            yield b": keepalive\n\n"


def json(content: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(content), status_code=status, media_type="application/json")


def error(status: int, sentence: str, **extra: Any) -> Response:
    return json({"error": sentence, **extra}, status)


def create_app(directory: Path, host_key: str) -> Starlette:
    peer = Peer(directory, host_key)
    return Starlette(
        routes=[
            Route("/api/v1/games", peer.new_game, methods=["POST"]),
            Route("/api/v1/games/{game_id}", peer.view, methods=["GET"]),
            Route("/api/v1/games/{game_id}/moves", peer.move, methods=["POST"]),
            Route("/api/v1/games/{game_id}/stream", peer.stream, methods=["GET"]),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    host_key = secrets.token_urlsafe(24)
    # As `we serve` listens: TCP_NODELAY comes with IPPROTO_TCP (cli/serve.py says why).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(1024)
    port = sock.getsockname()[1]
    print(f"Serving the games in {args.directory} at http://127.0.0.1:{port}", flush=True)
    print(f"Host (keep this link to yourself): http://127.0.0.1:{port}/?k={host_key}", flush=True)
    config = uvicorn.Config(
        create_app(args.directory, host_key),
        http="h11",
        loop="asyncio",
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=1,
    )
    PeerServer(config).run(sockets=[sock])
    return 0


class PeerServer(uvicorn.Server):
    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        # uvicorn raises the signal again once stopped; a clean stop was asked for (exit 0).
        captured = getattr(self, "_captured_signals", None)
        if isinstance(captured, list):
            captured.clear()


if __name__ == "__main__":
    sys.exit(main())
