"""keep_or_swap_on_open through the API: the option in POST /games, the opener's decision in a
seat's `legal`, posting it as listed, and the lobby's field for it."""

from __future__ import annotations

from served import Server, key_of, move, new_game, we


def test_the_openers_decision_through_the_api(server: Server) -> None:
    game = new_game(server, title="Keep or swap", options={"keep_or_swap_on_open": True})
    gid, seq = game["id"], game["seq"]
    ann, ben = key_of(game["links"]["seats"]["Ann"]), key_of(game["links"]["seats"]["Ben"])
    with server.client(ann) as seat:
        r = move(seat, gid, seq, type="open", card="R7")
        assert r.status_code == 201, r.text
        seq = r.json()["seq"]
        view = seat.get(f"/api/v1/games/{gid}").json()
        assert view["phase"] == "keep or swap"
        # Nobody else holds a gift yet: keeping is the only decision.
        assert view["legal"] == [{"type": "swap", "as": "Ann", "with": None}]
        r = seat.post(f"/api/v1/games/{gid}/moves", json={"expect": seq, "move": view["legal"][0]})
        assert r.status_code == 201, r.text
        (event,) = r.json()["events"]
        assert event["type"] == "swap_after_open"
        assert event["data"] == {"party": 1, "player": "Ann", "with": None, "takes": None}
        seq = r.json()["seq"]
    with server.client(ben) as seat:
        r = move(seat, gid, seq, type="open", card="B3")
        assert r.status_code == 201, r.text
        seq = r.json()["seq"]
        r = move(seat, gid, seq, type="open", card="G5")  # the decision comes first
        assert r.status_code == 422, r.text
        assert "must first keep it or swap it" in r.json()["error"]
        legal = seat.get(f"/api/v1/games/{gid}").json()["legal"]
        assert legal == [
            {"type": "swap", "as": "Ben", "with": None},
            {"type": "swap", "as": "Ben", "with": "Ann"},
        ]
        r = seat.post(f"/api/v1/games/{gid}/moves", json={"expect": seq, "move": legal[1]})
        assert r.status_code == 201, r.text
        (event,) = r.json()["events"]
        assert event["data"] == {"party": 1, "player": "Ben", "with": "Ann", "takes": "R7"}
    with server.client(ann) as seat:
        view = seat.get(f"/api/v1/games/{gid}").json()
        assert view["phase"] == "playing"
        # Cat moves next; Ann, who now holds B3, sees no move of her own.
        assert view["legal"] == []
    with server.host as host:
        html = host.get("/").text
        assert 'data-option="keep_or_swap_on_open"' in html
    assert we("audit", server.directory / f"{gid}.jsonl").returncode == 0


def test_the_decision_is_refused_in_a_game_without_the_option(server: Server) -> None:
    plain = new_game(server, title="No keep or swap")
    with server.host as host:
        r = move(host, plain["id"], plain["seq"], type="open", as_="Ann", card="R7")
        assert r.status_code == 201, r.text
        r = move(host, plain["id"], r.json()["seq"], type="swap", as_="Ben", with_="Ann")
    assert r.status_code == 422
    assert set(r.json()) == {"error"}
