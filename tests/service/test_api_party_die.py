"""party_die through the API (docs/service.md, "The die"): a seat rolls and the server draws the
face; a seat sending a face gets 403; the host records a die rolled at the table; a bot's seat
rolls as a seat does; the lobby offers the rule."""

from __future__ import annotations

import time

from served import Server, key_of, move, new_game, we

DIE = {"attic_sizes": {"3": 1}, "party_die": True}


def _play_to_the_roll(server: Server, game: dict) -> int:
    """Ann, Ben and Cat each open a gift from their own seat: the party waits for Ann's roll."""
    gid, seq = game["id"], game["seq"]
    for name, card in (("Ann", "R7"), ("Ben", "B3"), ("Cat", "G5")):
        with server.client(key_of(game["links"]["seats"][name])) as seat:
            r = move(seat, gid, seq, type="open", card=card)
            assert r.status_code == 201, r.text
            seq = r.json()["seq"]
    return seq


def test_a_seat_rolls_and_the_server_draws_the_face(server: Server) -> None:
    game = new_game(server, title="The die", options=DIE)
    gid = game["id"]
    seq = _play_to_the_roll(server, game)
    with server.client(key_of(game["links"]["seats"]["Ben"])) as ben:
        view = ben.get(f"/api/v1/games/{gid}").json()
        assert view["phase"] == "rolling"
        assert view["legal"] == []  # only the starter rolls
        r = move(ben, gid, seq, type="roll")
        assert r.status_code == 422, r.text
        assert "only party 1's starter, Ann, may roll the die now, not Ben" in r.json()["error"]
    with server.client(key_of(game["links"]["seats"]["Ann"])) as ann:
        view = ann.get(f"/api/v1/games/{gid}").json()
        assert view["legal"] == [{"type": "roll", "as": "Ann"}]  # no face to choose
        r = move(ann, gid, seq, type="roll", value=6)
        assert r.status_code == 403, r.text
        assert "the server draws the face" in r.json()["error"]
        r = ann.post(f"/api/v1/games/{gid}/moves", json={"expect": seq, "move": view["legal"][0]})
        assert r.status_code == 201, r.text
        (event,) = r.json()["events"]
        assert event["type"] == "die_rolled"
        assert event["data"]["player"] == "Ann" and event["data"]["value"] in range(1, 7)
        assert r.json()["view"]["complete"]
    assert we("audit", server.directory / f"{gid}.jsonl").returncode == 0


def test_the_host_records_a_die_rolled_at_the_table(server: Server) -> None:
    game = new_game(server, title="The host's die", options=DIE)
    gid = game["id"]
    seq = _play_to_the_roll(server, game)
    with server.host as host:
        legal = host.get(f"/api/v1/games/{gid}").json()["legal"]
        assert [m for m in legal if m["type"] == "roll"] == [
            {"type": "roll", "as": "Ann", "value": face} for face in range(1, 7)
        ]
        r = move(host, gid, seq, type="roll", as_="Ann", value=7)
        assert r.status_code == 422, r.text
        assert "a die has faces 1 to 6, not 7" in r.json()["error"]
        r = move(host, gid, seq, type="roll", as_="Ann", value="6")
        assert r.status_code == 422, r.text
        r = move(host, gid, seq, type="roll", as_="Ann", value=6)
        assert r.status_code == 201, r.text
        (event,) = r.json()["events"]
        assert event["data"] == {"party": 1, "player": "Ann", "value": 6}
        view = r.json()["view"]
        # The pass on a 6: Ann's R7 went to Ben, Ben's B3 to Cat, Cat's G5 to Ann.
        assert view["kept"] == {"Ann": ["G5"], "Ben": ["R7"], "Cat": ["B3"]}
        assert 'data-option="party_die"' in host.get("/").text


def test_a_roll_in_a_game_without_the_die_is_refused(server: Server) -> None:
    game = new_game(server, title="No die")
    with server.host as host:
        r = move(host, game["id"], game["seq"], type="roll", as_="Ann", value=3)
    assert r.status_code == 422, r.text
    assert "there is no die in this game" in r.json()["error"]


def test_a_bots_seat_rolls_and_never_chooses_the_face(server: Server) -> None:
    bots = {"Ann": "greedy", "Ben": "random", "Cat": "ismcts"}
    game = new_game(
        server, lists=None, deal_attics=True, bots=bots, options={"attic_sizes": {"3": 2}, "party_die": True}
    )
    gid = game["id"]
    deadline = time.monotonic() + 120
    with server.host as host:
        while not host.get(f"/api/v1/games/{gid}").json()["complete"]:
            assert time.monotonic() < deadline, "the bots' game never ended"
            time.sleep(0.05)
    log = (server.directory / f"{gid}.jsonl").read_text(encoding="utf-8")
    assert log.count('"die_rolled"') == 2
    assert we("audit", server.directory / f"{gid}.jsonl").returncode == 0
