"""Hidden means hidden (docs/service.md, version 1.1), against a real `we serve`: a card a seat
has not seen gets one answer whatever the card, no part of any line's hash reaches a table or
seat key before the game is complete, and every move a seat's `legal` lists is accepted as
listed (face-down gifts opened by their place)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
from served import Server, key_of, move, new_game, sse_messages, we

HEX_RUN = re.compile(r"[0-9a-f]{12,}")
SHORT = {"attic_sizes": {"3": 3}}  # three parties of three: every kind of move, quickly


def seat_clients(server: Server, game: dict[str, Any]) -> dict[str, httpx.Client]:
    return {name: server.client(key_of(link)) for name, link in game["links"]["seats"].items()}


def answer(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.text


def test_a_card_a_seat_has_not_seen_gets_one_answer_in_a_bring(server: Server) -> None:
    """No attics dealt: Ann's bring is recorded with its card (R7) by the host. Ben naming R7
    was "already seen" while R8 was taken: his refusals read Ann's face-down gift."""
    game = new_game(server, title="No oracle in a bring")
    gid = game["id"]
    seats = seat_clients(server, game)
    with server.host as host:
        assert move(host, gid, 2, type="bring", as_="Ann", card="R7").status_code == 201
    said = {card: answer(move(seats["Ben"], gid, 3, type="bring", card=card)) for card in ("R7", "R8", "b3")}
    assert len(set(said.values())) == 1, said
    assert said["R7"][0] == 422 and "face down" in said["R7"][1]
    # what the seat's `legal` lists is an unseen bring, and it is taken as listed
    legal = seats["Ben"].get(f"/api/v1/games/{gid}").json()["legal"]
    assert legal == [{"type": "bring", "as": "Ben", "card": None}]
    assert move(seats["Ben"], gid, 3, **legal[0]).status_code == 201
    for client in seats.values():
        client.close()


def test_a_card_a_seat_has_not_seen_gets_one_answer_in_an_open(server: Server) -> None:
    """Where the service knows every face-down card, the seat to move opens the ones it has not
    seen by place; a card it names gets one sentence, lying face down or not."""
    game = new_game(server, title="No oracle in an open")
    gid = game["id"]
    seats = seat_clients(server, game)
    with server.host as host:  # brought at a recorder, say: every card is in the log
        for seq, (player, card) in enumerate((("Ann", "R7"), ("Ben", "B3"), ("Cat", "O2")), start=2):
            assert move(host, gid, seq, type="bring", as_=player, card=card).status_code == 201
    ann = seats["Ann"]
    view = ann.get(f"/api/v1/games/{gid}").json()
    assert view["to_move"] == "Ann"
    said = {card: answer(move(ann, gid, 5, type="open", card=card)) for card in ("B3", "O2", "Y9", "G1")}
    assert len(set(said.values())) == 1, said
    assert said["B3"][0] == 422
    assert sorted(view["legal"], key=json.dumps) == sorted(
        [
            {"type": "open", "as": "Ann", "card": "R7"},
            {"type": "open", "as": "Ann", "gift": 2},
            {"type": "open", "as": "Ann", "gift": 3},
        ],
        key=json.dumps,
    )
    opened = move(ann, gid, 5, type="open", gift=3)  # the last face-down gift shown: Cat's
    assert opened.status_code == 201, opened.text
    assert opened.json()["events"][-1]["data"]["card"] == "O2"  # the log names the card
    for client in seats.values():
        client.close()


def play_as_listed(
    server: Server, game: dict[str, Any], looked_at: Callable[[dict[str, httpx.Client], str], None]
) -> list[dict[str, Any]]:
    """Play a dealt game to the end, each move posted exactly as its seat's `legal` lists it
    (the k-th listed, k turning with the head); `looked_at(seats, answer)` with every answer a
    seat got while the game was not over (its views, its moves' answers)."""
    gid = game["id"]
    seats = seat_clients(server, game)
    posted = []
    try:
        for _ in range(400):
            got = {name: c.get(f"/api/v1/games/{gid}") for name, c in seats.items()}
            views = {name: r.json() for name, r in got.items()}
            if next(iter(views.values()))["complete"]:
                return posted
            for response in got.values():
                looked_at(seats, response.text)
            name, view = next((n, v) for n, v in views.items() if v["legal"])
            for listed in view["legal"]:
                assert (
                    "gift" in listed
                    or listed.get("card") is None
                    or listed["type"] != "open"
                    or (listed["card"] in view["face_down_known"])
                ), listed  # no listed open names a card the seat has not seen
                if listed["type"] == "bring":
                    assert listed["card"] in view["attics"][name], listed
            chosen = view["legal"][view["seq"] * 7 % len(view["legal"])]
            response = move(seats[name], gid, view["seq"], **chosen)
            assert response.status_code == 201, (chosen, response.text)
            posted.append(chosen)
            if not response.json()["view"]["complete"]:
                looked_at(seats, response.text)
        raise AssertionError("the game did not end")
    finally:
        for client in seats.values():
            client.close()


def test_every_move_a_seat_is_offered_is_taken_as_listed(server: Server) -> None:
    game = new_game(server, title="As listed", lists=None, deal_attics=True, options=SHORT)
    posted = play_as_listed(server, game, lambda seats, answer: None)
    assert any("gift" in m for m in posted)  # face-down gifts were opened by their place
    lines = [json.loads(x) for x in (server.directory / f"{game['id']}.jsonl").read_text().splitlines()]
    assert all(x["data"]["card"] for x in lines if x["type"] == "gift_opened")
    with server.host as host:
        assert host.get(f"/api/v1/games/{game['id']}").json()["complete"]


def test_no_part_of_a_hash_reaches_a_table_or_seat_before_the_end(server: Server) -> None:
    game = new_game(server, title="No early hash", lists=None, deal_attics=True, options=SHORT)
    gid = game["id"]
    table = server.client(key_of(game["links"]["table"]))
    answers: list[str] = []

    looks = iter(range(1_000_000))

    def look(seats: dict[str, httpx.Client], seat_answer: str) -> None:
        answers.append(seat_answer)
        n = next(looks)
        if n % 4:
            return  # what the table and a seat read besides: at every fourth answer
        answers.append(table.get(f"/api/v1/games/{gid}").text)
        answers.append(table.get(f"/api/v1/games/{gid}/audit").text)
        answers.append(table.get(f"/api/v1/games/{gid}/events").text)
        answers.append(table.get(f"/api/v1/games/{gid}/play").text)  # BG Stats: only at the end
        if n % 16 == 0:  # the pages hold all of it again
            answers.append(table.get(f"/t/{gid}").text)
            answers.append(seats["Ann"].get(f"/t/{gid}").text)

    play_as_listed(server, game, look)
    lines = [json.loads(x) for x in (server.directory / f"{gid}.jsonl").read_text().splitlines()]
    windows = set()
    for line in lines:
        digest = line["hash"].removeprefix("sha256:")
        windows.update(digest[i : i + 12] for i in range(len(digest) - 11))
    # the stream, from the start: every message before the one that ends the game
    seat = server.client(key_of(game["links"]["seats"]["Ann"]))
    for client in (table, seat):
        with client.stream("GET", f"/api/v1/games/{gid}/stream", timeout=10) as stream:
            for message in sse_messages(stream.iter_lines()):
                if message["data"]["view"]["complete"]:
                    break
                answers.append(json.dumps(message["data"]))
    seat.close()
    table.close()
    assert len(answers) > 50
    for text in answers:
        for run in HEX_RUN.findall(text.lower()):
            leaked = [run[i : i + 12] for i in range(len(run) - 11) if run[i : i + 12] in windows]
            assert not leaked, (leaked, text[:300])


def test_one_person_plays_a_whole_game_against_two_bots(server: Server) -> None:
    """Ann at her phone, Ben and Cat bots of `we simulate`: the service makes their moves as
    they become theirs, through the path of every move, and the log passes `we audit`."""
    with server.host as host:
        refused = host.post(
            "/api/v1/games",
            json={"players": ["Ann", "Ben", "Cat"], "dealer": "Cat", "bots": {"Ben": "greedy"}},
        )
        assert refused.status_code == 422 and "deal_attics" in refused.json()["error"]
        unknown = host.post(
            "/api/v1/games",
            json={"players": ["Ann", "Ben"], "dealer": "Ben", "deal_attics": True, "bots": {"Ben": "clever"}},
        )
        assert unknown.status_code == 422 and "clever" in unknown.json()["error"]
    game = new_game(
        server,
        title="Against the bots",
        lists=None,
        deal_attics=True,
        bots={"Ben": "greedy", "Cat": "random"},
    )
    assert set(game["links"]["seats"]) == {"Ann"}  # a bot's seat gets no link
    gid = game["id"]
    ann = server.client(key_of(game["links"]["seats"]["Ann"]))
    mine = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = ann.get(f"/api/v1/games/{gid}").json()
        if view["complete"]:
            break
        if not view["legal"]:
            time.sleep(0.05)  # a bot's turn
            continue
        response = move(ann, gid, view["seq"], **view["legal"][0])
        assert response.status_code in (201, 409), response.text  # 409: a bot got in first
        mine += response.status_code == 201
    ann.close()
    assert view["complete"], "the game did not end"
    lines = [json.loads(x) for x in (server.directory / f"{gid}.jsonl").read_text().splitlines()]
    movers = {
        x["data"].get("player") for x in lines if x["type"] in ("gift_opened", "gift_stolen", "gift_brought")
    }
    assert movers == {"Ann", "Ben", "Cat"} and mine > 0
    audit = we("audit", server.directory / f"{gid}.jsonl", "--json")
    assert audit.returncode == 0 and json.loads(audit.stdout)["ok"], audit.stdout + audit.stderr
