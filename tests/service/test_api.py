"""The JSON API of `we serve`, against a real server process: every endpoint, every status of
docs/service.md, keys, the check order, and the same refusals as `we record`."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading

import httpx
import pytest
import segno
from served import Server, key_of, move, new_game, we, we_env

JSON = {"Content-Type": "application/json"}  # what a write must say it is (else 415)


def test_healthz_needs_no_key(server: Server) -> None:
    with server.client() as c:
        response = c.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True}


def test_host_key_file_is_private(server: Server) -> None:
    path = server.directory / ".we" / "host-key"
    assert path.read_text().strip() == server.host_key
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert len(server.host_key) >= 22


def test_keys_401_and_403(server: Server) -> None:
    game = new_game(server, title="Keys")
    gid = game["id"]
    table, ann = key_of(game["links"]["table"]), key_of(game["links"]["seats"]["Ann"])
    other = new_game(server, title="Other keys")
    with server.client() as anyone:
        assert anyone.get("/api/v1/games").status_code == 401
        assert anyone.get(f"/api/v1/games/{gid}").status_code == 401
        assert anyone.get("/api/v1/games", params={"k": "not-a-key"}).status_code == 401
        assert anyone.get(f"/api/v1/games/{gid}", params={"k": server.host_key + "x"}).status_code == 401
        # 401 comes before 404: a stranger learns nothing about which games exist
        assert anyone.get("/api/v1/games/no-such-game").status_code == 401
        assert anyone.get("/").status_code == 401
        body = anyone.get("/api/v1/games").json()
        assert set(body) == {"error"}
    with server.client(ann) as seat:
        assert seat.get("/api/v1/games").status_code == 403  # a seat key cannot list games
        assert seat.get("/", params={"k": ann}).status_code == 403  # nor open the lobby
        assert seat.get(f"/api/v1/games/{other['id']}").status_code == 403  # another game's key
        assert seat.get("/api/v1/games/no-such-game").status_code == 404  # 404 before 403
        r = move(seat, gid, game["seq"], type="open", as_="Ben", card="B3")
        assert r.status_code == 403, r.text  # a seat moving for another player
        assert move(seat, gid, game["seq"], type="undo").status_code == 403
        assert move(seat, gid, game["seq"], type="note", text="hi").status_code == 403
        assert move(seat, gid, game["seq"], type="tie", winner="Ann").status_code == 403
        assert seat.get(f"/api/v1/games/{gid}/audit").status_code == 403
    with server.client(table) as tv:
        assert tv.get(f"/api/v1/games/{gid}").status_code == 200
        assert tv.get("/api/v1/games").status_code == 403
        assert move(tv, gid, game["seq"], type="open", as_="Ann", card="R7").status_code == 403
        # a table key posting is 403 before the body is even looked at (413, 422)
        assert tv.post(f"/api/v1/games/{gid}/moves", content=b"x" * 20000, headers=JSON).status_code == 403
        assert tv.get(f"/api/v1/games/{gid}/audit").status_code == 200
    with server.host as host:
        assert host.get("/api/v1/games/no-such-game").status_code == 404
        assert host.get("/no/such/page").status_code == 404
        assert host.get("/api/v1/games/no-such-game/events").status_code == 404


def test_create_game_one_append_and_ids(server: Server) -> None:
    first = new_game(server, title="Game Night")
    second = new_game(server, title="Game Night")
    assert first["id"] == "game-night"
    assert second["id"] == "game-night-2"
    assert first["seq"] == 2
    assert set(first["links"]["seats"]) == {"Ann", "Ben", "Cat"}
    assert first["links"]["table"].startswith(server.url + "/t/game-night?k=")
    lines = (server.directory / "game-night.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["game_started", "gift_lists_dealt"]
    dealt = new_game(
        server, title="Dealt", lists=None, deal_attics=True, players=["Ann", "Ben", "Cat", "Dan"]
    )
    assert dealt["seq"] == 3
    types = [json.loads(x)["type"] for x in (server.directory / "dealt.jsonl").read_text().splitlines()]
    assert types == ["game_started", "gift_lists_dealt", "attics_dealt"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"players": ["Ann"], "dealer": "Ann", "lists": None}, 422),  # the rules refuse one player
        ({"players": ["Ann", "Ben", "Cat"], "dealer": "Zed", "lists": None}, 422),
        ({"players": ["Ann", "Ben", "Cat"], "dealer": "Ann", "lists": {"Ann": "RRR"}}, 422),
        ({"players": ["Ann", "Ben", "Cat"], "dealer": "Ann", "colour": 1}, 422),  # unknown field
        ({"players": "Ann,Ben", "dealer": "Ann"}, 422),  # mistyped
        ({"dealer": "Ann"}, 422),  # missing
        ({"players": ["Ann\nBen", "Ben", "Cat"], "dealer": "Ben", "lists": None}, 422),  # a control character
        ({"players": ["Ann", "Ben", "Cat"], "dealer": "Ann", "title": "A\x1b[2J"}, 422),
    ],
)
def test_create_game_refused(server: Server, body: dict, status: int) -> None:
    before = sorted(p.name for p in server.directory.glob("*.jsonl"))
    with server.host as c:
        response = c.post("/api/v1/games", json=body)
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"}
    assert sorted(p.name for p in server.directory.glob("*.jsonl")) == before


def test_bodies_413_and_422(server: Server) -> None:
    game = new_game(server, title="Bodies")
    url = f"/api/v1/games/{game['id']}/moves"
    with server.host as c:
        assert c.post(url, content=b"{" + b" " * 17000 + b"}", headers=JSON).status_code == 413
        assert c.post(url, content=b"[1, 2]", headers=JSON).status_code == 422
        assert c.post(url, content=b"not json", headers=JSON).status_code == 422
        assert c.post(url, json={"expect": 2}).status_code == 422
        assert (
            c.post(url, json={"expect": "2", "move": {"type": "open", "as": "Ann", "card": "R7"}}).status_code
            == 422
        )
        r = c.post(url, json={"expect": 2, "move": {"type": "open", "as": "Ann", "card": "R7", "x": 1}})
        assert r.status_code == 422 and "x" in r.json()["error"]
        assert c.post(url, json={"expect": 2, "move": {"type": "dance"}}).status_code == 422
        # 422 (body) before 409: a malformed body with a stale expect is still 422
        assert c.post(url, json={"expect": 99, "move": {"type": "open", "card": 7}}).status_code == 422
    with server.client() as anyone:  # 401 before 413
        assert anyone.post(url, content=b"x" * 20000, headers=JSON).status_code == 401


def test_moves_201_409_and_views(server: Server) -> None:
    game = new_game(server, title="Moves")
    gid, head = game["id"], game["seq"]
    ann = server.client(key_of(game["links"]["seats"]["Ann"]))
    ben = server.client(key_of(game["links"]["seats"]["Ben"]))
    view = ann.get(f"/api/v1/games/{gid}").json()
    assert view["seq"] == head and view["to_move"] is None and view["fingerprint"] is None
    # Ann starts: her bring, or straight to opening (the gifts not brought go down unseen)
    assert view["legal"] == [
        {"type": "bring", "as": "Ann", "card": None},
        {"type": "open", "as": "Ann", "card": None},
    ]
    assert ben.get(f"/api/v1/games/{gid}").json()["legal"] == [{"type": "bring", "as": "Ben", "card": None}]
    r = move(ann, gid, head, type="open", card="r7")  # a seat may leave "as" out; cards in any case
    assert r.status_code == 201, r.text
    body = r.json()
    assert [e["type"] for e in body["events"]] == ["gift_brought"] * 3 + ["gift_opened"]
    assert body["seq"] == head + 4 and body["view"]["to_move"] == "Ben"
    assert all("hash" not in e for e in body["events"])  # a seat's copy drops the chain
    stale = move(ben, gid, head, type="open", card="B3")
    assert stale.status_code == 409
    assert stale.json()["head"] == head + 4 and "error" in stale.json()
    with server.host as host:
        hv = host.get(f"/api/v1/games/{gid}").json()
        assert {"type": "undo"} in hv["legal"]
        assert {"type": "steal", "as": "Ben", "from": "Ann"} in hv["legal"]
        assert move(host, gid, head + 4, type="open", card="B3").status_code == 422  # host must say "as"
        r = move(host, gid, head + 4, type="undo", reason="wrong card")
        assert r.status_code == 201
        # the undo takes back the open and the three unseen brings written for it
        assert [e["type"] for e in r.json()["events"]] == ["event_voided"] * 4
        assert r.json()["view"]["to_move"] is None
        r = move(host, gid, r.json()["seq"], type="undo")
        assert r.status_code == 422 and "set-up" in r.json()["error"]
        head = host.get(f"/api/v1/games/{gid}").json()["seq"]
        assert move(host, gid, head, type="note", text="Ben spilled cocoa").status_code == 201
        assert move(host, gid, head + 1, type="swap", as_="Ann", with_=None).status_code == 422
    ann.close()
    ben.close()
    assert we("audit", server.directory / f"{gid}.jsonl").returncode == 0


def test_view_is_what_replay_json_gives(server: Server) -> None:
    game = new_game(server, title="Same view", lists=None, deal_attics=True)
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    with server.host as host:
        mine = host.get(f"/api/v1/games/{gid}").json()
    replayed = json.loads(we("replay", path, "--json", check=True).stdout)
    assert {k: v for k, v in mine.items() if k not in ("legal", "undoes", "clock")} == replayed
    assert mine["clock"] is None  # a setting of the table (none here), not a fact of the log
    assert mine["undoes"] is None  # the set-up is not undone through the service
    seat = server.client(key_of(game["links"]["seats"]["Ben"]))
    mine = seat.get(f"/api/v1/games/{gid}").json()
    replayed = json.loads(we("replay", path, "--json", "--as", "Ben", check=True).stdout)
    assert {k: v for k, v in mine.items() if k not in ("legal", "fingerprint", "clock")} == {
        k: v for k, v in replayed.items() if k != "fingerprint"
    }
    assert mine["fingerprint"] is None  # not before the game is over
    seat.close()


def test_refusals_are_the_recorders_sentences(server: Server) -> None:
    game = new_game(server, title="Same words")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    with server.host as host:
        first = move(host, gid, game["seq"], type="open", as_="Ann", card="R7")
        assert first.status_code == 201
        head = first.json()["seq"]
        cases = [
            ({"type": "open", "as": "Cat", "card": "B3"}, "Cat open B3"),  # out of turn
            ({"type": "steal", "as": "Ben", "from": "Ben"}, "Ben steal Ben"),  # from themselves
            ({"type": "steal", "as": "Ben", "from": "Cat"}, "Ben steal Cat"),  # Cat holds nothing
            ({"type": "open", "as": "Ben", "card": "Q9"}, "Ben open Q9"),  # not a card
            ({"type": "tie", "winner": "Zed"}, "tie Zed"),
        ]
        for body, line in cases:
            response = host.post(f"/api/v1/games/{gid}/moves", json={"expect": head, "move": body})
            assert response.status_code == 422, (body, response.text)
            sentence = response.json()["error"]
            recorded = we("record", path, input=line + "\n")
            assert sentence in recorded.stderr, (sentence, recorded.stderr)
    assert we("audit", path).returncode == 0


def test_two_writers_never_fork(server: Server) -> None:
    """The API and `we record` writing one log at once: every append checks the head."""
    game = new_game(
        server,
        title="Two writers",
        players=["Ann", "Ben", "Cat", "Dan"],
        lists={"Ann": "RGY", "Ben": "BGO", "Cat": "RBO", "Dan": "RYB"},
    )
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    stop = threading.Event()
    outcomes: list[int] = []

    def api_writer() -> None:
        with server.host as host:
            while not stop.is_set():
                view = host.get(f"/api/v1/games/{gid}").json()
                notes = move(host, gid, view["seq"], type="note", text="from the API")
                outcomes.append(notes.status_code)

    thread = threading.Thread(target=api_writer)
    thread.start()
    try:
        for _ in range(3):
            result = we("record", path, input="note from the recorder\nnote again\nnote and again\n")
            # A note typed while the API appended is still a note: the recorder judges it
            # against the log as it stands and takes it, after saying what the API added.
            assert result.returncode == 0, result.stderr
    finally:
        stop.set()
        thread.join()
    assert set(outcomes) <= {201, 409} and 201 in outcomes
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["seq"] for x in lines] == list(range(1, len(lines) + 1))
    audit = we("audit", path, "--json")
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_events_and_audit(server: Server) -> None:
    game = new_game(server, title="Events")
    gid = game["id"]
    with server.host as host:
        move(host, gid, game["seq"], type="open", as_="Ann", card="R7")
        events = host.get(f"/api/v1/games/{gid}/events", params={"after": 2})
        assert events.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(x) for x in events.text.splitlines()]
        assert [x["seq"] for x in lines] == [3, 4, 5, 6]
        assert "hash" in lines[0]  # the host gets the lines as written
        assert host.get(f"/api/v1/games/{gid}/events", params={"after": -1}).status_code == 422
        assert host.get(f"/api/v1/games/{gid}/events", params={"after": "x"}).status_code == 422
        audit = host.get(f"/api/v1/games/{gid}/audit").json()
    line = json.loads(we("audit", server.directory / f"{gid}.jsonl", "--json").stdout)
    assert {k: v for k, v in audit.items() if k != "source"} == {
        k: v for k, v in line.items() if k != "source"
    }
    table = server.client(key_of(game["links"]["table"]))
    lines = [json.loads(x) for x in table.get(f"/api/v1/games/{gid}/events").text.splitlines()]
    assert len(lines) == 6 and all("hash" not in x and "prev" not in x for x in lines)
    table.close()


def test_games_list(server: Server) -> None:
    game = new_game(server, title="Listed")
    with server.host as host:
        listed = {g["id"]: g for g in host.get("/api/v1/games").json()}
    entry = listed[game["id"]]
    assert entry == {
        "id": game["id"],
        "title": "Listed",
        "players": ["Ann", "Ben", "Cat"],
        "events": 2,
        "complete": False,
        "to_move": None,
        "fingerprint": entry["fingerprint"],
        "problem": None,  # or why a damaged log stops where it does (docs/decisions.md)
        "served": True,  # false for a second file holding a served game's id (docs/decisions.md)
    }
    assert len(entry["fingerprint"]) == 12


def test_a_seat_never_sees_what_it_may_not(server: Server) -> None:
    game = new_game(server, title="Secrets", lists=None, deal_attics=True)
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    attics = json.loads(path.read_text().splitlines()[2])["data"]["attics"]
    ann = server.client(key_of(game["links"]["seats"]["Ann"]))
    ben = server.client(key_of(game["links"]["seats"]["Ben"]))
    # Ann and Ben bring a gift from their attics, face down
    assert move(ann, gid, 3, type="bring", card=attics["Ann"][0]).status_code == 201
    assert move(ben, gid, 4, type="bring", card=attics["Ben"][0]).status_code == 201
    secret = {attics["Ben"][0], *attics["Ben"], *attics["Cat"]}
    table = server.client(key_of(game["links"]["table"]))
    for client, own in ((ann, set(attics["Ann"])), (table, set())):
        view = client.get(f"/api/v1/games/{gid}").json()
        events = client.get(f"/api/v1/games/{gid}/events").text
        with client.stream("GET", f"/api/v1/games/{gid}/stream", timeout=5) as stream:
            seen = []
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    seen.append(line)
                if len(seen) == 5:
                    break
        shown = json.dumps(view) + events + "".join(seen)
        for card in secret - own:
            assert f'"{card}"' not in shown, (card, client)
        assert "sha256:" not in shown
        assert view["attics"]["Ben"] == len(attics["Ben"]) - 1  # a count: one is on the table
    assert ann.get(f"/api/v1/games/{gid}").json()["face_down_known"] == [attics["Ann"][0]]
    for c in (ann, ben, table):
        c.close()


def test_damaged_log_is_listed_and_refuses_moves(server: Server) -> None:
    game = new_game(server, title="Damaged")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    with server.host as host:
        assert move(host, gid, 2, type="note", text="fine").status_code == 201
        lines = path.read_text().splitlines()
        lines[2] = lines[2].replace("fine", "fiNe")  # the hash no longer matches
        path.write_text("\n".join(lines) + "\n")
        response = move(host, gid, 3, type="note", text="more")
        assert response.status_code == 422
        recorded = we("record", path)
        said = recorded.stderr.strip().replace(str(path), path.name)
        assert said == f"we: error: {response.json()['error']}"
        view = host.get(f"/api/v1/games/{gid}").json()
        assert view["seq"] == 2  # it stops at its last good line
        assert gid in {g["id"] for g in host.get("/api/v1/games").json()}
        assert host.get(f"/api/v1/games/{gid}/audit").json()["ok"] is False


def test_pages(server: Server) -> None:
    game = new_game(server, title="Pages")
    with server.host as host:
        lobby = host.get("/")
        assert (
            lobby.status_code == 200 and "<svg" in lobby.text and game["links"]["seats"]["Ann"] in lobby.text
        )
    with httpx.Client() as c:
        page = c.get(game["links"]["seats"]["Ann"])
        assert page.status_code == 200 and 'data-mode="live"' in page.text
        assert c.get(game["links"]["table"]).status_code == 200
        assert c.get(server.url + f"/t/{game['id']}").status_code == 401
    assert "access-control-allow-origin" not in {k.lower() for k in page.headers}


def test_the_starters_final_swap_through_the_api(server: Server) -> None:
    game = new_game(server, title="Last word", options={"starter_final_swap": True})
    gid, seq = game["id"], game["seq"]
    ann, ben = key_of(game["links"]["seats"]["Ann"]), key_of(game["links"]["seats"]["Ben"])
    with server.host as host:
        for player, card in (("Ann", "R7"), ("Ben", "B3"), ("Cat", "G5")):
            r = move(host, gid, seq, type="open", as_=player, card=card)
            assert r.status_code == 201, r.text
            seq = r.json()["seq"]
    with server.client(ben) as seat:
        view = seat.get(f"/api/v1/games/{gid}").json()
        assert view["phase"] == "final swap"
        assert view["legal"] == []  # only the starter decides
        r = move(seat, gid, seq, type="swap", with_=None)
        assert r.status_code == 422, r.text
    with server.client(ann) as seat:
        legal = seat.get(f"/api/v1/games/{gid}").json()["legal"]
        assert {"type": "swap", "as": "Ann", "with": "Cat"} in legal
        assert {"type": "swap", "as": "Ann", "with": None} in legal
        r = seat.post(
            f"/api/v1/games/{gid}/moves", json={"expect": seq, "move": {"type": "swap", "with": "cat"}}
        )
        assert r.status_code == 201, r.text
        (event,) = r.json()["events"]
        assert event["type"] == "final_swap"
        assert event["data"] == {"party": 1, "player": "Ann", "with": "Cat", "takes": "G5"}
    plain = new_game(server, title="No last word")
    with server.host as host:
        r = move(host, plain["id"], plain["seq"], type="swap", as_="Ann", with_="Ben")
    assert r.status_code == 422
    assert set(r.json()) == {"error"}
    assert we("audit", server.directory / f"{gid}.jsonl").returncode == 0


def test_a_seat_to_move_is_not_told_the_other_face_down_cards(server: Server) -> None:
    """In a dealt game every gift is brought by name; the player to move may open any of them,
    but only their own is known to them: the others are opened by their place on the table."""
    game = new_game(server, title="Face down", lists=None, deal_attics=True)
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    attics = json.loads(path.read_text().splitlines()[2])["data"]["attics"]
    seats = {name: server.client(key_of(link)) for name, link in game["links"]["seats"].items()}
    for seq, name in enumerate(("Ann", "Ben", "Cat"), start=3):
        assert move(seats[name], gid, seq, type="bring", card=attics[name][0]).status_code == 201
    ann = seats["Ann"]
    view = ann.get(f"/api/v1/games/{gid}").json()
    assert view["to_move"] == "Ann"
    assert view["legal"] == [
        {"type": "open", "as": "Ann", "card": attics["Ann"][0]},
        {"type": "open", "as": "Ann", "gift": 2},
        {"type": "open", "as": "Ann", "gift": 3},
    ]
    with ann.stream("GET", f"/api/v1/games/{gid}/stream", timeout=5) as stream:
        seen = []
        for line in stream.iter_lines():
            if line.startswith("data:"):
                seen.append(line)
            if len(seen) == 6:
                break
    page = ann.get(f"/t/{gid}").text
    for card in attics["Ben"] + attics["Cat"]:
        assert f'"{card}"' not in json.dumps(view) + "".join(seen), card
        assert f'"{card}"' not in page and f"&quot;{card}&quot;" not in page, card
    # Ben's gift is the first she has not seen, as the table shows them; the log names its card
    opened = move(ann, gid, 6, type="open", gift=2)
    assert opened.status_code == 201, opened.text
    assert opened.json()["events"][-1]["data"]["card"] == attics["Ben"][0]
    for client in seats.values():
        client.close()


def test_a_refused_open_does_not_tell_a_seat_what_is_in_the_attics(server: Server) -> None:
    """Naming a card in another player's attic is refused in the very words of naming a card
    never dealt: a refused move writes nothing, so a different sentence would let a seat try
    the 50 cards and read every attic."""
    game = new_game(server, title="Probing", lists=None, deal_attics=True)
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    attics = json.loads(path.read_text().splitlines()[2])["data"]["attics"]
    seats = {name: server.client(key_of(link)) for name, link in game["links"]["seats"].items()}
    for seq, name in enumerate(("Ann", "Ben", "Cat"), start=3):
        assert move(seats[name], gid, seq, type="bring", card=attics[name][0]).status_code == 201
    dealt = {card for cards in attics.values() for card in cards}
    never_dealt = next(f"{c}{n}" for c in "ROYGB" for n in range(1, 11) if f"{c}{n}" not in dealt)
    in_bens_attic = attics["Ben"][1]
    said = {}
    for card in (never_dealt, in_bens_attic, attics["Ann"][1]):
        answer = move(seats["Ann"], gid, 6, type="open", card=card)
        assert answer.status_code == 422
        said[card] = answer.json()["error"].replace(card, "CARD")
    assert len(set(said.values())) == 1, said
    for client in seats.values():
        client.close()


def test_undo_takes_back_only_the_brings_written_with_the_open(server: Server) -> None:
    tapped = new_game(server, title="Brings tapped on phones")
    typed = new_game(server, title="Brings written with the open")
    with server.host as host:
        seq = tapped["seq"]
        for player in ("Ann", "Ben", "Cat"):
            r = move(host, tapped["id"], seq, type="bring", as_=player, card=None)
            assert r.status_code == 201, r.text
            seq = r.json()["seq"]
        seq = move(host, tapped["id"], seq, type="open", as_="Ann", card="R7").json()["seq"]
        r = move(host, tapped["id"], seq, type="undo")
        assert r.status_code == 201, r.text
        assert [e["data"]["voids"] for e in r.json()["events"]] == [seq]  # the open alone
        view = r.json()["view"]
        assert view["to_move"] == "Ann" and view["phase"] == "playing"

        seq = move(host, typed["id"], typed["seq"], type="open", as_="Ann", card="R7").json()["seq"]
        r = move(host, typed["id"], seq, type="undo")
        assert r.status_code == 201, r.text
        # the open, then the three unseen brings that went down with it
        assert [e["data"]["voids"] for e in r.json()["events"]] == [seq, seq - 1, seq - 2, seq - 3]


def test_with_lan_the_terminal_code_opens_the_hosts_lobby(tmp_path) -> None:
    """The QR code `we serve --lan` prints is the host's link, key and all: the bare address
    would answer 401."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", str(tmp_path), "--lan", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=we_env(),
    )
    try:
        lines = []
        for line in process.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
    finally:
        process.terminate()
        process.wait(10)
    text = "".join(lines)
    host_url = next(x.split(": ", 1)[1].strip() for x in lines if x.startswith("Host ("))
    assert "?k=" in host_url
    expected = io.StringIO()
    segno.make(host_url, error="m").terminal(out=expected, compact=True)
    assert expected.getvalue() in text


def test_the_move_bodies_published_are_exactly_the_kinds_moves(server: Server) -> None:
    """The schema's move bodies are the kinds' moves (and the host's records), the first four in
    the order published since the start; each body carries its class's fields and the gift's
    place where a kind names its card that way (the open's `gift`)."""
    from wecore.kinds import CHANCE_MOVES, MOVE_KINDS, kinds_of_move
    from wecore.moves import MOVE_CLASSES

    with server.client() as client:
        schema = client.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    body_of = schema["paths"]["/api/v1/games/{game_id}/moves"]["post"]["requestBody"]
    union = body_of["content"]["application/json"]["schema"]["properties"]["move"]
    listed = [ref["$ref"].rsplit("/", 1)[1] for ref in union["oneOf"]]
    kinds_moves = list(dict.fromkeys(kind.move for kind in MOVE_KINDS))
    assert set(union["discriminator"]["mapping"]) == {*kinds_moves, "undo", "note", "tie"}
    assert listed[:4] == ["OpenMove", "StealMove", "SwapMove", "BringMove"]
    assert listed[4:] == [
        *(f"{m.capitalize()}Move" for m in kinds_moves if m not in ("open", "steal", "swap", "bring")),
        "UndoMove",
        "NoteMove",
        "TieMove",
    ]
    for cls in MOVE_CLASSES:
        body = components[f"{cls.TYPE.capitalize()}Move"]["properties"]
        places = {kind.by_place for kind in kinds_of_move(cls.TYPE) if kind.by_place}
        assert set(body) == {"type", "as", *(key for key, _, _, _ in cls.OBJECT), *places}
        for key in places:
            assert body[key]["anyOf"][0] == {"minimum": 1, "type": "integer"}
    assert "gift" in components["OpenMove"]["properties"]
    for chance in CHANCE_MOVES:  # a chance move's outcome is optional: the server draws it
        assert components[f"{chance.capitalize()}Move"]["required"] == ["type"]
