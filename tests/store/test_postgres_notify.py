"""PostgreSQL's announcements of new events, for several servers on one database: every append
is announced once committed, and a follower that loses the database says so and comes back."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from freezegun import freeze_time

from eventstore.errors import ConcurrencyError, ConnectionLostError
from eventstore.postgres import Library, LibraryPool, Notifications

from .helpers import FIRST, FROZEN_AT, events

ROOT = Path(__file__).resolve().parents[2]


class Heard:
    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.lost: list[str] = []
        self.back = 0
        self.changed = threading.Condition()

    def on_event(self, game: str, seq: int) -> None:
        with self.changed:
            self.events.append((game, seq))
            self.changed.notify_all()

    def on_lost(self, message: str) -> None:
        with self.changed:
            self.lost.append(message)
            self.changed.notify_all()

    def on_back(self) -> None:
        with self.changed:
            self.back += 1
            self.changed.notify_all()

    def wait(self, test: object, timeout: float = 5.0) -> bool:
        with self.changed:
            return self.changed.wait_for(test, timeout)  # type: ignore[arg-type]


def follow(url: str, heard: Heard, retry_s: float = 0.2) -> Notifications:
    notes = Notifications(url, heard.on_event, heard.on_lost, heard.on_back, retry_s=retry_s).start()
    assert notes.listening.wait(10)
    return notes


def test_every_committed_append_is_announced(pg_url: str) -> None:
    heard = Heard()
    notes = follow(pg_url, heard)
    try:
        with Library(pg_url) as library, freeze_time(FROZEN_AT):
            log = library.log("told")
            log.create(FIRST, "told")
            log.append(events(2), expected_seq=1)
            with library.batch():
                log.append(events(1, start=3), expected_seq=3)
                time.sleep(0.3)
                assert ("told", 4) not in heard.events  # not before it is committed
            log.append(events(1, start=4), expected_seq=4)
        assert heard.wait(lambda: len(heard.events) >= 4, 2.0), heard.events
        assert heard.events == [("told", 1), ("told", 3), ("told", 4), ("told", 5)]
    finally:
        notes.stop()


def test_a_follower_cut_off_says_so_and_comes_back(pg_url: str) -> None:
    heard = Heard()
    notes = follow(pg_url, heard)
    try:
        with Library(pg_url) as library:
            library.conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            assert heard.wait(lambda: heard.lost and heard.back, 10), (heard.lost, heard.back)
            assert len(heard.lost) == 1 and "lost the database" in heard.lost[0]
            assert notes.listening.wait(5)
            with freeze_time(FROZEN_AT):
                library.log("after").create(FIRST, "after")
        assert heard.wait(lambda: ("after", 1) in heard.events, 5.0)
    finally:
        notes.stop()


def test_the_database_restarted_under_a_follower(pg_server: str) -> None:
    """A cluster of its own, stopped and started again: the follower logs the loss once and
    listens again when it is back, and hears what is written after."""
    cluster = Path(tempfile.mkdtemp(prefix="we-pg-restart."))
    cluster.chmod(0o755)  # the cluster's owner is another user when the tests run as root
    tool = str(ROOT / ".ci" / "pg-cluster")

    def start() -> str:
        started = subprocess.run([tool, "start", str(cluster)], capture_output=True, text=True, check=False)
        assert started.returncode == 0, started.stderr[-500:]
        return started.stdout.strip().split("=", 1)[1].strip("'")

    heard = Heard()
    notes = pool = None
    try:
        url = start()
        pool = LibraryPool(url, size=2)
        with pool.library() as library, freeze_time(FROZEN_AT):
            library.log("before").create(FIRST, "before")
        notes = follow(url, heard)
        subprocess.run([tool, "stop", str(cluster)], capture_output=True, check=True)
        assert heard.wait(lambda: heard.lost, 10)
        with pytest.raises(ConnectionLostError), pool.library() as library:
            library.has_game("before")
        time.sleep(1.0)  # down a while: several attempts fail, one message
        start()
        assert heard.wait(lambda: heard.back, 10)
        assert len(heard.lost) == 1
        # The pool's connections from before the restart are replaced, not handed out dead.
        for _ in range(3):
            with pool.library() as library:
                assert library.has_game("before")
        with pool.library() as library, freeze_time(FROZEN_AT):
            library.log("again").create(FIRST, "again")
        assert heard.wait(lambda: ("again", 1) in heard.events, 5.0)
    finally:
        if notes is not None:
            notes.stop()
        if pool is not None:
            pool.close()
        subprocess.run([tool, "stop", str(cluster)], capture_output=True, check=False)
        shutil.rmtree(cluster, ignore_errors=True)


def test_what_a_server_reads_from_the_library(pg_url: str) -> None:
    with Library(pg_url) as library, freeze_time(FROZEN_AT):
        log = library.log("served")
        assert list(log.rows_after(0)) == []
        started = log.create_many([FIRST, *events(2)], "served")
        assert [e.seq for e in started] == [1, 2, 3]
        log.append(events(2, start=3), expected_seq=3)
        assert [o["seq"] for o in log.rows_after(3)] == [4, 5]
        assert [o["hash"] for o in log.rows_after(0)] == [e.hash for e in log.read()]
        assert log.verify().ok
        key = library.host_key()
        assert len(key) >= 22
    with Library(pg_url) as again:
        assert again.host_key() == key  # made once, the same for every server on the database


def test_threads_write_through_a_pool(pg_url: str) -> None:
    """A server's threads, each with a pooled connection: every append lands once, in turn."""
    pool = LibraryPool(pg_url, size=3)
    try:
        with pool.library() as library, freeze_time(FROZEN_AT):
            library.log("pooled").create(FIRST, "pooled")

        def writer(name: str) -> None:
            for i in range(15):
                while True:
                    with pool.library() as library:
                        log = library.log("pooled")
                        try:
                            log.append([("note", {"text": f"{name} {i}"})], expected_seq=log.head()[0])
                            break
                        except ConcurrencyError:
                            continue

        threads = [threading.Thread(target=writer, args=(name,)) for name in "ABCD"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        with pool.library() as library:
            log = library.log("pooled")
            assert log.verify().ok and log.verify().events == 61
            texts = [e.data["text"] for e in list(log.read())[1:]]
        for name in "ABCD":
            assert [t for t in texts if t.startswith(name)] == [f"{name} {i}" for i in range(15)]
    finally:
        pool.close()
