"""`we serve` against hostile input (issue 11): logs in its folder that are damaged, torn, over
the format's limits, unreadable, or no logs at all (a FIFO, a device, a directory, links);
followed logs cut back, replaced or deleted while served; hostile HTTP requests; a SQLite file
given to --db. Never a crash, a hang, a 500 or unbounded memory; the damaged game is listed with
`we audit`'s sentence, the others served; nothing written to a log that fails to verify.

Each test here failed before the change it guards. Real `we serve` processes, real signals.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from served import ROOT, Server, move, new_game, start_server, we, we_env

from eventstore.jsonl import JsonlLog

TIE = [json.loads(line) for line in (ROOT / "replays" / "tie-5p.jsonl").read_text().splitlines()]
MIB = 1 << 20
# The newline-free tail of one log: on a reader that holds what it reads, memory grows by it.
BIG_TAIL = 160 * MIB
MEMORY_BOUND_KIB = 130 * 1024  # a server serving small games takes about 50 MiB


def a_log(folder: Path, name: str, events: int | None = None) -> Path:
    """The tie-break game of replays/, or its first `events` events, as the game `name`."""
    path = folder / f"{name}.jsonl"
    JsonlLog(path).create_many([(e["type"], e["data"]) for e in TIE[:events]], name)
    return path


def with_line(path: Path, line: bytes) -> Path:
    with path.open("ab") as f:
        f.write(line)
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def until(condition: Callable[[], Any], within: float = 8.0) -> Any:
    deadline = time.monotonic() + within
    while True:
        found = condition()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def listed(server: Server) -> dict[str, dict[str, Any]]:
    with server.host as host:
        return {g["id"]: g for g in host.get("/api/v1/games").json()}


def peak_memory_kib(server: Server) -> int:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]


class ServerLog:
    """The server's stderr, read as it comes (one line per thing it cannot read)."""

    def __init__(self, server: Server) -> None:
        assert server.process.stderr is not None
        os.set_blocking(server.process.stderr.fileno(), False)
        self.stream = server.process.stderr
        self.lines: list[str] = []

    def read(self) -> list[str]:
        while line := self.stream.readline():
            self.lines.append(line.rstrip("\n"))
        return self.lines

    def about(self, name: str) -> list[str]:
        return [line for line in self.read() if f"{name}:" in line]


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    a_log(folder, "good")
    with_line(a_log(folder, "damaged", 5), b'{"v":1,"game":"damaged","seq":6}\n')
    with_line(a_log(folder, "deep", 5), b'{"v":1,"data":' + b"[" * 1000 + b"]" * 1000 + b"}\n")
    with_line(a_log(folder, "huge", 5), b'{"v":1,"game":"huge","seq":18446744073709551616}\n')
    with_line(a_log(folder, "torn", 5), b'{"v":1,"game":"torn","se')
    with_line(a_log(folder, "long", 5), b'{"v":1,"note":"' + b"a" * (2 * MIB) + b'"}\n')
    with a_log(folder, "endless", 5).open("ab") as f:  # a tail of 160 MiB with no newline
        block = b"x" * MIB
        for _ in range(BIG_TAIL // MIB):
            f.write(block)
    os.mkfifo(folder / "fifo.jsonl")
    (folder / "directory.jsonl").mkdir()
    os.symlink("/dev/zero", folder / "device.jsonl")
    os.symlink(folder / "nowhere.jsonl", folder / "dangling.jsonl")
    if os.geteuid() == 0:  # root reads whatever the permissions say; this regular file fails
        os.symlink("/proc/self/mem", folder / "unreadable.jsonl")
    else:
        a_log(folder, "unreadable").chmod(0)
    # A name that is no UTF-8 and holds a newline, on a damaged log: every answer naming it.
    odd = with_line(a_log(folder, "odd", 5), b'{"bad"}\n')
    os.rename(odd, os.fsencode(folder) + b"/\xff\xfe odd\n name.jsonl")
    a_log(folder, "original")
    os.symlink(folder / "original.jsonl", folder / "zlinked.jsonl")  # to a log of another id
    return folder


def test_a_folder_of_hostile_logs_is_served_with_each_problem_said_once(hostile_folder: Path) -> None:
    folder = hostile_folder
    logs = ("good", "damaged", "deep", "huge", "torn", "long", "original")
    before = {name: sha(folder / f"{name}.jsonl") for name in logs}
    audited = {}
    for line in we("audit", "--json", folder).stdout.splitlines():
        report = json.loads(line)
        first = report["problems"][0] if report["problems"] else None
        audited[report["game"]] = first and f"line {first['seq']}: {first['kind']}: {first['message']}"
    server = start_server(folder)
    log = ServerLog(server)
    try:
        # Every game is listed, the damaged ones with the problem `we audit` names first.
        damaged = ("damaged", "deep", "huge", "torn", "long", "endless")
        games = until(
            lambda: (g := listed(server)) and all(g.get(n, {}).get("problem") for n in damaged) and g
        )
        assert games, listed(server)
        for name in damaged:
            assert games[name]["problem"] == f"{name}.jsonl: {audited[name]}", name
            assert games[name]["events"] == 5
        assert games["good"]["problem"] is None and games["good"]["complete"] is True
        assert (
            games["odd"]["problem"]
            == "\ufffd\ufffd odd\\n name.jsonl: line 6: integrity: " + audited["odd"].split(": ", 2)[2]
        )
        assert games["original"]["problem"] is None
        # What is no log is left out, with one line each in the server's log.
        for name, words in (
            ("fifo", "a FIFO"),
            ("directory", "a directory"),
            ("device", "a device"),
            ("dangling", "cannot read"),
            ("unreadable", "cannot read"),
        ):
            assert name not in games
            assert until(lambda n=name: log.about(f"{n}.jsonl")), (name, log.read())
            (said,) = log.about(f"{name}.jsonl")
            assert words in said, said
        time.sleep(2.5)  # the folder is looked at again: nothing is said twice
        assert all(len(log.about(f"{n}.jsonl")) == 1 for n in ("fifo", "device", "unreadable"))
        assert not [line for line in log.read() if "Traceback" in line]
        assert peak_memory_kib(server) < MEMORY_BOUND_KIB

        # The others are served; moves onto a damaged log are refused and write nothing.
        with server.host as host:
            assert host.get("/api/v1/games/good").json()["seq"] == 76
            assert host.get("/").status_code == 200  # the lobby names every game, damaged or not
            assert host.get("/api/v1/games/odd/audit").json()["ok"] is False
            for name in damaged:
                answer = move(host, name, 5, type="note", text="more")
                assert answer.status_code == 422, (name, answer.text)
                assert "\n" not in answer.json()["error"]
            assert "zlinked" not in games  # a link to original.jsonl: its game, served once
            answer = move(host, "original", 76, type="note", text="in its own file")
            assert answer.status_code == 201
        fresh = new_game(server, title="Still dealing")
        with server.host as host:
            assert move(host, fresh["id"], 2, type="note", text="ok").status_code == 201
        changed = {name for name in logs if sha(folder / f"{name}.jsonl") != before[name]}
        assert changed == {"original"}
        assert server.stop(signal.SIGTERM) == 0
    finally:
        server.stop(signal.SIGKILL)


def test_a_log_reached_through_a_link_is_read_but_never_written(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    elsewhere = a_log(tmp_path, "elsewhere", 5)
    os.symlink(elsewhere, folder / "elsewhere.jsonl")
    before = sha(elsewhere)
    server = start_server(folder)
    try:
        with server.host as host:
            assert until(lambda: host.get("/api/v1/games/elsewhere").status_code == 200)
            answer = move(host, "elsewhere", 5, type="note", text="through the link")
            assert answer.status_code == 422 and "symbolic link" in answer.json()["error"]
        assert sha(elsewhere) == before
    finally:
        assert server.stop() == 0


def test_a_followed_log_cut_back_replaced_or_deleted(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    path = a_log(folder, "night", 10)
    spare = a_log(tmp_path, "night", 20)
    server = start_server(folder)
    log = ServerLog(server)
    try:
        with server.client(server.host_key, timeout=5) as host:

            def seq() -> int | None:
                answer = host.get("/api/v1/games/night")
                return answer.json()["seq"] if answer.status_code == 200 else None

            assert until(lambda: seq() == 10)
            # Cut back to its set-up (as an editor or a restore would): read again from the start.
            lines = path.read_bytes().splitlines(keepends=True)
            path.write_bytes(b"".join(lines[:2]))
            assert until(lambda: seq() == 2)
            # Replaced by a longer log of the same game (renamed over it).
            os.replace(spare, path)
            assert until(lambda: seq() == 20)
            # Replaced by a FIFO: the server must not wait on it; it keeps what it read.
            path.unlink()
            os.mkfifo(path)
            assert until(lambda: log.about("night.jsonl"))
            assert seq() == 20
            assert host.get("/api/v1/games").status_code == 200
            answer = move(host, "night", 20, type="note", text="into a FIFO?")
            assert answer.status_code == 422, answer.text
            audited = host.get("/api/v1/games/night/audit")
            assert audited.status_code == 422 and "a FIFO" in audited.json()["error"], audited.text
            # Deleted: no longer listed, said once.
            path.unlink()
            assert until(lambda: seq() is None)
            assert "night" not in listed(server)
            assert [line for line in log.read() if "gone" in line]
        assert server.stop(signal.SIGINT) == 0
    finally:
        server.stop(signal.SIGKILL)


def test_two_files_with_one_game_id_are_both_listed_and_both_followed(tmp_path: Path) -> None:
    # Issue 24.6: a copy under a second name was never listed, nor read again once rewritten.
    folder = tmp_path / "games"
    folder.mkdir()
    night = a_log(folder, "night", 10)
    server = start_server(folder)
    log = ServerLog(server)
    try:
        with server.client(server.host_key, timeout=5) as host:

            def entries() -> list[dict[str, Any]]:
                return host.get("/api/v1/games").json()

            def copy_listed(events: int) -> Any:
                twins = [g for g in entries() if g["id"] == "night" and not g["served"]]
                return twins and twins[0]["events"] == events and twins[0]

            assert until(lambda: [g["id"] for g in entries()] == ["night"])
            copy = folder / "night-copy.jsonl"
            copy.write_bytes(night.read_bytes())
            twin = until(lambda: copy_listed(10), within=3)
            assert twin, entries()
            assert twin["problem"] == (
                "night-copy.jsonl: holds game night too, which is served from night.jsonl;"
                " not served (move one of the two out of the folder to serve the other)"
            )
            (served,) = [g for g in entries() if g["served"]]
            assert served["id"] == "night" and served["events"] == 10 and served["problem"] is None
            assert until(lambda: log.about("night-copy.jsonl"))
            assert "night-copy" in host.get("/").text  # the lobby names it too
            # The copy cut back (rewritten): read again.
            copy.write_bytes(b"".join(night.read_bytes().splitlines(keepends=True)[:4]))
            assert until(lambda: copy_listed(4), within=3), entries()
            assert host.get("/api/v1/games/night").json()["seq"] == 10  # still the first file
            # The copy rewritten as another game: served under its own id.
            other = a_log(tmp_path, "night-b", 6)
            copy.write_bytes(other.read_bytes())
            assert until(lambda: host.get("/api/v1/games/night-b").status_code == 200, within=3)
            assert host.get("/api/v1/games/night-b").json()["seq"] == 6
            assert sorted((g["id"], g["served"]) for g in entries()) == [("night", True), ("night-b", True)]
            # A copy again, and the first file deleted: the game is served from the copy.
            copy.write_bytes(b"".join(night.read_bytes().splitlines(keepends=True)[:7]))
            assert until(lambda: copy_listed(7), within=3), entries()
            night.unlink()
            assert until(lambda: host.get("/api/v1/games/night").json().get("seq") == 7, within=3)
            assert [(g["id"], g["served"]) for g in entries()] == [("night", True)]
            assert move(host, "night", 7, type="note", text="in the copy").status_code == 201
        assert we("audit", copy).returncode == 0
        assert not [line for line in log.read() if "Traceback" in line]
        assert server.stop(signal.SIGTERM) == 0
    finally:
        server.stop(signal.SIGKILL)


def test_a_log_moved_over_another_is_served_at_once(tmp_path: Path) -> None:
    # Issue 24.6: `mv second.jsonl first.jsonl` left game `second` unlisted (404) for ever.
    folder = tmp_path / "games"
    folder.mkdir()
    a_log(folder, "first", 5)
    second = a_log(folder, "second", 8)
    server = start_server(folder)
    try:
        with server.client(server.host_key, timeout=5) as host:
            assert until(lambda: sorted(listed(server)) == ["first", "second"])
            os.replace(second, folder / "first.jsonl")
            # The lobby looks at first.jsonl before it finds second.jsonl gone.
            assert host.get("/api/v1/games").status_code == 200
            assert until(lambda: host.get("/api/v1/games/second").status_code == 200, within=2.5)
            assert host.get("/api/v1/games/second").json()["seq"] == 8
            assert until(lambda: host.get("/api/v1/games/first").status_code == 404)
            assert [(g["id"], g["served"]) for g in host.get("/api/v1/games").json()] == [("second", True)]
            assert move(host, "second", 8, type="note", text="after the move").status_code == 201
        assert server.stop(signal.SIGTERM) == 0
    finally:
        server.stop(signal.SIGKILL)


def test_a_torn_line_left_by_a_writer_is_damage_until_repaired(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    path = a_log(folder, "night", 10)
    server = start_server(folder)
    try:
        with server.host as host:
            assert until(lambda: host.get("/api/v1/games/night").json()["seq"] == 10)
            with_line(path, b'{"v":1,"game":"night","seq":11,"at":')
            assert until(lambda: listed(server)["night"]["problem"])
            assert "torn" in listed(server)["night"]["problem"]
            assert we("repair", path).returncode == 0
            assert until(lambda: listed(server)["night"]["problem"] is None)
            answer = move(host, "night", 10, type="note", text="after the repair")
            assert answer.status_code == 201, answer.text
        assert we("audit", path).returncode == 0
    finally:
        assert server.stop() == 0


# --- hostile requests ---------------------------------------------------------------------

PYDANTIC_WORDS = re.compile(r"Input should|Field required|validation error|type=|\[|For further")


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("hostile-requests"))
    yield running
    assert running.stop() == 0


def hostile_requests(game: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    setup = {
        "players": ["Ann", "Ben", "Cat"],
        "dealer": "Cat",
        "lists": {"Ann": "RGY", "Ben": "BGO", "Cat": "RBO"},
    }
    moves = f"/api/v1/games/{game}/moves"
    note = {"type": "note", "text": "x"}

    def body(text: str) -> dict[str, Any]:
        return {"content": text.encode(), "headers": {"content-type": "application/json"}}

    yield "POST", "/api/v1/games", body(json.dumps({**setup, "options": {"no_such_rule": True}}))
    yield (
        "POST",
        "/api/v1/games",
        body(json.dumps({**setup, "options": {"x": [[[[[[[[[[]]]]]]]]]]}})),
    )
    yield "POST", "/api/v1/games", body(json.dumps(setup)[:-1] + ', "options": {"x": 18446744073709551616}}')
    yield "POST", "/api/v1/games", body(json.dumps({**setup, "players": [1, 2, 3]}))
    yield "POST", "/api/v1/games", body(json.dumps({**setup, "deal_attics": "yes"}))
    yield "POST", "/api/v1/games", body(json.dumps({"players": ["Ann"] * 3}))
    yield "POST", "/api/v1/games", body('{"players": ' + "[" * 5000 + "]" * 5000 + "}")
    yield "POST", "/api/v1/games", body("{" + " " * (64 * 1024) + "}")
    yield "POST", moves, body('{"expect": 18446744073709551616, "move": {"type": "note", "text": "x"}}')
    yield "POST", moves, body('{"expect": 1e400, "move": {"type": "note", "text": "x"}}')
    yield "POST", moves, body(json.dumps({"expect": -1, "move": note}))
    yield "POST", moves, body(json.dumps({"expect": "2", "move": note}))
    yield "POST", moves, body(json.dumps({"expect": 2, "move": {"type": "note", "text": [[["deep"]]]}}))
    yield "POST", moves, body(json.dumps({"expect": 2, "move": {"type": "note", "text": ""}}))
    yield (
        "POST",
        moves,
        body(json.dumps({"expect": 2, "move": {"type": "open", "as": "A" * 9000, "card": "R1"}})),
    )
    yield "POST", moves, body(json.dumps({"expect": 2, "move": {"type": "undo", "reason": 5}}))
    yield "POST", moves, body(json.dumps({"expect": 2}))
    yield "GET", f"/api/v1/games/{game}/events?after=-1", {}
    yield "GET", f"/api/v1/games/{game}/events?after=1e3", {}
    yield "GET", f"/api/v1/games/{game}/stream", {"headers": {"Last-Event-ID": "9" * 5000}}
    yield "GET", "/api/v1/games/" + "a" * 6000, {}
    yield "GET", "/api/v1/games/..%2F..%2F..%2Fetc%2Fpasswd", {}
    yield "GET", "/api/v1/games/a%00b/events", {}
    yield "GET", "/t/" + "%ff" * 2000, {}


def test_hostile_requests_get_a_4xx_in_one_plain_sentence(plain_server: Server) -> None:
    game = new_game(plain_server, title="Hostile")["id"]
    with plain_server.host as host:
        for method, url, how in hostile_requests(game):
            answer = host.request(method, url, **how)
            assert 400 <= answer.status_code < 500, (url[:80], how, answer.status_code, answer.text[:300])
            if answer.headers["content-type"].startswith("text/html"):  # a page: a page to read
                error = re.search(r"</h1><p>(.*?)</p>", answer.text).group(1)  # type: ignore[union-attr]
            else:
                error = answer.json()["error"]
            assert "\n" not in error and len(error) < 300, (url[:80], error[:300])
            assert not PYDANTIC_WORDS.search(error), (url[:80], how, error)
        assert host.get(f"/api/v1/games/{game}").json()["seq"] == 2  # none of them wrote


def test_an_after_too_long_for_a_number_is_said_to_be_out_of_range(plain_server: Server) -> None:
    game = new_game(plain_server, title="Range")["id"]
    with plain_server.host as host:
        answer = host.get(f"/api/v1/games/{game}/events?after={10**24}")
    assert answer.status_code == 422
    assert "out of range" in answer.json()["error"], answer.json()


# --- a SQLite file given to --db ----------------------------------------------------------


@pytest.fixture
def short_tmp_path() -> Iterator[Path]:
    """A folder with a short name: an error names a file whole only up to a length (a longer
    name is clipped), and pytest's folders are long under xdist."""
    folder = Path(tempfile.mkdtemp(prefix="we-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_serve_db_on_a_sqlite_file_refuses_it_untouched(short_tmp_path: Path) -> None:
    tmp_path = short_tmp_path
    foreign = tmp_path / "inventory.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE stock (item TEXT, count INTEGER)")
        conn.execute("INSERT INTO stock VALUES ('mugs', 12)")
    conn.close()
    library = tmp_path / "club.db"
    assert we("import", "--db", library, a_log(tmp_path, "night")).returncode == 0
    for db in (foreign, library):
        before = sha(db)
        result = we("serve", "--db", db, "--port", "0")
        assert result.returncode == 1, result
        (said,) = result.stderr.splitlines()
        assert said.startswith(f"we: error: --db {db}") and "PostgreSQL" in said
        assert sha(db) == before
        assert not Path(f"{db}-wal").exists()
    with sqlite3.connect(foreign) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_a_host_key_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    (folder / ".we").mkdir(parents=True)
    os.mkfifo(folder / ".we" / "host-key")
    command = [sys.executable, "-m", "cli.main", "serve", str(folder), "--port", "0"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=we_env(), timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("`we serve` waited on a FIFO host key") from None
    assert result.returncode == 1
    (said,) = result.stderr.splitlines()
    assert "host-key" in said and "regular file" in said


# --- a damaged or foreign PostgreSQL library ----------------------------------------------


def test_serve_db_on_damaged_and_foreign_postgresql_libraries(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    logs = [a_log(tmp_path, name) for name in ("alpha", "beta", "gamma", "delta")]
    assert we("import", "--db", pg_url, *logs).returncode == 0
    damage = {
        "beta": (3, '\'{"a": ' + "[" * 1000 + "]" * 1000 + "}'", "nested more than 64 levels"),
        "gamma": (4, "'{\"x\": 18446744073709551616}'", "outside the signed 64-bit range"),
        "delta": (5, "'not json'", "`data` must be an object"),
    }
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for name, (seq, data, _) in damage.items():
            key = f"(SELECT key FROM games WHERE id = '{name}')"
            conn.execute(f"UPDATE events SET data = {data} WHERE game = {key} AND seq = {seq}")  # type: ignore[arg-type]
        conn.execute("UPDATE games SET players = 'x', events = -5 WHERE id = 'alpha'")  # its summary only
        rows = conn.execute("SELECT count(*) FROM events").fetchone()
    server = start_server(None, "--db", pg_url)
    try:
        games = until(lambda: (g := listed(server)) and len(g) == 4 and g)
        assert games, listed(server)
        assert games["alpha"]["problem"] is None and games["alpha"]["events"] == 76
        with server.host as host:
            for name, (seq, _, words) in damage.items():
                problem = games[name]["problem"]
                assert problem.startswith(f"{name}: line {seq}: integrity: ") and words in problem, problem
                assert games[name]["events"] == seq - 1
                answer = move(host, name, seq - 1, type="note", text="onto damage")
                assert answer.status_code == 422 and "damaged" in answer.json()["error"], answer.text
            assert move(host, "alpha", 76, type="note", text="fine").status_code == 201
            for odd in ("a%00b", "x" * 3000, "..%2Fsettings"):
                assert host.get(f"/api/v1/games/{odd}").status_code == 404
        assert server.stop() == 0
        assert server.process.stderr is not None
        assert server.process.stderr.read() == ""  # nothing the server could not read
    finally:
        server.stop(signal.SIGKILL)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (rows[0] + 1,)  # type: ignore[index]
        # Someone else's database (a `games` table that is not ours) is refused and left alone.
        conn.execute("DROP VIEW envelopes")
        conn.execute("DROP TABLE games, events, settings")
        conn.execute("CREATE TABLE games (name text)")
        conn.execute("INSERT INTO games VALUES ('chess')")
        tables = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        before = sorted(conn.execute(tables).fetchall())
        result = we("serve", "--db", pg_url, "--port", "0")
        assert result.returncode == 1
        (said,) = result.stderr.splitlines()
        assert "not a game library" in said, said
        assert sorted(conn.execute(tables).fetchall()) == before
        assert conn.execute("SELECT name FROM games").fetchall() == [("chess",)]
