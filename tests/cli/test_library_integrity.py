"""What a hostile user could still get past the library (issue 24): names that are one name
only after Unicode NFC, a key written twice in a row's stored `data`, a games key past 2**31;
on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import psycopg
import pytest
from weharness import VECTORS, one_error_line, sealed, we

FOUR = VECTORS / "four-players-dealt.jsonl"
ONE = VECTORS / "one-party.jsonl"
PRECOMPOSED, DECOMPOSED = "Zo\u00eb", "Zoe\u0308"


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request, tmp_path) -> str:
    """A new, empty library of each kind, as --db takes it."""
    if request.param == "sqlite":
        return str(tmp_path / "lib.db")
    return request.getfixturevalue("pg_url")


def dealt_to_zoe_twice(tmp_path: Path, field: str) -> Path:
    """The four-player vector with Ann renamed Zoë, and her gift list or attic dealt a second
    time under her name decomposed: merged after NFC, it used to pass for one deal each."""
    text = FOUR.read_text(encoding="utf-8").replace('"Ann"', f'"{PRECOMPOSED}"')
    objs = [orjson.loads(line) for line in text.splitlines()]
    seq = {"lists": 2, "attics": 3}[field]
    keyed = objs[seq - 1]["data"][field]
    keyed[DECOMPOSED] = keyed[PRECOMPOSED]
    return sealed(tmp_path / f"twice-{field}.jsonl", objs)


@pytest.mark.parametrize("field", ["lists", "attics"])
def test_a_key_that_is_a_player_only_after_nfc_is_refused_not_merged(tmp_path, library, field):
    log = dealt_to_zoe_twice(tmp_path, field)
    audited = we("audit", log)
    assert audited.exit_code == 1
    # Names are read code point for code point: the decomposed key is nobody at this table.
    # Spelled with escapes: printed as it is, it would read the same as the player it is not.
    assert f"{DECOMPOSED!a} is not a player" in audited.stdout, audited.stdout
    imported = we("import", log, "--db", library)
    assert imported.exit_code == 1
    assert "rules" in imported.stderr or "not a player" in imported.stderr + imported.stdout
    assert "0 imported" in imported.stdout or "imported game" not in imported.stdout


def test_two_players_one_name_after_nfc_are_refused_at_set_up(tmp_path):
    out = tmp_path / "new.jsonl"
    result = we("record", out, "--players", f"{PRECOMPOSED},Ben,{DECOMPOSED}", "--dealer", "Ben",
                "--lists", "Ben=RGY", input="")  # fmt: skip
    assert result.exit_code != 0
    assert "two players are called" in result.stderr
    assert not out.exists() or b"game_started" not in out.read_bytes()


def repeat_a_key(library: str) -> None:
    """Write `card` a second time at the front of one gift_opened row's stored `data`: SQLite's
    `data->>'card'` reads the new value, orjson the old."""
    edit = 'UPDATE events SET data = \'{"card":"B10",\' || substr(data, 2) WHERE {row}'
    if library.startswith("postgresql"):
        row = "(game, seq) = (SELECT game, min(seq) FROM events WHERE type = 'gift_opened' GROUP BY game)"
        with psycopg.connect(library, autocommit=True) as conn:
            conn.execute(edit.replace("{row}", row))
        return
    with sqlite3.connect(library) as conn:
        conn.execute(edit.replace("{row}", "id = (SELECT min(id) FROM events WHERE type = 'gift_opened')"))


def test_a_key_written_twice_in_a_rows_data_is_an_integrity_problem(library):
    assert we("import", FOUR, "--db", library).exit_code == 0
    repeat_a_key(library)
    audited = we("audit", "vector-two", "--db", library)
    assert audited.exit_code == 1
    assert "integrity: the key 'card' appears twice in one object" in audited.stdout
    assert "fingerprint not proven" in audited.stdout


def test_a_games_key_past_2_31_leaves_new_games_importable(library):
    assert we("import", ONE, "--db", library).exit_code == 0
    if library.startswith("postgresql"):
        with psycopg.connect(library, autocommit=True) as conn:
            conn.execute("ALTER TABLE games ALTER COLUMN key RESTART WITH 2147483648")
    else:
        with sqlite3.connect(library) as conn:
            conn.execute("UPDATE games SET key = 2147483648")
    imported = we("import", FOUR, "--db", library)
    assert imported.exit_code == 0, imported.stderr
    assert "Traceback" not in imported.stderr
    assert we("audit", "vector-two", "--db", library).exit_code == 0
    # The game whose row was edited is named as damaged, in one line.
    if library.startswith("postgresql"):
        assert we("audit", "vector-one", "--db", library).exit_code == 0
    else:
        line = one_error_line(we("audit", "vector-one", "--db", library))
        assert "key 2147483648 is out of range" in line


# --- messages -----------------------------------------------------------------------


def test_export_of_a_tampered_game_fails_with_one_line_not_fingerprint_none(tmp_path):
    db = tmp_path / "lib.db"
    assert we("import", FOUR, "--db", db).exit_code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET at = '2026-11-26T19:00:59Z' WHERE (id & 4294967295) = 6")
    for out in (tmp_path / "out.jsonl", "-"):
        result = we("export", "vector-two", "-o", out, "--db", db)
        assert result.exit_code == 1
        line = one_error_line(result)
        assert "fails integrity checks at line 6" in line and "None" not in line


def test_export_of_a_game_without_event_rows_writes_no_file(tmp_path):
    db, out = tmp_path / "lib.db", tmp_path / "out.jsonl"
    assert we("import", FOUR, "--db", db).exit_code == 0
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM events")
    result = we("export", "vector-two", "-o", out, "--db", db)
    assert result.exit_code == 1
    assert "has no event rows" in one_error_line(result)
    assert not out.exists()


def test_repair_names_a_dangling_link_for_what_it_is(tmp_path):
    link = tmp_path / "game.jsonl"
    link.symlink_to(tmp_path / "gone.jsonl")
    assert "a dangling symbolic link" in one_error_line(we("repair", link))


def test_repair_refuses_a_big_file_of_something_else_at_its_first_line(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not a log\n")
    with open(junk, "r+b") as f:
        f.truncate(256 * 1024 * 1024)  # sparse: nothing to write, all of it to read

    def read_so_far() -> int:
        io = Path("/proc/self/io").read_text()
        return int(next(line for line in io.splitlines() if line.startswith("rchar:")).split()[1])

    before = read_so_far()
    line = one_error_line(we("repair", junk))
    assert read_so_far() - before < 16 * 1024 * 1024
    assert "not a game log (line 1" in line


def test_a_postgresql_library_missing_a_column_is_said_to_be_damaged(pg_url):
    assert we("import", ONE, "--db", pg_url).exit_code == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE games DROP COLUMN winner")
    for args in (["games"], ["audit", "vector-one"], ["import", FOUR]):
        line = one_error_line(we(*args, "--db", pg_url))
        assert "this library is damaged: the games table has no column winner" in line


# --- search ---------------------------------------------------------------------------


def test_games_search_finds_a_title_a_player_and_a_note_added_later(tmp_path, library):
    assert we("import", ONE, FOUR, "--db", library).exit_code == 0
    objs = [orjson.loads(line) for line in FOUR.read_bytes().splitlines()]
    note = {**objs[-1], "type": "note", "data": {"text": "Grandma's fruitcake again"}}
    extended = sealed(tmp_path / "more.jsonl", [*objs, note])
    assert we("import", extended, "--db", library).exit_code == 0

    def found(text: str) -> list[str]:
        result = we("games", "--search", text, "--json", "--db", library)
        assert result.exit_code == 0, result.stderr
        return [orjson.loads(line)["id"] for line in result.stdout.splitlines()]

    assert found("vector one") == ["vector-one"]  # title
    assert found("Dev") == ["vector-two"]  # a player
    assert found("fruitcake") == ["vector-two"]  # the note, appended after the import
    assert found("fruitcake ann") == ["vector-two"]
    assert found('nobody "*') == []
    text = we("games", "--search", "fruitcake", "--db", library)
    assert "vector-two" in text.stdout and "1 game in" in text.stdout


def test_a_games_notes_in_the_library_are_one_a_line_not_run_together(tmp_path):
    """Datasette shows `games.notes`: two notes are two lines, not one sentence."""
    from weharness import ROOT

    library = tmp_path / "lib.db"
    night = ROOT / "replays" / "game-night-3p.jsonl"
    assert we("import", night, "--db", library).exit_code == 0
    with sqlite3.connect(library) as conn:
        (notes,) = conn.execute("SELECT notes FROM games").fetchone()
    assert notes.splitlines() == [
        "Dinner break: Jonas made lasagne",
        "Priya's cat walked across the table; no cards moved",
    ]
    # A note appended after the import goes on a line of its own too.
    objs = [orjson.loads(line) for line in night.read_bytes().splitlines()]
    note = {**objs[-1], "type": "note", "data": {"text": "Coffee"}}
    assert we("import", sealed(tmp_path / "more.jsonl", [*objs, note]), "--db", library).exit_code == 0
    with sqlite3.connect(library) as conn:
        (notes,) = conn.execute("SELECT notes FROM games").fetchone()
    assert notes.splitlines()[-2:] == ["Priya's cat walked across the table; no cards moved", "Coffee"]
