"""The end of a served game: the host seals it into GAMES_DIR/season.jsonl (a button, the host's
key only), the lobby shows the season's fingerprint, each seat's page links the play to BG Stats
and the TV shows the link as a QR code. A real `we serve`, a real Chromium."""

from __future__ import annotations

import html
import json
import re
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from chromium import launched_chromium
from served import ROOT, Server, key_of, start_server, we

REPLAYS = ROOT / "replays"
TIE = "new-years-eve-2026"  # tie-5p.jsonl
NIGHT = "game-night-2026-12-05"  # game-night-3p.jsonl
WAIT_MS = 15_000
TIE_EVENTS = len((REPLAYS / "tie-5p.jsonl").read_text().splitlines())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("season-games")
    for name in ("tie-5p.jsonl", "game-night-3p.jsonl"):
        shutil.copy(REPLAYS / name, directory / name)
    return directory


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[Server]:
    running = start_server(folder)
    yield running
    assert running.stop(signal.SIGTERM) == 0


def _links(server: Server) -> dict[str, dict[str, str]]:
    """Each game's table and seat links, as the lobby gives them to the host."""
    with server.host as c:
        page = c.get("/").text
    links: dict[str, dict[str, str]] = {}
    for section in re.findall(r'<section class="game" data-game="([^"]+)">(.*?)</section>', page, re.S):
        game, body = section
        # A link's words, without the game's name said only to a screen reader, nor the <bdi>.
        found = {
            html.unescape(re.sub(r'<span class="vh">.*?</span>|<[^>]+>', "", words)): html.unescape(url)
            for url, words in re.findall(r'<a href="([^"]+)">(.*?)</a>', body)
        }
        links[game] = found
    return links


def test_sealing_through_the_api_and_the_lobby_fingerprint(server: Server, folder: Path) -> None:
    links = _links(server)
    seat = key_of(links[TIE]["Ann"])
    table = key_of(links[TIE]["Table (for the TV)"])
    # Anyone of the game reads the play; only the host seals.
    with server.client(table) as c:
        play = c.get(f"/api/v1/games/{TIE}/play").json()
    data = json.loads(parse_qs(urlsplit(play["bgstats"]).query)["data"][0])
    board = json.loads(we("score", folder / "tie-5p.jsonl", "--json", check=True).stdout)
    assert {p["name"]: p["score"] for p in data["players"]} == board["scores"]
    assert [p["name"] for p in data["players"] if p["winner"]] == board["winners"]
    assert play["qr_svg"].startswith("<svg")
    with server.client(seat) as c:
        refused = c.post(f"/api/v1/games/{TIE}/seal", json={})
    assert refused.status_code == 403 and not (folder / "season.jsonl").exists()
    with server.host as c:
        sealed = c.post(f"/api/v1/games/{TIE}/seal", json={})
        assert sealed.status_code == 200, sealed.text
        again = c.post(f"/api/v1/games/{TIE}/seal", json={})
        assert again.status_code == 409 and "already sealed" in again.json()["error"]
        # A sealed game's log is final: an undo is refused, with why and what to do instead.
        head = TIE_EVENTS
        undo = c.post(f"/api/v1/games/{TIE}/moves", json={"expect": head, "move": {"type": "undo"}})
        assert undo.status_code == 422, undo.text
        assert "is sealed into the season" in undo.json()["error"]
        assert "play or record the game again as a new game" in undo.json()["error"]
        assert len((folder / "tie-5p.jsonl").read_text().splitlines()) == TIE_EVENTS
        listed = [g["id"] for g in c.get("/api/v1/games").json()]
        lobby = c.get("/").text
    assert sorted(listed) == sorted([TIE, NIGHT])  # the ledger is no game
    fingerprint = sealed.json()["season"]["fingerprint"]
    assert f"season fingerprint <code>{fingerprint}</code>" in lobby
    assert ": 1 game sealed · season" in lobby  # not "1 games"
    verified = we("season", "verify", folder / "season.jsonl", "--json")
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["fingerprint"] == fingerprint
    # The lobby's season section shows the ladder, as `we season show --ratings` rates it.
    rated = json.loads(we("season", "show", "--ratings", "--json", folder / "season.jsonl").stdout)
    ladder = lobby[lobby.index('<table id="season-ratings">') :]
    cells = [row.split("<td>")[1].split("</td>")[0] for row in ladder.split("<tr>")[2:]]
    assert cells == [r["player"] for r in rated["ratings"]] and len(cells) == 5
    assert f"<td>{rated['ratings'][0]['ordinal']:.2f}</td>" in ladder


@pytest.fixture(scope="module")
def browser() -> Any:
    yield from launched_chromium()


def test_the_pages_at_the_end_of_a_game(server: Server, folder: Path, browser: Any) -> None:
    links = _links(server)[NIGHT]
    problems: list[str] = []
    pages = {}
    for who, viewport in (
        ("Table (for the TV)", {"width": 1920, "height": 1080}),
        ("Jonas", {"width": 390, "height": 844}),
    ):
        page = browser.new_page(viewport=viewport)
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.goto(links[who])
        pages[who] = page
    seat, tv = pages["Jonas"], pages["Table (for the TV)"]
    seat.wait_for_selector("#bgstats-link", timeout=WAIT_MS)
    assert seat.inner_text("#bgstats-link") == "Log this play in BG Stats"
    href = seat.get_attribute("#bgstats-link", "href")
    assert href and href.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    with server.client(key_of(links["Jonas"])) as c:
        assert c.get(f"/api/v1/games/{NIGHT}/play").json()["bgstats"] == href
    assert seat.query_selector("#seal") is None  # a seat cannot seal
    tv.wait_for_selector("#end-of-game .bgstats-qr svg", timeout=WAIT_MS)
    assert tv.query_selector("#bgstats-link") is None and tv.query_selector("#seal") is None

    host = browser.new_page(viewport={"width": 1280, "height": 900})
    host.on("pageerror", lambda exc: problems.append(str(exc)))
    host.goto(f"{server.url}/t/{NIGHT}?k={server.host_key}")
    undo = host.wait_for_selector("button.move[data-move*=undo]", timeout=WAIT_MS)
    # The confirm names the move taken back in full and what undoing does; dismissed, nothing is sent.
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    host.once("dialog", dismiss)
    undo.click()
    confirm = r"Undo event \d+, \w+ .+\?\n\nIt stays in the log, voided by a new event"
    assert asked and re.match(confirm, asked[0]), asked
    host.click("#seal", timeout=WAIT_MS)
    host.wait_for_function(
        "() => document.getElementById('seal-result').textContent.startsWith('Sealed.')", timeout=WAIT_MS
    )
    # Sealed: the undo is gone at once, and after a reload too; the seal button stays pressed.
    assert host.query_selector("button.move[data-move*=undo]") is None
    said = host.inner_text("#seal-result")
    assert "(1 game)" in said or (" games)" in said and "(1 games)" not in said)
    host.reload()
    host.wait_for_selector("#seal", timeout=WAIT_MS)
    assert host.query_selector("button.move[data-move*=undo]") is None
    assert host.is_disabled("#seal")
    assert "sealed into the season" in host.inner_text("#moves")
    ledger = (folder / "season.jsonl").read_text().splitlines()
    assert json.loads(ledger[-1])["data"]["game"] == NIGHT
    fingerprint = json.loads(ledger[-1])["hash"][7:19]
    assert fingerprint in said
    assert not problems, problems


def test_a_game_sealed_into_a_ledger_elsewhere_is_final_for_the_api(tmp_path: Path) -> None:
    """The ledger lives outside the served folder: the seal's mark beside the log is what the
    served table finds (issue 46: `we simulate -o ~/sims`, `we season add ~/club-2026.jsonl`)."""
    sims = tmp_path / "sims"
    sims.mkdir()
    shutil.copy(REPLAYS / "tie-5p.jsonl", sims / "tie-5p.jsonl")
    ledger = tmp_path / "club-2026.jsonl"
    assert we("season", "add", ledger, sims / "tie-5p.jsonl").returncode == 0
    before = (sims / "tie-5p.jsonl").read_bytes()
    running = start_server(sims)
    try:
        with running.host as c:
            undo = c.post(f"/api/v1/games/{TIE}/moves", json={"expect": TIE_EVENTS, "move": {"type": "undo"}})
            assert undo.status_code == 422, undo.text
            error = undo.json()["error"]
            assert "is sealed into the season ledger" in error and str(ledger) in error
            assert [g["id"] for g in c.get("/api/v1/games").json()] == [TIE]  # the mark is no game
    finally:
        assert running.stop(signal.SIGTERM) == 0
    assert (sims / "tie-5p.jsonl").read_bytes() == before
