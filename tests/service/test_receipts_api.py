"""The receipt routes of a real `we serve`: a seat asks for its receipt once the game is over and
posts it back signed; anything else (another game's, another seat's, unsigned, forged, a
checkpoint the log does not have, too big, the wrong key) is refused with one sentence, and
nothing is kept."""

from __future__ import annotations

import json
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from receipt_maker import sign
from served import ROOT, Server, key_of, lobby_links, start_server

NIGHT = "game-night-2026-12-05"  # game-night-3p.jsonl, over at 66 events
TIE = "new-years-eve-2026"
PHONE = Ed25519PrivateKey.generate()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "replays" / "game-night-3p.jsonl", tmp_path / "night.jsonl")
    lines = (ROOT / "replays" / "tie-5p.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "tie.jsonl").write_bytes(b"".join(lines[:40]))  # not over
    return tmp_path


@pytest.fixture
def server(folder: Path) -> Iterator[Server]:
    running = start_server(folder)
    yield running
    assert running.stop(signal.SIGTERM) == 0


def _seat_key(server: Server, game: str, player: str) -> str:
    with server.host as c:
        page = c.get("/").text
    return key_of(lobby_links(page, game)[player])


def test_a_seat_gets_its_receipt_signs_it_and_the_server_keeps_it(server: Server, folder: Path) -> None:
    with server.client(_seat_key(server, NIGHT, "Priya")) as c:
        receipt = c.get(f"/api/v1/games/{NIGHT}/receipt").json()
        assert receipt["player"] == "Priya" and receipt["score"] == 19 and receipt["events"] == 66
        assert receipt["key"] is None and receipt["signature"] is None
        last = json.loads((folder / "night.jsonl").read_text().splitlines()[-1])
        assert receipt["hash"] == last["hash"] and receipt["fingerprint"] == last["hash"][7:19]
        signed = sign(receipt, PHONE)
        kept = c.post(f"/api/v1/games/{NIGHT}/receipt", json=signed)
        assert kept.status_code == 201, kept.text
        assert kept.json()["player"] == "Priya"
        assert json.loads((folder / "night.receipts" / "seat-3.json").read_text()) == signed
        # The phone holding it asks whether the log still has its checkpoint.
        seen = c.get(f"/api/v1/games/{NIGHT}/receipt", params={"seen": 66}).json()
        assert seen["seen_hash"] == last["hash"]
        assert c.get(f"/api/v1/games/{NIGHT}/receipt", params={"seen": 67}).json()["seen_hash"] is None
        # A checkpoint where the game was not over yet is refused; what was kept stays.
        before_end = json.loads((folder / "night.jsonl").read_text().splitlines()[64])["hash"]
        early = sign({**receipt, "events": 65, "hash": before_end, "fingerprint": before_end[7:19]}, PHONE)
        refused = c.post(f"/api/v1/games/{NIGHT}/receipt", json=early)
        assert refused.status_code == 422 and refused.json()["error"] == "the game was not over at event 65"
        assert json.loads((folder / "night.receipts" / "seat-3.json").read_text()) == signed
    assert len((folder / "night.jsonl").read_text().splitlines()) == 66  # no event was written


def test_receipts_refused_in_one_sentence_and_nothing_kept(server: Server, folder: Path) -> None:
    priya, maria = _seat_key(server, NIGHT, "Priya"), _seat_key(server, NIGHT, "Maria")
    with server.client(priya) as c:
        receipt = c.get(f"/api/v1/games/{NIGHT}/receipt").json()
    signed = sign(receipt, PHONE)
    cases = [
        (priya, {**receipt}, 422, "an unsigned receipt proves nothing to keep: it stays on the phone"),
        (priya, {**signed, "score": 25}, 422, "the receipt's signature does not hold for its key"),
        (maria, signed, 422, "this receipt is for 'Priya', not for this seat ('Maria')"),
        (priya, sign({**receipt, "game": TIE}, PHONE), 422,
         f"this receipt is for game '{TIE}', not '{NIGHT}'"),
        (priya, sign({**receipt, "events": 70}, PHONE), 422,
         "the log has 66 events, and this receipt saw 70"),
        (priya, sign({**receipt, "score": 30}, PHONE), 422,
         "'Priya' did not score 30 at event 66"),
        (priya, {**signed, "title": "x" * 5000}, 413, "a receipt is at most 4096 bytes"),
        (priya, {**signed, "extra": 1}, 422, None),
        (server.host_key, signed, 403, "a receipt is a player's: use that seat's key"),
    ]  # fmt: skip
    for key, body, status, said in cases:
        with server.client(key) as c:
            answer = c.post(f"/api/v1/games/{NIGHT}/receipt", json=body)
        assert answer.status_code == status, (body, answer.text)
        if said is not None:
            assert answer.json()["error"] == said
    assert not (folder / "night.receipts").exists()


def test_no_receipt_before_the_end_nor_for_a_table_key(server: Server) -> None:
    with server.client(_seat_key(server, TIE, "Ann")) as c:
        early = c.get(f"/api/v1/games/{TIE}/receipt")
    assert early.status_code == 409
    assert early.json()["error"] == "the game is not over yet: a receipt is made when it ends"
    with server.host as c:
        assert c.get(f"/api/v1/games/{NIGHT}/receipt").status_code == 403


def test_a_server_on_a_library_keeps_receipts_in_it_and_the_season_seals_them(
    pg_url: str, tmp_path: Path
) -> None:
    from served import we

    from eventstore.libraries import connect

    assert we("import", ROOT / "replays" / "game-night-3p.jsonl", "--db", pg_url).returncode == 0
    running = start_server(None, "--db", pg_url)
    try:
        with running.client(_seat_key(running, NIGHT, "Jonas")) as c:
            signed = sign(c.get(f"/api/v1/games/{NIGHT}/receipt").json(), PHONE)
            assert c.post(f"/api/v1/games/{NIGHT}/receipt", json=signed).status_code == 201
    finally:
        assert running.stop(signal.SIGTERM) == 0
    with connect(pg_url) as library:
        assert [json.loads(text) for text in library.receipts_of(NIGHT)] == [signed]
    ledger = tmp_path / "season.jsonl"
    added = we("season", "add", ledger, NIGHT, "--db", pg_url)
    assert added.returncode == 0, added.stderr
    assert "1 signed receipt sealed with it" in added.stdout
