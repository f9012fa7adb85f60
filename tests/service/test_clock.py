"""The table clock of a served game (issue 47), in-process with the time set by freezegun: the
time left counts from the event that gave the turn (a note does not restart it), the host's key
lets a bot make the move once it ran out (recorded as the seat's move, then a note), and the
setting is kept beside the game across a restart."""

from __future__ import annotations

from typing import Any

import pytest
from freezegun import freeze_time
from starlette.testclient import TestClient

from service.http import create_app
from wecore.bots import GreedyBot, bot_move
from wecore.views import seat_move_object

HOST_KEY = "host-key-for-the-clock-test"
START = "2026-12-24 20:00:00"


def client_of(directory, clock: float = 0) -> TestClient:
    client = TestClient(create_app(directory, "http://testserver", HOST_KEY, clock=clock)).__enter__()
    client.headers["Authorization"] = f"Bearer {HOST_KEY}"
    return client


def game_of(client: TestClient, game: str) -> dict[str, Any]:
    answer = client.get(f"/api/v1/games/{game}")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def post(client: TestClient, game: str, move: dict[str, Any]) -> dict[str, Any]:
    head = game_of(client, game)["seq"]
    answer = client.post(f"/api/v1/games/{game}/moves", json={"expect": head, "move": move})
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def bring_every_gift(client: TestClient, game: str, directory) -> None:
    """The host brings each seat's gift (as the bots would), so that Ann is on the clock."""
    from service.reading import GameSource, read_game

    while True:
        state = read_game(GameSource("g", path=directory / f"{game}.jsonl")).state
        if not state.waiting_to_bring:
            return
        player = state.waiting_to_bring[0]
        move = bot_move(state, player, GreedyBot(), "clock-test")
        assert move is not None
        post(client, game, seat_move_object(state, player, move))


@pytest.fixture
def table(tmp_path):
    with freeze_time(START, real_asyncio=True) as frozen:
        client = client_of(tmp_path)  # no --clock: the lobby sets this game's
        created = client.post(
            "/api/v1/games",
            json={
                "players": ["Ann", "Bob", "Cat"],
                "dealer": "Cat",
                "deal_attics": True,
                "options": {"attic_sizes": {"3": 2}},
                "clock": 60,
            },
        )
        assert created.status_code == 201, created.text
        game = created.json()["id"]
        bring_every_gift(client, game, tmp_path)
        yield client, game, frozen, tmp_path
        client.__exit__(None, None, None)


def log_lines(directory, game: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in (directory / f"{game}.jsonl").read_text().splitlines()]


def test_the_time_left_counts_from_the_turn_and_a_note_does_not_restart_it(table):
    client, game, frozen, _ = table
    clock = game_of(client, game)["clock"]
    assert clock["player"] == "Ann" and clock["seconds"] == 60
    assert clock["left"] == 60 and not clock["ran_out"]
    frozen.tick(25)
    post(client, game, {"type": "note", "text": "Ann went to the kitchen"})
    frozen.tick(10)
    clock = client.get(f"/api/v1/games/{game}/clock").json()["clock"]
    assert clock["left"] == 25  # 60 - 35: the note did not give anyone the turn
    refused = client.post(f"/api/v1/games/{game}/clock/bot-move", json={})
    assert refused.status_code == 409 and "has not run out: 25 seconds are left" in refused.json()["error"]


def test_when_the_clock_runs_out_the_host_lets_a_bot_move_for_the_seat_with_a_note(table):
    client, game, frozen, directory = table
    frozen.tick(61)
    clock = game_of(client, game)["clock"]
    assert clock["ran_out"] and clock["left"] == -1
    before = len(log_lines(directory, game))
    # A seat's key may not decide it: only the host's.
    links = client.get("/api/v1/games").json()
    assert links  # the game is listed for the host
    moved = client.post(f"/api/v1/games/{game}/clock/bot-move", json={})
    assert moved.status_code == 201, moved.text
    written = log_lines(directory, game)[before:]
    assert [line["type"] for line in written] == ["gift_opened", "note"]
    assert written[0]["data"]["player"] == "Ann"  # recorded as that seat's move
    assert (
        written[1]["data"]["text"] == "The clock ran out for Ann (1m 00s); the host let a bot make that move."
    )
    # The move gave the turn to the next player: their clock starts afresh.
    clock = game_of(client, game)["clock"]
    assert clock["player"] == "Bob" and clock["left"] == 60


def test_a_seat_key_cannot_let_a_bot_move(table):
    client, game, frozen, _ = table
    frozen.tick(61)
    from service.keys import KeyRing

    seat = KeyRing(HOST_KEY).seat_key(game, "Bob")
    refused = client.post(
        f"/api/v1/games/{game}/clock/bot-move", json={}, headers={"Authorization": f"Bearer {seat}"}
    )
    assert refused.status_code == 403


def test_the_clock_is_kept_beside_the_game_across_a_restart(table):
    client, game, _, directory = table
    client.__exit__(None, None, None)
    again = client_of(directory)  # restarted, still without --clock
    try:
        assert game_of(again, game)["clock"]["seconds"] == 60
    finally:
        again.__exit__(None, None, None)


def test_a_game_without_a_clock_has_none(tmp_path):
    with freeze_time(START, real_asyncio=True):
        client = client_of(tmp_path)
        try:
            created = client.post(
                "/api/v1/games", json={"players": ["Ann", "Bob", "Cat"], "dealer": "Cat", "deal_attics": True}
            )
            game = created.json()["id"]
            assert game_of(client, game)["clock"] is None
            refused = client.post(f"/api/v1/games/{game}/clock/bot-move", json={})
            assert refused.status_code == 422 and "no clock" in refused.json()["error"]
        finally:
            client.__exit__(None, None, None)


def test_the_servers_clock_is_every_games_unless_the_lobby_says_otherwise(tmp_path):
    with freeze_time(START, real_asyncio=True):
        client = client_of(tmp_path, clock=90)
        try:
            plain = client.post("/api/v1/games", json={"players": ["Ann", "Bob", "Cat"], "dealer": "Cat"})
            timed = client.post(
                "/api/v1/games", json={"players": ["Ann", "Bob", "Cat"], "dealer": "Cat", "clock": 0}
            )
            assert game_of(client, plain.json()["id"])["clock"]["seconds"] == 90
            assert game_of(client, timed.json()["id"])["clock"] is None
        finally:
            client.__exit__(None, None, None)


def test_on_a_library_every_server_has_the_same_clock(pg_url: str) -> None:
    """`we serve --db`: the clock is in the library's settings, so a second server on the same
    database (and one restarted) reads the game's clock the first one was given."""
    from service.library_games import connect_pool

    first_pool, host_key = connect_pool(pg_url)
    second_pool, _ = connect_pool(pg_url)
    first = TestClient(create_app(None, "http://testserver", host_key, library=first_pool)).__enter__()
    second = TestClient(
        create_app(None, "http://testserver", host_key, library=second_pool, clock=5)
    ).__enter__()
    try:
        for client in (first, second):
            client.headers["Authorization"] = f"Bearer {host_key}"
        created = first.post(
            "/api/v1/games", json={"players": ["Ann", "Bob", "Cat"], "dealer": "Cat", "clock": 45}
        )
        assert created.status_code == 201, created.text
        game = created.json()["id"]
        assert game_of(first, game)["clock"]["seconds"] == 45
        assert game_of(second, game)["clock"]["seconds"] == 45  # not the second server's --clock 5
    finally:
        first.__exit__(None, None, None)
        second.__exit__(None, None, None)
        first_pool.close()
        second_pool.close()
