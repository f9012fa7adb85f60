"""The sample games in replays/: they audit as replays/README.md says, and regenerate exactly."""

from __future__ import annotations

import importlib.util
import json
import re
from datetime import datetime
from typing import Any

import orjson
import pytest
from weharness import ROOT, we

REPLAYS = ROOT / "replays"
README = (REPLAYS / "README.md").read_text(encoding="utf-8")
HONEST = ["game-night-3p.jsonl", "tie-5p.jsonl", "bots-7p.jsonl", "disputed-honest.jsonl"]


def events(name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (REPLAYS / name).read_bytes().splitlines()]


def audit(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    result = we("audit", "--json", REPLAYS / name, *extra)
    return result.exit_code, json.loads(result.stdout)


def readme_table() -> dict[str, tuple[int, str, str]]:
    """The README's table: file -> (events, fingerprint, verdict)."""
    rows = re.findall(
        r"^\| `([a-z0-9-]+\.jsonl)` \| (\d+) \| "
        r"(?:not proven \(last line claims )?`([0-9a-f]{12})`\)? \| (.+?) \|$",
        README,
        re.M,
    )
    return {name: (int(events), fingerprint, verdict) for name, events, fingerprint, verdict in rows}


def edited_line() -> int:
    match = re.search(r"the edit is on line\s+(\d+)", README)
    assert match, "replays/README.md must say which line was edited"
    return int(match.group(1))


@pytest.mark.parametrize("name", HONEST)
def test_honest_replays_are_ok_and_complete(name):
    code, report = audit(name)
    assert code == 0
    assert report["ok"] and report["complete"] and report["problems"] == []
    assert (report["events"], report["fingerprint"], "OK, complete") == readme_table()[name]


def test_the_edited_copy_fails_at_the_line_the_readme_records():
    code, report = audit("disputed-edited.jsonl")
    assert code == 1
    events, claimed, verdict = readme_table()["disputed-edited.jsonl"]
    # The last line claims the honest fingerprint; the broken chain proves none.
    assert (report["events"], report["fingerprint"], report["stored_fingerprint"]) == (events, None, claimed)
    assert claimed == readme_table()["disputed-honest.jsonl"][1]
    assert verdict == f"FAILED: line {edited_line()}, integrity"
    assert report["problems"][0]["seq"] == edited_line()
    assert report["problems"][0]["kind"] == "integrity"
    # the edit is one card on one line: nothing else is wrong, and the hash chain still links
    assert [p["seq"] for p in report["problems"]] == [edited_line()]
    honest = (REPLAYS / "disputed-honest.jsonl").read_bytes().splitlines()
    edited = (REPLAYS / "disputed-edited.jsonl").read_bytes().splitlines()
    differing = [n for n, (a, b) in enumerate(zip(honest, edited, strict=True), start=1) if a != b]
    assert differing == [edited_line()]


def test_the_dispute_as_the_readme_tells_it():
    code, report = audit("disputed-honest.jsonl", "--claim", "Ben=22")
    assert code == 1
    (claim,) = report["claims"]
    assert (claim["actual"], claim["holds"]) == (20, False)
    assert "Y10 as yellow (Y10 in place of Y8, and Y10 never came into play)" in claim["explanation"]
    assert audit("disputed-honest.jsonl", "--claim", "Ann=21")[0] == 0
    # the edited log, read as a game, would have Ben win: only the hash catches it
    edited = we("audit", REPLAYS / "disputed-edited.jsonl").stdout
    assert "Ben *      22" in edited


def test_the_game_night_looks_recorded_at_a_table():
    log = events("game-night-3p.jsonl")
    types = [e["type"] for e in log]
    assert "attics_dealt" not in types
    assert all(e["data"]["card"] is None for e in log if e["type"] == "gift_brought")
    assert types.count("note") >= 2 and types.count("event_voided") == 1
    start = log[0]["data"]
    assert start["title"] and start["options"] == {}  # printed rules: 9 parties for three
    assert max(e["data"].get("party", 0) for e in log) == 9
    times = [datetime.fromisoformat(e["at"].replace("Z", "+00:00")) for e in log]
    assert times == sorted(times)
    assert 3600 < (times[-1] - times[0]).total_seconds() < 6 * 3600
    void = next(e for e in log if e["type"] == "event_voided")
    assert log[void["data"]["voids"] - 1]["type"] == "gift_opened"


def test_the_tie_was_broken_by_a_speech():
    log = events("tie-5p.jsonl")
    assert log[-1]["type"] == "tie_broken"
    assert len(log[0]["data"]["players"]) == 5
    _, report = audit("tie-5p.jsonl")
    top = max(report["scores"].values())
    assert sum(score == top for score in report["scores"].values()) >= 2
    assert report["winners"] == [log[-1]["data"]["winner"]]


def test_the_bot_game_is_dealt_and_is_what_simulate_writes(tmp_path):
    log = events("bots-7p.jsonl")
    assert len(log[0]["data"]["players"]) == 7
    assert log[2]["type"] == "attics_dealt"
    assert all(e["data"]["card"] is not None for e in log if e["type"] == "gift_brought")
    result = we(
        "simulate",
        "--players",
        "7",
        "--seed",
        "replays",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--out",
        tmp_path,
    )
    assert result.exit_code == 0
    assert (tmp_path / "sim-replays-1.jsonl").read_bytes() == (REPLAYS / "bots-7p.jsonl").read_bytes()


def test_make_replays_regenerates_byte_identical_files(tmp_path):
    spec = importlib.util.spec_from_file_location("make_replays", REPLAYS / "make_replays.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["make_replays.py", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted([*HONEST, "disputed-edited.jsonl"])
    for name in written:
        assert (tmp_path / name).read_bytes() == (REPLAYS / name).read_bytes(), name
    _, edit = module.build()
    assert f"line {edited_line()} changed" in edit
