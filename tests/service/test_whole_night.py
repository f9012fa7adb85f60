"""The whole night as one story: a served folder, two phones (the HTTP API with seat keys) and
a recorder (`we record` on the same log) play one game to its end; the host seals it; then the
club's commands read that folder: `we import` (skipping the season ledger), `we stats`,
`we season verify`, and the BG Stats link of `we score`. Each is checked against the others:
the same winner, the same fingerprint, the same seats.

Real processes throughout. The test waits on output (the recorder's narration, the server's
answers), never on a clock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from served import key_of, move, new_game, start_server, we, we_env

from wecore.cards import ALL_CARDS
from wecore.decider import decide
from wecore.errors import WeError
from wecore.events import parse_event
from wecore.moves import Open, Steal, Swap, legal_moves
from wecore.reducer import fold
from wecore.state import Phase
from wecore.turns import turn

PHONES = ("Ann", "Ben")
AT_THE_RECORDER = ("Cat", "Dan")


def _lines(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _state(log: Path):
    return fold(parse_event(e["type"], e["data"]) for e in _lines(log))


def _a_card_to_turn_over(state, mover: str) -> str:
    """The first card the rules let `mover` turn over now: what a person would read off it."""
    for card in ALL_CARDS:
        try:
            decide(state, Open(card=card, player=mover))
        except WeError:
            continue
        return card
    raise AssertionError(f"no card can be opened by {mover}")


def _recorded(recorder: subprocess.Popen[str], log: Path, line: str) -> None:
    """Type `line` at the recorder and read its output until the log has grown."""
    before = len(log.read_text().splitlines())
    assert recorder.stdin is not None and recorder.stdout is not None
    recorder.stdin.write(line + "\n")
    recorder.stdin.flush()
    said: list[str] = []
    while len(log.read_text().splitlines()) == before:
        out = recorder.stdout.readline()
        assert out, f"the recorder stopped after {line!r}: {''.join(said)}"
        said.append(out)
        assert "not recorded" not in out and "error" not in out, f"{line!r}: {''.join(said)}"


def test_the_whole_night(tmp_path: Path) -> None:
    folder = tmp_path / "night"
    folder.mkdir()
    server = start_server(folder)
    recorder = None
    try:
        game = new_game(
            server,
            title="Whole night",
            players=[*PHONES, *AT_THE_RECORDER],
            dealer="Dan",
            lists={"Ann": "RGY", "Ben": "BGO", "Cat": "RBO", "Dan": "OYG"},
        )
        gid = game["id"]
        log = folder / f"{gid}.jsonl"
        phones = {name: server.client(key_of(game["links"]["seats"][name])) for name in PHONES}
        env = we_env() | {"PYTHONUNBUFFERED": "1"}
        recorder = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "record", str(log), "--no-library"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        turns = 0
        while not (state := _state(log)).is_over:
            turns += 1
            assert turns < 400, "the game did not end"
            legal = legal_moves(state)
            if state.phase is Phase.FINAL_SWAP:
                mover, chosen = state.starter_name, Swap(None)
            else:
                now = turn(state)
                mover = now.to_move or now.starter
                steals = [m for m in legal if isinstance(m, Steal)]
                # A steal now and then, so that the locks and turns of a real night are played.
                if steals and turns % 3 == 0:
                    chosen = steals[0]
                else:
                    chosen = Open(card=_a_card_to_turn_over(state, mover))
            head = len(_lines(log))
            if mover in phones:
                match chosen:
                    case Open(card=card):
                        answer = move(phones[mover], gid, head, type="open", card=card)
                    case Steal(from_player=victim):
                        answer = move(phones[mover], gid, head, type="steal", from_=victim)
                    case _:
                        answer = move(phones[mover], gid, head, type="swap", with_=None)
                assert answer.status_code == 201, answer.text
            else:
                match chosen:
                    case Open(card=card):
                        words = f"open {card}"
                    case Steal(from_player=victim):
                        words = f"steal {victim}"
                    case _:
                        words = "keep"
                # Prefixed, as a recorder's seats are typed when phones play too.
                _recorded(recorder, log, f"{mover}: {words}")
        assert recorder.stdin is not None
        recorder.stdin.write("quit\n")
        recorder.stdin.close()
        assert recorder.wait(30) == 0
        for phone in phones.values():
            phone.close()

        with server.host as host:
            sealed = host.post(f"/api/v1/games/{gid}/seal", json={})
        assert sealed.status_code == 200, sealed.text
    finally:
        if recorder is not None and recorder.poll() is None:
            recorder.kill()
        assert server.stop(signal.SIGTERM) == 0

    # The club's evening after: the folder as the server left it, season.jsonl and all.
    assert (folder / "season.jsonl").exists()
    db = tmp_path / "club.db"
    imported = we("import", folder, "--db", db)
    assert imported.returncode == 0, imported.stderr
    assert "season.jsonl: this is a season ledger: use `we season verify`; skipped" in imported.stderr
    assert f"imported game '{gid}'" in imported.stdout

    score = json.loads(we("score", log, "--json", check=True).stdout)
    audit = json.loads(we("audit", log, "--json", check=True).stdout)
    season = json.loads(we("season", "verify", folder / "season.jsonl", "--json", check=True).stdout)
    link = we("score", log, "--bgstats-link", check=True).stdout.strip()
    play = json.loads(parse_qs(urlsplit(link).query)["data"][0])
    stats = we("stats", "--db", db, check=True).stdout
    fairness = json.loads(we("stats", "--fairness", "--json", "--db", db, check=True).stdout)

    winners = score["winners"]
    assert winners and audit["winners"] == winners
    assert [p["name"] for p in play["players"] if p["winner"]] == winners
    assert {p["name"]: p["score"] for p in play["players"]} == score["scores"] == audit["scores"]
    # The same fingerprint: the audit's proven one, the season's record of the game.
    sealed_game = json.loads(log.with_name("season.jsonl").read_text().splitlines()[1])["data"]
    assert sealed_game["hash"][7:19] == audit["fingerprint"]
    assert sealed_game["winners"] == winners and season["ok"] is True
    # The same seats: the players in seat order everywhere, and the stats count one game.
    assert sealed_game["players"] == list(score["scores"]) == [*PHONES, *AT_THE_RECORDER]
    assert fairness["games"] == 1 and sum(row["wins"] for row in fairness["by_seat"]) == 1
    # Seat 1 is left of the dealer (Dan): Ann. The winner's seat wins there, in both reports.
    seat_of = {name: seat for seat, name in enumerate([*PHONES, *AT_THE_RECORDER], start=1)}
    if len(winners) == 1:
        won = next(row for row in fairness["by_seat"] if row["wins"] == 1)
        assert won["seat"] == seat_of[winners[0]]
    for name in winners:
        row = next(line for line in stats.splitlines() if line.startswith(name))
        assert row.split("\u2502")[2].strip() != "0", stats
    assert os.path.getsize(log) == sum(len(x) + 1 for x in log.read_text().splitlines())
    assert "Traceback" not in imported.stderr + stats
