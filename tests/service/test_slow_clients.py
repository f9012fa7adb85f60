"""`we serve` against slow and broken clients (docs/service.md, "On a party's Wi-Fi"): a real
server started with a soft and hard limit of 1,024 open files, as a common default leaves it,
attacked from raw sockets the way a hostile guest or a broken phone would."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from served import Server, new_game, we_env

from service.network import BODY_TIMEOUT, HEADER_TIMEOUT, FaultReport, connection_cap

ATTACKERS = 1_100
HEALTHZ_WITHIN = 2.0
LOG_UNDER = 1_000_000


@dataclass
class Limited:
    server: Server
    log: Path
    host: str
    port: int

    def stopped_log(self) -> str:
        try:
            assert self.server.stop(signal.SIGTERM) == 0
        finally:
            if self.server.process.stdout is not None:
                self.server.process.stdout.close()
        return self.log.read_text(errors="replace")


def _open_files(soft: int, hard: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def start_limited(directory: Path, log: Path, soft: int = 1024, hard: int = 1024) -> Limited:
    """`we serve DIRECTORY` with RLIMIT_NOFILE (soft, hard), its log (stderr) in the file `log`:
    a pipe nobody reads would stop the server once full."""
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", str(directory), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=we_env(),
            preexec_fn=lambda: _open_files(soft, hard),
        )
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:  # the readiness line: the host's link
        lines.append(line)
        if found := re.search(r"Host \(.*\): (http://(127\.0\.0\.1):(\d+))/\?k=(\S+)", line):
            url, host, port, key = found.groups()
            _wait_until_healthy(url)  # the link is printed before the server takes its first request
            return Limited(Server(directory, process, url, key, lines), log, host, int(port))
    process.kill()
    raise AssertionError(f"`we serve` did not start: {''.join(lines)}{log.read_text()}")


def _wait_until_healthy(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            continue  # not listening yet: each failed connect is itself the wait
    raise AssertionError(f"{url}/healthz did not answer within 30 s")


@pytest.fixture
def many_files() -> Iterator[None]:
    """This test process holds more than a thousand sockets: its own soft limit up to its hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = ATTACKERS + 400
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the test needs {wanted} open files; this process may have {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def _healthz(host: str, port: int) -> float:
    """Seconds until /healthz answered 200 on a new connection (a phone opening the page)."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        assert status.startswith(b"HTTP/1.1 200"), status
        await reader.read()
    finally:
        writer.close()
    return time.monotonic() - started


async def _trickle(
    host: str, port: int, stop: asyncio.Event, connected: set[int], closed: list[int], me: int
) -> None:
    """One slow client: half a request header, a line more every second, back when closed."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            continue
        connected.add(me)
        try:
            writer.write(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n".encode())
            while not stop.is_set():
                try:
                    # The attack's own pace: a header line a second while the server keeps it.
                    if await asyncio.wait_for(reader.read(1024), 1.0) == b"":
                        closed.append(me)
                        break
                except TimeoutError:
                    writer.write(b"X-Slow: still-coming\r\n")
                except OSError:
                    closed.append(me)
                    break
        finally:
            writer.close()
        # Back half a second later: a slow client, not a connect flood, which would only measure
        # how fast this one test process can spin.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def _trickle_attack(host: str, port: int, lasting: float) -> tuple[list[float], int, int]:
    stop = asyncio.Event()
    connected: set[int] = set()
    closed: list[int] = []
    attackers = [
        asyncio.create_task(_trickle(host, port, stop, connected, closed, me)) for me in range(ATTACKERS)
    ]
    answered: list[float] = []
    end = None
    while end is None or time.monotonic() < end:
        if end is None and len(connected) == ATTACKERS:
            # From the moment every slow client is in, for more than a header timeout: the
            # first ones are closed and come back while the table keeps asking.
            end = time.monotonic() + lasting
        try:
            answered.append(await asyncio.wait_for(_healthz(host, port), HEALTHZ_WITHIN))
        except TimeoutError:
            stop.set()
            raise AssertionError(
                f"/healthz did not answer within {HEALTHZ_WITHIN} s with {len(connected)} slow clients in"
                f" (answers so far: {len(answered)})"
            ) from None
        await asyncio.sleep(0.1)  # a poll every tenth of a second, as a TV page would more slowly
    stop.set()
    await asyncio.gather(*attackers, return_exceptions=True)
    return answered, len(connected), len(closed)


def test_trickled_headers_neither_lock_out_the_table_nor_flood_the_log(
    tmp_path: Path, many_files: None
) -> None:
    served = start_limited(tmp_path, tmp_path / "serve.log")
    try:
        answered, connected, closed = asyncio.run(
            _trickle_attack(served.host, served.port, lasting=HEADER_TIMEOUT + 3)
        )
    finally:
        log = served.stopped_log()
    assert connected == ATTACKERS
    assert closed > 0  # the server closed slow clients (past their deadline, or to make way)
    assert answered and max(answered) < HEALTHZ_WITHIN
    assert (tmp_path / "serve.log").stat().st_size < LOG_UNDER, log[-2000:]
    assert "Traceback" not in log and "Too many open files" not in log, log[-2000:]
    # Said once per interval, with how many and why.
    assert re.search(r"\d[\d,]* (slow )?connections closed in the last 10 s: ", log), log[-2000:]


async def _half_sent_bodies(host: str, port: int, path: str, key: str, count: int) -> list[float]:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    ).encode()

    async def one() -> float:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(head + b'{"expect":')  # 10 bytes of the 1,000, and no more
        await writer.drain()
        sent = time.monotonic()
        try:
            while await reader.read(1024):
                pass  # whatever the server says before it closes
        except OSError:
            pass
        finally:
            writer.close()
        return time.monotonic() - sent

    return await asyncio.wait_for(asyncio.gather(*(one() for _ in range(count))), BODY_TIMEOUT + 10)


def test_half_sent_bodies_are_closed_within_the_body_timeout(tmp_path: Path, many_files: None) -> None:
    served = start_limited(tmp_path, tmp_path / "serve.log")
    try:
        game = new_game(served.server, title="Half-sent")
        log_file = tmp_path / f"{game['id']}.jsonl"
        recorded = log_file.read_bytes()
        held = asyncio.run(
            _half_sent_bodies(
                served.host, served.port, f"/api/v1/games/{game['id']}/moves", served.server.host_key, 300
            )
        )
        # The deadline runs from the header; a second of grace for a loaded machine's scheduling.
        assert max(held) < BODY_TIMEOUT + 1, sorted(held)[-5:]
        assert log_file.read_bytes() == recorded
    finally:
        log = served.stopped_log()
    assert "Traceback" not in log and "ClientDisconnect" not in log, log[-2000:]
    assert "300 connections closed in the last 10 s: request body not complete within" in log, log


def test_the_open_file_limit_is_raised_to_the_hard_limit(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 4096:
        pytest.skip(f"the test needs a hard limit of 4096 open files; this process has {hard}")
    served = start_limited(tmp_path, tmp_path / "serve.log", soft=1024, hard=4096)
    try:
        limits = Path(f"/proc/{served.server.process.pid}/limits").read_text()
        assert re.search(r"Max open files\s+4096\s+4096", limits), limits
    finally:
        served.stopped_log()


def test_the_connection_cap_leaves_room_below_the_open_file_limit() -> None:
    for limit in (256, 1024, 4096, 1 << 20):
        assert 0 < connection_cap(limit) <= limit - 128
    assert connection_cap(1024) >= 512  # a party's phones and TVs still fit


def test_repeated_faults_are_said_once_per_interval() -> None:
    said: list[str] = []

    async def faults() -> FaultReport:
        report = FaultReport(say=said.append)
        for _ in range(412):
            report.note("connection refused", "connections refused", "too many open connections")
        report.note("connection closed", "connections closed", "request header not complete within 5 s")
        loop = asyncio.get_running_loop()
        for _ in range(3):
            report.loop_exception(loop, {"message": "accept", "exception": OSError(errno.EMFILE, "Too many")})
        assert said == []  # nothing yet: the interval has not ended
        return report

    report = asyncio.run(faults())
    report.flush()
    assert said == [
        "412 connections refused in the last 10 s: too many open connections",
        "1 connection closed in the last 10 s: request header not complete within 5 s",
        "3 network errors in the last 10 s: too many open files",
    ]
    report.flush()
    assert len(said) == 3  # said once, not again


def test_an_idle_connection_is_closed_quietly_and_a_half_header_is_said(tmp_path: Path) -> None:
    """A browser's spare connection sends nothing and is closed without a word; one that sent half
    a header is closed past the header deadline and counted."""

    async def closed_after(idle: bool) -> float:
        reader, writer = await asyncio.open_connection(served.host, served.port)
        if not idle:
            writer.write(f"GET /healthz HTTP/1.1\r\nHost: {served.host}\r\n".encode())
        opened = time.monotonic()
        try:
            await asyncio.wait_for(reader.read(), HEADER_TIMEOUT + 10)
        finally:
            writer.close()
        return time.monotonic() - opened

    async def both() -> list[float]:
        return list(await asyncio.gather(closed_after(idle=True), closed_after(idle=False)))

    served = start_limited(tmp_path, tmp_path / "serve.log")
    try:
        held = asyncio.run(both())
        assert max(held) < HEADER_TIMEOUT + 1, held
    finally:
        log = served.stopped_log()
    assert "1 connection closed in the last 10 s: request header not complete within 5 s" in log, log
    assert "2 connections" not in log, log
