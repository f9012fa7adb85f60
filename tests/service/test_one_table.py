"""One table for every writer: a `we record` waiting at its prompt while another recorder, or
a phone through `we serve`, moves on the same log. The waiting recorder judges its next line
against the log as it stands: a line that is now legal is taken (saying first what happened
meanwhile), one that is no longer legal gets the sentence for the game as it stands, and its
`status` and its last "Saved: N events ... Fingerprint" are the file's, as `we audit` proves.

Real processes throughout; the waiting recorder is fed its lines only once the other writer is
done, so nothing here depends on timing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from served import ROOT, Server, key_of, move, new_game, we, we_env

from service.play import GAME_OVER

PLAYERS = ["--players", "Ann,Ben,Cat,Dan", "--dealer", "Dan", "--lists", "Ann=RGY,Ben=BGO,Cat=RBO,Dan=RYB"]


class WaitingRecorder:
    """`we record LOG --no-library` started now, its lines given later."""

    def __init__(self, log: Path, until: str = "Ann opens first") -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "record", str(log), "--no-library"],
            cwd=ROOT,
            env=we_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        # Its greeting ends with what can be done now: from then on it waits for a line, holding
        # the game as it read it then.
        self.greeting = []
        while not (line := self.process.stdout.readline()).startswith(until):
            assert line, "the recorder ended before its greeting"
            self.greeting.append(line)

    def type(self, lines: str) -> tuple[int, str, str]:
        out, err = self.process.communicate(lines, timeout=60)
        return self.process.returncode, out, err


def set_up(tmp_path: Path) -> Path:
    log = tmp_path / "t.jsonl"
    result = we("record", log, "--no-library", *PLAYERS, input="")
    assert result.returncode == 0, result.stderr
    return log


def audited(log: Path) -> dict:
    result = we("audit", log, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def saved(out: str) -> tuple[int, str]:
    found = re.findall(r"Saved: (\d+) events in .*Fingerprint so far: ([0-9a-f]{12})", out)
    assert found, out
    return int(found[-1][0]), found[-1][1]


def assert_took_the_steal(code: int, out: str, err: str, log: Path) -> None:
    assert code == 0, err
    assert "rejected" not in err, err
    # One line first says what the table did meanwhile, then the steal is taken.
    meanwhile = [line for line in out.splitlines() if line.startswith("Meanwhile")]
    assert meanwhile == [
        "Meanwhile (events 3-7): Ann, Ben, Cat and Dan bring gifts face down, unseen."
        " Ann opens R7; Ben is next."
    ], out
    assert out.index("Meanwhile") < out.index("Ben steals R7 from Ann")
    # `status` shows the table as the file has it.
    assert re.search(r"Ben +│ blue green orange │ R7 locked", out), out
    assert "8 events recorded" in out
    report = audited(log)
    assert report["events"] == 8
    assert saved(out) == (report["events"], report["fingerprint"])
    assert f"8 events recorded; fingerprint {report['fingerprint']}." in out


def test_a_waiting_recorder_takes_a_line_made_legal_by_another_recorder(tmp_path: Path) -> None:
    log = set_up(tmp_path)
    waiting = WaitingRecorder(log)
    other = we("record", log, "--no-library", input="open R7\n")
    assert other.returncode == 0, other.stderr
    assert_took_the_steal(*waiting.type("steal Ann\nstatus\n"), log)


def test_a_waiting_recorder_takes_a_line_made_legal_by_a_phone(tmp_path: Path) -> None:
    from served import start_server

    server: Server = start_server(tmp_path)
    try:
        game = new_game(
            server,
            title="Phone and recorder",
            players=["Ann", "Ben", "Cat", "Dan"],
            dealer="Dan",
            lists={"Ann": "RGY", "Ben": "BGO", "Cat": "RBO", "Dan": "RYB"},
        )
        log = tmp_path / f"{game['id']}.jsonl"
        waiting = WaitingRecorder(log)
        with server.client(key_of(game["links"]["seats"]["Ann"])) as ann:
            response = move(ann, game["id"], 2, type="open", card="R7")
        assert response.status_code == 201, response.text
        assert_took_the_steal(*waiting.type("steal Ann\nstatus\n"), log)
        # The phone sees the recorder's steal as the recorder made it.
        with server.host as host:
            assert host.get(f"/api/v1/games/{game['id']}").json()["seq"] == 8
    finally:
        server.stop()


def test_a_line_no_longer_legal_gets_the_sentence_for_the_game_as_it_stands(tmp_path: Path) -> None:
    from eventstore.jsonl import JsonlLog
    from service.play import Refused, decide_move
    from wecore.events import parse_event
    from wecore.moves import Open
    from wecore.reducer import fold

    log = set_up(tmp_path)
    waiting = WaitingRecorder(log)
    # Meanwhile another recorder has Ann open R7: Ben is to move now, and R7 is open.
    assert we("record", log, "--no-library", input="open R7\n").returncode == 0
    code, out, err = waiting.type("open R7\nAnn open B3\nstatus\n")
    assert code == 1
    state = fold(parse_event(e.type, e.data) for e in JsonlLog(log).read())
    refusals = [line for line in err.splitlines() if line.startswith("rejected")]
    for line, command in zip(refusals, [Open(card="R7"), Open(card="B3", player="Ann")], strict=True):
        try:
            decide_move(state, command)
        except Refused as exc:
            sentence = str(exc)
        # The sentence the table gives every writer for the game as it stands, then the hint.
        assert line.split("): ", 1)[1].startswith(sentence), (line, sentence)
    assert "Meanwhile (events 3-7)" in out
    assert saved(out) == (7, audited(log)["fingerprint"])


def test_a_move_after_someone_else_ended_the_game_gets_the_plain_game_over_refusal(tmp_path: Path) -> None:
    log = tmp_path / "short.jsonl"
    setup = ["--players", "Ann,Ben,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Ben=BGO,Cat=RBO"]
    assert we("record", log, "--no-library", *setup, "--attic-size", "1", input="").returncode == 0
    waiting = WaitingRecorder(log)
    # Meanwhile another recorder plays the one party to its end: the game is over.
    other = we("record", log, "--no-library", input="open R7\nopen G5\nopen B3\n")
    assert other.returncode == 0, other.stderr
    code, out, err = waiting.type("open O8\nstatus\n")
    assert code == 1
    refusals = [line for line in err.splitlines() if line.startswith("rejected")]
    assert refusals == [
        f"rejected (input line 1: open O8): {GAME_OVER};"
        " `tie`, `undo`, `note`, `status` and `quit` still work"
    ]
    assert "Type the move again" not in out + err
    report = audited(log)
    assert report["complete"]
    assert f"Saved: {report['events']} events in {log}. Fingerprint: {report['fingerprint']}" in out


def test_a_whole_party_played_meanwhile_is_told_in_one_short_line(tmp_path: Path) -> None:
    log = set_up(tmp_path)
    waiting = WaitingRecorder(log)
    other = we("record", log, "--no-library", input="open R7\nopen B2\nopen O3\nopen Y4\n")
    assert other.returncode == 0, other.stderr
    code, out, err = waiting.type("status\n")
    assert code == 0, err
    meanwhile = [line for line in out.splitlines() if line.startswith("Meanwhile")]
    assert len(meanwhile) == 1, out
    assert meanwhile[0].startswith("Meanwhile (events 3-10): 8 events, the latest: Dan opens Y4"), out
    assert len(meanwhile[0]) < 160, meanwhile[0]
    assert "Party 1 ends" in out
    assert saved(out) == (10, audited(log)["fingerprint"])


def test_an_undo_after_someone_else_moved_takes_back_nothing_unseen(tmp_path: Path) -> None:
    log = set_up(tmp_path)
    assert we("record", log, "--no-library", input="open R7\n").returncode == 0
    waiting = WaitingRecorder(log, until="Ben can")  # it saw Ann open R7: `undo` means that
    assert we("record", log, "--no-library", input="steal Ann\n").returncode == 0
    code, out, err = waiting.type("undo\nstatus\n")
    assert code == 1
    assert "Meanwhile (event 8): Ben steals R7 from Ann" in out
    assert "rejected (input line 1: undo): nothing undone: the game moved on meanwhile" in err, err
    assert audited(log)["events"] == 8  # Ben's steal stands
    assert saved(out) == (8, audited(log)["fingerprint"])
