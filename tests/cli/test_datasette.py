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
    finally:
        os.killpg(server.pid, signal.SIGINT)
        server.communicate(timeout=60)
    assert server.returncode == 0, server.returncode


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
