"""axe-core (through axe-playwright-python, a tool no one here wrote) over every page of a real
`we serve` and a saved replay page, at 390 px and at 1920 px, in the light and the dark colour
scheme: its results are printed, and any violation of a WCAG A or AA rule fails the test."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import Any

import pytest
from chromium import launched_chromium
from served import ROOT, Server, new_game, start_server, we

axe_sync = pytest.importorskip(
    "axe_playwright_python.sync_playwright", reason="axe-playwright-python is missing"
)

WIDTHS = {"phone": {"width": 390, "height": 844}, "tv": {"width": 1920, "height": 1080}}
# axe-core's rules for WCAG 2.0, 2.1 and 2.2 at levels A and AA (its best practices are printed,
# not failed on).
WCAG_A_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa")


def wcag_violations(violations: list[dict[str, Any]]) -> list[str]:
    return [v["id"] for v in violations if set(v.get("tags", ())) & set(WCAG_A_AA)]


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("axe-games"))
    yield running
    assert running.stop(signal.SIGTERM) == 0


@pytest.fixture(scope="module")
def pages(server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    game = new_game(server, title="Axe")
    saved = tmp_path_factory.mktemp("axe-replay") / "night.html"
    we("replay", ROOT / "replays" / "game-night-3p.jsonl", "--html", saved, check=True)
    return {
        "lobby": f"{server.url}/?k={server.host_key}",
        "tv": game["links"]["table"],
        "seat": game["links"]["seats"]["Ann"],
        "host": f"{server.url}/t/{game['id']}?k={server.host_key}",
        "replay": saved.as_uri(),
        "bare address": f"{server.url}/",  # the page that says where the host's link is
        "refused seat": f"{server.url}/t/{game['id']}?k=not-a-key",  # a link cut short
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("name", ["lobby", "tv", "seat", "host", "replay", "bare address", "refused seat"])
def test_axe_finds_no_wcag_a_or_aa_violation(
    browser: Any, pages: dict[str, str], name: str, width: str, scheme: str
) -> None:
    page = browser.new_page(viewport=WIDTHS[width], color_scheme=scheme)
    page.goto(pages[name])
    page.wait_for_load_state("networkidle")
    if name in ("tv", "seat", "host"):
        page.wait_for_function("() => document.getElementById('live-status').dataset.state === 'live'")
    results = axe_sync.Axe().run(page)
    violations = results.response["violations"]
    print(f"axe-core, {name} at {WIDTHS[width]['width']} px, {scheme}: {len(violations)} violation(s)")
    for v in violations:
        print(f"  {v['impact']}: {v['id']} ({len(v['nodes'])} node(s)): {v['help']}")
        for node in v["nodes"][:3]:
            print(f"    {node['target']}: {node.get('failureSummary', '')[:200]!r}")
    page.close()
    failed = wcag_violations(violations)
    assert not failed, f"{name} at {width}, {scheme}: {failed}"
    # Every page's content is in landmarks (a screen reader jumps to its main part).
    assert "landmark-one-main" not in [v["id"] for v in violations]


def test_a_seat_moves_with_the_keyboard_alone(server: Server, browser: Any) -> None:
    """Tab to the card's box, type the card, Tab to its button, Enter: the move is made."""
    game = new_game(server, title="Keys")
    page = browser.new_page(viewport=WIDTHS["phone"])
    page.goto(game["links"]["seats"]["Ann"])
    page.wait_for_selector("#moves input[name=card]", timeout=15_000)
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.name === 'card'"):
            break
    else:
        raise AssertionError("Tab never reached the box for the card turned over")
    page.keyboard.type("R7")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Open the gift turned over"
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#timeline li')]"
        ".some((li) => /Ann opens R7/.test(li.textContent))",
        timeout=15_000,
    )
    page.close()


@pytest.mark.parametrize("name", ["lobby", "tv", "seat", "host", "replay"])
def test_text_at_200_percent_zoom_on_a_phone_needs_no_sideways_scroll(
    browser: Any, pages: dict[str, str], name: str
) -> None:
    """200% zoom on a 390 px phone lays the page out in 195 CSS pixels."""
    page = browser.new_page(viewport={"width": 195, "height": 422}, device_scale_factor=4)
    page.goto(pages[name])
    page.wait_for_load_state("load")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    beyond = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 196)"
        ".slice(0, 6).map((e) => e.tagName + '#' + e.id + '.' + e.getAttribute('class'))"
    )
    page.close()
    assert wide <= 195, f"{name}: {wide} px wide at 200% zoom: {beyond}"
