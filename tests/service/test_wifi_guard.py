"""`we serve` on a party's Wi-Fi (docs/service.md, "On a party's Wi-Fi"): a real server, asked
as a hostile guest's browser or a broken phone would ask it."""

from __future__ import annotations

import signal
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from chromium import launched_chromium
from served import Server, new_game, start_server

EVIL = "https://evil.example"


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


def _seq(server: Server, game: str) -> int:
    with server.host as c:
        return int(c.get(f"/api/v1/games/{game}").json()["seq"])


def test_another_sites_text_plain_and_form_posts_change_nothing(server: Server) -> None:
    game = new_game(server, title="Leaked link")
    gid = game["id"]
    before = _seq(server, gid)
    assert server.directory is not None
    recorded = {path.name: path.read_bytes() for path in server.directory.glob("*.jsonl")}
    assert f"{gid}.jsonl" in recorded
    move = '{"expect": ' + str(before) + ', "move": {"type": "note", "text": "from evil"}}'
    with server.host as c:
        plain = c.post(
            f"/api/v1/games/{gid}/moves",
            content=move,
            headers={"Content-Type": "text/plain", "Origin": EVIL},
        )
        assert plain.status_code == 403, plain.text
        no_origin = c.post(f"/api/v1/games/{gid}/moves", content=move, headers={"Content-Type": "text/plain"})
        assert no_origin.status_code == 415, no_origin.text
        foreign_json = c.post(
            f"/api/v1/games/{gid}/moves",
            content=move,
            headers={"Content-Type": "application/json", "Origin": EVIL},
        )
        assert foreign_json.status_code == 403
    with server.host as c:
        listed = len(c.get("/api/v1/games").json())
        form = c.post(
            "/api/v1/games",
            content="players=Ann&players=Ben&players=Cat&dealer=Cat",
            headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": EVIL},
        )
        assert form.status_code == 403
        form = c.post(
            "/api/v1/games",
            content="players=Ann&players=Ben&players=Cat&dealer=Cat",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert form.status_code == 415 and "application/json" in form.json()["error"]
        assert len(c.get("/api/v1/games").json()) == listed
    assert _seq(server, gid) == before
    # Not a byte of any log written, and no game's log added.
    assert {path.name: path.read_bytes() for path in server.directory.glob("*.jsonl")} == recorded
    # The server's own page (same Origin) still writes.
    with server.host as c:
        own = c.post(
            f"/api/v1/games/{gid}/moves",
            content=move,
            headers={"Content-Type": "application/json", "Origin": server.url},
        )
        assert own.status_code == 201, own.text


def test_a_foreign_host_is_refused_and_loopback_names_are_not(server: Server) -> None:
    port = urlsplit(server.url).port
    with server.host as c:
        for evil in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
            refused = c.get("/api/v1/games", headers={"Host": evil})
            assert refused.status_code == 421, (evil, refused.status_code)
            # The host reads what to do: the name refused, and how to allow it if it is theirs.
            assert f"`we serve --name {evil.partition(':')[0]}`" in refused.json()["error"], refused.text
            assert c.get("/", headers={"Host": evil}).status_code == 421
        for own in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST"):
            assert c.get("/api/v1/games", headers={"Host": own}).status_code == 200, own


def test_a_name_given_with_name_is_served(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--name", "party.local", "--name", "elephant.lan")
    try:
        with server.host as c:
            for name in ("party.local", "elephant.lan:8080", "PARTY.LOCAL"):
                assert c.get("/api/v1/games", headers={"Host": name}).status_code == 200, name
            assert c.get("/api/v1/games", headers={"Host": "other.local"}).status_code == 421
    finally:
        assert server.stop() == 0


def test_every_answer_carries_the_headers(server: Server) -> None:
    game = new_game(server, title="Headers")
    with server.client() as anyone:
        for answer in (anyone.get("/healthz"), anyone.get("/api/v1/games"), anyone.get("/nowhere")):
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert answer.headers["x-frame-options"] == "DENY"
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    with server.host as host:
        keyed = [
            host.get(f"/api/v1/games/{game['id']}"),
            host.get(f"/api/v1/games/{game['id']}/events"),
            host.get("/"),
            httpx.get(game["links"]["table"]),
        ]
        for answer in keyed:
            assert answer.status_code == 200
            assert answer.headers["cache-control"] == "no-store", answer.url
            assert answer.headers["referrer-policy"] == "no-referrer"
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        page_policy = keyed[2].headers["content-security-policy"]
        assert "unsafe-inline" not in page_policy and "'sha256-" in page_policy


def test_a_hang_up_mid_body_leaves_no_traceback(tmp_path: Path) -> None:
    server = start_server(tmp_path)
    game = new_game(server, title="Hang-up")
    address = urlsplit(server.url)
    for path in ("/api/v1/games", f"/api/v1/games/{game['id']}/moves"):
        with socket.create_connection((address.hostname, address.port)) as raw:
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {address.netloc}\r\n"
                f"Authorization: Bearer {server.host_key}\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            )
            raw.sendall(head.encode() + b'{"expect":')  # 10 bytes of the 1,000, then gone
    with server.host as c:  # the server is still there, and nothing was written
        assert c.get(f"/api/v1/games/{game['id']}").json()["seq"] == game["seq"]
    assert server.stop(signal.SIGTERM) == 0
    assert server.process.stderr is not None
    log = server.process.stderr.read()
    assert "Traceback" not in log and "ClientDisconnect" not in log, log[-2000:]


def test_the_pages_work_under_their_policy(server: Server, browser: Any) -> None:
    game = new_game(server, title="Policy")
    links = game["links"]
    pages = {
        "lobby": f"{server.url}/?k={server.host_key}",
        "table": links["table"],
        "seat": links["seats"]["Ann"],
        "host": f"{server.url}/t/{game['id']}?k={server.host_key}",
        "bare /": f"{server.url}/",  # no key: the page that says to ask the host for a link
    }
    for name, url in pages.items():
        page = browser.new_page()
        problems: list[str] = []

        def console(message: Any, problems: list[str] = problems) -> None:
            if message.type == "error":
                problems.append(message.text)

        page.on("console", console)
        page.on("pageerror", lambda exc, problems=problems: problems.append(str(exc)))
        page.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page.goto(url)
        if name in ("lobby", "bare /"):
            # Its style applied (not the browser default serif); a blocked script would be a violation.
            page.wait_for_load_state("load")
            assert page.evaluate("() => getComputedStyle(document.body).fontFamily") != "serif"
        else:
            page.wait_for_function(
                "() => document.getElementById('live-status').dataset.state === 'live'", timeout=20000
            )
        violations = page.evaluate("() => window.__violations")
        assert violations == [], (name, violations)
        assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], (name, problems)
        if name == "bare /":
            # The 401 itself is a console error in Chromium; nothing else may be.
            problems = [p for p in problems if "401" not in p]
        assert not problems, (name, problems)
        page.close()


@pytest.mark.parametrize(
    ("players", "said"),
    [
        (["Ann", "\u0410nn", "Cat"], "cannot be told apart"),
        (["Ann", "Ann\u200b", "Cat"], "holds U+200B ZERO WIDTH SPACE, which draws nothing"),
        (["Ann", "Ben", "\u202eneB"], "holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
        (["Ann", "Ben", "Ben\u2800"], "holds U+2800 BRAILLE PATTERN BLANK, which draws nothing"),
        (["Ann", "\u2800", "Cat"], "is only characters that draw nothing (U+2800 BRAILLE PATTERN BLANK)"),
        (["Ann", "\u00ad", "Cat"], "is only characters that draw nothing (U+00AD SOFT HYPHEN)"),
        (["Ann", "Ben\u202e", "Cat"], "holds U+202E RIGHT-TO-LEFT OVERRIDE"),
        (["Ann", "Ben\u2066", "Cat"], "holds U+2066 LEFT-TO-RIGHT ISOLATE"),
        (["Ann", "Ben\u3000Lee", "Cat"], "holds U+3000 IDEOGRAPHIC SPACE"),
    ],
)
def test_a_new_game_of_players_a_person_cannot_tell_apart_is_refused(
    server: Server, players: list[str], said: str
) -> None:
    with server.host as c:
        listed = len(c.get("/api/v1/games").json())
        refused = c.post("/api/v1/games", json={"players": players, "dealer": "Cat"})
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert said in error and repr(players[1] if players[1] != "Ben" else players[2]) in error, error
        assert len(c.get("/api/v1/games").json()) == listed


def test_an_emoji_name_is_welcome(server: Server) -> None:
    with server.host as c:
        players = ["\U0001f469\u200d\U0001f680", "\U0001f3f3\ufe0f\u200d\U0001f308", "Cat"]
        made = c.post("/api/v1/games", json={"players": players, "dealer": "Cat"})
        assert made.status_code == 201, made.text
        assert c.get(f"/api/v1/games/{made.json()['id']}").json()["players"] == players
