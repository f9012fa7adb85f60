"""The die on the live pages in a real headless Chromium: the starter's seat page offers one
button, "Roll the die" (no face to choose), the server draws the face, and the table page (a TV)
tells the roll. Skips, saying why, where Playwright or Chromium is missing."""

from __future__ import annotations

from typing import Any

import pytest
from chromium import launched_chromium
from served import Server, key_of, move, new_game

LIVE_WAIT_MS = 15_000
DIE = {"attic_sizes": {"3": 1}, "party_die": True}


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


def test_the_starter_rolls_on_the_phone_and_the_table_tells_the_face(server: Server, browser: Any) -> None:
    game = new_game(server, title="The die on the TV", options=DIE)
    gid, seq = game["id"], game["seq"]
    for name, card in (("Ann", "R7"), ("Ben", "B3"), ("Cat", "G5")):
        with server.client(key_of(game["links"]["seats"][name])) as seat:
            r = move(seat, gid, seq, type="open", card=card)
            assert r.status_code == 201, r.text
            seq = r.json()["seq"]
    table = browser.new_page(viewport={"width": 1920, "height": 1080})
    ann = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    problems: list[str] = []
    for page in (table, ann):
        page.on("pageerror", lambda exc: problems.append(str(exc)))
    table.goto(game["links"]["table"])
    ann.goto(game["links"]["seats"]["Ann"])
    roll = ann.get_by_role("button", name="Roll the die")
    roll.wait_for(timeout=LIVE_WAIT_MS)
    assert ann.locator("#moves button.move").count() == 1  # one move: no face to choose
    table.wait_for_function(
        "() => document.body.textContent.includes('Ann, who started it, rolls the die')", timeout=LIVE_WAIT_MS
    )
    roll.click()
    table.wait_for_function(
        "() => /Ann rolls a [1-6]:/.test(document.getElementById('timeline').textContent)",
        timeout=LIVE_WAIT_MS,
    )
    ann.wait_for_function(
        "() => /Ann rolls a [1-6]:/.test(document.getElementById('timeline').textContent)",
        timeout=LIVE_WAIT_MS,
    )
    assert problems == []
    for page in (table, ann):
        page.close()
