"""Receipts on real phones: three seats of a real `we serve` play a game to its end in Chromium,
with `crypto.subtle` taken away as on a phone at a LAN address over plain HTTP; each phone keeps
a signed receipt (checked here with Python's `cryptography`), posts it, and keeps it over a
reload and a restart of the server. `we season add` seals them; a log rewritten with a valid new
chain is named by `we audit --receipt` and `we season verify`, a corrupted signature is named, a
receipt replayed from another game is refused, and a phone that comes late keeps an unsigned one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from chromium import launched_chromium
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from served import ROOT, Server, key_of, lobby_links, move, start_server, we

from eventstore.envelope import seal

REPLAYS = ROOT / "replays"
NIGHT = "game-night-2026-12-05"  # game-night-3p.jsonl: Maria, Jonas, Priya; 66 events
TIE = "new-years-eve-2026"
PLAYED_BEFORE = 63  # the phones play events 64, 65 and 66
WAIT_MS = 20_000
# A phone at a LAN address over HTTP: no WebCrypto at all (the loopback test server would have it).
NO_SUBTLE = "delete Object.getPrototypeOf(window.crypto).subtle;"


def _links(server: Server, game: str = NIGHT) -> dict[str, str]:
    """A game's seat links (and the table's), as the host's lobby gives them."""
    with server.host as c:
        page = c.get("/").text
    return lobby_links(page, game)


def _claim(receipt: dict[str, Any]) -> bytes:
    fields = ("events", "game", "hash", "player", "score")
    claim = {"we_receipt": 1, **{f: receipt[f] for f in fields}}
    return json.dumps(claim, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _signature_holds(receipt: dict[str, Any]) -> bool:
    key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(receipt["key"]))
    try:
        key.verify(bytes.fromhex(receipt["signature"]), _claim(receipt))
    except InvalidSignature:
        return False
    return True


def _rechained(lines: list[dict[str, Any]]) -> bytes:
    out, prev = [], None
    for obj in lines:
        envelope = seal(obj["game"], obj["seq"], obj["at"], obj["type"], obj["data"], prev)
        prev = envelope.hash
        out.append(envelope.to_line())
    return b"".join(out)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lines = (REPLAYS / "game-night-3p.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "night.jsonl").write_bytes(b"".join(lines[:PLAYED_BEFORE]))
    shutil.copy(REPLAYS / "tie-5p.jsonl", tmp_path / "tie.jsonl")
    return tmp_path


def test_three_phones_keep_signed_receipts_that_catch_a_rewritten_night(
    folder: Path, browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    server = start_server(folder)
    problems: list[str] = []
    try:
        links = _links(server)
        phones: dict[str, Any] = {}
        for name in ("Maria", "Jonas", "Priya"):
            context = browser.new_context(viewport={"width": 390, "height": 844})
            context.add_init_script(NO_SUBTLE)
            page = context.new_page()
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.goto(links[name])
            assert page.evaluate("() => window.crypto.subtle === undefined")
            # A game in progress: the phone makes its key and shows its fingerprint.
            page.wait_for_function("() => localStorage.getItem('we-receipt-key') !== null", timeout=WAIT_MS)
            assert "signs its receipts with its own key" in page.inner_text("#receipt-key")
            phones[name] = page

        # The last three moves, each on its player's phone.
        phones["Priya"].click('button.move[data-move*=\'"from":"Maria"\']', timeout=WAIT_MS)
        phones["Maria"].click('button.move[data-move*=\'"from":"Jonas"\']', timeout=WAIT_MS)
        phones["Jonas"].fill("input[name=card]", "R9", timeout=WAIT_MS)
        phones["Jonas"].click('button.move[data-move*=\'"type":"open"\']')

        receipts: dict[str, dict[str, Any]] = {}
        for name, page in phones.items():
            # Kept on the phone, then posted: the page marks the count of the receipt the server took.
            page.wait_for_selector("#my-games[data-posted='66']", timeout=WAIT_MS)
            assert page.query_selector(f"#receipts li[data-game='{NIGHT}'][data-signed=yes]") is not None
            stored = page.evaluate("() => JSON.parse(localStorage.getItem('we-receipts'))")
            receipt = stored[f"{NIGHT}/{name}"]
            assert receipt["events"] == 66 and receipt["player"] == name
            assert _signature_holds(receipt), name
            shown = hashlib.sha256(bytes.fromhex(receipt["key"])).hexdigest()[:12]
            assert shown in page.inner_text("#receipt-key")
            receipts[name] = receipt
        assert len({r["key"] for r in receipts.values()}) == 3  # a key per phone
        last = json.loads((folder / "night.jsonl").read_text().splitlines()[-1])
        assert all(r["hash"] == last["hash"] for r in receipts.values())
        # Posted and kept beside the game, one file a seat: not events of the game.
        kept = folder / "night.receipts"
        assert sorted(p.name for p in kept.iterdir()) == ["seat-1.json", "seat-2.json", "seat-3.json"]
        assert len((folder / "night.jsonl").read_text().splitlines()) == 66

        # Saved as a file, and shown as a QR code.
        maria = phones["Maria"]
        with maria.expect_download() as download:
            maria.click(f"#receipts li[data-game='{NIGHT}'] .receipt-save")
        saved = tmp_path_factory.mktemp("maria") / "maria.receipt.json"
        download.value.save_as(saved)
        assert json.loads(saved.read_text()) == receipts["Maria"]
        maria.click(f"#receipts li[data-game='{NIGHT}'] .receipt-show-qr")
        maria.wait_for_selector(f"#receipts li[data-game='{NIGHT}'] .receipt-qr svg", timeout=WAIT_MS)

        # A reload keeps it; so does a restart of the server (same address, so the same storage).
        maria.reload()
        maria.wait_for_selector("#my-games[data-posted='66']", timeout=WAIT_MS)
        assert maria.query_selector(f"#receipts li[data-game='{NIGHT}'][data-signed=yes]") is not None
        port = int(server.url.rsplit(":", 1)[1])
        assert server.stop(signal.SIGTERM) == 0
        server = start_server(folder, port=port)
        maria.goto(_links(server)["Maria"])
        maria.wait_for_selector("#my-games[data-posted='66']", timeout=WAIT_MS)
        assert maria.query_selector(f"#receipts li[data-game='{NIGHT}'][data-signed=yes]") is not None
        again = maria.evaluate("() => JSON.parse(localStorage.getItem('we-receipts'))")[f"{NIGHT}/Maria"]
        assert again == receipts["Maria"]
        assert sorted(p.name for p in kept.iterdir()) == ["seat-1.json", "seat-2.json", "seat-3.json"]

        # A phone that comes to the game only once it is over has no key: an unsigned receipt.
        late_context = browser.new_context(viewport={"width": 390, "height": 844})
        late_context.add_init_script(NO_SUBTLE)
        late = late_context.new_page()
        late.on("pageerror", lambda exc: problems.append(str(exc)))
        late.goto(_links(server)["Jonas"])
        late.wait_for_selector(f"#receipts li[data-game='{NIGHT}'][data-signed=no]", timeout=WAIT_MS)
        assert "has no key" in late.inner_text("#receipt-key")
        unsigned = late.evaluate("() => JSON.parse(localStorage.getItem('we-receipts'))")[f"{NIGHT}/Jonas"]
        assert unsigned["signature"] is None and unsigned["hash"] == receipts["Jonas"]["hash"]
        assert json.loads((kept / "seat-2.json").read_text())["signature"] == receipts["Jonas"]["signature"]

        # A receipt replayed from this game to another is refused by the server, nothing kept.
        tie_seat = key_of(_links(server, TIE)["Cat"])
        with server.client(tie_seat) as c:
            replayed = c.post(f"/api/v1/games/{TIE}/receipt", json={**receipts["Maria"], "player": "Cat"})
        assert replayed.status_code == 422
        assert replayed.json()["error"] == f"this receipt is for game '{NIGHT}', not '{TIE}'"
        assert not (folder / "tie.receipts").exists()

        # A note after the end: every page still open refreshes its receipt, signs and posts it.
        with server.host as c:
            assert move(c, NIGHT, 66, type="note", text="well played, all").status_code == 201
        for name, page in phones.items():
            if name != "Maria":  # hers was reloaded before the restart: it follows the new server
                page.goto(_links(server)[name])
            page.wait_for_selector("#my-games[data-posted='67']", timeout=WAIT_MS)
        receipts = {r["player"]: r for r in (json.loads(p.read_text()) for p in kept.glob("seat-*.json"))}
        assert {r["events"] for r in receipts.values()} == {67}
        assert all(_signature_holds(r) for r in receipts.values())
        # Priya's phone loses its key: it keeps its signed receipt, and makes no key for a game over.
        priya = phones["Priya"]
        priya.evaluate("() => localStorage.removeItem('we-receipt-key')")
        priya.reload()
        priya.wait_for_selector("#my-games[data-looks='1']", timeout=WAIT_MS)  # it asked the server
        assert priya.query_selector(f"#receipts li[data-game='{NIGHT}'][data-signed=yes]") is not None
        assert "has no key" in priya.inner_text("#receipt-key")
        still = priya.evaluate("() => JSON.parse(localStorage.getItem('we-receipts'))")[f"{NIGHT}/Priya"]
        assert still == receipts["Priya"]
        assert priya.evaluate("() => localStorage.getItem('we-receipt-key')") is None
        assert not problems, problems
    finally:
        server.stop(signal.SIGTERM)

    # `we season add` seals the three receipts with the game; verify checks every signature.
    ledger = folder / "season.jsonl"
    added = we("season", "add", ledger, folder / "night.jsonl")
    assert added.returncode == 0, added.stderr
    assert "3 signed receipts sealed with it" in added.stdout
    sealed = json.loads(ledger.read_text().splitlines()[-1])["data"]["receipts"]
    assert {r["player"]: r["signature"] for r in sealed} == {n: r["signature"] for n, r in receipts.items()}
    verified = we("season", "verify", ledger)
    assert verified.returncode == 0, verified.stdout
    audited = we("audit", folder / "night.jsonl", "--receipt", saved)
    assert audited.returncode == 0 and "receipt holds" in audited.stdout, audited.stdout

    # The host rewrites the whole night with a valid new chain (its start said a second earlier).
    original = (folder / "night.jsonl").read_bytes()
    events = [json.loads(line) for line in original.splitlines()]
    first = datetime.fromisoformat(events[0]["at"]) - timedelta(seconds=1)
    events[0]["at"] = first.strftime("%Y-%m-%dT%H:%M:%SZ")
    (folder / "night.jsonl").write_bytes(_rechained(events))
    assert we("audit", folder / "night.jsonl").returncode == 0  # a valid log, by itself
    caught = we("audit", folder / "night.jsonl", "--receipt", saved)
    assert caught.returncode == 1
    key_fp = hashlib.sha256(bytes.fromhex(receipts["Maria"]["key"])).hexdigest()[:12]
    assert f"receipt FAILED  {saved}: Maria's receipt (key {key_fp}) disagrees at event 66" in caught.stdout
    named = we("season", "verify", ledger)
    assert named.returncode == 1
    for name, receipt in receipts.items():
        fp = hashlib.sha256(bytes.fromhex(receipt["key"])).hexdigest()[:12]
        assert f"{name}'s receipt (key {fp}) disagrees at event 67" in named.stdout, named.stdout
    # Served again (same address: the phone's storage is the address's), the rewritten night does
    # not take Maria's phone in: it keeps its receipt, and says so.
    server = start_server(folder, port=port)
    try:
        maria.goto(_links(server)["Maria"])
        maria.wait_for_selector("#receipt-disagrees", timeout=WAIT_MS)
        assert "not the one this phone saw end (at event 67)" in maria.inner_text("#receipt-disagrees")
        held = maria.evaluate("() => JSON.parse(localStorage.getItem('we-receipts'))")[f"{NIGHT}/Maria"]
        assert held == receipts["Maria"]
    finally:
        assert server.stop(signal.SIGTERM) == 0
    assert not problems, problems
    (folder / "night.jsonl").write_bytes(original)

    # A corrupted signature is named: in a receipt file, and in a ledger re-chained around it.
    corrupt = saved.with_name("corrupt.receipt.json")
    bad = {**receipts["Maria"], "signature": ("0" if receipts["Maria"]["signature"][0] != "0" else "1")
           + receipts["Maria"]["signature"][1:]}  # fmt: skip
    corrupt.write_text(json.dumps(bad))
    named_file = we("audit", folder / "night.jsonl", "--receipt", corrupt)
    assert named_file.returncode == 1
    assert f"Maria's receipt (key {key_fp}): the signature does not hold for its key" in named_file.stdout
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    for r in entries[-1]["data"]["receipts"]:
        if r["player"] == "Priya":
            r["signature"] = bad["signature"]
    forged = folder / "forged.jsonl"
    forged.write_bytes(_rechained(entries))
    priya_fp = hashlib.sha256(bytes.fromhex(receipts["Priya"]["key"])).hexdigest()[:12]
    found = we("season", "verify", forged)
    assert found.returncode == 1
    assert f"Priya's receipt (key {priya_fp}): the signature does not hold for its key" in found.stdout

    # A receipt of this night held against another game is refused, in one line, before any audit.
    replayed_file = we("audit", folder / "tie.jsonl", "--receipt", saved)
    assert replayed_file.returncode == 2 and replayed_file.stdout == ""
    assert f"this receipt is for game '{NIGHT}', which is not among the games audited" in replayed_file.stderr
    assert len(replayed_file.stderr.strip().splitlines()) == 1
