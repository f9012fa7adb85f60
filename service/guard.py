"""The guard in front of `we serve` on a party's Wi-Fi (docs/service.md, "On a party's Wi-Fi").

A pure ASGI middleware, so that streams pass through unbuffered:
- a `Host` that is not one of the server's own names is refused (421: DNS rebinding);
- a request that changes anything must be `Content-Type: application/json` (415) and, when it
  says where it comes from, come from the server itself (`Origin`, 403): a leaked link cannot be
  used by another site's page;
- every answer carries `X-Content-Type-Options: nosniff`, a `Content-Security-Policy` with
  `frame-ancestors 'none'` and `X-Frame-Options: DENY`; a page's policy allows only its own
  inline scripts and styles, by their sha256 hashes; an answer to a keyed request carries
  `Cache-Control: no-store` and `Referrer-Policy: no-referrer`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# Every answer: nothing may frame it, nothing may guess its type.
_ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
]
_NOT_A_PAGE_CSP = b"default-src 'none'; frame-ancestors 'none'"
_PAGE_CSP = (
    "default-src 'none'; script-src {scripts}; style-src {styles}; connect-src 'self';"
    " img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_KEYED = [(b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer")]

# An executable inline script (not a `type="application/json"` data block) or a style block.
_SCRIPT = re.compile(rb"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S | re.I)
_STYLE = re.compile(rb"<style[^>]*>(?P<body>.*?)</style>", re.S | re.I)


def host_name(host: str) -> str:
    """`Host` without its port, lower case ("[::1]:8765" -> "[::1]")."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end >= 0 else host
    return host.partition(":")[0]


def allowed_names(base_url: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The loopback names, the host of the printed link, and the names the host gave (--name)."""
    own = {*LOOPBACK_NAMES, host_name(urlsplit(base_url).netloc)}
    own.update(host_name(name) for name in names if name.strip())
    return frozenset(own)


def _hashes(pattern: re.Pattern[bytes], page: bytes, scripts: bool) -> str:
    found = []
    for match in pattern.finditer(page):
        if scripts and b"application/json" in match.group("attrs").lower():
            continue  # data, not code: the policy does not run it
        digest = hashlib.sha256(match.group("body")).digest()
        found.append(f"'sha256-{base64.b64encode(digest).decode()}'")
    return " ".join(dict.fromkeys(found)) or "'none'"


def inline_hashes(page: bytes) -> tuple[str, str]:
    """The CSP sources of a page's own inline scripts and of its styles ("'sha256-...' ...")."""
    return _hashes(_SCRIPT, page, scripts=True), _hashes(_STYLE, page, scripts=False)


def page_policy(page: bytes) -> bytes:
    """The policy of one page: its own inline scripts and styles, by hash, and nothing else."""
    scripts, styles = inline_hashes(page)
    return _PAGE_CSP.format(scripts=scripts, styles=styles).encode()


def _keyed(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    if headers.get(b"authorization"):
        return True
    query = scope.get("query_string", b"")
    return any(part.startswith(b"k=") for part in query.split(b"&"))


class Guard:
    """The ASGI middleware; `names` are the `Host` names the server answers to."""

    def __init__(self, app: ASGIApp, names: Iterable[str]) -> None:
        self.app = app
        self.names = frozenset(names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.lower(), value)
        host = headers.get(b"host", b"").decode("latin-1")
        if host_name(host) not in self.names:
            name = host_name(host)[:100]
            await self._refuse(
                send,
                421,
                f"this server does not answer to the name {name!r}: open the link `we serve` printed,"
                f" or start it with `we serve --name {name}` if that name is yours",
            )
            return
        if scope.get("method", "GET").upper() in STATE_CHANGING:
            origin = headers.get(b"origin")
            if origin is not None and origin.decode("latin-1").lower() != f"http://{host.strip().lower()}":
                await self._refuse(send, 403, "a request from another site's page is refused")
                return
            kind = headers.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
            if kind != b"application/json":
                await self._refuse(send, 415, "a request that changes anything must be application/json")
                return
        keyed = _keyed(scope, headers)
        started: Message | None = None
        page = bytearray()

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                ours = _OURS | _KEYED_NAMES if keyed else _OURS
                answer = [(n, v) for n, v in message.get("headers", []) if n.lower() not in ours]
                answer += _ALWAYS
                if keyed:
                    answer += _KEYED
                kind = dict((n.lower(), v) for n, v in answer).get(b"content-type", b"")
                message = {**message, "headers": answer}
                if kind.startswith(b"text/html"):
                    started = message  # the policy hashes the page: wait for its body
                    return
                message["headers"] = [*answer, (b"content-security-policy", _NOT_A_PAGE_CSP)]
                await send(message)
                return
            if started is not None and message["type"] == "http.response.body":
                page.extend(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = bytes(page)
                fixed = [(n, v) for n, v in started["headers"] if n.lower() != b"content-length"]
                fixed += [
                    (b"content-length", str(len(body)).encode()),
                    (b"content-security-policy", page_policy(body)),
                ]
                await send({**started, "headers": fixed})
                await send({"type": "http.response.body", "body": body, "more_body": False})
                return
            await send(message)

        await self.app(scope, receive, guarded_send)

    @staticmethod
    async def _refuse(send: Send, status: int, sentence: str) -> None:
        body = orjson.dumps({"error": sentence})
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *_ALWAYS,
            (b"content-security-policy", _NOT_A_PAGE_CSP),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


_OURS = frozenset({b"x-content-type-options", b"x-frame-options", b"content-security-policy"})
_KEYED_NAMES = frozenset(name for name, _ in _KEYED)
