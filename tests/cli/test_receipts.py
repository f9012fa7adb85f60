"""`we audit --receipt` and the receipts of `we season`: a receipt holds for the log its player
saw end and fails, naming its player, key and event count, for any other; hostile receipt files
are refused in one line and change nothing; `we season add` seals the receipts kept beside a
game or in its library, and `we season verify` checks them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from receipt_maker import sign, signed_receipt
from weharness import ROOT, one_error_line, sealed, we

NIGHT = ROOT / "replays" / "game-night-3p.jsonl"  # Maria 21, Jonas 22, Priya 19; 66 events
NIGHT_ID = "game-night-2026-12-05"


def _write(path: Path, receipt: dict[str, Any]) -> Path:
    path.write_text(json.dumps(receipt, indent=2))
    return path


def _key_fp(receipt: dict[str, Any]) -> str:
    return hashlib.sha256(bytes.fromhex(receipt["key"])).hexdigest()[:12]


@pytest.fixture
def night(tmp_path: Path) -> Path:
    return Path(shutil.copy(NIGHT, tmp_path / "night.jsonl"))


def test_a_receipt_holds_for_its_log_whatever_follows_its_checkpoint(night: Path, tmp_path: Path) -> None:
    maria = _write(tmp_path / "maria.json", signed_receipt(night, "Maria", 21))
    held = we("audit", night, "--receipt", maria)
    assert held.exit_code == 0, held.stdout
    assert "receipt holds" in held.stdout and "line 66 is the one Maria's phone saw end" in held.stdout
    # A note after the end: the log grew, the receipt still holds at its own count.
    lines = [json.loads(line) for line in night.read_text().splitlines()]
    note = {"game": NIGHT_ID, "at": lines[-1]["at"], "type": "note", "data": {"text": "well played"}}
    grown = sealed(tmp_path / "grown.jsonl", [*lines, note])
    assert we("audit", grown, "--receipt", maria).exit_code == 0
    out = json.loads(we("audit", grown, "--receipt", maria, "--json").stdout.splitlines()[-1])
    assert out["holds"] is True and out["player"] == "Maria" and out["events"] == 66
    assert out["key"] == _key_fp(json.loads(maria.read_text()))


def test_a_shorter_or_rewritten_log_is_named_by_each_receipt(night: Path, tmp_path: Path) -> None:
    receipts = {
        name: _write(tmp_path / f"{name}.json", signed_receipt(night, name, score))
        for name, score in (("Maria", 21), ("Jonas", 22))
    }
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(night.read_bytes().splitlines(keepends=True)[:60]))
    short = we("audit", cut, "--receipt", receipts["Maria"], "--receipt", receipts["Jonas"])
    assert short.exit_code == 1
    assert short.stdout.count("the log proves only 60 events") == 2
    lines = [json.loads(line) for line in night.read_text().splitlines()]
    lines[1]["at"] = lines[1]["at"][:-3] + "10Z"
    rewritten = sealed(tmp_path / "rewritten.jsonl", lines)
    assert we("audit", rewritten).exit_code == 0
    caught = we("audit", rewritten, "--receipt", receipts["Maria"], "--receipt", receipts["Jonas"], "--json")
    verdicts = [json.loads(line) for line in caught.stdout.splitlines()[1:]]
    assert caught.exit_code == 1
    assert [(v["player"], v["holds"]) for v in verdicts] == [("Maria", False), ("Jonas", False)]
    maria = json.loads(receipts["Maria"].read_text())
    assert verdicts[0]["message"].startswith(f"Maria's receipt (key {_key_fp(maria)}) disagrees at event 66")


def test_unsigned_and_forged_receipts_prove_nothing(night: Path, tmp_path: Path) -> None:
    receipt = signed_receipt(night, "Maria", 21)
    unsigned = _write(tmp_path / "unsigned.json", {**receipt, "key": None, "signature": None})
    said = we("audit", night, "--receipt", unsigned)
    assert said.exit_code == 1 and "Maria's unsigned receipt proves nothing: it is unsigned" in said.stdout
    # The score changed after signing: the signature no longer holds.
    forged = _write(tmp_path / "forged.json", {**receipt, "score": 30})
    named = we("audit", night, "--receipt", forged)
    assert named.exit_code == 1 and "the signature does not hold for its key" in named.stdout
    # Signed by another key than the one it shows.
    other = sign(receipt, Ed25519PrivateKey.generate())
    swapped = _write(tmp_path / "swapped.json", {**receipt, "signature": other["signature"]})
    assert "the signature does not hold" in we("audit", night, "--receipt", swapped).stdout


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"{" + b" " * 5000 + b"}", "over 4096 bytes, so not a receipt"),
        (b"not json", "not a receipt (not JSON)"),
        (b"[1, 2]", "not a receipt (a JSON object is expected)"),
        (b'{"we_receipt": 2}', 'not a receipt of format 1 (no "we_receipt": 1)'),
        (b'{"we_receipt": 1, "game": "x"}', "not a receipt: missing date, events"),
        ("key", "receipt field key must be an Ed25519 public key"),
        ("half", "a receipt has a key and a signature, or neither"),
        ("fingerprint", "receipt field fingerprint must be the first 12 hex digits of its hash"),
        ("game", "receipt field game must be a game id"),
    ],
)
def test_a_file_that_is_no_receipt_is_refused_in_one_line(
    night: Path, tmp_path: Path, content: bytes | str, said: str
) -> None:
    path = tmp_path / "hostile.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        receipt = signed_receipt(night, "Maria", 21)
        changes = {
            "key": {"key": "XYZ"},
            "half": {"signature": None},
            "fingerprint": {"fingerprint": "000000000000"},
            "game": {"game": "../../etc/passwd"},
        }[content]
        _write(path, {**receipt, **changes})
    before = night.read_bytes()
    refused = we("audit", night, "--receipt", path)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert said in one_error_line(refused) and str(path) in refused.stderr
    assert night.read_bytes() == before


def test_a_receipt_that_is_not_a_file_is_refused(night: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = we("audit", night, "--receipt", fifo)  # never opened for a blocking read
    assert refused.exit_code == 2 and "a FIFO, not a receipt file" in one_error_line(refused)
    gone = we("audit", night, "--receipt", tmp_path / "gone.json")
    assert gone.exit_code == 2 and "no such file" in one_error_line(gone)


def test_season_seals_the_receipts_beside_a_game_and_verify_checks_them(night: Path, tmp_path: Path) -> None:
    folder = night.with_name("night.receipts")
    folder.mkdir()
    maria, priya = signed_receipt(night, "Maria", 21), signed_receipt(night, "Priya", 19)
    _write(folder / "seat-1.json", maria)
    _write(folder / "seat-3.json", priya)
    _write(folder / "seat-2.json", {**signed_receipt(night, "Jonas", 22), "key": None, "signature": None})
    (folder / "seat-4.json").write_text("junk")  # neither sealed nor fatal
    ledger = tmp_path / "season.jsonl"
    added = we("season", "add", ledger, night)
    assert added.exit_code == 0, added.stderr
    assert "2 signed receipts sealed with it" in added.stdout
    data = json.loads(ledger.read_text().splitlines()[-1])["data"]
    assert [r["player"] for r in data["receipts"]] == ["Maria", "Priya"]
    assert set(data["receipts"][0]) == {"player", "score", "events", "hash", "key", "signature"}
    assert we("season", "verify", ledger).exit_code == 0
    shown = json.loads(we("season", "show", "--json", ledger).stdout)
    assert shown["games"] == 1


def test_a_receipt_that_disagrees_refuses_the_seal(night: Path, tmp_path: Path) -> None:
    folder = night.with_name("night.receipts")
    folder.mkdir()
    _write(folder / "seat-1.json", signed_receipt(night, "Maria", 21))
    lines = [json.loads(line) for line in night.read_text().splitlines()]
    lines[1]["at"] = lines[1]["at"][:-3] + "10Z"
    sealed(night, lines)  # rewritten in place, a valid new chain, before it was sealed
    ledger = tmp_path / "season.jsonl"
    refused = we("season", "add", ledger, night)
    assert refused.exit_code == 1 and not ledger.exists()
    assert "a player's receipt disagrees with this log: Maria's receipt (key" in refused.stderr


def test_a_ledger_with_a_malformed_receipt_is_named_at_its_line(night: Path, tmp_path: Path) -> None:
    folder = night.with_name("night.receipts")
    folder.mkdir()
    _write(folder / "seat-1.json", signed_receipt(night, "Maria", 21))
    ledger = tmp_path / "season.jsonl"
    assert we("season", "add", ledger, night).exit_code == 0
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    entries[1]["data"]["receipts"][0]["player"] = "Mallory"
    edited = sealed(tmp_path / "edited.jsonl", entries)
    verified = we("season", "verify", edited)
    assert verified.exit_code == 1
    assert (
        "line 2: game_sealed game-night-2026-12-05: receipts: receipt 1's player must be a player"
        in verified.stdout
    )


def test_season_seals_the_receipts_a_library_keeps(night: Path, tmp_path: Path) -> None:
    from eventstore.libraries import connect

    library = tmp_path / "club.db"
    assert we("import", night, "--db", library).exit_code == 0
    receipt = signed_receipt(night, "Jonas", 22)
    with connect(library) as lib:
        assert lib.receipts_of(NIGHT_ID) == []  # no receipts table yet: none, no error
        lib.keep_receipt(NIGHT_ID, "Jonas", json.dumps(receipt))
    ledger = tmp_path / "season.jsonl"
    added = we("season", "add", ledger, NIGHT_ID, "--db", library)
    assert added.exit_code == 0, added.stderr
    assert "1 signed receipt sealed with it" in added.stdout
    assert we("season", "verify", ledger, "--db", library).exit_code == 0


def test_a_postgresql_library_keeps_receipts(pg_url: str, night: Path) -> None:
    from eventstore.libraries import connect

    receipt = json.dumps(signed_receipt(night, "Jonas", 22))
    with connect(pg_url) as lib:
        assert lib.receipts_of(NIGHT_ID) == []
        lib.keep_receipt(NIGHT_ID, "Jonas", receipt)
        lib.keep_receipt(NIGHT_ID, "Jonas", receipt)  # again: replaced, not doubled
        assert lib.receipts_of(NIGHT_ID) == [receipt]
