"""`we datasette LIBRARY`: Datasette on a library of any name, with its canned queries and labels
(a metadata file keyed "games" was silently ignored for `we-club.db`). Real processes: `we
datasette` starts the real Datasette, and the test reads its HTTP answers."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.cli.weharness import one_error_line, we

ROOT = Path(__file__).resolve().parents[2]
READY = re.compile(r"Uvicorn running on (http://127\.0\.0\.1:\d+)")


@pytest.fixture
def club(tmp_path: Path) -> Path:
    library = tmp_path / "we-club.db"
    samples = [ROOT / "replays/game-night-3p.jsonl", ROOT / "replays/tie-5p.jsonl"]
    result = we("import", *samples, "--db", library)
    assert result.exit_code == 0, result.stderr
    return library


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def test_datasette_serves_the_canned_queries_of_a_library_named_we_club(club: Path) -> None:
    pytest.importorskip("datasette", reason="Datasette is not installed (pip install '.[datasette]')")
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "datasette", str(club), "--port", "0"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its Datasette child is stopped with it, by the group
    )
    try:
        assert server.stderr is not None
        base = None
        seen = []
        for line in server.stderr:  # readiness: uvicorn's own line, with the port it was given
            seen.append(line)
            if found := READY.search(line):
                base = found.group(1)
                break
        assert base is not None, "Datasette never said it was running:\n" + "".join(seen)

        winners = get_json(f"{base}/we-club/winners.json?_shape=array")
        assert winners == [{"winner": "Cat", "wins": 1}, {"winner": "Jonas", "wins": 1}]
        events = get_json(f"{base}/we-club/events_of.json?_shape=array&game=new-years-eve-2026")
        assert isinstance(events, list) and len(events) == 76 and events[0]["type"] == "game_started"
        metadata = get_json(f"{base}/-/metadata.json")
        assert isinstance(metadata, dict)
        assert metadata["databases"]["we-club"]["tables"]["games"]["label_column"] == "title"
        # The club's import alone made the ratings: no `we stats --ratings` was run first.
        ladder = get_json(f"{base}/we-club/ladder.json?_shape=array")
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.communicate(timeout=60)
    assert server.returncode == 0, server.returncode
    shown = json.loads(we("stats", "--ratings", "--json", "--db", club).stdout)
    assert isinstance(ladder, list)
    assert [row["player"] for row in ladder] == [r["player"] for r in shown["ratings"]]
    assert ladder[0]["ordinal"] == round(shown["ratings"][0]["ordinal"], 2)


def test_the_metadata_is_written_for_the_library_s_own_name(club: Path, tmp_path: Path) -> None:
    out = tmp_path / "meta.json"
    result = we("datasette", club, "--write-metadata", out)
    assert result.exit_code == 0, result.stderr
    metadata = json.loads(out.read_text())
    assert list(metadata["databases"]) == ["we-club"]
    assert "winners" in metadata["databases"]["we-club"]["queries"]


@pytest.mark.parametrize(
    ("library", "names"),
    [
        ("nothing-here.db", "no library at"),
        ("postgresql://we@localhost/league", "not PostgreSQL"),
        ("README.md", "is not a SQLite file"),
    ],
)
def test_what_datasette_cannot_open_is_one_line(library: str, names: str) -> None:
    result = we("datasette", ROOT / library if "://" not in library else library)
    assert result.exit_code == 1
    assert names in one_error_line(result)


def test_without_datasette_installed_one_line_says_how_to_install_it(club: Path) -> None:
    """Datasette made unimportable the way Python itself reads it (a None entry in sys.modules)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['datasette'] = None; from cli.main import main; main()",
            "datasette",
            str(club),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "we: error: Datasette is not installed: python -m pip install '.[datasette]'"
        " in a clone of we (or just: python -m pip install datasette)"
    ]


def process_state(pid: int) -> str | None:
    """A process's state letter from /proc (Z: exited, not yet reaped), or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_to_we_datasette_takes_datasette_and_its_temporary_folder_with_it(
    club: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    pytest.importorskip("datasette", reason="Datasette is not installed (pip install '.[datasette]')")
    temp = tmp_path / "temp"
    temp.mkdir()
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "datasette", str(club), "--port", "0"],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temp)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    children: list[int] = []
    try:
        assert server.stderr is not None
        base = None
        for line in server.stderr:
            if found := READY.search(line):
                base = found.group(1)
                break
        assert base is not None
        children = [
            int(pid) for pid in Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        ]
        assert len(children) == 1 and any(temp.iterdir())

        os.kill(server.pid, stop)  # `we` alone, as `kill` or a closed terminal would: not its group
        server.communicate(timeout=60)

        assert server.returncode == 0, server.returncode
        assert process_state(children[0]) in (None, "Z"), "Datasette still runs after `we datasette` ended"
        with pytest.raises(OSError):
            urllib.request.urlopen(f"{base}/-/versions.json", timeout=5)
        assert list(temp.iterdir()) == []
    finally:
        for pid in children:  # on the old code Datasette outlived `we`: do not leave it serving
            if process_state(pid) not in (None, "Z"):
                os.kill(pid, signal.SIGKILL)
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.communicate()


def test_datasette_does_not_outlive_a_we_datasette_killed_outright(club: Path, tmp_path: Path) -> None:
    """SIGKILL cannot be passed on: Datasette is told by the kernel (Linux's parent-death
    signal) instead. Its temporary folder is left, as nothing of `we` runs to remove it."""
    pytest.importorskip("datasette", reason="Datasette is not installed (pip install '.[datasette]')")
    import select

    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "datasette", str(club), "--port", "0"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    child = None
    try:
        assert server.stderr is not None
        for line in server.stderr:
            if READY.search(line):
                break
        (child,) = [
            int(pid) for pid in Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        ]
        watch = os.pidfd_open(child)
        os.kill(server.pid, signal.SIGKILL)
        server.communicate(timeout=60)
        ready, _, _ = select.select([watch], [], [], 60)  # readable once Datasette has exited
        os.close(watch)
        assert ready, "Datasette still runs after `we datasette` was killed"
    finally:
        if child is not None and process_state(child) not in (None, "Z"):
            os.kill(child, signal.SIGKILL)
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.communicate()
