"""The service section of the benchmark: `we serve` under a convention's load, thirty times over.

    python tests/bench/bench.py --service [--seconds 20] [--games 20] [--followers 10]

20 games at once on loopback; each has one writer posting legal moves as fast as it can (the
host key; when a game is over, it undoes and plays on) and 10 followers streaming it. Prints
moves per second in all, p50 and p99 of the POST, p99 from a move's POST being sent to its
event reaching a follower and from its 201 to that (the append happened in between, so the two
bound append-to-delivery), and the server's peak memory.
Run by bench.py; the followers read the raw socket so the client is not what is measured.

Then the same load, shorter, on `we serve` and on its peer (tests/bench/peer_server.py: the same
stack, URLs and stream framing, a move appended, fsynced and fanned out, nothing else), one
server after the other, round by round (--rounds, at least 4; the order swapped each round):
the server's CPU per move, moves per second and follower p99 of each, their medians and the
ratios of `we serve` to the peer. The machine is shared: the ratios of rounds run back to back
are what compare.

    python tests/bench/bench.py --service --postgres

The same load on a PostgreSQL library (a cluster of the benchmark's own, fsync on): one
`we serve --db`, then two on the same database, the writers and followers of each game split
between them (a follower on one server sees moves posted to the other).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TARGET_MOVES_PER_S = 300
TARGET_DELIVERY_P99_MS = 250


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def follower(
    host: str,
    port: int,
    game: str,
    key: str,
    sent: dict[tuple[str, int], tuple[float, float]],
    delays: list[tuple[float, float]],
    stop: asyncio.Event,
) -> int:
    reader, writer = await asyncio.open_connection(host, port)
    request = f"GET /api/v1/games/{game}/stream?k={key} HTTP/1.1\r\nHost: {host}\r\n"
    writer.write((request + "Accept: text/event-stream\r\n\r\n").encode())
    await writer.drain()
    seen = 0
    pattern = re.compile(rb"\nid: (\d+)\r?\n")
    buffer = b""
    while not stop.is_set():
        try:
            chunk = await asyncio.wait_for(reader.read(1 << 16), timeout=0.5)
        except TimeoutError:
            continue
        if not chunk:
            break
        now = time.monotonic()
        buffer = buffer[-64:] + chunk
        for match in pattern.finditer(buffer):
            seq = int(match.group(1))
            if seq <= seen:
                continue
            seen = seq
            times = sent.get((game, seq))
            if times is not None:  # (POST sent, 201 received): the append happened in between
                delays.append((now - times[0], max(0.0, now - times[1])))
        buffer = buffer[-64:]
    writer.close()
    return seen


async def mover(
    client: Any,
    game: str,
    first: dict[str, Any],
    sent: dict[tuple[str, int], tuple[float, float]],
    posts: list[float],
    stop: asyncio.Event,
    rng: random.Random,
) -> int:
    seq, legal = first["seq"], first["legal"]
    moves = 0
    while not stop.is_set():
        choices = [m for m in legal if m["type"] != "undo"] or legal
        if not choices:
            return moves
        move = rng.choice(choices)
        started = time.monotonic()
        response = await client.post(f"/api/v1/games/{game}/moves", json={"expect": seq, "move": move})
        posts.append(time.monotonic() - started)
        if response.status_code != 201:
            view = (await client.get(f"/api/v1/games/{game}")).json()
            seq, legal = view["seq"], view["legal"]
            continue
        body = response.json()
        answered = time.monotonic()
        for event in body["events"]:
            sent[(game, event["seq"])] = (started, answered)
        seq, legal = body["seq"], body["view"]["legal"]
        moves += 1
    return moves


async def load(
    urls: list[str],
    host_key: str,
    games: int,
    followers: int,
    seconds: float,
    cpu: Callable[[], float] | None = None,
) -> dict[str, Any]:
    """The load on one server, or split between several serving the same games: game n's
    writer posts to server n, its followers stream from each server in turn. `cpu`: the
    servers' CPU seconds so far, read as the writers start and stop (`cpu_seconds` in the
    answer: what the servers spent while the moves counted were made)."""
    import httpx

    url = urls[0]
    places = [re.match(r"http://([^:]+):(\d+)", u).groups() for u in urls]  # type: ignore[union-attr]
    headers = {"Authorization": f"Bearer {host_key}"}
    limits = httpx.Limits(max_connections=games * 2)
    others = [httpx.AsyncClient(base_url=u, headers=headers, timeout=30, limits=limits) for u in urls[1:]]
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30, limits=limits) as client:
        clients = [client, *others]
        ids = []
        table_keys: dict[str, str] = {}
        for i in range(games):
            body = {
                "players": ["Ann", "Ben", "Cat", "Dan", "Eve"],
                "dealer": "Ann",
                "lists": None,
                "deal_attics": True,
                "title": f"Table {i + 1}",
            }
            made = (await client.post("/api/v1/games", json=body)).json()
            ids.append(made["id"])
            table_keys[made["id"]] = made["links"]["table"].split("?k=", 1)[1]
        firsts = [(await client.get(f"/api/v1/games/{gid}")).json() for gid in ids]
        sent: dict[tuple[str, int], tuple[float, float]] = {}
        delays: list[tuple[float, float]] = []
        posts: list[float] = []
        stop = asyncio.Event()
        streams = [
            asyncio.create_task(follower(*_place(places, n + f), gid, table_keys[gid], sent, delays, stop))
            for n, gid in enumerate(ids)
            for f in range(followers)
        ]
        await asyncio.sleep(1.0)  # every stream connected and caught up
        delays.clear()
        cpu_at_start = cpu() if cpu is not None else 0.0
        started = time.monotonic()
        writers = [
            asyncio.create_task(
                mover(clients[n % len(clients)], gid, first, sent, posts, stop, random.Random(n))
            )
            for n, (gid, first) in enumerate(zip(ids, firsts, strict=True))
        ]
        await asyncio.sleep(seconds)
        stop.set()
        moves = sum(await asyncio.gather(*writers))
        elapsed = time.monotonic() - started
        cpu_seconds = cpu() - cpu_at_start if cpu is not None else float("nan")
        await asyncio.sleep(0.5)
        await asyncio.gather(*streams, return_exceptions=True)
    for other in others:
        await other.aclose()
    return {"moves": moves, "seconds": elapsed, "posts": posts, "delays": delays, "cpu_seconds": cpu_seconds}


def _place(places: list[tuple[str, str]], n: int) -> tuple[str, int]:
    host, port = places[n % len(places)]
    return host, int(port)


# The figures as printed, for `bench.py --service --write-docs` to put on the speed page.
FIGURES: list[str] = []


def say(text: str) -> None:
    print(text, flush=True)
    FIGURES.extend(text.splitlines())


# Every `we serve` this run started and has not yet stopped: stopped on any way out (an error, an
# exception in the load, Ctrl-C, SIGTERM), so the benchmark never leaves a server behind.
_RUNNING: list[subprocess.Popen[str]] = []


def stop(server: subprocess.Popen[str]) -> int:
    """Stop one server (SIGTERM, then SIGKILL if it does not go), reap it; its wait status."""
    if server in _RUNNING:
        _RUNNING.remove(server)
    if server.returncode is not None:
        return server.returncode
    server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        return server.wait()


def stop_all() -> None:
    for server in list(_RUNNING):
        stop(server)


atexit.register(stop_all)


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # so `finally` and atexit stop the servers


WE_SERVE = (sys.executable, "-m", "cli.main", "serve")
PEER = (sys.executable, str(Path(__file__).with_name("peer_server.py")))
_NO_STREAM_LIMITS = ("--streams-per-key", "100000", "--streams-per-address", "100000")


def start(
    where: list[str], env: dict[str, str], command: Sequence[str] = WE_SERVE, name: str = "we serve"
) -> tuple[subprocess.Popen[str], str, str]:
    """`we serve WHERE --port 0` (or the peer): the process, its URL and the host key it printed."""
    # Ten followers of a game on its table's key, every one from this machine's address: the
    # load is one table watched by many, not one guest (service.streams), so no limit applies.
    limits = _NO_STREAM_LIMITS if tuple(command) == WE_SERVE else ()
    server = subprocess.Popen(
        [*command, *where, "--port", "0", *limits],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    _RUNNING.append(server)
    assert server.stdout is not None
    while True:
        line = server.stdout.readline()
        if not line:
            stop(server)
            raise SystemExit(f"{name} did not start")
        if found := re.search(r"(http://127\.0\.0\.1:\d+)/\?k=(\S+)", line):
            print(f"bench: {name} (pid {server.pid}) at {found.group(1)}", flush=True)
            # Read what it prints from now on: a pipe left unread fills, and the server would
            # then block on its next line of output, in the middle of the measurement.
            threading.Thread(target=_drained, args=(server.stdout,), daemon=True).start()
            return server, found.group(1), found.group(2)


def _drained(stream: Any) -> None:
    for _ in stream:
        pass


def measure(
    wheres: list[list[str]], env: dict[str, str], seconds: float, games: int, followers: int, what: str
) -> tuple[int, float]:
    """Start a server for each of `wheres`, put the load on them, stop them; print the figures.
    (exit status, moves per second)."""
    started: list[tuple[subprocess.Popen[str], str, str]] = []
    try:
        for where in wheres:
            started.append(start(where, env))
        time.sleep(0.5)
        urls = [url for _, url, _ in started]
        result = asyncio.run(load(urls, started[0][2], games, followers, seconds))
        statuses, peak = [], 0.0
        for server, _, _ in started:
            _RUNNING.remove(server)
            server.send_signal(signal.SIGTERM)
            _, status, usage = os.wait4(server.pid, 0)
            server.returncode = status  # reaped here, for its peak memory: Popen must not wait
            statuses.append(status)
            peak = max(peak, usage.ru_maxrss / 1024)
    finally:
        stop_all()
    rate = result["moves"] / result["seconds"]
    post_p50 = percentile(result["posts"], 0.50) * 1000
    post_p99 = percentile(result["posts"], 0.99) * 1000
    # The append happens between the POST being sent and its 201: the two bound it.
    delivery_p99 = percentile([d[0] for d in result["delays"]], 0.99) * 1000
    after_201_p99 = percentile([d[1] for d in result["delays"]], 0.99) * 1000
    ok_rate = rate >= TARGET_MOVES_PER_S
    ok_delivery = delivery_p99 < TARGET_DELIVERY_P99_MS
    say(
        f"service, {what}: {games} games, {games * followers} followers, "
        f"{result['seconds']:.1f} s on loopback"
    )
    say(
        f"  moves per second, in all     {rate:8.1f}   target >= {TARGET_MOVES_PER_S}  "
        f"{'PASS' if ok_rate else 'MISS'}"
    )
    say(f"  POST p50 / p99               {post_p50:6.1f} / {post_p99:.1f} ms")
    say(
        f"  POST sent -> follower p99    {delivery_p99:8.1f} ms  target < {TARGET_DELIVERY_P99_MS} ms  "
        f"{'PASS' if ok_delivery else 'MISS'}  ({len(result['delays']):,} deliveries)"
    )
    say(f"  201 received -> follower p99 {after_201_p99:8.1f} ms  (the append-to-delivery p99 is between)")
    say(f"  server peak memory           {peak:8.1f} MB  (exit status {max(s >> 8 for s in statuses)})")
    return (0 if all(s == 0 for s in statuses) else 1), rate


def run(
    seconds: float = 20, games: int = 20, followers: int = 10, postgres: bool = False, rounds: int = 4
) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if postgres:
        return run_postgres(seconds, games, followers, env)
    with tempfile.TemporaryDirectory(prefix="we-bench-serve-") as directory:
        status, _ = measure([[directory]], env, seconds, games, followers, "one server, a folder")
    compared = compare(env, rounds, max(1.0, seconds / 2), games, followers)
    bots = bot_row(env, max(5.0, seconds))
    return max(status, compared, bots)


# The targets for `we serve` against its peer (medians of alternated rounds).
TARGET_CPU_RATIO = 1.4
TARGET_P99_RATIO = 1.1
TARGET_RATE_RATIO = 0.9


def cpu_of(pid: int) -> Callable[[], float]:
    """The process's CPU seconds so far (user + system, all its threads), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")

    def seconds() -> float:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    return seconds


def one_round(
    command: Sequence[str], name: str, env: dict[str, str], seconds: float, games: int, followers: int
) -> dict[str, float]:
    """One server on a new folder under the load: its CPU per move (ms), moves/s, follower p99 (ms)."""
    with tempfile.TemporaryDirectory(prefix="we-bench-peer-") as directory:
        server, url, key = start([directory], env, command, name)
        try:
            result = asyncio.run(load([url], key, games, followers, seconds, cpu=cpu_of(server.pid)))
        finally:
            stop(server)
    moves = max(1, result["moves"])
    return {
        "cpu_ms": result["cpu_seconds"] / moves * 1000,
        "rate": result["moves"] / result["seconds"],
        "p99_ms": percentile([d[0] for d in result["delays"]], 0.99) * 1000,
    }


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def compare(env: dict[str, str], rounds: int, seconds: float, games: int, followers: int) -> int:
    """`we serve` and its peer, alternated round by round; medians and ratios. 0 when every
    target is met, 1 when one is missed."""
    servers = {"we serve": WE_SERVE, "peer": PEER}
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
    loads: list[float] = []
    for number in range(rounds):
        order = list(servers) if number % 2 == 0 else list(servers)[::-1]
        for name in order:
            loads.append(os.getloadavg()[0])
            figures[name].append(one_round(servers[name], name, env, seconds, games, followers))
            print(f"bench: round {number + 1}, {name}: {figures[name][-1]}", flush=True)
    mid = {name: {k: median([f[k] for f in rows]) for k in rows[0]} for name, rows in figures.items()}
    pairs = list(zip(figures["we serve"], figures["peer"], strict=True))
    ratios = {key: median([ours[key] / peer[key] for ours, peer in pairs]) for key in mid["peer"]}
    targets = {
        "cpu_ms": ratios["cpu_ms"] <= TARGET_CPU_RATIO,
        "rate": ratios["rate"] >= TARGET_RATE_RATIO,
        "p99_ms": ratios["p99_ms"] <= TARGET_P99_RATIO,
    }
    say("")
    say(
        f"we serve vs its peer (tests/bench/peer_server.py): {rounds} rounds each, alternated, "
        f"{seconds:.0f} s a round, {games} games, {games * followers} followers"
    )
    say(f"  load average (1 min) at the rounds' starts: {min(loads):.2f} to {max(loads):.2f}")
    say("                                 we serve       peer   ratio (median of rounds)")
    rows = [
        ("server CPU per move", "cpu_ms", "ms", f"<= {TARGET_CPU_RATIO}x"),
        ("moves per second", "rate", "  ", f">= {TARGET_RATE_RATIO}x"),
        ("POST sent -> follower p99", "p99_ms", "ms", f"<= {TARGET_P99_RATIO}x"),
    ]
    for label, key, unit, target in rows:
        verdict = "PASS" if targets[key] else "MISS"
        say(
            f"  {label:<27}{mid['we serve'][key]:8.2f} {unit}{mid['peer'][key]:8.2f} {unit}"
            f"{ratios[key]:7.2f}x  target {target}  {verdict}"
        )
    return 0 if all(targets.values()) else 1


def run_postgres(seconds: float, games: int, followers: int, env: dict[str, str]) -> int:
    """One server on a PostgreSQL library, then two on one (each run on a new database)."""
    import psycopg

    cluster = Path(tempfile.mkdtemp(prefix="we-bench-pg."))
    cluster.chmod(0o755)  # the cluster's owner is another user when this runs as root
    tool = str(ROOT / ".ci" / "pg-cluster")
    started = subprocess.run(
        [tool, "start", str(cluster)],
        env={**os.environ, "PG_CLUSTER_DURABLE": "1"},
        capture_output=True,
        text=True,
    )
    if started.returncode != 0:
        say(f"service on PostgreSQL: not available ({started.stderr.strip()[-300:]})")
        return 1
    server_url = started.stdout.strip().split("=", 1)[1].strip("'")
    base, query = server_url.split("?", 1)
    try:
        rates = []
        worst = 0
        for count in (1, 2):
            name = f"bench_serve_{count}"
            with psycopg.connect(server_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name}")
                admin.execute(f"CREATE DATABASE {name}")
            url = f"{base.rsplit('/', 1)[0]}/{name}?{query}"
            what = "one server, PostgreSQL" if count == 1 else "two servers on one PostgreSQL database"
            status, rate = measure([["--db", url]] * count, env, seconds, games, followers, what)
            worst = max(worst, status)
            rates.append(rate)
        ok = rates[1] >= rates[0]
        say(
            f"  two servers / one            {rates[1] / rates[0]:8.2f}x  target >= 1  "
            f"{'PASS' if ok else 'MISS'}"
        )
        return worst
    finally:
        subprocess.run([tool, "stop", str(cluster)], capture_output=True, check=False)
        shutil.rmtree(cluster, ignore_errors=True)


# --- bots at a served table ------------------------------------------------------------------

BOT_PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
TARGET_BOT_P99_S = 0.5  # at a load under 1.5 (issue 45); the spec's bound is 2 s


async def bot_table(url: str, host_key: str, seconds: float, bot: str = "ismcts") -> dict[str, Any]:
    """One person (Ann, moved by this client with the host's key as soon as it is her turn) and
    six `bot`s, game after game for `seconds`. A bot's move is timed from the event before it
    reaching a follower to its own (the events of one append, sharing `at`, are one move)."""
    import httpx

    host, port = re.match(r"http://([^:]+):(\d+)", url).groups()  # type: ignore[union-attr]
    headers = {"Authorization": f"Bearer {host_key}"}
    person = BOT_PLAYERS[0]
    bots = {name: bot for name in BOT_PLAYERS[1:]}
    times: list[float] = []
    games = 0
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        while time.monotonic() < deadline:
            body = {
                "players": BOT_PLAYERS,
                "dealer": person,
                "lists": None,
                "deal_attics": True,
                "bots": bots,
            }
            made = (await client.post("/api/v1/games", json=body)).json()
            game = made["id"]
            reader, writer = await asyncio.open_connection(host, int(port))
            request = f"GET /api/v1/games/{game}/stream?k={host_key} HTTP/1.1\r\nHost: {host}\r\n"
            writer.write((request + "Accept: text/event-stream\r\n\r\n").encode())
            await writer.drain()
            ours: set[int] = set()
            last_at: str | None = None
            last_arrival = time.monotonic()
            buffer = b""
            over = False
            while not over and time.monotonic() < deadline:
                view = (await client.get(f"/api/v1/games/{game}")).json()
                if view.get("complete"):
                    over = True
                    break
                # The person's move when there is one (a bring while all bring, or her turn).
                hers = [m for m in view["legal"] if m.get("as") == person and m["type"] != "undo"]
                if hers:
                    answer = await client.post(
                        f"/api/v1/games/{game}/moves", json={"expect": view["seq"], "move": hers[0]}
                    )
                    if answer.status_code == 201:
                        ours.update(e["seq"] for e in answer.json()["events"])
                    else:
                        continue  # someone moved first: look again
                # Wait for the next event and time the bots' moves in it (a quiet second: look
                # again, in case it is the person's move).
                try:
                    chunk = await asyncio.wait_for(reader.read(1 << 16), timeout=1.0)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                now = time.monotonic()
                buffer += chunk
                *frames, buffer = buffer.split(b"\n\n")
                for frame in frames:
                    found = re.search(
                        rb"^id: (\d+)\ndata: (.*)$", frame.replace(b"event: envelope\n", b""), re.M
                    )
                    if found is None:
                        continue
                    seq = int(found.group(1))
                    at = re.search(rb'"at":"([^"]+)"', found.group(2))
                    stamp = at.group(1).decode() if at else None
                    if seq not in ours and stamp != last_at and seq > 3:
                        times.append(now - last_arrival)
                    if stamp != last_at:
                        last_arrival = now
                    last_at = stamp
            writer.close()
            games += over
    return {"times": times, "games": games}


def bot_row(env: dict[str, str], seconds: float) -> int:
    """The bots' row: a bot move's wall time at a served table of one person and six ismcts."""
    with tempfile.TemporaryDirectory(prefix="we-bench-bots-") as directory:
        load_before = os.getloadavg()[0]
        server, url, key = start([directory], env)
        try:
            result = asyncio.run(bot_table(url, key, seconds))
        finally:
            stop(server)
        load_after = os.getloadavg()[0]
    times = result["times"]
    p50 = percentile(times, 0.50)
    p99 = percentile(times, 0.99)
    calm = max(load_before, load_after) < 1.5
    verdict = ("PASS" if p99 <= TARGET_BOT_P99_S else "MISS") if calm else "(load >= 1.5: not judged)"
    say("")
    say(
        f"bots at a served table: one person and six ismcts, {len(times)} bot moves in "
        f"{result['games']} games finished, {seconds:.0f} s"
    )
    say(f"  load average (1 min) before / after      {load_before:.2f} / {load_after:.2f}")
    say(
        f"  bot move, wall time p50 / p99            {p50:.3f} / {p99:.3f} s"
        f"  target p99 <= {TARGET_BOT_P99_S} s at load < 1.5  {verdict}"
    )
    say(
        f"  slowest bot move                         {max(times, default=float('nan')):.3f} s"
        "  (the spec: 2 s)"
    )
    return 0 if (not calm or p99 <= TARGET_BOT_P99_S) else 1
