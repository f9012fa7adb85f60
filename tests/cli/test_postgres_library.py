"""The library on a real PostgreSQL, through the real `we` processes: `--db URL`, `WE_DB`,
moving a library with `--from-db`, importers racing, an importer killed mid-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eventstore.integrity import verify_log
from eventstore.postgres import Library as PgLibrary
from eventstore.sqlite import Library

ROOT = Path(__file__).resolve().parents[2]


def we_process(*args: object, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def we(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = we_process(*args, env=env)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def simulated(folder: Path, games: int, seed: str) -> list[Path]:
    out = we("simulate", "-k", games, "--seed", seed, "--out", folder)
    assert out.returncode == 0, out.stderr
    return sorted(folder.glob("*.jsonl"))


def same_log(exported: Path, original: Path) -> bool:
    """The same events, field for field (the library keeps `data` canonical, so the bytes of
    a log written otherwise may differ), and so the same hashes and fingerprint."""
    parsed = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert parsed == [json.loads(line) for line in original.read_text(encoding="utf-8").splitlines()]
    return verify_log(exported).fingerprint == verify_log(original).fingerprint


def stored(url: str) -> dict[str, int]:
    with PgLibrary(url) as library:
        return {row["id"]: row["events"] for row in library.games()}


def test_every_library_command_takes_a_url(pg_url: str, tmp_path: Path) -> None:
    logs = simulated(tmp_path / "logs", 3, "url")
    out = we("import", *logs, "--db", pg_url)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("imported game") == 3
    # WE_DB works as --db does; the listing names the library by its URL.
    listing = we("games", env={"WE_DB": pg_url})
    assert (
        listing.returncode == 0
        and "sim-url-2" in listing.stdout
        and "3 games in postgresql://" in listing.stdout
    )
    assert we("stats", "--db", pg_url).stdout.count("3 finished games counted") == 1
    for command in ("audit", "score", "replay"):
        by_id = we(command, "sim-url-1", "--db", pg_url)
        assert by_id.returncode == 0, (command, by_id.stderr)
    fingerprint = verify_log(logs[0]).fingerprint
    assert fingerprint is not None and fingerprint in we("audit", "sim-url-1", "--db", pg_url).stdout
    target = tmp_path / "back.jsonl"
    exported = we("export", "sim-url-1", "-o", target, "--db", pg_url)
    assert exported.returncode == 0, exported.stderr
    assert same_log(target, logs[0])
    sim = we("simulate", "-k", 2, "--seed", "direct", "--db", pg_url)
    assert sim.returncode == 0, sim.stderr
    assert set(stored(pg_url)) == {"sim-url-1", "sim-url-2", "sim-url-3", "sim-direct-1", "sim-direct-2"}


def test_bad_urls_are_one_line_errors(pg_url: str) -> None:
    missing = pg_url.replace("/we_test_", "/no_such_database_", 1)
    out = we("games", "--db", missing)
    assert out.returncode == 1 and out.stderr.startswith("we: error: ") and "Traceback" not in out.stderr
    assert "does not exist" in out.stderr
    hidden = we("games", "--db", "postgresql://we:secret-word@127.0.0.1:1/x")
    assert hidden.returncode == 1 and "secret-word" not in hidden.stderr and "***" in hidden.stderr


def test_someone_elses_database_is_left_alone(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE games (name text)")
    out = we("games", "--db", pg_url)
    assert out.returncode == 1 and "not a game library" in out.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:
        tables = {
            name for (name,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert tables == {"games"}


def test_moving_a_library_between_sqlite_and_postgresql(pg_url: str, tmp_path: Path) -> None:
    logs = simulated(tmp_path / "logs", 4, "move")
    sqlite_db = tmp_path / "club.db"
    assert we("import", *logs, "--db", sqlite_db).returncode == 0
    # A tampered row in the SQLite library: that game is refused on the way, the rest move.
    with Library(sqlite_db) as library:
        library.conn.execute(
            "UPDATE events SET data = replace(data, 'Ann', 'Bob') WHERE id = (SELECT min(id) FROM events)"
        )
    moved = we("import", "--from-db", sqlite_db, "--db", pg_url)
    assert moved.returncode == 1
    assert "3 imported, 1 refused." in moved.stdout, moved.stdout
    assert "refused sim-move-1: line 1: integrity" in moved.stderr
    assert set(stored(pg_url)) == {"sim-move-2", "sim-move-3", "sim-move-4"}
    # And back, into a new SQLite file: the same bytes as the original logs.
    back = tmp_path / "back.db"
    out = we("import", "--from-db", pg_url, "--db", back)
    assert out.returncode == 0, out.stderr
    for log in logs[1:]:
        target = tmp_path / f"out-{log.name}"
        assert we("export", log.stem, "-o", target, "--db", back).returncode == 0
        assert same_log(target, log)
    again = we("import", "--from-db", pg_url, "--db", back)
    assert again.returncode == 0 and "3 unchanged." in again.stdout


def test_four_importers_at_once_lose_and_double_nothing(pg_url: str, tmp_path: Path) -> None:
    logs = simulated(tmp_path / "logs", 60, "four")
    expected = {log.stem: verify_log(log) for log in logs}
    # Overlapping sets: every game in three of the four, two importers in reverse order (so
    # that they wait on each other's games both ways).
    sets = [[log for i, log in enumerate(logs) if i % 4 != k] for k in range(4)]
    sets[1].reverse()
    sets[3].reverse()
    PgLibrary(pg_url).close()  # the tables exist; the importers race on the games
    importers = [we_process("import", *paths, "--db", pg_url) for paths in sets]
    for proc in importers:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "refused" not in err
    games = stored(pg_url)
    assert games == {gid: result.events for gid, result in expected.items()}
    with PgLibrary(pg_url) as library:
        (rows,) = library.conn.execute("SELECT count(*) FROM events").fetchone()
        assert rows == sum(r.events for r in expected.values())
        for gid, result in expected.items():
            check = library.log(gid).verify()
            assert check.ok and check.fingerprint == result.fingerprint


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("archive") / "logs"
    simulated(folder, 900, "kill")  # about 75,000 events: an import commits mid-way
    return folder


def test_an_import_killed_mid_way_stores_whole_games_only(pg_url: str, archive: Path, tmp_path: Path) -> None:
    logs = sorted(archive.glob("*.jsonl"))
    expected = {log.stem: log for log in logs}
    importer = we_process("import", archive, "--db", pg_url)
    assert importer.stdout is not None
    for _ in range(700):
        assert importer.stdout.readline(), importer.stderr.read() if importer.stderr else ""
    time.sleep(0.05)
    importer.send_signal(signal.SIGKILL)
    importer.communicate(timeout=60)
    assert importer.returncode == -signal.SIGKILL
    games = stored(pg_url)
    assert 0 < len(games) < len(logs)  # it did die mid-way, after a commit
    with PgLibrary(pg_url) as library:
        (rows,) = library.conn.execute("SELECT count(*) FROM events").fetchone()
        assert rows == sum(games.values())  # no event without its game
        for gid in games:
            target = tmp_path / f"{gid}.out"
            library.export(gid, target)
            assert same_log(target, expected[gid]), gid
    finish = we("import", archive, "--db", pg_url)
    assert finish.returncode == 0, finish.stderr
    assert f"{len(logs) - len(games)} imported" in finish.stdout.splitlines()[-1]
    assert len(stored(pg_url)) == len(logs)


def test_an_import_that_loses_its_database_stops_with_one_line(pg_url: str, archive: Path) -> None:
    import psycopg

    importer = we_process("import", archive, "--db", pg_url)
    assert importer.stdout is not None
    for _ in range(700):
        assert importer.stdout.readline()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    _, err = importer.communicate(timeout=60)
    assert importer.returncode == 1
    assert len(err.splitlines()) == 1 and "lost the connection to the game library" in err, err
    assert "Traceback" not in err and "refused" not in err
    games = stored(pg_url)
    assert 0 < len(games) < 900
    finish = we("import", archive, "--db", pg_url)
    assert finish.returncode == 0, finish.stderr
    assert len(stored(pg_url)) == 900


def test_from_db_needs_a_library(tmp_path: Path) -> None:
    args = ["import", "--from-db", tmp_path / "none.db", "--db", tmp_path / "lib.db"]
    out = we(*args)
    assert out.returncode == 1 and "there is no library at" in out.stderr
    usage = we("import", "--db", tmp_path / "lib.db")
    assert usage.returncode == 2 and "--from-db" in usage.stderr


def test_one_batch_sees_its_own_games(pg_url: str, tmp_path: Path) -> None:
    (log,) = simulated(tmp_path / "logs", 1, "twice")
    lines = log.read_bytes().splitlines(keepends=True)
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_bytes(b"".join(lines[:10]))
    # New in this batch, then again, then longer, then a prefix: each judged against what
    # the batch stored before it, not yet committed.
    out = we("import", prefix, prefix, log, prefix, "--db", pg_url)
    assert out.returncode == 0, out.stderr
    assert "1 imported, 1 extended, 2 unchanged." in out.stdout, out.stdout
    assert stored(pg_url) == {log.stem: len(lines)}


def test_commands_that_only_read_leave_an_empty_database_alone(pg_url: str) -> None:
    import psycopg

    assert "No games: there is no library at postgresql://" in we("games", "--db", pg_url).stdout
    assert "there is no library at" in we("export", "some-game", "--db", pg_url).stderr
    assert "not a game id in the library" in we("audit", "some-game", "--db", pg_url).stderr
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
    assert we("simulate", "--seed", "first", "--db", pg_url).returncode == 0  # a writer lays it out
    assert "1 game in postgresql://" in we("games", "--db", pg_url).stdout
