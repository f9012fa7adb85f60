"""The table clock of a real `we serve --clock` process: the pages' countdown in Chromium with
Playwright's `page.clock` (the page's time, not the test's, runs), and a clock of one second
that runs out, a bot's move the host lets make, and its note, as the event stream tells them."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from chromium import launched_chromium
from served import ARTIFACTS, Server, new_game, sse_messages, start_server

LIVE_WAIT_MS = 15_000
PHONE = {"width": 390, "height": 844}
PAGE_TIME = datetime(2026, 12, 24, 20, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[Server]:
    server = start_server(tmp_path, "--clock", "60")
    yield server
    server.stop()


def shown_seconds(page: Any) -> int:
    text = page.locator("#table-clock").inner_text()
    found = re.search(r"(\d+):(\d\d) left", text)
    assert found, text
    return int(found[1]) * 60 + int(found[2])


def test_the_tv_and_the_seat_count_down_and_the_tv_says_when_time_is_up(
    clocked: Server, browser: Any
) -> None:
    game = new_game(clocked, title="Clocked")
    pages = {}
    for who, link in (("tv", game["links"]["table"]), ("ann", game["links"]["seats"]["Ann"])):
        page = browser.new_page(viewport={"width": 1920, "height": 1080} if who == "tv" else PHONE)
        page.clock.install(time=PAGE_TIME)
        page.goto(link)
        page.locator("#table-clock").wait_for(state="visible", timeout=LIVE_WAIT_MS)
        # From a second on, the page's time runs only when the test says so.
        page.clock.pause_at(datetime.fromtimestamp(page.evaluate("Date.now()") / 1000 + 1, UTC))
        pages[who] = page
    tv, ann = pages["tv"], pages["ann"]
    assert "Ann's clock:" in tv.locator("#table-clock").inner_text()
    assert "Your clock:" in ann.locator("#table-clock").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tv.screenshot(path=str(ARTIFACTS / "clock-tv-running.png"))
    start = shown_seconds(tv)
    assert 50 <= start <= 60  # what the server said was left, less the time the page took to open
    tv.clock.run_for(20_000)
    assert shown_seconds(tv) == start - 20
    tv.clock.run_for((start - 20) * 1000 + 1000)
    assert tv.locator("#table-clock").inner_text() == "Time is up for Ann."
    assert tv.locator("#table-clock").get_attribute("data-state") == "out"
    tv.screenshot(path=str(ARTIFACTS / "clock-tv-time-up.png"))
    # The table key only watches: no button to let a bot move.
    assert tv.locator("#clock-bot").count() == 0
    for page in pages.values():
        page.close()


def test_a_one_second_clock_runs_out_and_the_hosts_bot_move_comes_down_the_stream(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--clock", "1")
    try:
        game = new_game(
            server,
            deal_attics=True,
            options={"attic_sizes": {"3": 2}},
            bots={"Ben": "greedy", "Cat": "greedy"},
        )["id"]
        with server.host as host:
            view = host.get(f"/api/v1/games/{game}").json()
            mine = view["attics"]["Ann"][0]
            brought = host.post(
                f"/api/v1/games/{game}/moves",
                json={"expect": view["seq"], "move": {"type": "bring", "as": "Ann", "card": mine}},
            )
            assert brought.status_code == 201, brought.text
            # The stream tells every event from here on: the bots' brings, then what the clock does.
            # Its own connection, patient: two loaded cores run the server, its bots and this test.
            follower = server.client(server.host_key, timeout=60)
            with follower.stream(
                "GET", f"/api/v1/games/{game}/stream", params={"after": brought.json()["seq"]}
            ) as s:
                messages = sse_messages(s.iter_lines())
                # Ann's turn comes with the last bring (hers or a bot's): the party starts, Ann to open.
                if brought.json()["view"]["to_move"] != "Ann":
                    for message in messages:
                        if message.get("event") == "envelope" and message["data"]["view"]["to_move"] == "Ann":
                            break
                # The clock is the server's: asked until it says the second is up (bounded).
                deadline = time.monotonic() + 30
                while not (clock := host.get(f"/api/v1/games/{game}/clock").json()["clock"])["ran_out"]:
                    assert time.monotonic() < deadline, clock
                moved = host.post(f"/api/v1/games/{game}/clock/bot-move", json={})
                assert moved.status_code == 201, moved.text
                told = []
                for message in messages:
                    if message.get("event") == "envelope":
                        told.append(message["data"]["envelope"])
                        if told[-1]["type"] == "note":
                            break
            follower.close()
        assert told[0]["type"] == "gift_opened" and told[0]["data"]["player"] == "Ann"
        assert (
            told[-1]["data"]["text"] == "The clock ran out for Ann (1s); the host let a bot make that move."
        )
    finally:
        server.stop()
