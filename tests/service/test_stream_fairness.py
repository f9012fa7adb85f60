"""One guest is not the whole table (docs/service.md, "On a party's Wi-Fi"): a real `we serve`
with 1,024 open files, a guest on 127.0.0.2 holding hundreds of live streams on one key, and the
other phone and the health check on 127.0.0.3, probed every half second with a 2 s timeout."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import shutil
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from served import ROOT, key_of, new_game, sse_messages, start_server
from test_slow_clients import Limited, start_limited

from service.keys import SEAT, TABLE, Role, derive
from service.streams import STREAMS_PER_KEY, LiveStreams, StreamLimits, TooManyStreams

GUEST = "127.0.0.2"
PHONE = "127.0.0.3"
PROBE_EVERY = 0.5
PROBES = 20
PROBE_TIMEOUT = 2.0


@pytest.fixture
def many_files() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1_400
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the test needs {wanted} open files; this process may have {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _loopback_aliases() -> None:
    for address in (GUEST, PHONE):
        with socket.socket() as probe:
            try:
                probe.bind((address, 0))
            except OSError:
                pytest.skip(f"this machine cannot send from {address}")


def _request(path: str, key: str, port: int) -> bytes:
    return f"GET {path}?k={key} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()


async def _connect(
    port: int, source: str, small_buffer: bool = False
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    if small_buffer:  # a phone that reads nothing: the server's writes back up at once
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    try:
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return await asyncio.open_connection(sock=sock)


@dataclass
class Guest:
    """Streams held on one key from one address; each is opened again once the server ends it."""

    port: int
    path: str
    keys: list[str]
    count: int
    read: bool = True
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    held: set[int] = field(default_factory=set)  # answered at least once
    statuses: Counter[bytes] = field(default_factory=Counter)
    ended: int = 0

    async def hold(self, me: int) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await _connect(self.port, GUEST, small_buffer=not self.read)
            except OSError:
                await self._pause()
                continue
            try:
                writer.write(_request(self.path, self.keys[me % len(self.keys)], self.port))
                # The answer's status line, and no more for a guest that reads nothing: it is in.
                status = await reader.readline()
                if status:
                    self.statuses[status.split(b" ")[1]] += 1
                    self.held.add(me)
                while not self.stop.is_set():
                    if not self.read:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self.stop.wait(), 1.0)
                        if writer.transport.is_closing() or reader.at_eof():
                            break
                        continue
                    if await reader.read(65536) == b"":
                        break
            except OSError:
                pass
            finally:
                self.ended += 1
                writer.close()
            await self._pause()

    async def _pause(self) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), 0.5)


async def _healthz(port: int) -> None:
    reader, writer = await _connect(port, PHONE)
    try:
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 200"), status
        await reader.read()
    finally:
        writer.close()


async def _phone_stream(port: int, path: str, key: str) -> None:
    """A phone opening its page: a new stream that brings the game's first event."""
    reader, writer = await _connect(port, PHONE)
    try:
        writer.write(_request(path, key, port))
        status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 200"), status
        while b"event: envelope" not in await reader.readline():
            pass
    finally:
        writer.close()


Probe = Callable[[], Awaitable[None]]


async def _probe_while_held(guest: Guest, probes: list[tuple[str, Probe]], held_at_least: int) -> list[float]:
    """The guest's streams opened; from the moment it has `held_at_least` of them in, each probe
    every PROBE_EVERY s, PROBES times, each within PROBE_TIMEOUT; the probes' times."""
    holding = [asyncio.create_task(guest.hold(me)) for me in range(guest.count)]
    try:
        deadline = time.monotonic() + 60
        while len(guest.held) < held_at_least:
            assert time.monotonic() < deadline, f"only {len(guest.held)} of the guest's streams were answered"
            await asyncio.sleep(0.1)  # the guest's own pace of connecting, not a wait on the server
        taken: list[float] = []
        for number in range(PROBES):
            for name, probe in probes:
                started = time.monotonic()
                try:
                    await asyncio.wait_for(probe(), PROBE_TIMEOUT)
                except TimeoutError:
                    raise AssertionError(
                        f"probe {number + 1} ({name}) did not answer within {PROBE_TIMEOUT} s"
                    ) from None
                taken.append(time.monotonic() - started)
            await asyncio.sleep(PROBE_EVERY)
        return taken
    finally:
        guest.stop.set()
        await asyncio.gather(*holding, return_exceptions=True)


def _game_with_phones(tmp_path: Path) -> tuple[Limited, str, dict[str, str]]:
    served = start_limited(tmp_path, tmp_path / "serve.log")
    game = new_game(served.server, title="Held")
    keys = {"table": key_of(game["links"]["table"])}
    keys.update({seat: key_of(link) for seat, link in game["links"]["seats"].items()})
    return served, game["id"], keys


@pytest.mark.parametrize("held_key", ["Ann", "table"])
def test_900_streams_on_one_key_leave_the_other_phone_and_the_health_check_in(
    tmp_path: Path, many_files: None, held_key: str
) -> None:
    _loopback_aliases()
    served, game_id, keys = _game_with_phones(tmp_path)
    path = f"/api/v1/games/{game_id}/stream"
    port = served.port
    guest = Guest(port, path, [keys[held_key]], count=900)
    try:
        taken = asyncio.run(
            _probe_while_held(
                guest,
                [
                    ("/healthz", lambda: _healthz(port)),
                    ("Ben's phone", lambda: _phone_stream(port, path, keys["Ben"])),
                ],
                held_at_least=900,
            )
        )
    finally:
        log = served.stopped_log()
    print(f"{held_key}: slowest probe {max(taken):.2f} s, guest answers {dict(guest.statuses)}")
    assert len(taken) == 2 * PROBES and max(taken) < PROBE_TIMEOUT
    assert (
        guest.statuses[b"200"] >= 900 and guest.ended > 0
    )  # the oldest of the key's streams gave way to the newer ones
    assert "Traceback" not in log, log[-3000:]


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _traced(url: str) -> dict[str, int]:
    answer = httpx.get(f"{url}/healthz/memory", timeout=30).json()
    return {"traced_bytes": answer["traced_bytes"], "live_streams": answer["live_streams"]}


def test_700_slow_reading_streams_of_a_long_game_are_bounded_and_given_back(
    tmp_path: Path, many_files: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loopback_aliases()
    shutil.copy(ROOT / "replays" / "bots-7p.jsonl", tmp_path / "bots-7p.jsonl")
    monkeypatch.setenv("WE_SERVE_TRACEMALLOC", "1")  # /healthz/memory: service/routes/health.py
    served = start_limited(tmp_path, tmp_path / "serve.log")
    port, url = served.port, served.server.url
    host_key = served.server.host_key
    game_id = "bots-7p"
    with served.server.host as host:
        listed = host.get("/api/v1/games").json()
    [game] = [g for g in listed if g["events"] > 100]
    game_id, players = game["id"], game["players"]
    assert len(players) == 7
    keys = [derive(host_key, TABLE, game_id)] + [derive(host_key, SEAT, game_id, p) for p in players]
    path = f"/api/v1/games/{game_id}/stream"
    pid = served.server.process.pid
    try:
        # Every kind of key's catch-up once, read whole: what a game's first watchers leave behind.
        for key in keys:
            with httpx.stream("GET", f"{url}{path}?k={key}", timeout=30) as answer:
                for line in answer.iter_lines():
                    if line == f"id: {game['events']}":
                        break
        before = _traced(url)
        rss_before = _rss(pid)
        guest = Guest(port, path, keys, count=700, read=False)
        peak = rss_before

        async def healthz_and_rss() -> None:
            nonlocal peak
            await _healthz(port)
            peak = max(peak, _rss(pid))

        taken = asyncio.run(_probe_while_held(guest, [("/healthz", healthz_and_rss)], held_at_least=700))
        assert len(taken) == PROBES and max(taken) < PROBE_TIMEOUT
        assert peak < rss_before + 64 * 1024 * 1024, (peak - rss_before) / 2**20
        deadline = time.monotonic() + 30
        after = _traced(url)
        while after["live_streams"] and time.monotonic() < deadline:
            after = _traced(url)  # each ask is itself the wait: the server is closing what was cut
        assert after["live_streams"] == 0, after
        mb = 2**20
        print(
            f"slowest /healthz {max(taken):.2f} s; RSS {rss_before / mb:.0f} MB,"
            f" peak +{(peak - rss_before) / mb:.1f} MB; traced {before['traced_bytes'] / mb:.1f} MB"
            f" before, {after['traced_bytes'] / mb:.1f} MB after; guest answers {dict(guest.statuses)}"
        )
        assert abs(after["traced_bytes"] - before["traced_bytes"]) < 5 * 1024 * 1024, (before, after)
    finally:
        log = served.stopped_log()
    assert "Traceback" not in log, log[-3000:]


def test_a_key_holds_a_few_streams_the_oldest_giving_way_and_an_address_a_few_dozen() -> None:
    async def scenario() -> None:
        streams = LiveStreams(StreamLimits(per_key=2, per_address=3))
        ann = Role(SEAT, "g", "Ann")
        first = streams.open(ann, "10.0.0.1")
        second = streams.open(ann, "10.0.0.1")
        third = streams.open(ann, "10.0.0.1")
        assert first.gave_way and not second.gave_way and not third.gave_way
        assert len(streams) == 2
        streams.open(Role(TABLE, "g"), "10.0.0.1")
        with pytest.raises(TooManyStreams, match="--streams-per-address"):
            streams.open(Role(SEAT, "g", "Ben"), "10.0.0.1")
        streams.open(Role(SEAT, "g", "Ben"), "10.0.0.2")  # a neighbour's address is its own
        for _ in range(10):
            streams.open(Role("host"), "10.0.0.1")  # the host always gets in, and is not counted
        streams.close(second)
        streams.close(first)  # gave way already: closing it again frees nothing twice
        streams.open(Role(SEAT, "g", "Ben"), "10.0.0.1")
        assert len(streams) == 4

    asyncio.run(scenario())


def test_a_fifth_tab_of_a_seat_takes_the_oldest_ones_place_and_a_full_address_is_refused(
    tmp_path: Path,
) -> None:
    server = start_server(tmp_path, "--streams-per-address", "5")
    game = new_game(server, title="Tabs")
    path = f"/api/v1/games/{game['id']}/stream"
    ann, ben = key_of(game["links"]["seats"]["Ann"]), key_of(game["links"]["seats"]["Ben"])
    table = key_of(game["links"]["table"])
    try:
        with contextlib.ExitStack() as held:

            def opened(key: str) -> tuple[httpx.Response, Iterator[str]]:
                client = held.enter_context(server.client(key, timeout=10))
                answer = held.enter_context(client.stream("GET", path))
                return answer, answer.iter_lines()

            tabs = [opened(ann) for _ in range(STREAMS_PER_KEY)]
            for answer, lines in tabs:
                assert answer.status_code == 200
                assert next(m for m in sse_messages(lines))["event"] == "envelope"
            newest, _ = opened(ann)  # one more tab of Ann's: the oldest gives way
            assert newest.status_code == 200
            oldest = tabs[0][1]
            said = [m["event"] for m in sse_messages(oldest) if m["event"] != "envelope"]
            assert said == ["gave-way"]  # and then the stream ended
            full, _ = opened(table)  # the address holds 5 now: Ann's 4 and the table's
            assert full.status_code == 200
            refused, _ = opened(ben)
            assert refused.status_code == 429
            refused.read()
            assert "--streams-per-address" in refused.json()["error"]
            host, _ = opened(server.host_key)  # the host always gets in
            assert host.status_code == 200
    finally:
        assert server.stop() == 0
