"""`we serve --db URL`: the games kept in a PostgreSQL library; several servers on one database
see each other's moves within a second; a server that loses the database keeps its streams
open, says so, and catches up when it is back."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from served import ROOT, Server, move, new_game, start_server
from test_stream import Follower

from eventstore.postgres import Library


def notes_through(server: Server, gid: str, name: str, count: int) -> None:
    """`count` notes posted through `server`, each after reading the head there (and again
    after losing a race to the other writer)."""
    with server.host as host:
        for i in range(count):
            while True:
                seq = host.get(f"/api/v1/games/{gid}").json()["seq"]
                answer = move(host, gid, seq, type="note", text=f"{name} {i}")
                if answer.status_code == 201:
                    break
                assert answer.status_code == 409, answer.text


def test_two_servers_on_one_database(pg_url: str) -> None:
    first = start_server(None, "--db", pg_url)
    second = start_server(None, "--db", pg_url)
    try:
        # One host key for the database, made by whichever server came first.
        assert first.host_key == second.host_key
        game = new_game(first, title="Convention table 1")
        gid = game["id"]
        table_key = game["links"]["table"].split("?k=", 1)[1]
        followers = [
            Follower(server, gid, key) for server in (first, second) for key in (first.host_key, table_key)
        ]
        for follower in followers:
            follower.start()
        writers = [
            threading.Thread(target=notes_through, args=(server, gid, name, 12))
            for server, name in ((first, "first"), (second, "second"))
        ]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(120)
        head = 2 + 2 * 12
        for follower in followers:
            follower.wait_for(head)
            assert follower.ids() == list(range(1, head + 1)), follower.ids()  # every seq once
            assert follower.error is None
        # A move posted to one server reaches the other's streams within a second.
        with second.host as host:
            posted = time.monotonic()
            assert move(host, gid, head, type="note", text="quick").status_code == 201
        followers[0].wait_for(head + 1)
        assert followers[0].arrived[head + 1] - posted < 1.0
        with Library(pg_url) as library:
            assert library.log(gid).verify().events == head + 1
    finally:
        assert first.stop() == 0
        assert second.stop() == 0


def test_the_database_restarted_under_a_running_server() -> None:
    cluster = Path(tempfile.mkdtemp(prefix="we-serve-pg."))
    cluster.chmod(0o755)
    tool = str(ROOT / ".ci" / "pg-cluster")

    def start_cluster() -> str:
        started = subprocess.run([tool, "start", str(cluster)], capture_output=True, text=True, check=False)
        assert started.returncode == 0, started.stderr[-500:]
        return started.stdout.strip().split("=", 1)[1].strip("'")

    server: Server | None = None
    try:
        url = start_cluster()
        server = start_server(None, "--db", url)
        game = new_game(server, title="Restarted database")
        gid = game["id"]
        follower = Follower(server, gid, server.host_key)
        follower.start()
        follower.wait_for(2)
        subprocess.run([tool, "stop", str(cluster)], capture_output=True, check=True)
        time.sleep(1.5)
        assert not follower.ended.is_set()  # the stream stays open while the database is away
        with server.host as host:
            refused = move(host, gid, 2, type="note", text="while away")
            assert refused.status_code == 503, refused.text
        start_cluster()
        deadline = time.monotonic() + 15
        with server.host as host:
            while True:
                answer = move(host, gid, 2, type="note", text="back")
                if answer.status_code == 201 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        assert answer.status_code == 201, answer.text
        follower.wait_for(3)
        assert follower.ids() == [1, 2, 3]
        # Written meanwhile by someone else, straight into the library: caught up too.
        with Library(url) as library:
            library.log(gid).append([("note", {"text": "from elsewhere"})], expected_seq=3)
        follower.wait_for(4)
        assert follower.ids() == [1, 2, 3, 4]
    finally:
        if server is not None:
            server.stop()
        subprocess.run([tool, "stop", str(cluster)], capture_output=True, check=False)
        shutil.rmtree(cluster, ignore_errors=True)
    assert server.process.stderr is not None
    log = server.process.stderr.read()
    assert log.count("lost the database") == 1, log  # said once, not at every retry
    assert "the database is back" in log, log
    assert "error connecting" not in log and "Traceback" not in log, log  # no noise per retry


def test_serve_says_what_it_needs() -> None:
    from served import we

    neither = we("serve")
    assert neither.returncode == 2 and "GAMES_DIR, or --db URL" in neither.stderr
    not_a_url = we("serve", "--db", "games.db")
    # Refused without being opened (exit 1, as any refusal): tests/service/test_hostile.py
    assert not_a_url.returncode == 1 and "serves a PostgreSQL library" in not_a_url.stderr
    unreachable = we("serve", "--db", "postgresql://we:secret-word@127.0.0.1:1/x", "--port", "0")
    assert unreachable.returncode == 1 and "cannot open the game library" in unreachable.stderr
    assert "secret-word" not in unreachable.stderr and "Traceback" not in unreachable.stderr


def play_to_the_end(server: Server, gid: str) -> int:
    """The host plays the first legal move (never an undo) until there is none; the head."""
    with server.host as host:
        while True:
            current = host.get(f"/api/v1/games/{gid}").json()
            choices = [m for m in current["legal"] if m["type"] != "undo"]
            if not choices:
                return current["seq"]
            body = {"expect": current["seq"], "move": choices[0]}
            answer = host.post(f"/api/v1/games/{gid}/moves", json=body)
            assert answer.status_code == 201, answer.text


def listed_and_audited(url: str, gid: str) -> tuple[dict, dict]:
    """The game's row as `we games --db` lists it (the library's summary, also read through the
    library), and `we audit --db --json` of it, which holds that row against the events."""
    from served import we

    listing = we("games", "--db", url, check=True).stdout
    with Library(url) as library:
        row = library.summary_of(gid)
    assert row is not None
    (line,) = [line for line in listing.splitlines() if line.split()[:1] == [gid]]
    complete, winner = [cell.strip() for cell in line.split("│")][-2:]  # the last two columns
    assert (complete, winner) == ("yes" if row["complete"] else "no", row["winner"] or "-"), line
    audit = json.loads(we("audit", "--db", url, gid, "--json").stdout)
    return row, audit


def test_a_game_played_through_the_server_keeps_its_summary(pg_url: str) -> None:
    """The library's summary (complete, winner) of a game played on phones is kept on every
    move, as `we import` computes it: `we games` shows the end and the winner, an undo that
    opens the game again clears them, and `we audit` finds the row true all along."""
    server = start_server(None, "--db", pg_url)
    try:
        game = new_game(server, title="Served to the end", lists=None, deal_attics=True)
        gid = game["id"]
        row, audit = listed_and_audited(pg_url, gid)
        assert (row["complete"], row["winner"]) == (False, None)
        head = play_to_the_end(server, gid)
        row, audit = listed_and_audited(pg_url, gid)
        assert audit["ok"] and audit["complete"], audit["problems"]
        assert row["events"] == head
        assert row["complete"] is True
        assert row["winner"] == ", ".join(audit["winners"])
        with server.host as host:
            # The undo of the last move opens the game again: the row claims nothing any more.
            answer = move(host, gid, head, type="undo")
        assert answer.status_code == 201, answer.text
        head = answer.json()["seq"]
        row, audit = listed_and_audited(pg_url, gid)
        assert audit["ok"] and not audit["complete"], audit["problems"]
        assert (row["complete"], row["winner"], row["events"]) == (False, None, head)
        # Played to the end again: over again, with its winner.
        head = play_to_the_end(server, gid)
        row, audit = listed_and_audited(pg_url, gid)
        assert audit["ok"] and audit["complete"], audit["problems"]
        assert (row["complete"], row["winner"], row["events"]) == (True, ", ".join(audit["winners"]), head)
    finally:
        assert server.stop() == 0
