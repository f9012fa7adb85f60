"""The hot routes (a move's POST, a game's stream) are answered behind the guard without the
framework's layers (service.http.HotRoutes): what they answer must be what the routes answer."""

from __future__ import annotations

from typing import Any

from served import Server, key_of, move, new_game, sse_messages


def _refusal(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]


def test_a_move_s_refusals_come_in_the_spec_s_order_with_the_guard_s_headers(server: Server) -> None:
    made = new_game(server)
    game, table_key = made["id"], key_of(made["links"]["table"])
    opening = {"type": "open", "as_": "Ann", "card": None}
    with (
        server.client() as nobody,
        server.client("not-a-key") as stranger,
        server.client(table_key) as table,
        server.host as host,
    ):
        assert _refusal(move(nobody, game, 3, **opening))[0] == 401
        assert _refusal(move(stranger, game, 3, **opening))[0] == 401
        assert _refusal(move(host, "no-such-game", 3, **opening))[0] == 404
        status, sentence = _refusal(move(table, game, 3, **opening))
        assert status == 403 and "only watches" in sentence
        url = f"/api/v1/games/{game}/moves"
        broken = host.post(url, content=b"{", headers={"content-type": "application/json"})
        assert _refusal(broken) == (422, "the body is not JSON")
        assert host.post(url, content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
        stale = move(host, game, 99, **opening)
        assert stale.status_code == 409 and stale.json()["head"] == made["seq"]
        assert stale.headers["x-frame-options"] == "DENY" and stale.headers["cache-control"] == "no-store"
        legal = host.get(f"/api/v1/games/{game}").json()["legal"][0]
        played = host.post(url, json={"expect": made["seq"], "move": legal})
        assert played.status_code == 201, played.text
        assert played.headers["content-security-policy"].startswith("default-src 'none'")
        # A foreign Host is still the guard's to refuse, before anything else is looked at.
        foreign = nobody.post(url, json={}, headers={"host": "evil.example"})
        assert foreign.status_code == 421


def test_a_stream_s_after_is_judged_as_the_framework_judges_it(server: Server) -> None:
    made = new_game(server)
    game = made["id"]
    with server.host as host:
        for after in ("-1", "x", "99999999999999999999"):
            answer = host.get(f"/api/v1/games/{game}/stream?after={after}")
            assert answer.status_code == 422, after
            assert "after" in answer.json()["error"]
        with host.stream("GET", f"/api/v1/games/{game}/stream?after=1") as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["x-content-type-options"] == "nosniff"
            first = next(sse_messages(stream.iter_lines()))
            assert first["id"] == "2"
