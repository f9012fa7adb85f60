"""The live pages in a real headless Chromium: a table page (a TV) and two seat pages (one a
phone, 390 px wide) on one game. A move clicked on a seat page appears on the table page within
a second. Screenshots are kept as test artefacts (in the test's tmp dir and tests/artifacts/).
Skips, saying why, where Playwright or Chromium is missing."""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from chromium import launched_chromium
from served import ARTIFACTS, Server, key_of, move, new_game, start_server, we

TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

HOLDING = "(name) => document.querySelector(`[data-seat='${name}'] [data-role=holding]`).dataset.card"

# How long a page may take to show what the stream brought: generous, since CI's two cores
# also run the server and the browser; a wait only ends early when the page is right.
LIVE_WAIT_MS = 15_000
SHORT = {"attic_sizes": {"3": 3}}  # a game of three parties of three


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


def keep(page: Any, name: str, tmp_path: Path) -> None:
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot), full_page=False)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, ARTIFACTS / shot.name)


def live(page: Any) -> None:
    page.wait_for_function(
        "() => document.getElementById('live-status').dataset.state === 'live'", timeout=LIVE_WAIT_MS
    )


def test_a_move_on_a_phone_shows_on_the_table(server: Server, browser: Any, tmp_path: Path) -> None:
    game = new_game(server, title="Live night")
    table = browser.new_page(viewport=TV)
    ann = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    ben = browser.new_page(viewport=LAPTOP)
    problems: list[str] = []
    for page in (table, ann, ben):
        page.on("pageerror", lambda exc: problems.append(str(exc)))
    table.goto(game["links"]["table"])
    ann.goto(game["links"]["seats"]["Ann"])
    ben.goto(game["links"]["seats"]["Ben"])
    for page in (table, ann, ben):
        live(page)

    # Ann starts: she turns over a face-down gift and says which card it was
    ann.get_by_role("textbox", name="The card turned over").fill("R7")
    clicked = time.monotonic()
    ann.get_by_role("button", name="Open the gift turned over").click()
    table.wait_for_function(f"() => ({HOLDING})('Ann') === 'R7'", timeout=LIVE_WAIT_MS)
    assert time.monotonic() - clicked < 1.5  # the click, the POST, the append, the stream, the redraw

    # Ben, on his laptop, steals it; the table and Ann's phone follow
    ben.get_by_role("button", name="Steal R7 from Ann").wait_for(timeout=LIVE_WAIT_MS)
    ben.get_by_role("button", name="Steal R7 from Ann").click()
    table.wait_for_function(f"() => ({HOLDING})('Ben') === 'R7'", timeout=LIVE_WAIT_MS)
    ann.wait_for_function(f"() => ({HOLDING})('Ben') === 'R7'", timeout=LIVE_WAIT_MS)
    assert table.evaluate("() => document.querySelector('#to-move').dataset.player") == "Ann"
    # the table key has no moves; Ann's phone offers hers (it is her turn again)
    assert table.locator("#moves").is_hidden()
    assert ann.get_by_role("button", name="Open the gift turned over").is_visible()

    # On the phone the standings are near the top: above the felt, within the first screen
    standings = ann.locator("#standings-box").bounding_box()
    felt = ann.locator("#felt").bounding_box()
    assert standings is not None and felt is not None
    assert standings["y"] < felt["y"] and standings["y"] < PHONE["height"]
    assert ann.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    keep(table, "live-table-tv", tmp_path)
    keep(ann, "live-seat-phone", tmp_path)
    keep(ben, "live-seat-laptop", tmp_path)
    assert problems == []
    for page in (table, ann, ben):
        page.close()


def test_a_refused_move_is_explained_on_the_page_until_the_table_moves_on(
    server: Server, browser: Any
) -> None:
    game = new_game(server, title="Refused on a phone")
    ann = browser.new_page(viewport=PHONE)
    ann.goto(game["links"]["seats"]["Ann"])
    live(ann)
    ann.get_by_role("textbox", name="The card turned over").fill("Q9")
    ann.get_by_role("button", name="Open the gift turned over").click()
    ann.wait_for_function(
        "() => document.getElementById('move-error')?.textContent.includes('Q9')", timeout=LIVE_WAIT_MS
    )
    with server.client(key_of(game["links"]["seats"]["Ben"])) as ben:  # Ben's gift goes down
        assert move(ben, game["id"], game["seq"], type="bring", card=None).status_code == 201
    ann.wait_for_function("() => document.documentElement.dataset.head === '3'", timeout=LIVE_WAIT_MS)
    assert ann.evaluate("() => document.getElementById('move-error').textContent") == ""
    ann.close()


def test_a_bad_or_taken_back_key_gets_a_page_to_read(tmp_path: Path, browser: Any) -> None:
    """A garbled link opens a page a guest can read (not JSON); a page open when the host's key
    is renewed (every link taken back) stops reconnecting and says why."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    running = start_server(tmp_path, port=port)
    try:
        game = new_game(running, title="Taken back")
        ann = browser.new_page(viewport=PHONE)
        ann.goto(f"{running.url}/t/{game['id']}?k=garbled-{running.host_key[:9]}")
        heading = ann.locator("h1")
        assert heading.is_visible() and "link" in heading.text_content()
        assert not ann.locator("body").text_content().lstrip().startswith("{")
        size = ann.evaluate("() => parseFloat(getComputedStyle(document.querySelector('main p')).fontSize)")
        assert size >= 16
        ann.goto(game["links"]["seats"]["Ann"])
        live(ann)
        running.stop()
        (tmp_path / ".we" / "host-key").unlink()  # a new host key: every link handed out is void
        running = start_server(tmp_path, port=port)
        ann.wait_for_function(
            "() => document.getElementById('live-status').dataset.state === 'revoked'", timeout=LIVE_WAIT_MS
        )
        assert "no longer works" in ann.locator("#live-status").text_content()
        ann.wait_for_timeout(1700)  # past the page's reconnect delay (1.5 s): it stays given up
        assert ann.evaluate("() => document.getElementById('live-status').dataset.state") == "revoked"
        ann.close()
    finally:
        running.stop()


def test_a_seat_page_that_gave_way_to_newer_tabs_stops_and_says_so(server: Server, browser: Any) -> None:
    """A key holds a few live streams (service.streams): opened in more tabs than that, the
    oldest tab says where the table went and does not reconnect to push a newer one out."""
    from service.streams import STREAMS_PER_KEY

    game = new_game(server, title="Many tabs")
    context = browser.new_context(viewport=PHONE)
    first = context.new_page()
    first.goto(game["links"]["seats"]["Ben"])
    live(first)
    later = []
    for _ in range(STREAMS_PER_KEY):
        tab = context.new_page()
        tab.goto(game["links"]["seats"]["Ben"])
        live(tab)
        later.append(tab)
    first.wait_for_function(
        "() => document.getElementById('live-status').dataset.state === 'gave-way'", timeout=LIVE_WAIT_MS
    )
    assert "another tab" in first.locator("#live-status").text_content()
    first.wait_for_timeout(1700)  # past the page's reconnect delay (1.5 s): it stays given up
    assert first.evaluate("() => document.getElementById('live-status').dataset.state") == "gave-way"
    assert all(
        tab.evaluate("() => document.getElementById('live-status').dataset.state") == "live" for tab in later
    )
    context.close()


def test_the_tv_shows_the_scores_on_its_first_screen(server: Server, browser: Any, tmp_path: Path) -> None:
    """At 1920x1080 the ranked final standings of a finished game, and the scores of a running
    one, are on the first screen: nobody scrolls a TV."""
    bots = {"Ann": "greedy", "Ben": "random", "Cat": "greedy"}
    over = new_game(server, title="Bots alone", lists=None, deal_attics=True, bots=bots, options=SHORT)
    running = new_game(server, title="Still going", lists=None, deal_attics=True, bots={"Ben": "random"})
    tv = browser.new_page(viewport=TV)
    tv.goto(running["links"]["table"])
    live(tv)
    scores = tv.locator("#standings .score")
    assert scores.count() == 3
    assert all(
        scores.nth(i).bounding_box()["y"] + scores.nth(i).bounding_box()["height"] <= TV["height"]
        for i in range(3)
    )
    tv.goto(over["links"]["table"])
    tv.wait_for_function("() => document.documentElement.dataset.complete === 'true'", timeout=LIVE_WAIT_MS)
    box = tv.locator("#standings-box").bounding_box()
    assert box is not None and box["y"] + box["height"] <= TV["height"]
    assert tv.locator("#standings .score").first.get_attribute("class") == "score winner"  # the winner first
    assert tv.evaluate("() => document.documentElement.scrollTop") == 0
    tv.wait_for_selector("#end-of-game .bgstats-qr svg", timeout=LIVE_WAIT_MS)
    # What a kept card counts ("→ 6", "→ 0") is on the line of the card it counts.
    lines = tv.evaluate(
        """() => [...document.querySelectorAll('#standings li[data-colour]')].map((li) => {
          const kept = li.querySelector('.kept');  // one box per line it is laid out on
          return kept && kept.textContent.includes('\u2192') ? kept.getClientRects().length : 0;
        })"""
    )
    assert lines and all(n == 1 for n in lines), lines
    # The code to scan sits beside its words, and the table starts on the first screen.
    after = tv.locator("#end-of-game").bounding_box()
    qr = tv.locator("#end-of-game .bgstats-qr svg").bounding_box()
    words = tv.locator("#end-of-game p").first.bounding_box()
    assert after is not None and qr is not None and words is not None
    assert qr["x"] > words["x"] + words["width"] and after["height"] < qr["height"] + 80
    table = tv.locator("#table").bounding_box()
    print(f"TV final screen: after-the-game box {after['height']:.0f} px high, table from y={table['y']:.0f}")
    assert table is not None and table["y"] + 200 <= TV["height"]
    keep(tv, "live-tv-finished", tmp_path)
    tv.close()


def test_one_person_against_two_bots_on_a_phone(server: Server, browser: Any, tmp_path: Path) -> None:
    """Ann plays from her phone; Ben and Cat are bots. Her moves are buttons (a face-down gift
    by its place, never a card to guess), and the bots' moves arrive on her page as they come."""
    game = new_game(
        server,
        title="Ann and the bots",
        lists=None,
        deal_attics=True,
        bots={"Ben": "greedy", "Cat": "random"},
    )
    ann = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    problems: list[str] = []
    ann.on("pageerror", lambda exc: problems.append(str(exc)))
    ann.on("dialog", lambda dialog: problems.append("a dialog: " + dialog.message))
    ann.goto(game["links"]["seats"]["Ann"])
    live(ann)
    ann.locator("#moves button.move").first.click()  # her bring, from her attic
    by_place = ann.locator("#moves button.move", has_text="Open face-down gift")
    by_place.first.wait_for(timeout=LIVE_WAIT_MS)  # she starts party 1: the gifts by place
    assert by_place.count() == 2 and ann.locator("#moves input").count() == 0
    keep(ann, "live-phone-open-by-place", tmp_path)
    by_place.first.click()
    bots_moved = (
        "() => [...document.querySelectorAll('#timeline li')]"
        ".filter((li) => /(Ben|Cat) (opens|steals)/.test(li.textContent)).length >= 2"
    )
    ann.wait_for_function(bots_moved, timeout=LIVE_WAIT_MS)
    ann.locator("#moves button.move").first.wait_for(timeout=LIVE_WAIT_MS)  # her turn again
    keep(ann, "live-phone-against-bots", tmp_path)
    assert ann.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert problems == []
    ann.close()


def test_the_page_reconnects_and_misses_nothing(server: Server, browser: Any) -> None:
    game = new_game(server, title="Flaky wifi")
    gid = game["id"]
    table = browser.new_page(viewport=LAPTOP)
    table.goto(game["links"]["table"])
    live(table)
    context = table.context
    context.set_offline(True)
    with server.host as host:
        for i in range(3):
            seq = host.get(f"/api/v1/games/{gid}").json()["seq"]
            host.post(
                f"/api/v1/games/{gid}/moves", json={"expect": seq, "move": {"type": "note", "text": f"n{i}"}}
            )
    context.set_offline(False)
    table.wait_for_function("() => document.documentElement.dataset.head === '5'", timeout=LIVE_WAIT_MS)
    seqs = table.evaluate(
        "() => [...document.querySelectorAll('#timeline li')].map((li) => Number(li.dataset.seq))"
    )
    assert seqs == [1, 2, 3, 4, 5]
    table.close()


def test_phones_bringing_at_the_same_moment_all_get_their_gift_in(server: Server, browser: Any) -> None:
    """Gifts are brought all at once around a table. Only one phone can be first to the log; the
    others' brings stay legal whatever was brought meanwhile, so the page sends them again after
    the newer head, and nobody is told to "read and decide again" about a bring."""
    game = new_game(
        server, title="Everyone at once", players=["Ann", "Ben", "Cat", "Dan"], dealer="Dan", lists=None
    )
    phones = {}
    for name, link in game["links"]["seats"].items():
        phones[name] = browser.new_page(viewport=PHONE)
        phones[name].goto(link)
    for page in phones.values():
        live(page)
    for page in phones.values():  # no waiting between the taps: the posts race
        page.evaluate("() => document.querySelector('#moves button.move').click()")
    for page in phones.values():
        page.wait_for_function("() => document.documentElement.dataset.head === '6'", timeout=LIVE_WAIT_MS)
    for name, page in phones.items():
        assert page.evaluate("() => document.getElementById('move-error').textContent") == "", name
    with server.host as host:
        assert host.get(f"/api/v1/games/{game['id']}").json()["waiting_to_bring"] == []
    for page in phones.values():
        page.close()


def test_the_lobby_form_starts_a_game_with_house_rules(server: Server, browser: Any) -> None:
    """The host starts the evening's game from the lobby, house rules and all (every rule of
    the registry has its field), and it is written into game_started."""
    lobby = browser.new_page(viewport=LAPTOP)
    lobby.goto(f"{server.url}/?k={server.host_key}")
    lobby.fill("input[name=title]", "House rules night")
    lobby.fill("input[name=players]", "Ann, Ben, Cat, Dan")
    lobby.fill("input[name=dealer]", "Dan")
    lobby.fill("[data-option=max_steals_between_opens]", "1")
    lobby.check("[data-option=starter_final_swap]")
    lobby.click("button[type=submit]")
    lobby.wait_for_selector("[data-game=house-rules-night]", timeout=LIVE_WAIT_MS)
    first = (server.directory / "house-rules-night.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["data"]["options"] == {"max_steals_between_opens": 1, "starter_final_swap": True}
    # a cap of 0 is stopped by the form itself, and nothing is started
    lobby.fill("input[name=title]", "Zero steals")
    lobby.fill("[data-option=max_steals_per_gift]", "0")
    lobby.click("button[type=submit]")
    cap = lobby.locator("[data-option=max_steals_per_gift]")
    assert cap.evaluate("(input) => input.validity.valid") is False
    lobby.wait_for_timeout(500)
    assert not (server.directory / "zero-steals.jsonl").exists()
    # bots at seats, from the form: their seats get no code to scan
    lobby.fill("[data-option=max_steals_per_gift]", "")
    lobby.fill("input[name=title]", "Bot night")
    lobby.fill("input[name=players]", "Ann, Ben, Cat, Dan")
    lobby.check("input[name=attics]")
    levels = lobby.locator("#bot-levels [data-bot]")  # the levels a host picks from, easiest first
    assert [levels.nth(i).get_attribute("data-bot") for i in range(levels.count())] == [
        "random",
        "greedy",
        "ismcts",
    ]
    lobby.fill("input[name=bots]", "Ben=greedy, Cat=ismcts")
    lobby.click("button[type=submit]")
    lobby.wait_for_selector("[data-game=bot-night]", timeout=LIVE_WAIT_MS)
    seats = lobby.locator("[data-game=bot-night] [data-seat]")
    assert sorted(seats.nth(i).get_attribute("data-seat") for i in range(seats.count())) == ["Ann", "Dan"]
    lobby.close()


def test_on_a_phone_your_own_seat_comes_right_after_the_table(server: Server, browser: Any) -> None:
    """What I hold, and whether it is locked, is the first thing a player looks for: on a phone
    the viewer's seat follows the felt, before the other seats."""
    game = new_game(server, title="Mine first")
    cat = browser.new_page(viewport=PHONE)
    cat.goto(game["links"]["seats"]["Cat"])
    live(cat)
    felt = cat.locator("#felt").bounding_box()
    mine = cat.locator(".seat.you").bounding_box()
    others = [cat.locator(f"[data-seat='{name}']").bounding_box() for name in ("Ann", "Ben")]
    assert felt is not None and mine is not None
    assert felt["y"] < mine["y"] < min(box["y"] for box in others if box is not None)
    cat.close()


def test_the_hosts_undo_button_says_what_it_takes_back(server: Server, browser: Any) -> None:
    """At a table with guests on their phones, the host sees what Undo will take back before
    pressing it, in the recorder's words, and the button follows the game as moves arrive."""
    game = new_game(server, title="Undo with guests")
    gid = game["id"]
    seq = game["seq"]
    for player in ("Ben", "Cat"):  # their gifts, put down from their phones
        with server.client(key_of(game["links"]["seats"][player])) as phone:
            seq = move(phone, gid, seq, type="bring", card=None).json()["seq"]
    host = browser.new_page(viewport=LAPTOP)
    ann = browser.new_page(viewport=PHONE)
    host.goto(f"{server.url}/t/{gid}?k={server.host_key}")
    ann.goto(game["links"]["seats"]["Ann"])
    live(host)
    live(ann)
    undo = host.locator('#moves button.move[data-move=\'{"type":"undo"}\']')
    assert undo.text_content() == f"Undo: event {seq}, Cat bringing a gift"

    ann.get_by_role("textbox", name="The card turned over").fill("R7")
    ann.get_by_role("button", name="Open the gift turned over").click()
    opened = "Undo: event 6, Ann opening R7, with the 1 unseen bring recorded for it"
    host.wait_for_function(
        "(text) => [...document.querySelectorAll('#moves button.move')].some((b) => b.textContent === text)",
        arg=opened,
        timeout=LIVE_WAIT_MS,
    )
    with server.host as api:
        assert "Undo: " + api.get(f"/api/v1/games/{gid}").json()["undoes"] == opened

    # Undo takes back a guest's move: it asks first, and a "no" takes nothing back
    asked: list[str] = []
    host.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    undo.click()
    host.wait_for_timeout(300)
    # The confirm names the move in full, then what undoing it does.
    assert asked == [
        opened.replace("Undo: ", "Undo ") + "?\n\nIt stays in the log, voided by a new event, and the game"
        " goes back to just before it."
    ]
    assert len((server.directory / f"{gid}.jsonl").read_text().splitlines()) == 6
    host.once("dialog", lambda dialog: dialog.accept())
    undo.click()
    host.wait_for_function("() => document.documentElement.dataset.head === '8'", timeout=LIVE_WAIT_MS)
    host.wait_for_function(
        '() => document.querySelector(`#moves button.move[data-move=\'{"type":"undo"}\']`)'
        "?.textContent === 'Undo: event 4, Cat bringing a gift'",
        timeout=LIVE_WAIT_MS,
    )
    lines = [json.loads(x) for x in (server.directory / f"{gid}.jsonl").read_text().splitlines()]
    assert [x["data"]["voids"] for x in lines[6:]] == [6, 5]  # the gifts from the phones stay
    host.close()
    ann.close()


def test_the_bare_address_says_where_the_hosts_link_is_and_the_tv_footer_reads(
    server: Server, browser: Any
) -> None:
    page = browser.new_page(viewport=PHONE)
    response = page.goto(server.url + "/")
    assert response is not None and response.status == 401
    said = page.locator("main").inner_text()
    printed = "Host (keep this link to yourself):"
    assert printed in said and "we serve" in said, said
    assert any(line.startswith(printed) for line in server.output)  # what the page names is printed
    game = new_game(server, title="Footer")
    page.goto(game["links"]["table"])
    live(page)
    footer = page.locator("#download-box").inner_text()
    assert "this page holds only what a spectator could know" in footer, footer
    page.close()


def test_the_start_of_a_party_reads_the_same_on_the_tv_the_phones_and_the_recorder(
    server: Server, browser: Any
) -> None:
    from wecore.turns import FIRST_OPEN

    game = new_game(server, title="Same words")  # dealer Cat: Ann starts; no attics dealt
    said = FIRST_OPEN.format(starter="Ann", waiting="Ann, Ben, Cat")
    pages = {
        "tv": (game["links"]["table"], TV),
        "Ann": (game["links"]["seats"]["Ann"], PHONE),
        "Ben": (game["links"]["seats"]["Ben"], PHONE),
    }
    for who, (url, viewport) in pages.items():
        page = browser.new_page(viewport=viewport)
        page.goto(url)
        live(page)
        assert page.inner_text("#to-move") == said, who
        assert "waiting" not in page.inner_text("#phase-label").lower(), who
        if who == "Ann":  # and what she is offered agrees: she opens
            assert page.locator("#moves button.move", has_text="Open the gift turned over").count() == 1
        page.close()
    assert server.directory is not None
    (log,) = [p for p in server.directory.glob("*.jsonl") if game["id"] in p.read_text()[:300]]
    recorder = we("record", log, input="")
    assert said + "." in recorder.stdout, recorder.stdout


CHECKBOX_AGAINST_BASELINE = """(box) => {
  // An empty inline-block's bottom edge is the baseline of the line it sits in.
  const probe = document.createElement("span");
  probe.style.display = "inline-block";
  box.parentElement.appendChild(probe);
  const baseline = probe.getBoundingClientRect().bottom;
  probe.remove();
  return box.getBoundingClientRect().bottom - baseline;
}"""


def test_the_lobby_names_its_bots_and_sits_its_checkboxes_on_the_words(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    game = new_game(
        server, title="Two bots", players=["Ann", "Ben", "Cat"], lists=None, deal_attics=True,
        bots={"Ben": "greedy", "Cat": "random"},
    )  # fmt: skip
    for viewport, name in ((LAPTOP, "lobby-laptop"), (PHONE, "lobby-phone")):
        lobby = browser.new_page(viewport=viewport)
        lobby.goto(f"{server.url}/?k={server.host_key}")
        section = lobby.locator(f"[data-game={game['id']}]")
        assert section.locator("p").first.inner_text().startswith("Ann, Ben (bot), Cat (bot) ·")
        bots = section.locator("[data-bot]")
        assert [bots.nth(i).inner_text().split() for i in range(bots.count())] == [
            ["bot", "Ben", "plays", "greedy"],
            ["bot", "Cat", "plays", "random"],
        ]
        boxes = lobby.locator("input[type=checkbox]")
        assert boxes.count() >= 2
        off = [boxes.nth(i).evaluate(CHECKBOX_AGAINST_BASELINE) for i in range(boxes.count())]
        assert all(abs(x) <= 1.5 for x in off), off  # px between a box's bottom and its words' baseline
        lobby.locator("form#start").scroll_into_view_if_needed()
        keep(lobby, name, tmp_path)
        lobby.close()


def test_the_host_can_hide_an_unfinished_game_from_the_lobby_and_show_it_again(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    started = new_game(server, title="False start")
    log = server.directory / f"{started['id']}.jsonl"
    before = log.read_bytes()
    context = browser.new_context(viewport=LAPTOP)
    lobby = context.new_page()
    lobby.goto(f"{server.url}/?k={server.host_key}")
    section = lobby.locator(f"[data-game={started['id']}]")
    assert section.is_visible()
    finished = lobby.locator("section.game:not([data-unfinished])")
    assert all(finished.nth(i).locator("button.hide").count() == 0 for i in range(finished.count()))
    section.locator("button.hide").click()
    assert not section.is_visible()
    assert lobby.locator("#hidden-games").is_visible()
    lobby.reload()  # kept in this browser
    assert not lobby.locator(f"[data-game={started['id']}]").is_visible()
    keep(lobby, "lobby-hidden-game", tmp_path)
    lobby.click("#show-hidden")
    assert lobby.locator(f"[data-game={started['id']}]").is_visible()
    assert not lobby.locator("#hidden-games").is_visible()
    assert log.read_bytes() == before  # hiding is the lobby's view, never the game's record
    context.close()


def test_a_whole_game_on_a_phone_against_two_search_bots(
    server: Server, browser: Any, tmp_path: Path
) -> None:
    """Ann plays a whole (short) game from her phone against two ismcts bots, tapping her first
    offered move each time it is her turn, to the final standings."""
    game = new_game(
        server,
        title="Ann against the search",
        lists=None,
        deal_attics=True,
        bots={"Ben": "ismcts", "Cat": "ismcts"},
        options=SHORT,
    )
    ann = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    problems: list[str] = []
    ann.on("pageerror", lambda exc: problems.append(str(exc)))
    ann.on("dialog", lambda dialog: problems.append("a dialog: " + dialog.message))
    ann.goto(game["links"]["seats"]["Ann"])
    live(ann)
    her_turn_or_over = (
        "() => document.documentElement.dataset.complete === 'true'"
        " || document.querySelectorAll('#moves button.move').length > 0"
    )
    taps = 0
    while True:
        # the bots' searches take a while on a busy machine: the wait ends as soon as it is hers
        ann.wait_for_function(her_turn_or_over, timeout=LIVE_WAIT_MS * 4)
        if ann.evaluate("() => document.documentElement.dataset.complete") == "true":
            break
        head = ann.evaluate("() => document.documentElement.dataset.head")
        ann.locator("#moves button.move").first.click()
        taps += 1
        ann.wait_for_function(
            "(head) => document.documentElement.dataset.head !== head", arg=head, timeout=LIVE_WAIT_MS
        )
    keep(ann, "live-phone-whole-game-vs-ismcts", tmp_path)
    assert ann.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert taps >= 6  # three brings and at least three opens or steals of her own
    with server.host as host:
        state = host.get(f"/api/v1/games/{game['id']}").json()
    assert state["complete"] is True
    assert problems == []
    ann.close()
