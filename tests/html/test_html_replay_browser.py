"""End to end: the replay page in a real headless Chromium, driven by Playwright.

The page is opened from disk (file://), stepped with its buttons, the keyboard, the slider and
the timeline, and what the table shows is compared with the engine's view at those seqs.
Skips, saying why, where Playwright for Python or a Chromium is not installed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chromium import launched_chromium
from replay_support import VECTORS, expected_view, frozen_game, load_log

from eventstore.canonical import event_hash
from service.replay_page import render_html

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# What the table shows, read back from the page's stable hooks.
READ_TABLE = """() => {
  const cards = (node) => node ? [...node.querySelectorAll("[data-card]")].map((c) => c.dataset.card) : [];
  const texts = (node) => node ? [...node.querySelectorAll("[data-card]")].map((c) => c.textContent) : [];
  const seats = {};
  for (const seat of document.querySelectorAll("[data-seat]")) {
    const role = (r) => seat.querySelector(`[data-role=${r}]`);
    const holding = role("holding");
    const attic = role("attic");
    seats[seat.dataset.seat] = {
      holding: holding.dataset.card || null,
      holding_text: holding.querySelector("[data-card]")?.textContent ?? null,
      locked: !!holding.querySelector("[data-role=locked]"),
      frozen: !!holding.querySelector("[data-role=frozen]"),
      kept: cards(role("kept")),
      kept_text: texts(role("kept")),
      attic: "count" in attic.dataset ? Number(attic.dataset.count)
        : attic.classList.contains("chips") ? cards(attic) : null,
      list: [...role("list").querySelectorAll("li")].map((li) => li.dataset.colour),
      list_text: role("list").textContent,
      score: Number(role("score").textContent),
      turn: seat.classList.contains("turn"),
    };
  }
  const down = document.getElementById("face-down");
  const label = document.getElementById("step-label");
  return {
    seq: Number(label.dataset.seq),
    label: label.textContent,
    slider: Number(document.getElementById("slider").value),
    narration: document.getElementById("narration").textContent,
    current: Number(document.querySelector("#timeline li[aria-current=step]").dataset.seq),
    to_move: document.getElementById("to-move").dataset.player || null,
    face_down_count: Number(down.dataset.count),
    face_down_known: cards(down),
    seats,
  };
}"""

PERSON = {
    "red": "Mother-in-Law",
    "orange": "Crazy Neighbor",
    "yellow": "Fluffy the Cat",
    "green": "Great Uncle Irwin",
    "blue": "Random Stranger",
}


@pytest.fixture(scope="module")
def browser():
    yield from launched_chromium()


@pytest.fixture
def open_page(browser, tmp_path):
    """open_page(envelopes, viewer=None, seq=None, viewport=DESKTOP) -> (page, log path)."""
    contexts = []
    problems: list[str] = []

    def _open(envelopes, viewer=None, seq=None, viewport=DESKTOP, name="replay"):
        out = tmp_path / f"{name}.html"
        out.write_text(render_html(envelopes, viewer=viewer, fingerprint=None), encoding="utf-8")
        context = browser.new_context(viewport=viewport, offline=True, accept_downloads=True)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
        page.on("request", lambda req: req.url.startswith(("http:", "https:")) and problems.append(req.url))
        page.goto(out.as_uri() + (f"#seq={seq}" if seq else ""))
        page.wait_for_selector("#step-label[data-seq]")
        return page

    yield _open
    for context in contexts:
        context.close()
    assert not problems, problems


def table(page) -> dict[str, Any]:
    return page.evaluate(READ_TABLE)


def assert_table_is(shown: dict[str, Any], envelopes, seq: int, viewer: str | None = None) -> None:
    """The table on screen is the engine's view after `seq`."""
    expected = expected_view(envelopes, seq, viewer)
    assert shown["seq"] == seq and shown["slider"] == seq and shown["current"] == seq
    assert shown["label"].startswith(f"Event {seq} of {len(envelopes)}")
    assert shown["to_move"] == expected["to_move"]
    assert shown["face_down_known"] == expected["face_down_known"]
    assert shown["face_down_count"] == len(expected["face_down_known"]) + expected["face_down_hidden"]
    assert set(shown["seats"]) == set(expected["players"])
    for name in expected["players"]:
        seat = shown["seats"][name]
        held = expected["holding"].get(name)
        assert seat["holding"] == held, name
        assert seat["holding_text"] == held, name  # the letter and number are written on the card
        assert seat["frozen"] == (held in expected["frozen"]), name
        assert seat["locked"] == (held in expected["locked"] and held not in expected["frozen"]), name
        assert seat["kept"] == expected["kept"][name] == seat["kept_text"], name
        assert seat["attic"] == (expected["attics"] or {}).get(name), name
        assert seat["list"] == expected["gift_lists"].get(name, []), name
        for colour in seat["list"]:
            assert PERSON[colour] in seat["list_text"]
        assert seat["score"] == expected["scores"][name], name
        assert seat["turn"] == (name == expected["to_move"]), name


def test_step_through_a_full_game(open_page):
    log = load_log("four-players-dealt.jsonl")
    page = open_page(log)
    # With no event asked for, the page opens on the last one: the final standings.
    assert_table_is(table(page), log, len(log))
    assert page.text_content("#standings-title") == "Final standings"
    assert page.locator("#timeline li[data-seq]").count() == len(log)
    page.keyboard.press("Home")
    assert_table_is(table(page), log, 1)

    for _ in range(8):
        page.click("#next")
    shown = table(page)
    assert_table_is(shown, log, 9)  # Ben has just stolen B10 from Ann: locked, Ann to move
    assert shown["seats"]["Ben"]["locked"] and shown["to_move"] == "Ann"
    assert "steals B10 from Ann" in shown["narration"]

    page.click("#prev")
    assert_table_is(table(page), log, 8)

    page.keyboard.press("End")
    assert_table_is(table(page), log, len(log))
    assert page.is_disabled("#next") and page.is_disabled("#last")
    assert page.text_content("#standings-title") == "Final standings"
    assert page.text_content("#winners") == "Shared win: Ann, Ben"
    assert page.text_content("#fingerprint") == "533f2d2596f7"
    assert page.text_content('#standings [data-player="Ann"] h3') == "Ann: 22 — winner"
    assert page.locator("#standings [data-player]").count() == 4

    page.keyboard.press("Home")
    assert_table_is(table(page), log, 1)
    assert page.is_disabled("#first") and page.is_disabled("#prev")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert_table_is(table(page), log, 4)

    page.focus("#slider")  # the slider steps itself with the arrow keys
    page.keyboard.press("ArrowRight")
    assert_table_is(table(page), log, 5)
    page.eval_on_selector(
        "#slider", "s => { s.value = '45'; s.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    assert_table_is(table(page), log, 45)

    page.click('#timeline li[data-seq="20"] button')
    assert_table_is(table(page), log, 20)

    page.click("#last")
    assert_table_is(table(page), log, len(log))
    page.click("#first")
    assert_table_is(table(page), log, 1)


def test_play_and_pause(open_page):
    log = load_log("one-party.jsonl")
    page = open_page(log)
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    # Polled from here: the page's security policy forbids the eval that wait_for_function uses.
    for _ in range(100):
        if table(page)["seq"] >= 3:
            break
        page.wait_for_timeout(100)
    assert table(page)["seq"] >= 3, "playing did not move on"
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    paused_at = table(page)["seq"]
    page.wait_for_timeout(1500)
    assert_table_is(table(page), log, paused_at)


def test_controls_are_labelled_buttons(open_page):
    page = open_page(load_log("one-party.jsonl"))
    for button in ("first", "prev", "play", "next", "last"):
        assert page.evaluate(f"document.getElementById('{button}').tagName") == "BUTTON"
        assert page.get_attribute(f"#{button}", "aria-label")
    assert page.get_by_label("Event", exact=True).evaluate("e => e.id") == "slider"
    assert page.locator("#timeline li button").count() == 13


def test_voids_and_notes_on_the_timeline(open_page):
    log = load_log("one-party.jsonl")
    page = open_page(log, seq=10)  # a link straight to an event
    assert_table_is(table(page), log, 10)
    voided = page.locator('#timeline li[data-seq="10"]')
    assert voided.get_attribute("class").split() == ["voided", "current"]
    assert "line-through" in voided.locator(".text").evaluate("e => getComputedStyle(e).textDecorationLine")
    assert "voided by 11" in voided.text_content()
    assert "(voided by event 11)" in page.text_content("#step-label")
    assert page.locator("#timeline li.voided").count() == 1
    note = page.locator('#timeline li[data-seq="8"]')
    assert "note" in note.get_attribute("class").split()
    assert "Zoë says" in note.text_content()
    page.keyboard.press("ArrowRight")
    assert_table_is(table(page), log, 11)  # the void puts the table back as it was after 9
    page.keyboard.press("End")
    assert_table_is(table(page), log, 13)
    assert page.text_content("#winners") == "Winner: Cat"


def test_the_timeline_tells_the_time_to_the_second(open_page):
    """Writers add microseconds to `at`; an event's time on the timeline reads as it always did."""
    from eventstore.envelope import seal

    log = load_log("one-party.jsonl")
    written, prev = [], None
    for e in log:
        envelope = seal(e["game"], e["seq"], e["at"][:-1] + ".123456Z", e["type"], e["data"], prev)
        written.append(envelope.to_dict())
        prev = envelope.hash
    page = open_page(written)
    titles = page.eval_on_selector_all("#timeline li button", "buttons => buttons.map((b) => b.title)")
    assert titles == [e["at"] for e in log]


def test_without_javascript_the_standings_still_show(browser, tmp_path):
    out = tmp_path / "nojs.html"
    out.write_text(render_html(load_log("one-party.jsonl"), viewer=None, fingerprint=None), encoding="utf-8")
    context = browser.new_context(viewport=PHONE, java_script_enabled=False, offline=True)
    try:
        page = context.new_page()
        page.goto(out.as_uri())
        assert not page.is_visible("#controls")  # controls that could not work are hidden
        text = page.inner_text("body")
        assert "Final standings" in text and "Cat: 10 — winner" in text and "abb6aa1e5ad9" in text
    finally:
        context.close()


def test_the_page_gives_its_log_back(open_page, tmp_path):
    log = load_log("one-party.jsonl")
    page = open_page(log)
    with page.expect_download() as download:
        page.click("#download-log")
    assert download.value.suggested_filename == "vector-one.jsonl"
    saved = tmp_path / "saved.jsonl"
    download.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert text.endswith("\n")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines == log  # the same events, so the same hashes and fingerprint
    assert all(event_hash({k: v for k, v in e.items() if k != "hash"}) == e["hash"] for e in lines)


def test_seen_from_one_seat(open_page):
    log = load_log("four-players-dealt.jsonl")
    page = open_page(log, viewer="Ann", seq=5)
    shown = table(page)
    assert_table_is(shown, log, 5, viewer="Ann")
    assert shown["seats"]["Ben"]["attic"] == 8  # only a count
    assert shown["face_down_known"] == ["B10"] and shown["face_down_count"] == 2
    assert page.text_content("#narration") == "Dev brings a gift face down."
    assert page.locator("#download-log").count() == 0  # no full log to save
    page.keyboard.press("End")
    assert_table_is(table(page), log, len(log), viewer="Ann")


def test_frozen_gifts_are_marked(open_page):
    log = frozen_game()
    seq = next(
        s
        for s in range(1, len(log) + 1)
        if (v := expected_view(log, s, None))["frozen"] and set(v["frozen"]) & set(v["holding"].values())
    )
    page = open_page(log, seq=seq)
    shown = table(page)
    assert_table_is(shown, log, seq)
    assert any(seat["frozen"] for seat in shown["seats"].values())
    assert page.title().startswith('Eve </script><script>alert("x")</script>')  # shown, not run


def test_phone_screen_and_screenshots(open_page, tmp_path):
    log = load_log("four-players-dealt.jsonl")
    page = open_page(log, viewport=PHONE, name="phone")
    # On a phone the standings come first, above the controls and the table.
    standings_top = page.evaluate("document.getElementById('standings-box').getBoundingClientRect().top")
    controls_top = page.evaluate("document.getElementById('controls').getBoundingClientRect().top")
    assert standings_top < controls_top
    # and are read first: the document follows what is drawn (Tab and a screen reader too)
    before = (
        "([a, b]) => !!(document.getElementById(a).compareDocumentPosition(document.getElementById(b))"
        " & Node.DOCUMENT_POSITION_FOLLOWING)"
    )
    assert page.evaluate(before, ["standings-box", "controls"])
    assert page.text_content("#standings-title") == "Final standings"
    desktop_order = open_page(log, name="desktop-order")
    assert desktop_order.evaluate(
        "document.getElementById('standings-box').getBoundingClientRect().top"
        " > document.getElementById('controls').getBoundingClientRect().top"
    )
    assert desktop_order.evaluate(before, ["controls", "standings-box"])
    for seq in (1, 9, 30, len(log)):
        page.evaluate(f"location.hash = '#seq={seq}'")
        page.reload()
        assert_table_is(table(page), log, seq)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the page scrolls sideways by {overflow}px at event {seq}"
        for box in page.locator("[data-seat], #felt, #controls, #timeline").all():
            right = box.evaluate("e => e.getBoundingClientRect().right")
            assert right <= PHONE["width"] + 0.5
    page.keyboard.press("Home")
    for _ in range(8):
        page.click("#next")  # the buttons are reachable and work on a small screen
    assert_table_is(table(page), log, 9)
    phone_shot = tmp_path / "replay-phone.png"
    page.screenshot(path=str(phone_shot), full_page=True)

    desktop = open_page(log, seq=30, name="desktop")
    desktop_shot = tmp_path / "replay-desktop.png"
    desktop.screenshot(path=str(desktop_shot), full_page=True)
    assert phone_shot.stat().st_size > 10_000 and desktop_shot.stat().st_size > 10_000
    print(f"\nreplay screenshots: {phone_shot} {desktop_shot}")


def test_the_page_agrees_with_we_replay_json(open_page):
    """The table against `we replay LOG --at SEQ --json`, when that command exists."""
    try:
        from cli.main import we
    except ImportError as exc:
        pytest.skip(f"the CLI is not importable yet: {exc}")
    from click.testing import CliRunner

    if we.get_command(None, "replay") is None:  # type: ignore[arg-type]
        pytest.skip("`we replay` is not there yet")
    log = load_log("four-players-dealt.jsonl")
    path = str(VECTORS / "four-players-dealt.jsonl")
    page = open_page(log)
    runner = CliRunner()
    for seq in (4, 9, 45, len(log)):
        result = runner.invoke(we, ["replay", path, "--at", str(seq), "--json"])
        if result.exit_code != 0 and "No such option" in result.output:
            pytest.skip(f"`we replay` has no --at/--json yet: {result.output.strip()}")
        assert result.exit_code == 0, result.output
        cli_view = json.loads(result.output)
        expected = expected_view(log, seq, None)
        assert {key: cli_view.get(key) for key in expected} == expected
        assert cli_view.get("seq", seq) == seq
        page.evaluate(f"location.hash = '#seq={seq}'")
        page.reload()
        assert_table_is(table(page), log, seq)


def test_the_final_swap_on_the_table_and_the_timeline(open_page):
    """house-rules.jsonl: at seq 25 Ben opens the last gift of party 2, and Cat (its starter) may
    swap; at seq 26 Cat swaps Y3 for Ben's G8."""
    log = load_log("house-rules.jsonl")
    page = open_page(log, seq=25)
    shown = table(page)
    assert_table_is(shown, log, 25)
    assert shown["to_move"] == "Cat"
    assert page.text_content("#phase-label").startswith("Final swap: every gift is open; Cat")
    assert "may swap" in page.text_content("[data-seat=Cat] [data-role=badges]")
    page.keyboard.press("ArrowRight")
    shown = table(page)
    assert_table_is(shown, log, 26)
    assert page.text_content("#narration") == "Cat swaps Y3 for G8, Ben's gift: party 2 ends."
    assert shown["seats"]["Cat"]["kept"][-1] == "G8" and shown["seats"]["Ben"]["kept"][-1] == "Y3"
    for name in ("Cat", "Ben"):
        assert "swapped" in page.text_content(f"[data-seat={name}] [data-role=badges]")
    assert "swapped" not in page.text_content("[data-seat=Ann] [data-role=badges]")
    swaps = page.locator("#timeline li.swap")
    assert swaps.count() == 3 and swaps.nth(1).get_attribute("data-seq") == "26"


def test_the_swap_after_an_open_on_the_table_and_the_timeline(open_page):
    """keep-or-swap.jsonl: at seq 8 Ben opens Y4 and decides (a note comes between); at seq 10
    he swaps it for Ann's R7, which is then locked."""
    log = load_log("keep-or-swap.jsonl")
    page = open_page(log, seq=8)
    shown = table(page)
    assert_table_is(shown, log, 8)
    assert shown["to_move"] == "Ben"
    assert page.text_content("#phase-label").startswith("Keep or swap: Ben has just opened a gift")
    assert "may swap" in page.text_content("[data-seat=Ben] [data-role=badges]")
    page.evaluate("location.hash = '#seq=10'")
    page.reload()
    shown = table(page)
    assert_table_is(shown, log, 10)
    assert page.text_content("#narration") == (
        "Ben swaps Y4 for R7, Ann's gift; R7 is locked until a gift is opened; Cat is next."
    )
    for name in ("Ben", "Ann"):
        assert "swapped" in page.text_content(f"[data-seat={name}] [data-role=badges]")
    assert "swapped" not in page.text_content("[data-seat=Cat] [data-role=badges]")
    swaps = page.locator("#timeline li.swap")
    assert [swaps.nth(i).get_attribute("data-seq") for i in range(swaps.count())] == ["7", "10", "13", "14"]


def _replay_html(log: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", "replay", str(log), "--html", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_damaged_log_page_says_where_it_ends_and_offers_only_that_part(browser, tmp_path):
    # A disputer opens the page of a log that was edited at line 11: the page must not present
    # the hash of event 10 as the log's fingerprint, nor save events 1-10 as "the log".
    lines = (VECTORS / "one-party.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[10] = lines[10].replace("wrong move", "right move", 1)
    log = tmp_path / "edited.jsonl"
    log.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "edited.html"
    run = _replay_html(log, out)
    assert run.returncode == 1 and "replay stopped after event 10" in run.stderr
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    try:
        page = context.new_page()
        page.goto(out.as_uri())
        label = page.inner_text("#fingerprint-label")
        assert label == "Fingerprint at event 10, the last that can be read"
        cut = page.locator("#cut")
        assert cut.is_visible() and "damaged after it" in cut.inner_text() and "line 11" in cut.inner_text()
        assert page.inner_text("#download-log") == "Save events 1 to 10 (.jsonl)"
        with page.expect_download() as download:
            page.click("#download-log")
        assert download.value.suggested_filename == "vector-one-events-1-10.jsonl"
    finally:
        context.close()


def test_a_whole_log_page_names_the_fingerprint_of_the_log(browser, tmp_path):
    out = tmp_path / "whole.html"
    assert _replay_html(VECTORS / "one-party.jsonl", out).returncode == 0
    at = tmp_path / "at.html"
    assert _replay_html(VECTORS / "one-party.jsonl", at, "--at", "5").returncode == 0
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.goto(out.as_uri())
        assert page.inner_text("#fingerprint-label") == "Fingerprint of the log"
        assert not page.locator("#cut").is_visible()
        assert page.inner_text("#download-log") == "Save the log (.jsonl)"
        page.goto(at.as_uri())
        assert page.inner_text("#fingerprint-label") == "Fingerprint at event 5"
        assert "events 1 to 5" in page.inner_text("#cut")
    finally:
        context.close()


def test_a_saved_page_runs_under_its_own_policy_with_no_violation(browser, tmp_path):
    """Opened from disk there is no server to send a header: the page's <meta> policy allows its
    own script and style by hash, nothing inline by default, and both still run."""
    document = render_html(load_log("one-party.jsonl"), viewer=None, fingerprint=None)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', document).group(1)
    assert "unsafe-inline" not in policy
    assert "script-src 'sha256-" in policy and "style-src 'sha256-" in policy
    out = tmp_path / "saved.html"
    out.write_text(document, encoding="utf-8")
    context = browser.new_context(viewport=DESKTOP, offline=True)
    try:
        page = context.new_page()
        problems: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and problems.append(msg.text))
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page.goto(out.as_uri())
        page.wait_for_selector("#step-label[data-seq]")  # the script ran
        page.keyboard.press("End")
        # and the style applied (not the browser's default serif)
        assert page.evaluate("() => getComputedStyle(document.body).fontFamily") != "serif"
        assert page.evaluate("() => window.__violations") == []
        assert problems == []
    finally:
        context.close()
