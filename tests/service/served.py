"""A real `we serve` process on an ephemeral loopback port, and real `we` commands beside it.

(tests/service has no __init__.py: a package named `service` would shadow the project's.)
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"  # gitignored: screenshots of the live pages


def we_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "200"
    return env


def we(*args: object, input: str | None = None, check: bool = False) -> subprocess.CompletedProcess[str]:
    """`we ARGS...` as its own process, as a person would run it."""
    result = subprocess.run(
        [sys.executable, "-m", "cli.main", *map(str, args)],
        input=input,
        capture_output=True,
        text=True,
        env=we_env(),
        timeout=120,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"we {args}: exit {result.returncode}: {result.stderr}")
    return result


@dataclass
class Server:
    directory: Path | None
    process: subprocess.Popen[str]
    url: str
    host_key: str
    output: list[str] = field(default_factory=list)

    def client(self, key: str | None = None, timeout: float = 10) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    @property
    def host(self) -> httpx.Client:
        return self.client(self.host_key)

    def stop(self, sig: int = signal.SIGTERM, within: float = 10) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise AssertionError(f"`we serve` did not stop within {within} s of signal {sig}") from None


def start_server(directory: Path | None, *options: str, port: int = 0) -> Server:
    """`we serve DIRECTORY` (or, with no directory, `we serve OPTIONS`: --db URL), on `port`
    (0: any free one)."""
    where = [str(directory)] if directory is not None else []
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", *where, *options, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=we_env(),
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 30
    url = key = None
    while time.monotonic() < deadline and (url is None or key is None):
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if found := re.search(r"Host \(.*\): (http://127\.0\.0\.1:\d+)/\?k=(\S+)", line):
            url, key = found.group(1), found.group(2)
    if url is None or key is None:
        process.kill()
        raise AssertionError(f"`we serve` did not start: {''.join(lines)}{process.stderr.read()}")  # type: ignore[union-attr]
    server = Server(directory, process, url, key, lines)
    with server.client() as c:
        for _ in range(100):
            try:
                if c.get("/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
    return server


def new_game(server: Server, **spec: Any) -> dict[str, Any]:
    body = {
        "players": ["Ann", "Ben", "Cat"],
        "dealer": "Cat",
        "lists": {"Ann": "RGY", "Ben": "BGO", "Cat": "RBO"},
    }
    body.update(spec)
    with server.host as c:
        response = c.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def lobby_links(page: str, game: str) -> dict[str, str]:
    """A game's links in the host's lobby (each seat's by its player's name, "Table (for the TV)",
    "Host view"), read as a person reads them: without the game's name said only to a screen
    reader, nor the <bdi> around a name."""
    section = re.search(rf'<section class="game" data-game="{re.escape(game)}".*?</section>', page, re.S)
    assert section is not None, f"no section for {game} in the lobby"
    return {
        html.unescape(re.sub(r'<span class="vh">.*?</span>|<[^>]+>', "", words)): html.unescape(url)
        for url, words in re.findall(r'<a href="([^"]+)">(.*?)</a>', section[0])
    }


def key_of(link: str) -> str:
    return link.split("?k=", 1)[1]


def move(client: httpx.Client, game: str, expect: int, **move: Any) -> httpx.Response:
    if "as_" in move:
        move["as"] = move.pop("as_")
    if "from_" in move:
        move["from"] = move.pop("from_")
    if "with_" in move:
        move["with"] = move.pop("with_")
    return client.post(f"/api/v1/games/{game}/moves", json={"expect": expect, "move": move})


def sse_messages(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Server-Sent Events from a line iterator: {"id", "event", "data"} (comments skipped)."""
    message: dict[str, Any] = {}
    for line in lines:
        if line == "":
            if message:
                if "data" in message:
                    message["data"] = json.loads(message["data"])
                yield message
            message = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        message[name] = message.get(name, "") + value if name == "data" and name in message else value
