"""The library commands: import, export, games, stats; and repair of a torn log file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from weharness import VECTORS, one_error_line, we

from eventstore.envelope import seal

ONE = VECTORS / "one-party.jsonl"
FOUR = VECTORS / "four-players-dealt.jsonl"
EDITED = VECTORS / "four-players-edited.jsonl"


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "lib" / "games.db"
    # never the user's library, even for a command run without --db
    monkeypatch.setenv("WE_DB", str(path))
    return path


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.replace("\u2503", "\u2502").split("\u2502")]


def fingerprint(target: str | Path, *extra: object) -> str:
    result = we("audit", "--json", target, *extra)
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)["fingerprint"]


def resealed_with_extra_field(tmp_path: Path) -> Path:
    out, prev = [], None
    for seq, line in enumerate(ONE.read_bytes().splitlines(), start=1):
        obj = orjson.loads(line)
        if seq == 6:
            obj["data"]["extra"] = True
        envelope = seal(obj["game"], seq, obj["at"], obj["type"], obj["data"], prev)
        prev = envelope.hash
        out.append(envelope.to_line())
    path = tmp_path / "schema.jsonl"
    path.write_bytes(b"".join(out))
    return path


# --- import and export -------------------------------------------------------------


def test_import_export_round_trip_keeps_the_fingerprint(db, tmp_path):
    result = we("import", FOUR, ONE, "--db", db)
    assert result.exit_code == 0, result.stderr
    assert "imported game 'vector-two' (87 events), fingerprint 533f2d2596f7" in result.stdout
    assert "2 imported." in result.stdout
    out = tmp_path / "back.jsonl"
    exported = we("export", "vector-two", "-o", out, "--db", db)
    assert exported.exit_code == 0, exported.stderr
    assert "87 events, fingerprint 533f2d2596f7" in exported.stdout
    assert fingerprint(out) == fingerprint(FOUR) == fingerprint("vector-two", "--db", db) == "533f2d2596f7"
    # the same events, hash for hash
    hashes = [orjson.loads(line)["hash"] for line in out.read_bytes().splitlines()]
    assert hashes == [orjson.loads(line)["hash"] for line in FOUR.read_bytes().splitlines()]


def test_importing_the_same_log_twice_is_a_no_op(db):
    assert we("import", ONE).exit_code == 0
    again = we("import", ONE)
    assert again.exit_code == 0
    assert "nothing to import" in again.stdout and "already in the library" in again.stdout
    listing = we("games").stdout
    assert sum(line.startswith("vector-one") for line in listing.splitlines()) == 1


def test_tampered_logs_are_refused_one_line_each_and_the_rest_imported(db, tmp_path):
    schema = resealed_with_extra_field(tmp_path)
    result = we("import", EDITED, ONE, schema, tmp_path / "missing.jsonl")
    assert result.exit_code == 1
    refusals = result.stderr.splitlines()
    assert len(refusals) == 3
    assert refusals[0].startswith(f"we: refused {EDITED}: line 20: integrity:")
    assert refusals[1].startswith(f"we: refused {schema}: line 6: schema:")
    assert "missing.jsonl: no such file" in refusals[2]
    assert "1 imported, 3 refused." in result.stdout
    ids = [cells(line)[0] for line in we("games").stdout.splitlines() if "\u2502" in line]
    assert ids == ["vector-one"]


def test_a_different_log_under_the_same_id_is_refused(db, tmp_path):
    assert we("import", FOUR).exit_code == 0
    clone = tmp_path / "clone.jsonl"
    lines = FOUR.read_bytes().splitlines(keepends=True)
    clone.write_bytes(b"".join(lines[:40]))
    assert we("import", clone).exit_code == 0  # a prefix of the stored game: nothing new
    other = resealed_with_extra_field(tmp_path)
    other.write_bytes(other.read_bytes().replace(b"vector-one", b"vector-two"))
    result = we("import", other)
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1


def test_import_stores_the_summary(db):
    we("import", FOUR, ONE)
    rows = {cells(line)[0]: cells(line) for line in we("games").stdout.splitlines() if "\u2502" in line}
    assert rows["vector-two"][4:] == ["87", "yes", "Ann, Ben"]
    assert rows["vector-one"][1] == "Test vector one"
    assert rows["vector-one"][6] == "Cat"


def test_an_unfinished_game_is_listed_as_not_complete(db, tmp_path):
    half = tmp_path / "half.jsonl"
    half.write_bytes(b"".join(FOUR.read_bytes().splitlines(keepends=True)[:30]))
    assert we("import", half).exit_code == 0
    (row,) = [cells(line) for line in we("games").stdout.splitlines() if line.startswith("vector-two")]
    assert row[4:] == ["30", "no", "-"]
    # the rest of the game arrives later: the stored game is extended
    result = we("import", FOUR)
    assert "extended" in result.stdout
    (row,) = [cells(line) for line in we("games").stdout.splitlines() if line.startswith("vector-two")]
    assert row[4:] == ["87", "yes", "Ann, Ben"]


def test_export_refuses_to_overwrite_unless_forced(db, tmp_path):
    we("import", ONE)
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    result = we("export", "vector-one", "-o", out)
    assert result.exit_code == 1
    assert "already exists" in one_error_line(result)
    assert out.read_text() == "precious\n"
    forced = we("export", "vector-one", "-o", out, "--force")
    assert forced.exit_code == 0, forced.stderr
    assert fingerprint(out) == "abb6aa1e5ad9"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_export_of_an_unknown_game_is_one_line(db, tmp_path):
    we("import", ONE)
    result = we("export", "no-such-game", "-o", tmp_path / "x.jsonl")
    assert result.exit_code == 1
    assert "no-such-game" in one_error_line(result)
    assert not (tmp_path / "x.jsonl").exists()


def test_export_defaults_to_the_game_id_in_the_current_directory(db, tmp_path, monkeypatch):
    we("import", ONE)
    monkeypatch.chdir(tmp_path)
    assert we("export", "vector-one").exit_code == 0
    assert fingerprint(tmp_path / "vector-one.jsonl") == "abb6aa1e5ad9"


# --- games and stats ---------------------------------------------------------------


def test_games_lists_every_game(db):
    we("import", ONE, FOUR)
    result = we("games")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert cells(lines[0]) == ["id", "title", "players", "date", "events", "complete", "winner"]
    rows = [cells(line) for line in lines if line.startswith("vector-")]
    assert [row[0] for row in rows] == ["vector-one", "vector-two"]
    assert rows[0][2] == "Zo\u00eb, Ben, Cat"
    assert rows[0][3].startswith("2026-11-26")
    assert "2 games in" in lines[-1]


def test_games_and_stats_without_a_library_do_not_create_one(db):
    for command in ("games", "stats"):
        result = we(command)
        assert result.exit_code == 0
        assert "no library" in result.stdout
    assert not db.exists()


def test_stats_per_player_and_per_seat(db, tmp_path):
    half = tmp_path / "half.jsonl"
    half.write_bytes(b"".join(FOUR.read_bytes().splitlines(keepends=True)[:30]))
    shutil.copy(ONE, tmp_path / "one.jsonl")
    we("import", tmp_path)  # a directory: half.jsonl (unfinished) and one.jsonl
    we("import", FOUR)  # ... now complete: vector-two is extended
    result = we("stats")
    assert result.exit_code == 0, result.stderr
    # player, games, wins, win rate, mean score (then the think time per move, from the `at`s)
    players = {row[0]: row[1:5] for row in map(cells, result.stdout.splitlines()) if len(row) == 6}
    # Ben: 4 in vector-one (lost), 22 in vector-two (a win shared with Ann: half a win each,
    # as --fairness counts it; the wins of the table add up to the games played)
    assert players["Ben"] == ["2", "0.5", "25%", "13.0"]
    assert players["Ann"] == ["1", "0.5", "50%", "22.0"]
    assert players["Cat"] == ["2", "1", "50%", "7.0"]
    assert players["Zo\u00eb"] == ["1", "0", "0%", "0.0"]
    assert sum(float(players[name][1]) for name in ("Ann", "Ben", "Cat", "Dev", "Zo\u00eb")) == 2
    seats = {row[0]: row[1:] for row in map(cells, result.stdout.splitlines()) if len(row) == 4}
    assert seats["1"] == ["2", "0.5", "25%"]  # Zoë lost, Ann shared the win
    assert seats["3"] == ["2", "1", "50%"]  # Cat won vector-one
    assert seats["4"] == ["1", "0", "0%"]
    assert "2 finished games counted." in result.stdout
    assert "1 game ended in a tie nobody broke: a shared win" in result.stdout


def test_stats_leave_out_unfinished_games(db, tmp_path):
    half = tmp_path / "half.jsonl"
    half.write_bytes(b"".join(FOUR.read_bytes().splitlines(keepends=True)[:30]))
    we("import", half, ONE)
    result = we("stats")
    assert "Not counted, not over yet: vector-two." in result.stdout
    assert "1 finished game counted." in result.stdout


# --- repair ------------------------------------------------------------------------


def test_repair_cuts_a_torn_tail_and_keeps_a_backup(tmp_path):
    log = tmp_path / "game.jsonl"
    whole = ONE.read_bytes()
    torn = whole + b'{"v":1,"game":"vector-one","seq":14,"at":"2026-'
    log.write_bytes(torn)
    assert we("audit", log).exit_code == 1
    result = we("repair", log)
    assert result.exit_code == 0, result.stderr
    backup = Path(f"{log}.bak")
    assert f"backup: {backup}" in result.stdout
    assert "removed torn line 14" in result.stdout
    assert backup.read_bytes() == torn
    assert log.read_bytes() == whole
    assert fingerprint(log) == "abb6aa1e5ad9"


def test_repair_says_when_the_cut_line_was_a_whole_event_never_acknowledged(tmp_path):
    """A last line that is a complete, correctly hashed event lacking only its newline is torn
    (log-format.md: the append did not finish) and is cut, but the message says what it was and
    where it is kept, instead of passing it off as a fragment."""
    log = tmp_path / "game.jsonl"
    whole = ONE.read_bytes()
    log.write_bytes(whole[:-1])
    result = we("repair", log)
    assert result.exit_code == 0, result.stderr
    backup = Path(f"{log}.bak")
    message = result.stdout.strip()
    assert "\n" not in message
    assert "removed torn line 13" in message
    assert "complete, correctly hashed event" in message and "never acknowledged" in message
    assert "without its newline the append never finished" in message
    assert f"the line is kept in the backup: {backup}" in message
    assert backup.read_bytes() == whole[:-1]
    assert whole.startswith(log.read_bytes()) and log.read_bytes().count(b"\n") == 12
    # A line whose own hash is wrong is only torn: no such claim.
    lines = whole.splitlines(keepends=True)
    digit = lines[-1].rindex(b"sha256:") + len(b"sha256:")  # the line's own hash
    flipped = b"1" if lines[-1][digit : digit + 1] == b"0" else b"0"
    bad = lines[-1][:digit] + flipped + lines[-1][digit + 1 : -1]
    log.write_bytes(b"".join(lines[:-1]) + bad)
    result = we("repair", log)
    assert result.exit_code == 0, result.stderr
    assert "removed torn line 13" in result.stdout and "complete" not in result.stdout


def test_repair_refuses_corruption_elsewhere_and_changes_nothing(tmp_path):
    log = tmp_path / "game.jsonl"
    damaged = EDITED.read_bytes()[:-1]  # torn at the end, but also edited on line 20
    log.write_bytes(damaged)
    result = we("repair", log)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "line 20" in line and "nothing was changed" in line
    assert log.read_bytes() == damaged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]


def test_repair_of_a_sound_log_does_nothing(tmp_path):
    log = tmp_path / "game.jsonl"
    shutil.copy(ONE, log)
    result = we("repair", log)
    assert result.exit_code == 0
    assert "nothing to repair" in result.stdout
    assert log.read_bytes() == ONE.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]


def test_repair_of_a_missing_file_is_one_line(tmp_path):
    result = we("repair", tmp_path / "gone.jsonl")
    assert result.exit_code == 1
    assert "gone.jsonl" in one_error_line(result)


def test_import_refuses_what_is_not_a_regular_file(db, tmp_path):
    # A device or a pipe named on the command line is not a log (and reading a FIFO could
    # block): one error line, before anything is read, and the rest go on.
    result = we("import", "/dev/null", ONE)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["we: error: /dev/null: not a regular file (a device), so not a log"]
    assert "1 imported, 1 unreadable." in result.stdout


def test_a_game_read_back_from_the_library_keeps_the_lines_it_was_imported_from(db):
    from cli.opening import read_game, resolve_game

    assert we("import", ONE).exit_code == 0
    game_id = orjson.loads(ONE.read_bytes().splitlines()[0])["game"]
    from_file = read_game(resolve_game(str(ONE), db), keep_lines=True)
    from_library = read_game(resolve_game(game_id, db), keep_lines=True)
    assert from_library.lines == from_file.lines == [orjson.loads(b) for b in ONE.read_bytes().splitlines()]
    assert from_library.fingerprint == from_file.fingerprint


def test_an_old_library_is_upgraded_once_and_says_so(db):
    db.parent.mkdir(parents=True)
    shutil.copy(Path(__file__).parents[1] / "store" / "data" / "schema-1.db", db)
    before = db.read_bytes()
    # A command that only reads upgrades nothing: it says which command does.
    refused = we("games")
    assert refused.exit_code == 1 and "`we import LOG --db ...`) upgrades it" in refused.stderr
    assert db.read_bytes() == before
    first = we("import", ONE)
    assert first.exit_code == 0, first.stderr
    assert first.stderr.splitlines() == [
        f"we: upgrading the game library {db} to schema 4 (once; a library of many games takes a minute)"
    ]
    listed = we("games")
    assert "3 games in" in listed.stdout
    again = we("import", ONE)
    assert again.stderr == "" and we("games").stdout == listed.stdout
    assert fingerprint("vector-one", "--db", db) == fingerprint(ONE)


def test_export_takes_a_log_file_and_writes_it_out_verified(db, tmp_path, monkeypatch):
    """`we export LOGFILE`: the log written out byte for byte once it verifies; a tampered log
    is refused in one line naming where, exit 1, and nothing is written."""
    out = tmp_path / "out.jsonl"
    exported = we("export", FOUR, "-o", out)
    assert exported.exit_code == 0, exported.stderr
    assert out.read_bytes() == FOUR.read_bytes()
    assert f"fingerprint {fingerprint(FOUR)}" in exported.stdout
    piped = we("export", FOUR, "-o", "-")
    assert piped.exit_code == 0 and piped.stdout_bytes == FOUR.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert we("export", FOUR).exit_code == 0  # default: ./GAME-ID.jsonl
    assert (tmp_path / "vector-two.jsonl").read_bytes() == FOUR.read_bytes()
    again = we("export", tmp_path / "vector-two.jsonl", "--force")  # never onto itself
    assert again.exit_code == 1 and "vector-two.jsonl" in one_error_line(again)

    tampered = we("export", EDITED, "-o", tmp_path / "t.jsonl")
    assert tampered.exit_code == 1
    error = one_error_line(tampered)
    assert str(EDITED) in error and "line " in error and "integrity" in error, error
    assert not (tmp_path / "t.jsonl").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_import_with_workers_says_and_stores_exactly_what_one_process_does(tmp_path, monkeypatch):
    """`we import` audits logs in worker processes by default (--jobs 0) while one process
    writes: the same lines said, in argument order, the same exit status and the same library as
    `--jobs 1`, with refused, missing, repeated and unreadable logs among the good ones."""
    folder = tmp_path / "night"
    assert we("simulate", "-k", "60", "--seed", "workers", "--out", folder).exit_code == 0
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(ONE.read_bytes()[:-20])
    arguments = [ONE, tmp_path / "missing.jsonl", EDITED, folder, resealed_with_extra_field(tmp_path), FOUR]
    arguments += [torn, ONE, tmp_path]  # ONE again: unchanged; tmp_path: every log in it again
    results = {}
    for jobs in ("1", "3"):
        db = tmp_path / "libs" / f"jobs-{jobs}.db"
        monkeypatch.setenv("WE_DB", str(db))
        result = we("import", *arguments, "--jobs", jobs)
        games = we("games", "--json")
        assert games.exit_code == 0, games.stderr
        results[jobs] = (result.exit_code, result.stdout, result.stderr, games.stdout)
    exit_code, stdout, stderr, games = results["1"]
    assert exit_code == 1
    assert "imported game 'vector-two'" in stdout and "refused" in stderr and "missing.jsonl" in stderr
    assert stdout.count("imported game 'sim-workers-") == 60
    assert results["3"] == results["1"]
