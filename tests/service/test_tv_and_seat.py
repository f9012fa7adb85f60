"""The living room (issue 47): the table page as a TV read from the sofa, and a seat played by
keyboard (or screen reader) that keeps its place; in a real `we serve` and a headless Chromium.
Screenshots are kept in tests/artifacts/ to be looked at."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from chromium import launched_chromium
from served import ARTIFACTS, Server, key_of, move, new_game

TV_SIZES = {"1080p": {"width": 1920, "height": 1080}, "4k": {"width": 3840, "height": 2160}}
PHONE = {"width": 390, "height": 844}
WAIT_MS = 15_000
SEVEN = ["Ann", "Benedict", "Cat", "Dominique", "Eve", "Francesca", "Gus"]
SHORT = {"attic_sizes": {"3": 3}}

# Every text node drawn on the first screen whose font is under 24 CSS px. A node only a screen
# reader gets (clipped to a pixel) is not drawn.
SMALL_TEXT = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const host = node.parentElement;
    if (!node.textContent.trim() || host.closest("script, style, noscript, title")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 1 && r.height > 1
      && r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth);
    if (!rects.length || getComputedStyle(host).visibility !== "visible") continue;
    let clipped = false;
    for (let e = host; e; e = e.parentElement) {
      const box = e.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) { clipped = true; break; }
    }
    const size = parseFloat(getComputedStyle(host).fontSize);
    const what = node.textContent.trim().slice(0, 30);
    if (!clipped && size < 24) small.push(`${host.tagName}.${host.className}: ${what} (${size} px)`);
  }
  return small;
}"""

# Every text in a live region (aria-live, role=status or alert), as it is set: what a screen
# reader is given to say.
RECORD_LIVE_REGIONS = """
window.__said = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const target = change.target.nodeType === 1 ? change.target : change.target.parentElement;
    const live = '[aria-live]:not([aria-live="off"]), [role=status], [role=alert]';
    const region = target && target.closest(live);
    if (region && region.textContent.trim()) window.__said.push(region.textContent.trim());
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


def keep(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def live(page: Any) -> None:
    page.wait_for_function(
        "() => document.getElementById('live-status').dataset.state === 'live'", timeout=WAIT_MS
    )


def play_as(server: Server, game: dict[str, Any], player: str, moves: int) -> None:
    """`player` makes their first offered move `moves` times, the bots moving in between (each
    wait is on the game's stream, for its next event)."""
    key = key_of(game["links"]["seats"][player])
    made = 0
    with server.client(key) as seat:
        while made < moves:
            view = seat.get(f"/api/v1/games/{game['id']}").json()
            if view["complete"]:
                return
            if view["legal"]:
                made += move(seat, game["id"], view["seq"], **view["legal"][0]).status_code == 201
                continue  # a 409: a bot's bring got in first, which changes nothing of hers
            with seat.stream(
                "GET", f"/api/v1/games/{game['id']}/stream?k={key}&after={view['seq']}"
            ) as events:
                for line in events.iter_lines():
                    if line.startswith("data:"):
                        break


@pytest.fixture(scope="module")
def seven(server: Server) -> dict[str, Any]:
    """A seven-player game under way: six bots, and Ann a few moves in."""
    game = new_game(
        server, title="Seven at the table", players=SEVEN, dealer="Gus", lists=None, deal_attics=True,
        bots={name: "greedy" for name in SEVEN[1:]},
    )  # fmt: skip
    play_as(server, game, "Ann", 6)
    return game


@pytest.mark.parametrize("size", sorted(TV_SIZES))
def test_a_seven_player_table_reads_from_the_sofa(
    server: Server, browser: Any, seven: dict[str, Any], size: str
) -> None:
    """In live play: no text drawn under 24 px, the card values and names larger than the text,
    the seven seats on one screen with no scrolling, and no replay controls (a step key brings
    them back)."""
    viewport = TV_SIZES[size]
    tv = browser.new_page(viewport=viewport)
    tv.goto(seven["links"]["table"])
    live(tv)
    assert tv.evaluate("() => document.documentElement.dataset.complete") == "false"
    keep(tv, f"tv-{size}-seven-live")
    small = tv.evaluate(SMALL_TEXT)
    assert small == [], small
    height = tv.evaluate("() => document.documentElement.scrollHeight")
    assert height <= viewport["height"], f"{height} px high: the TV would scroll"
    for name in SEVEN:
        box = tv.locator(f".seat[data-seat='{name}']").bounding_box()
        assert box is not None and box["y"] + box["height"] <= viewport["height"], name
    sizes = tv.evaluate(
        """() => ({ body: parseFloat(getComputedStyle(document.body).fontSize),
          card: parseFloat(getComputedStyle(document.querySelector('.seat .card')).fontSize),
          name: parseFloat(getComputedStyle(document.querySelector('.seat .name')).fontSize) })"""
    )
    assert sizes["card"] > sizes["body"] and sizes["name"] > sizes["body"], sizes
    assert tv.locator("#first").is_hidden() and tv.locator("#slider").is_hidden()
    assert tv.locator("#end-of-game").is_hidden()  # no empty box under the standings
    tv.keyboard.press("ArrowLeft")
    assert tv.locator("#first").is_visible() and tv.locator("#slider").is_visible()
    tv.close()


def test_the_final_tv_screen_has_a_code_to_scan_across_the_room(server: Server, browser: Any) -> None:
    over = new_game(
        server, title="Seven bots", players=SEVEN, dealer="Gus", lists=None, deal_attics=True,
        bots={name: "greedy" for name in SEVEN},
    )  # fmt: skip
    tv = browser.new_page(viewport=TV_SIZES["1080p"])
    tv.goto(over["links"]["table"])
    tv.wait_for_selector("#end-of-game .bgstats-qr svg", timeout=WAIT_MS)
    keep(tv, "tv-1080p-seven-final")
    code = tv.locator("#end-of-game .bgstats-qr svg").bounding_box()
    drawn = tv.evaluate(  # the drawing fills its box (a fixed-size drawing in a larger box did not)
        "() => document.querySelector('#end-of-game .bgstats-qr path').getBoundingClientRect().width"
    )
    assert code is not None and code["width"] >= 0.45 * TV_SIZES["1080p"]["height"], code
    assert drawn >= 0.9 * code["width"], (drawn, code)
    assert tv.locator("#first").is_visible()  # the replay is back at the end
    tv.close()


def focused(page: Any) -> str:
    return str(
        page.evaluate(
            "() => { const e = document.activeElement;"
            " return e ? e.tagName + '#' + e.id + '.' + e.className : 'none'; }"
        )
    )


def test_a_whole_seat_against_bots_by_keyboard_alone(server: Server, browser: Any) -> None:
    """Ann plays a whole short game with Tab and Enter against two bots: after every move focus
    stays on the page (never <body>), and the live regions said "your turn"."""
    game = new_game(
        server, title="Keys against bots", lists=None, deal_attics=True,
        bots={"Ben": "greedy", "Cat": "greedy"}, options=SHORT,
    )  # fmt: skip
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(RECORD_LIVE_REGIONS)
    ann = context.new_page()
    ann.goto(game["links"]["seats"]["Ann"])
    live(ann)
    her_turn_or_over = (
        "() => document.documentElement.dataset.complete === 'true'"
        " || document.querySelectorAll('#moves button.move:not(:disabled)').length > 0"
    )
    moves = 0
    after: list[str] = []
    while True:
        ann.wait_for_function(her_turn_or_over, timeout=WAIT_MS * 4)
        if ann.evaluate("() => document.documentElement.dataset.complete") == "true":
            break
        for _ in range(120):  # Tab to her first move, from wherever focus is
            ann.keyboard.press("Tab")
            if ann.evaluate("() => document.activeElement.matches('#moves button.move')"):
                break
        else:
            raise AssertionError("Tab never reached a move: " + focused(ann))
        head = ann.evaluate("() => document.documentElement.dataset.head")
        ann.keyboard.press("Enter")
        moves += 1
        ann.wait_for_function(
            "(head) => document.documentElement.dataset.head !== head", arg=head, timeout=WAIT_MS
        )
        after.append(focused(ann))
        assert not after[-1].startswith("BODY"), after
    assert moves >= 5, moves  # her brings and her opens or steals
    assert after and all(not f.startswith("BODY") for f in after), after
    said = ann.evaluate("() => window.__said")
    assert any("your turn" in text.lower() for text in said), said
    # A burst of bot moves is told as one summary, not one message each.
    assert any(text.split(":")[0].endswith("moves") for text in said), said
    context.close()


def test_a_typed_card_keeps_its_place_and_its_text(server: Server, browser: Any) -> None:
    """Enter in the card field opens the gift; an empty one says what is missing; a refused card
    stays typed in the field, which keeps the focus; the field has a label one can see."""
    game = new_game(server, title="Typed cards")
    ann = browser.new_page(viewport=PHONE)
    ann.goto(game["links"]["seats"]["Ann"])
    live(ann)
    field = ann.get_by_role("textbox", name="The card turned over")
    assert ann.locator("label[for=card-field]").is_visible()
    field.focus()
    ann.keyboard.press("Enter")
    ann.wait_for_function("() => /Type the card/.test(document.getElementById('move-error').textContent)")
    assert ann.evaluate("() => document.activeElement.name") == "card"
    ann.keyboard.type("Q9")
    ann.keyboard.press("Enter")
    ann.wait_for_function(
        "() => document.getElementById('move-error').textContent.includes('Q9')", timeout=WAIT_MS
    )
    assert ann.evaluate("() => [document.activeElement.name, document.activeElement.value]") == ["card", "Q9"]
    ann.keyboard.press("Control+A")
    ann.keyboard.type("R7")
    head = ann.evaluate("() => document.documentElement.dataset.head")
    ann.keyboard.press("Enter")
    ann.wait_for_function(
        "(head) => document.documentElement.dataset.head !== head", arg=head, timeout=WAIT_MS
    )
    ann.wait_for_function(
        "() => [...document.querySelectorAll('#timeline li')]"
        ".some((li) => /Ann opens R7/.test(li.textContent))"
    )
    assert not focused(ann).startswith("BODY")
    ann.close()


def test_a_seat_is_read_in_the_order_it_is_drawn(server: Server, browser: Any) -> None:
    """On a phone: the moves, the standings, the replay, the table (the felt, then my seat), in
    the document as on the screen; a skip link leads past the timeline's buttons."""
    game = new_game(server, title="Reading order")
    cat = browser.new_page(viewport=PHONE)
    cat.goto(game["links"]["seats"]["Cat"])
    live(cat)
    order = ["#moves", "#standings-box", "#controls", "#felt", ".seat.you", ".seat[data-seat='Ann']"]
    tops = [cat.locator(selector).bounding_box()["y"] for selector in order]
    assert tops == sorted(tops), dict(zip(order, tops, strict=True))
    in_document = cat.evaluate(
        """(selectors) => selectors.map((s) => document.querySelector(s)).every((e, i, all) =>
          i === 0 || (all[i - 1].compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING))""",
        order,
    )
    assert in_document
    cat.locator("#skip-timeline").focus()
    assert cat.locator("#skip-timeline").is_visible()
    cat.keyboard.press("Enter")
    assert cat.evaluate("() => document.activeElement.id") == "after-timeline"
    cat.close()


def test_the_lobby_names_each_games_links_and_says_its_house_rules(server: Server, browser: Any) -> None:
    from wecore.rulesets import house_rules_text

    options = {"max_steals_per_gift": 2}
    game = new_game(server, title="Capped steals", options=options)
    lobby = browser.new_page(viewport=PHONE)
    lobby.goto(f"{server.url}/?k={server.host_key}")
    section = lobby.locator(f"[data-game={game['id']}]")
    assert section.locator(".house-rules").inner_text() == "House rules: " + house_rules_text(options)
    assert section.get_by_role("link", name="Table (for the TV) of Capped steals").count() == 1
    assert section.get_by_role("link", name="Host view of Capped steals").count() == 1
    assert lobby.locator("#start-error").get_attribute("role") == "alert"
    lobby.close()


def test_a_refused_page_says_ask_the_host_once(server: Server) -> None:
    """A garbled link (401), a seat's link where the host's is needed (403), a game that is not
    there (404): each page says once what to do."""
    import httpx

    game = new_game(server, title="Asked once")
    seat = key_of(game["links"]["seats"]["Ann"])
    pages = {
        401: f"/t/{game['id']}?k=garbled",
        403: f"/?k={seat}",
        404: f"/t/no-such-game?k={server.host_key}",
    }
    for status, path in pages.items():
        answer = httpx.get(server.url + path, timeout=10)
        assert answer.status_code == status, (path, answer.status_code)
        assert answer.text.count("Ask the host") == 1, answer.text
