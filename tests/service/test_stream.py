"""The stream of a game: every seq exactly once and in order, whoever wrote it; resuming after
Last-Event-ID; surviving a restart of the server while another writer appends; stopping on
SIGTERM and Ctrl-C with streams open."""

from __future__ import annotations

import json
import signal
import threading
import time
from typing import Any

import httpx
import pytest
from served import Server, move, new_game, sse_messages, start_server, we


class Follower(threading.Thread):
    """A stream read in the background: every message, with when it arrived."""

    def __init__(
        self, server: Server, game: str, key: str, last_id: int | None = None, after: int = 0
    ) -> None:
        super().__init__(daemon=True)
        self.url = f"{server.url}/api/v1/games/{game}/stream"
        self.key, self.last_id, self.after = key, last_id, after
        self.messages: list[dict[str, Any]] = []
        self.arrived: dict[int, float] = {}
        self.ended = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(5, read=60)) as client,
                client.stream("GET", self.url, headers=headers, params={"after": self.after}) as response,
            ):
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                for message in sse_messages(response.iter_lines()):
                    self.arrived[int(message["id"])] = time.monotonic()
                    self.messages.append(message)
        except (httpx.TransportError, httpx.StreamError):
            pass  # the server went away
        except BaseException as exc:
            self.error = exc
        finally:
            self.ended.set()

    def ids(self) -> list[int]:
        return [int(m["id"]) for m in self.messages]

    def wait_for(self, seq: int, within: float = 10) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.messages and int(self.messages[-1]["id"]) >= seq:
                return
            time.sleep(0.02)
        raise AssertionError(f"the stream reached {self.ids()[-1:]} but not {seq}")


def head_of(server: Server, game: str) -> int:
    with server.host as host:
        return host.get(f"/api/v1/games/{game}").json()["seq"]


def test_every_seq_once_in_order_whoever_wrote_it(server: Server) -> None:
    game = new_game(server, title="Followed")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    followers = [Follower(server, gid, server.host_key) for _ in range(3)]
    for f in followers:
        f.start()
    writer_done = threading.Event()

    def api_writer() -> None:
        with server.host as host:
            for i in range(15):
                seq = host.get(f"/api/v1/games/{gid}").json()["seq"]
                move(host, gid, seq, type="note", text=f"api {i}")
        writer_done.set()

    thread = threading.Thread(target=api_writer)
    thread.start()
    for _ in range(3):
        assert we("record", path, input="note recorder one\nnote recorder two\n").returncode == 0
    thread.join()
    head = head_of(server, gid)
    assert head > 2 + 15
    for f in followers:
        f.wait_for(head)
        assert f.ids() == list(range(1, head + 1))
        assert f.error is None
        data = f.messages[-1]["data"]
        assert f.messages[-1]["event"] == "envelope"
        assert data["envelope"]["seq"] == head and data["view"]["seq"] == head
    texts = [m["data"]["envelope"]["data"].get("text") for m in followers[0].messages]
    assert "note recorder one" not in texts  # the recorder's notes are stored without the verb
    assert "recorder one" in texts and "api 14" in texts


def test_a_line_from_another_writer_arrives_within_a_second(server: Server) -> None:
    game = new_game(server, title="Prompt")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    follower = Follower(server, gid, server.host_key)
    follower.start()
    follower.wait_for(2)
    size = path.stat().st_size
    recorder = threading.Thread(target=we, args=("record", path), kwargs={"input": "note quick\n"})
    recorder.start()
    while path.stat().st_size == size:  # the moment the recorder's line reaches the file
        time.sleep(0.002)
    reached = time.monotonic()
    follower.wait_for(3)
    recorder.join()
    assert follower.arrived[3] - reached < 1.0


def test_resume_after_last_event_id(server: Server) -> None:
    game = new_game(server, title="Resumed")
    gid = game["id"]
    with server.host as host:
        for i in range(5):
            assert move(host, gid, 2 + i, type="note", text=f"n{i}").status_code == 201
    resumed = Follower(server, gid, server.host_key, last_id=4, after=1)  # the header wins
    resumed.start()
    resumed.wait_for(7)
    assert resumed.ids() == [5, 6, 7]
    by_query = Follower(server, gid, server.host_key, after=6)
    by_query.start()
    by_query.wait_for(7)
    assert by_query.ids() == [7]
    with httpx.Client(base_url=server.url) as c:
        r = c.get(
            f"/api/v1/games/{gid}/stream",
            headers={"Last-Event-ID": "x", "Authorization": f"Bearer {server.host_key}"},
        )
        assert r.status_code == 422


def test_a_new_log_in_the_folder_is_seen_within_five_seconds(server: Server) -> None:
    path = server.directory / "walk-in.jsonl"
    result = we(
        "record",
        path,
        "--players",
        "Ann,Ben,Cat",
        "--dealer",
        "Ann",
        "--lists",
        "Ann=RGY,Ben=BGO,Cat=RBO",
        input="",
    )
    assert result.returncode == 0, result.stderr
    gid = json.loads(path.read_text().splitlines()[0])["game"]
    started = time.monotonic()
    with server.host as host:
        while gid not in {g["id"] for g in host.get("/api/v1/games").json()}:
            assert time.monotonic() - started < 5, "the new log was not seen within 5 s"
            time.sleep(0.1)


def test_stream_survives_a_restart_while_another_writer_appends(tmp_path: Any) -> None:
    first = start_server(tmp_path)
    try:
        game = new_game(first, title="Restarted")
        gid = game["id"]
        follower = Follower(first, gid, first.host_key)
        follower.start()
        with first.host as host:
            assert move(host, gid, 2, type="note", text="before").status_code == 201
        follower.wait_for(3)
    finally:
        assert first.stop() == 0
    assert follower.ended.wait(10)
    # the server is down; the recorder carries on
    assert (
        we("record", tmp_path / f"{gid}.jsonl", input="note meanwhile one\nnote meanwhile two\n").returncode
        == 0
    )
    second = start_server(tmp_path)
    try:
        assert second.host_key == first.host_key  # same folder, same key file: the links still work
        last = follower.ids()[-1]
        again = Follower(second, gid, first.host_key, last_id=last)
        again.start()
        with second.host as host:
            assert move(host, gid, 5, type="note", text="after").status_code == 201
        again.wait_for(6)
        assert follower.ids() + again.ids() == list(range(1, 7))
    finally:
        assert second.stop() == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_stop_cleanly_with_streams_open(tmp_path: Any, sig: int) -> None:
    running = start_server(tmp_path)
    game = new_game(running, title="Stopping")
    followers = [Follower(running, game["id"], running.host_key) for _ in range(3)]
    for f in followers:
        f.start()
    for f in followers:
        f.wait_for(2)
    started = time.monotonic()
    assert running.stop(sig, within=10) == 0
    assert time.monotonic() - started < 10
    for f in followers:
        assert f.ended.wait(5)
    assert we("audit", tmp_path).returncode == 0


def test_serve_refuses_a_bad_folder_or_port_in_one_line(tmp_path: Any) -> None:
    missing = we("serve", tmp_path / "nowhere", "--port", "0")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "not a directory" in missing.stderr
    running = start_server(tmp_path)
    try:
        port = running.url.rsplit(":", 1)[1]
        taken = we("serve", tmp_path, "--port", port)
        assert taken.returncode == 1 and "cannot listen" in taken.stderr and "Traceback" not in taken.stderr
    finally:
        assert running.stop() == 0


def test_each_message_carries_the_view_after_its_event(server: Server) -> None:
    """Views of old events are refolded from checkpoints: every one must be the engine's."""
    from service.play import undo_preview
    from wecore.events import parse_event
    from wecore.reducer import evolve
    from wecore.state import INITIAL_STATE
    from wecore.views import view

    game = new_game(server, title="Long", lists=None, deal_attics=True)
    gid = game["id"]
    with server.host as host:
        for _ in range(75):
            current = host.get(f"/api/v1/games/{gid}").json()
            choices = [m for m in current["legal"] if m["type"] != "undo"] or current["legal"]
            body = {"expect": current["seq"], "move": choices[0]}
            assert host.post(f"/api/v1/games/{gid}/moves", json=body).status_code == 201
    head = head_of(server, gid)
    follower = Follower(server, gid, server.host_key)
    follower.start()
    follower.wait_for(head)
    state = INITIAL_STATE
    lines = [json.loads(x) for x in (server.directory / f"{gid}.jsonl").read_text().splitlines()]
    events = []
    for message, line in zip(follower.messages, lines, strict=True):
        events.append(parse_event(line["type"], line["data"]))
        state = evolve(state, events[-1])
        expected = json.loads(json.dumps(view(state, None, omniscient=True).to_dict()))
        shown = {
            k: v
            for k, v in message["data"]["view"].items()
            if k not in ("game", "seq", "fingerprint", "legal", "undoes")
        }
        assert shown == expected, line["seq"]
        undoes = undo_preview(state, events, [x["at"] for x in lines[: line["seq"]]])
        assert message["data"]["view"]["undoes"] == undoes, line["seq"]
        assert message["data"]["view"]["seq"] == line["seq"]


def test_a_quiet_stream_gets_a_comment_within_fifteen_seconds(server: Server) -> None:
    game = new_game(server, title="Quiet")
    with (
        httpx.Client(timeout=httpx.Timeout(5, read=20)) as client,
        client.stream(
            "GET",
            f"{server.url}/api/v1/games/{game['id']}/stream",
            params={"after": 2},  # nothing to send: only the keepalive can arrive
            headers={"Authorization": f"Bearer {server.host_key}"},
        ) as response,
    ):
        started = time.monotonic()
        for line in response.iter_lines():
            if line.startswith(":"):
                break
            assert not line.startswith("id:"), line
    assert time.monotonic() - started <= 15
