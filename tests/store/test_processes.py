"""Real OS processes, no mocks: racing appenders, and writers killed with SIGKILL mid-stream."""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from eventstore.errors import TornTailError
from eventstore.jsonl import JsonlLog, repair
from eventstore.postgres import Library as PgLibrary
from eventstore.sqlite import Library

from .helpers import FIRST, ROOT

OPEN_LOG = r"""
import os, random, sys, time
from eventstore.errors import ConcurrencyError, LogExistsError
kind, target = sys.argv[1], sys.argv[2]
if kind == "jsonl":
    from eventstore.jsonl import JsonlLog
    log = JsonlLog(target)
elif kind == "postgres":
    from eventstore.postgres import Library
    log = Library(target).log("race")
else:
    from eventstore.sqlite import Library
    log = Library(target).log("race")
def wait_for(go):
    print("ready", flush=True)  # imported and opened: the parent starts everyone together
    while not os.path.exists(go):
        time.sleep(0.001)
"""

# Appends `count` events, each as its own append, re-reading the head after losing a race.
APPENDER = (
    OPEN_LOG
    + r"""
name, count, go = sys.argv[3], int(sys.argv[4]), sys.argv[5]
wait_for(go)
retries = 0
for i in range(count):
    while True:
        seq = log.head()[0]
        try:
            log.append([("note", {"text": f"{name} {i}"})], expected_seq=seq)
            break
        except ConcurrencyError:
            retries += 1
    # A pause between appends, as at a real table: without it, SQLite's busy back-off lets
    # one writer finish everything before the other gets a turn.
    time.sleep(random.random() * 0.005)
print(retries, flush=True)
"""
)

# Appends forever, printing each seq once append has returned (acknowledged, fsynced).
STREAMER = (
    OPEN_LOG
    + r"""
seq = log.head()[0]
while True:
    (env,) = log.append([("note", {"text": "x" * 3000, "n": seq + 1})], expected_seq=seq)
    seq = env.seq
    print(seq, flush=True)
"""
)

CREATOR = (
    OPEN_LOG
    + r"""
go = sys.argv[3]
wait_for(go)
try:
    log.create(("game_started", {"by": os.getpid()}), "race")
    print("created", flush=True)
except LogExistsError:
    print("exists", flush=True)
"""
)


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def start_together(procs: list[subprocess.Popen[str]], go: Path) -> None:
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    go.touch()


def new_target(kind: str, tmp_path: Path, request: pytest.FixtureRequest | None = None) -> tuple[str, Any]:
    if kind == "jsonl":
        target = str(tmp_path / "race.jsonl")
        log: Any = JsonlLog(target)
    elif kind == "postgres":
        assert request is not None
        target = pg_target(request)
        log = PgLibrary(target).log("race")
    else:
        target = str(tmp_path / "games.db")
        log = Library(target).log("race")
    return target, log


def pg_target(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue("pg_url")  # the same database however often asked
    return url


@pytest.mark.parametrize("kind", ["jsonl", "library", "postgres"])
def test_two_processes_append_to_one_game(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    target, log = new_target(kind, tmp_path, request)
    log.create(FIRST, "race")
    go = tmp_path / "go"
    per_writer = 40
    writers = [spawn(APPENDER, kind, target, name, str(per_writer), str(go)) for name in "AB"]
    start_together(writers, go)
    retries = 0
    for w in writers:
        out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
        retries += int(out)

    result = log.verify()
    assert result.ok, result.problems
    assert result.events == 1 + 2 * per_writer
    texts = [e.data["text"] for e in list(log.read())[1:]]
    for name in "AB":
        mine = [t for t in texts if t.startswith(f"{name} ")]
        assert mine == [f"{name} {i}" for i in range(per_writer)]  # none lost, doubled, reordered
    assert sorted(texts) == sorted(f"{n} {i}" for n in "AB" for i in range(per_writer))
    # They did run at the same time: turns alternate, and some appends lost a race and retried.
    switches = sum(a[0] != b[0] for a, b in itertools.pairwise(texts))
    assert switches > 1 or retries > 0


@pytest.mark.parametrize("kind", ["jsonl", "library", "postgres"])
def test_two_processes_create_the_same_game(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    target, log = new_target(kind, tmp_path, request)
    if kind != "jsonl":
        log.library.close()  # the schema exists; let the children race on the game itself
    go = tmp_path / "go"
    creators = [spawn(CREATOR, kind, target, str(go)) for _ in range(2)]
    start_together(creators, go)
    outcomes = sorted(c.communicate(timeout=60)[0].strip() for c in creators)
    assert outcomes == ["created", "exists"]
    _, log = new_target(kind, tmp_path, request)
    assert log.verify().ok and log.verify().events == 1


def kill_mid_stream(kind: str, target: str, min_acks: int) -> list[int]:
    """Start a streaming writer, SIGKILL it at a random moment; return the acknowledged seqs."""
    writer = spawn(STREAMER, kind, target)
    assert writer.stdout is not None
    acked: list[int] = []
    while len(acked) < min_acks:
        line = writer.stdout.readline()
        assert line, writer.stderr.read() if writer.stderr else "writer died"
        acked.append(int(line))
    time.sleep(random.uniform(0, 0.02))
    writer.send_signal(signal.SIGKILL)
    rest, _ = writer.communicate(timeout=30)
    acked += [int(x) for x in rest.split()]  # acknowledged before it died
    assert writer.returncode == -signal.SIGKILL
    return acked


def check_acknowledged(log: Any, acked: list[int]) -> None:
    envelopes = list(log.read())
    assert [e.seq for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert max(acked) <= envelopes[-1].seq  # nothing acknowledged was lost
    for e in envelopes[1:]:
        assert e.data["n"] == e.seq


def test_jsonl_writer_killed_mid_stream(tmp_path: Path) -> None:
    target, log = new_target("jsonl", tmp_path)
    log.create(FIRST, "race")
    for _ in range(3):
        acked = kill_mid_stream("jsonl", target, min_acks=15)
        result = log.verify()
        if not result.ok:
            # Only a torn tail is acceptable, and repair takes back only that.
            assert [p.message.startswith("torn") for p in result.problems] == [True]
            fixed = repair(target)
            assert fixed.repaired and fixed.backup is not None and fixed.backup.exists()
        check_acknowledged(log, acked)
        assert log.verify().ok


def test_jsonl_torn_tail_after_a_kill_is_repaired(tmp_path: Path) -> None:
    target, log = new_target("jsonl", tmp_path)
    log.create(FIRST, "race")
    acked = kill_mid_stream("jsonl", target, min_acks=10)
    if not log.verify().ok:  # the kill itself tore a line: repair that first
        repair(target)
    head = log.head()[0]
    # Force the torn tail a crash mid-write leaves: part of the next line, no newline.
    with open(target, "ab") as f:
        f.write(f'{{"v":1,"game":"race","seq":{head + 1},"at":"2026-'.encode())
    before = Path(target).read_bytes()
    result = log.verify()
    assert [(p.line, p.message[:4]) for p in result.problems] == [(head + 1, "torn")]
    with pytest.raises(TornTailError):
        log.append([("note", {"n": head + 1})], expected_seq=head)

    fixed = repair(target)
    assert fixed.repaired and fixed.head_seq == head
    assert fixed.backup is not None and fixed.backup.read_bytes() == before
    check_acknowledged(log, acked)
    assert log.verify().ok
    log.append([("note", {"n": head + 1})], expected_seq=head)
    assert log.verify().ok


@pytest.mark.parametrize("kind", ["library", "postgres"])
def test_library_writer_killed_mid_stream(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    target, log = new_target(kind, tmp_path, request)
    log.create(FIRST, "race")
    opener = PgLibrary if kind == "postgres" else Library
    for _ in range(3):
        acked = kill_mid_stream(kind, target, min_acks=15)
        lib = opener(target)  # a fresh connection, as after a crash
        fresh = lib.log("race")
        assert fresh.verify().ok
        check_acknowledged(fresh, acked)
        game = lib.games()[0]
        assert (game["events"], game["head_hash"]) == fresh.head()[:2]
        lib.close()
