"""`we season`: a ledger of sealed games, proved against real files and both libraries, and the
format's test vectors (docs/season-format.md)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from weharness import ROOT, one_error_line, we

REPLAYS = ROOT / "replays"
SEASON_VECTORS = ROOT / "tests" / "vectors" / "season"
GAMES = ("game-night-3p.jsonl", "tie-5p.jsonl", "bots-7p.jsonl")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in (*GAMES, "disputed-edited.jsonl"):
        shutil.copy(REPLAYS / name, tmp_path / name)
    return tmp_path


def _cut(src: Path, dst: Path, lines: int) -> None:
    """A valid shorter log: the first `lines` events of `src`."""
    dst.write_bytes(b"".join(src.read_bytes().splitlines(keepends=True)[:lines]))


def _fingerprint(path: Path) -> str:
    return json.loads(path.read_text().splitlines()[-1])["hash"][7:19]


def test_seal_refuse_verify_show_with_files(folder: Path) -> None:
    ledger = folder / "season.jsonl"
    _cut(folder / "tie-5p.jsonl", folder / "unfinished.jsonl", 12)
    nothing = we("season", "add", ledger, folder / "unfinished.jsonl")
    assert nothing.exit_code == 1 and not ledger.exists()  # no season is started for nothing
    first = we("season", "add", ledger, folder / "game-night-3p.jsonl", folder / "tie-5p.jsonl")
    assert first.exit_code == 0, first.stderr
    assert f"season fingerprint {_fingerprint(ledger)}" in first.stdout
    before = ledger.read_bytes()

    # Refused, each named with its reason, exit 1; the good one is sealed all the same.
    second = we(
        "season", "add", ledger,
        folder / "unfinished.jsonl", folder / "disputed-edited.jsonl", folder / "tie-5p.jsonl",
        folder / "bots-7p.jsonl",
    )  # fmt: skip
    assert second.exit_code == 1
    refused = second.stderr.splitlines()
    assert len(refused) == 3, second.stderr
    assert "unfinished.jsonl: is not over yet" in refused[0]
    assert "disputed-edited.jsonl: fails the audit: line 66" in refused[1]
    assert "tie-5p.jsonl: game 'new-years-eve-2026' is already sealed (ledger line 3" in refused[2]
    assert "sealed sim-replays-1 (line 4)" in second.stdout
    after = ledger.read_bytes()
    assert after.startswith(before) and len(after) > len(before)  # appended, nothing rewritten

    ok = we("season", "verify", ledger, "--json")
    assert ok.exit_code == 0, ok.stdout
    report = json.loads(ok.stdout)
    assert report["ok"] and report["games"] == 3 and report["fingerprint"] == _fingerprint(ledger)
    assert we("season", "verify", ledger, "--fingerprint", report["fingerprint"]).exit_code == 0
    assert we("season", "verify", ledger, "--fingerprint", "000000000000").exit_code == 1

    # Standings through the same numbers `we score --json` gives each game.
    shown = json.loads(we("season", "show", ledger, "--json").stdout)
    expected: dict[str, list[int]] = {}
    wins: dict[str, float] = {}
    for name in GAMES:
        board = json.loads(we("score", folder / name, "--json").stdout)
        for player, points in board["scores"].items():
            expected.setdefault(player, []).append(points)
            share = 1 / len(board["winners"]) if player in board["winners"] else 0
            wins[player] = wins.get(player, 0) + share
    assert {s["player"]: (s["games"], s["wins"], s["mean_score"]) for s in shown["standings"]} == {
        p: (len(v), round(wins[p], 4), round(sum(v) / len(v), 4)) for p, v in expected.items()
    }
    assert shown["fingerprint"] == report["fingerprint"]
    assert ledger.read_bytes() == after  # verify and show only read


def test_a_season_jsonl_beside_the_games_is_no_game_to_audit_or_import(tmp_path: Path) -> None:
    shutil.copy(REPLAYS / "tie-5p.jsonl", tmp_path / "tie-5p.jsonl")
    assert we("season", "add", tmp_path / "season.jsonl", tmp_path / "tie-5p.jsonl").exit_code == 0
    audited = we("audit", tmp_path, "--json")
    assert audited.exit_code == 0 and len(audited.stdout.strip().splitlines()) == 1
    assert we("import", tmp_path, "--db", tmp_path / "games.db").exit_code == 0


def test_verify_names_a_swapped_a_cut_and_a_gone_game_and_an_edited_line(folder: Path) -> None:
    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, *(folder / name for name in GAMES)).exit_code == 0
    sealed = ledger.read_bytes()
    # A game cut to a valid shorter log, another swapped for another valid log, one deleted.
    _cut(REPLAYS / "tie-5p.jsonl", folder / "tie-5p.jsonl", 40)
    shutil.copy(REPLAYS / "disputed-honest.jsonl", folder / "game-night-3p.jsonl")
    (folder / "bots-7p.jsonl").unlink()
    result = we("season", "verify", ledger, "--json")
    assert result.exit_code == 1
    problems = {p["game"]: p for p in json.loads(result.stdout)["problems"]}
    assert set(problems) == {"game-night-2026-12-05", "new-years-eve-2026", "sim-replays-1"}
    by_message = " | ".join(p["message"] for p in problems.values())
    assert "game 'new-years-eve-2026' (line 3): swapped:" in by_message and "40 events" in by_message
    assert "game 'game-night-2026-12-05' (line 2): swapped:" in by_message
    assert re.search(r"game '[^']+' \(line 4\): gone: bots-7p.jsonl is not there any more", by_message)
    assert f"(looked for from the ledger's folder, at {folder / 'bots-7p.jsonl'})" in by_message
    assert ledger.read_bytes() == sealed

    # An edited ledger line (a winner changed, nothing re-hashed) is named by its line.
    for name in GAMES:
        shutil.copy(REPLAYS / name, folder / name)
    lines = sealed.splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"winners":["Cat"]', b'"winners":["Ben"]')
    ledger.write_bytes(b"".join(lines))
    edited = we("season", "verify", ledger)
    assert edited.exit_code == 1
    assert "FAILED" in edited.stdout and ": line 3: `hash` does not match" in edited.stdout
    assert "fingerprint not proven" in edited.stdout
    # Nothing is ever sealed onto a damaged ledger.
    refused = we("season", "add", ledger, REPLAYS / "disputed-honest.jsonl")
    assert refused.exit_code == 1 and "refusing to seal into it" in refused.stderr
    assert ledger.read_bytes() == b"".join(lines)


def _delete_game(db: str | Path, game_id: str) -> None:
    if isinstance(db, Path):
        with sqlite3.connect(db) as conn:
            (key,) = conn.execute("SELECT key FROM games WHERE id = ?", (game_id,)).fetchone()
            conn.execute("DELETE FROM events WHERE id >= ? AND id < ?", (key << 32, (key + 1) << 32))
            conn.execute("DELETE FROM games WHERE key = ?", (key,))
        return
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        (key,) = conn.execute("SELECT key FROM games WHERE id = %s", (game_id,)).fetchone()  # type: ignore[misc]
        conn.execute("DELETE FROM events WHERE game = %s", (key,))
        conn.execute("DELETE FROM games WHERE key = %s", (key,))


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    if request.param == "sqlite":
        return tmp_path / "games.db"
    return str(request.getfixturevalue("pg_url"))


def test_library_games_sealed_by_id_then_cut_and_deleted(folder: Path, library: str | Path) -> None:
    assert we("import", *(folder / name for name in GAMES[:2]), "--db", library).exit_code == 0
    ledger = folder / "season.jsonl"
    ids = ("game-night-2026-12-05", "new-years-eve-2026")
    _cut(folder / "tie-5p.jsonl", folder / "unfinished.jsonl", 12)
    added = we("season", "add", ledger, *ids, ids[0], "--db", library)
    assert added.exit_code == 1  # the id given twice is refused, the others sealed
    assert "is given twice" in added.stderr and added.stdout.count("sealed ") >= 2
    assert json.loads(ledger.read_text().splitlines()[1])["data"]["source"] == {"library": ids[0]}
    assert we("season", "verify", ledger, "--db", library).exit_code == 0
    sealed = ledger.read_bytes()

    # One game deleted and re-imported cut to a valid shorter log; the other deleted.
    _delete_game(library, ids[1])
    assert we("import", folder / "unfinished.jsonl", "--db", library).exit_code == 0
    _delete_game(library, ids[0])
    result = we("season", "verify", ledger, "--db", library, "--json")
    assert result.exit_code == 1
    problems = {p["game"]: p["message"] for p in json.loads(result.stdout)["problems"]}
    assert "gone: no game 'game-night-2026-12-05' in the library" in problems[ids[0]]
    assert "swapped:" in problems[ids[1]] and "12 events" in problems[ids[1]]
    # An unfinished library game is refused by id.
    refused = we("season", "add", ledger, ids[1], "--db", library)
    assert refused.exit_code == 1 and f"{ids[1]}: is not over yet" in refused.stderr
    assert ledger.read_bytes() == sealed


def test_the_format_vectors() -> None:
    expected = json.loads((SEASON_VECTORS / "expected.json").read_text(encoding="utf-8"))
    good = expected["season.jsonl"]
    result = json.loads(we("season", "verify", SEASON_VECTORS / "season.jsonl", "--json").stdout)
    assert result["ok"] is True and result["events"] == good["events"]
    assert result["fingerprint"] == good["fingerprint"] == good["last_hash"][7:19]
    assert (
        json.loads((SEASON_VECTORS / "season.jsonl").read_text().splitlines()[-1])["hash"]
        == good["last_hash"]
    )
    shown = json.loads(we("season", "show", SEASON_VECTORS / "season.jsonl", "--json").stdout)
    assert shown["standings"] == good["standings"]
    edited = we("season", "verify", SEASON_VECTORS / "season-edited.jsonl", "--json")
    assert edited.exit_code == 1
    report = json.loads(edited.stdout)
    assert (
        report["fingerprint"] is None
        and report["problems"][0]["line"] == expected["season-edited.jsonl"]["broken_at"]
    )
    forged_expected = expected["season-forged.jsonl"]
    forged = we("season", "verify", SEASON_VECTORS / "season-forged.jsonl", "--json")
    assert forged.exit_code == 1
    forged_report = json.loads(forged.stdout)
    assert forged_report["fingerprint"] == forged_expected["fingerprint"]  # the chain is clean
    [problem] = forged_report["problems"]
    [wanted] = forged_expected["problems"]
    assert (problem["line"], problem["game"]) == (wanted["line"], wanted["game"])
    assert all(f"{field} sealed" in problem["message"] for field in wanted["fields"])
    # The worked canonical form of line 1 in docs/season-format.md.
    doc = (ROOT / "docs" / "season-format.md").read_text(encoding="utf-8")
    canonical = re.search(r"```\n(\{.*\"type\":\"season_started\".*\})\n```", doc)
    digest = re.search(r"Its SHA-256 is `([0-9a-f]{64})`", doc)
    assert canonical and digest
    assert hashlib.sha256(canonical.group(1).encode()).hexdigest() == digest.group(1)
    first = json.loads((SEASON_VECTORS / "season.jsonl").read_text().splitlines()[0])
    assert first["hash"] == f"sha256:{digest.group(1)}"


def test_two_sealers_at_once_both_get_their_game_in(folder: Path) -> None:
    """Real processes racing on one ledger: the recorder's lock and head check keep one chain."""
    import os
    import subprocess
    import sys

    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, folder / GAMES[0]).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    racers = [
        subprocess.Popen(
            [sys.executable, "-m", "cli.main", "season", "add", str(ledger), str(folder / name)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in GAMES[1:]
    ]
    for racer in racers:
        assert racer.wait(120) == 0, racer.stderr.read() if racer.stderr else ""
    report = json.loads(we("season", "verify", ledger, "--json").stdout)
    assert report["ok"] and report["games"] == 3 and report["events"] == 4


@pytest.mark.parametrize("command", ["verify", "show", "add"])
def test_a_file_that_is_no_ledger_is_named_in_one_line(folder: Path, command: str) -> None:
    """A game log, or junk, given as SEASON: one line saying it is not a season ledger, at
    once (not a finding per line of a file that may be huge), and nothing appended."""
    game = folder / "game-night-3p.jsonl"
    junk = folder / "junk.bin"
    junk.write_bytes(b"\xff\xfe junk\n" * 50_000)
    for path in (game, junk):
        before = path.read_bytes()
        extra = [folder / "tie-5p.jsonl"] if command == "add" else []
        result = we("season", command, path, *extra)
        assert result.exit_code == 1, result.stdout + result.stderr
        lines = [line for line in (result.stdout + result.stderr).splitlines() if str(path) in line]
        assert len(lines) == 1 or (command == "verify" and len(lines) == 2), lines
        assert "not a season ledger" in lines[0] and "line 1" in lines[0], lines
        assert "Traceback" not in result.stderr
        assert path.read_bytes() == before


def test_a_ledger_re_hashed_around_a_forged_result_is_named(folder: Path) -> None:
    """Editing a sealed result and re-hashing the chain after it keeps the chain clean, but the
    result is no longer the game's: verify names the game, the field, and both values."""
    from eventstore.envelope import seal

    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, folder / "game-night-3p.jsonl", folder / "tie-5p.jsonl").exit_code == 0
    out, prev = [], None
    for seq, line in enumerate(ledger.read_bytes().splitlines(), start=1):
        obj = json.loads(line)
        if seq == 3:  # tie-5p: Ben 19 -> 29, and the win
            obj["data"]["scores"][1] = 29
            obj["data"]["winners"] = ["Ben"]
        envelope = seal(obj["game"], seq, obj["at"], obj["type"], obj["data"], prev)
        prev = envelope.hash
        out.append(envelope.to_line())
    ledger.write_bytes(b"".join(out))
    result = we("season", "verify", ledger)
    assert result.exit_code == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, result.stdout
    assert "game 'new-years-eve-2026' (line 3)" in failed[0]
    assert "scores" in failed[0] and "29" in failed[0] and "19" in failed[0], failed[0]
    as_json = json.loads(we("season", "verify", ledger, "--json").stdout)
    assert as_json["ok"] is False and as_json["problems"][0]["game"] == "new-years-eve-2026"


def test_a_noted_fingerprint_is_twelve_hex_digits_and_must_be_the_ledgers(folder: Path) -> None:
    """`--fingerprint ""` or a few digits would match any ledger: refused as a usage error."""
    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, folder / "tie-5p.jsonl").exit_code == 0
    noted = _fingerprint(ledger)
    assert we("season", "verify", ledger, "--fingerprint", noted.upper()).exit_code == 0
    for bad in ("", noted[:1], noted[:11], noted + "0", "zz" + noted[2:]):
        result = we("season", "verify", ledger, "--fingerprint", bad)
        assert result.exit_code == 2, (bad, result.stdout)
        assert "12 hex digits" in result.stderr and "Traceback" not in result.stderr
    other = "0" * 12 if noted != "0" * 12 else "1" * 12
    wrong = we("season", "verify", ledger, "--fingerprint", other)
    assert wrong.exit_code == 1 and f"not {other} as noted" in wrong.stdout


def test_a_log_that_only_grew_after_its_seal_is_extended_not_swapped(folder: Path) -> None:
    from service.table import Table, Undo

    ledger = folder / "club.jsonl"  # not the folder's season.jsonl: the table does not know it
    added = we("season", "add", ledger, folder / "game-night-3p.jsonl")
    assert added.exit_code == 0 and ": 1 game sealed;" in added.stdout
    (folder / "game-night-3p.jsonl.seal").unlink()  # sealed by a we that left no mark
    assert ": 1 game, every one as sealed;" in we("season", "verify", ledger).stdout
    assert ": 1 game\n" in we("season", "show", ledger).stdout
    Table.of_file(folder / "game-night-3p.jsonl").move(Undo(reason="a late change of mind"))
    verified = we("season", "verify", ledger)
    assert verified.exit_code == 1 and ": 1 problem;" in verified.stdout
    assert "extended:" in verified.stdout + verified.stderr
    assert "swapped" not in verified.stdout + verified.stderr
    # A log cut back is still "swapped" (the sealed last hash is gone).
    _cut(REPLAYS / "game-night-3p.jsonl", folder / "game-night-3p.jsonl", 10)
    assert "swapped:" in (cut := we("season", "verify", ledger)).stdout + cut.stderr


def test_a_game_sealed_beside_its_log_is_final_for_the_table(folder: Path) -> None:
    from service.table import Sealed, Table, Undo

    game = folder / "game-night-3p.jsonl"
    before = game.read_bytes()
    assert we("season", "add", folder / "season.jsonl", game).exit_code == 0
    with pytest.raises(Sealed, match=r"is sealed into the season .*nothing can be undone or added"):
        Table.of_file(game).move(Undo())
    assert game.read_bytes() == before


def _re_sourced(ledger: Path, files: dict[int, str]) -> None:
    """The ledger with the `source.file` of some lines replaced, its chain re-hashed."""
    from eventstore.envelope import seal

    out, prev = [], None
    for seq, line in enumerate(ledger.read_bytes().splitlines(), start=1):
        obj = json.loads(line)
        if seq in files:
            obj["data"]["source"] = {"file": files[seq]}
        envelope = seal(obj["game"], seq, obj["at"], obj["type"], obj["data"], prev)
        prev = envelope.hash
        out.append(envelope.to_line())
    ledger.write_bytes(b"".join(out))


def test_verify_reads_game_files_only_inside_the_ledgers_folder(folder: Path, tmp_path_factory) -> None:
    """A ledger someone sends cannot make verify read (and describe) files elsewhere: an absolute
    path or one climbing out with .. is a problem of the ledger, even when a good copy of the
    very game sealed lies there."""
    league = folder / "league"
    league.mkdir()
    for name in GAMES[:2]:
        shutil.move(folder / name, league / name)
    ledger = league / "season.jsonl"
    sealed = we("season", "add", ledger, league / GAMES[0], league / GAMES[1])
    assert sealed.exit_code == 0, sealed.stderr
    assert we("season", "verify", ledger).exit_code == 0
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.copy(league / GAMES[0], elsewhere / GAMES[0])
    shutil.copy(league / GAMES[1], folder / GAMES[1])  # beside the league, not in it
    _re_sourced(ledger, {2: str(elsewhere / GAMES[0]), 3: f"../{GAMES[1]}"})
    result = we("season", "verify", ledger, "--json")
    assert result.exit_code == 1, result.stdout
    problems = json.loads(result.stdout)["problems"]
    assert [p["line"] for p in problems] == [2, 3], problems
    assert "absolute path" in problems[0]["message"] and "not opened" in problems[0]["message"]
    assert "outside its own folder" in problems[1]["message"] and "not opened" in problems[1]["message"]
    _re_sourced(ledger, {2: "/etc/passwd", 3: "../../../../etc/passwd"})
    text = we("season", "verify", ledger)
    assert text.exit_code == 1 and text.stdout.count("not opened") == 2, text.stdout
    assert "root:" not in text.stdout and "swapped" not in text.stdout


def test_a_game_outside_the_ledgers_folder_is_not_sealed(folder: Path) -> None:
    league = folder / "league"
    league.mkdir()
    refused = we("season", "add", league / "season.jsonl", folder / GAMES[0])
    assert refused.exit_code == 1
    assert "outside the ledger's folder" in refused.stderr + refused.stdout
    ledger = league / "season.jsonl"
    assert not ledger.exists() or b"game_sealed" not in ledger.read_bytes()


LEDGER_LINE = "this is a season ledger: use `we season verify`"


@pytest.mark.parametrize(
    "command",
    [("audit",), ("score",), ("replay",), ("analyse",), ("record",), ("import", "--db", "{db}")],
)
def test_every_command_wanting_a_game_says_a_ledger_is_one_in_one_line(
    folder: Path, command: tuple[str, ...]
) -> None:
    # Named as a club might name it, not season.jsonl: it is known by its first line.
    ledger = folder / "club-2026.jsonl"
    assert we("season", "add", ledger, folder / "tie-5p.jsonl").exit_code == 0
    before = ledger.read_bytes()
    args = [a.format(db=folder / "games.db", other=folder / "other.jsonl") for a in command]
    result = we(*args, ledger)
    line = one_error_line(result)
    assert result.exit_code == 1 and f"{ledger}: {LEDGER_LINE}" in line, result.output
    assert "schema" not in result.output and "damaged" not in result.output
    assert ledger.read_bytes() == before


def test_a_ledger_is_no_game_to_seal_into_another(folder: Path) -> None:
    ledger = folder / "club-2026.jsonl"
    assert we("season", "add", ledger, folder / "tie-5p.jsonl").exit_code == 0
    result = we("season", "add", folder / "other.jsonl", ledger)
    assert result.exit_code == 1 and f"we: refused {ledger}: {LEDGER_LINE}" in result.stderr


def test_import_and_audit_of_a_served_folder_or_glob_skip_its_ledger_in_one_line(folder: Path) -> None:
    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, folder / "tie-5p.jsonl").exit_code == 0
    for args in [(folder,), sorted(folder.glob("*.jsonl"))]:
        db = folder / f"games-{len(args)}.db"
        imported = we("import", *args, "--db", db)
        assert imported.exit_code == 1  # disputed-edited.jsonl is refused: the rest is imported
        skipped = [line for line in imported.stderr.splitlines() if LEDGER_LINE in line]
        assert skipped == [f"we: {ledger}: {LEDGER_LINE}; skipped"]
        assert "3 imported, 1 skipped, 1 refused." in imported.stdout
        audited = we("audit", *args, "--json")
        assert len(audited.stdout.splitlines()) == 4 and str(ledger) not in audited.stdout
        assert [line for line in audited.stderr.splitlines() if LEDGER_LINE in line] == skipped


def test_a_ledger_alone_is_nothing_to_import(folder: Path) -> None:
    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, folder / "tie-5p.jsonl").exit_code == 0
    result = we("import", ledger, "--db", folder / "games.db")
    assert result.exit_code == 1 and LEDGER_LINE in result.stderr


def test_verify_reports_every_line_and_goes_on_to_the_fingerprint(folder: Path, tmp_path_factory) -> None:
    """A name too long for the filesystem, a link out of the folder and a file that cannot be
    opened (a loop of links) are each a problem on their own line; the other games are proved
    and the season's fingerprint is printed."""
    league = folder / "league"
    league.mkdir()
    names = (*GAMES, "disputed-honest.jsonl")
    for name in names:
        shutil.copy(REPLAYS / name, league / name)
    ledger = league / "season.jsonl"
    assert we("season", "add", ledger, *(league / name for name in names)).exit_code == 0
    long_name = "a" * 300 + ".jsonl"
    _re_sourced(ledger, {2: long_name})
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    shutil.move(league / GAMES[1], elsewhere / GAMES[1])
    (league / GAMES[1]).symlink_to(elsewhere / GAMES[1])  # the very game sealed, but outside
    (league / GAMES[2]).unlink()
    (league / GAMES[2]).symlink_to(league / GAMES[2])  # a link to itself: never opens
    fingerprint = _fingerprint(ledger)

    result = we("season", "verify", ledger, "--json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    problems = report["problems"]
    assert [p["line"] for p in problems] == [2, 3, 4], problems
    assert "cannot be read" in problems[0]["message"] and "File name too long" in problems[0]["message"]
    assert long_name not in problems[0]["message"]  # named, clipped
    assert "outside its own folder" in problems[1]["message"] and "not opened" in problems[1]["message"]
    assert "cannot be read" in problems[2]["message"]
    assert report["games"] == 4 and report["fingerprint"] == fingerprint
    text = we("season", "verify", ledger)
    assert text.exit_code == 1 and text.stderr == ""
    assert text.stdout.count("FAILED") == 3
    assert text.stdout.splitlines()[-1].endswith(f"3 problems; season fingerprint {fingerprint}")


def test_a_sealed_file_renamed_into_the_library_is_found_there(folder: Path, library: str | Path) -> None:
    ledger = folder / "season.jsonl"
    assert we("season", "add", ledger, *(folder / name for name in GAMES)).exit_code == 0
    assert we("import", folder / GAMES[0], "--db", library).exit_code == 0
    (folder / GAMES[0]).unlink()  # moved into the library: only its copy there is left
    gone = we("season", "verify", ledger)
    assert gone.exit_code == 1 and "gone: game-night-3p.jsonl is not there any more" in gone.stdout
    found = we("season", "verify", ledger, "--db", library)
    assert found.exit_code == 0, found.stdout
    assert "3 games, every one as sealed" in found.stdout
    # Found there by its id, it is proved by its hash: another game under that id is swapped.
    _delete_game(library, "game-night-2026-12-05")
    _cut(REPLAYS / GAMES[0], folder / "cut.jsonl", 30)
    assert we("import", folder / "cut.jsonl", "--db", library).exit_code == 0
    swapped = we("season", "verify", ledger, "--db", library)
    assert swapped.exit_code == 1 and "swapped:" in swapped.stdout


def test_a_game_sealed_into_a_ledger_elsewhere_is_refused_by_every_writer(tmp_path: Path) -> None:
    """Issue 46's scenario: the games simulated into one folder, the ledger in another."""
    from service.table import Sealed, Table, Undo

    sims, ledger = tmp_path / "sims", tmp_path / "club-2026.jsonl"
    assert we("simulate", "-k", "3", "-s", "boxing", "-o", sims).exit_code == 0
    game = sims / "sim-boxing-1.jsonl"
    assert we("season", "add", ledger, game).exit_code == 0
    assert (sims / "sim-boxing-1.jsonl.seal").is_file()
    before = game.read_bytes()

    recorded = we("record", game, input="undo\nquit\n")
    assert recorded.exit_code == 1
    said = recorded.stdout + recorded.stderr
    assert f"sealed into the season ledger '{ledger}'" in said and "The game is open again" not in said
    with pytest.raises(Sealed, match=re.escape(str(ledger))):  # the API, the lobby and the bots' way
        Table.of_file(game).move(Undo(reason="a late change of mind"))
    assert game.read_bytes() == before
    assert we("season", "verify", ledger).exit_code == 0


def test_put_back_cuts_an_extended_sealed_log_back_and_keeps_the_cut_lines(tmp_path: Path) -> None:
    from service.table import Table, Undo

    sims, ledger = tmp_path / "sims", tmp_path / "club-2026.jsonl"
    assert we("simulate", "-k", "1", "-s", "boxing", "-o", sims).exit_code == 0
    game = sims / "sim-boxing-1.jsonl"
    assert we("season", "add", ledger, game).exit_code == 0
    sealed = game.read_bytes()
    # Extended where no mark was left (a seal by an older we): an undo, then a note.
    (sims / "sim-boxing-1.jsonl.seal").unlink()
    Table.of_file(game).move(Undo(reason="a late change of mind"))
    extended = game.read_bytes()
    assert extended.startswith(sealed) and len(extended) > len(sealed)
    assert "extended:" in we("season", "verify", ledger).stdout
    # Not imported beyond its seal either, once the mark is back (put-back writes it again).
    put = we("season", "put-back", ledger, game)
    assert put.exit_code == 0, put.stderr
    assert "(1 line) is kept in" in put.stdout
    assert game.read_bytes() == sealed
    assert (sims / "sim-boxing-1.jsonl.cut").read_bytes() == extended[len(sealed) :]
    assert we("season", "verify", ledger).exit_code == 0
    assert (sims / "sim-boxing-1.jsonl.seal").is_file()
    again = we("season", "put-back", ledger, game)
    assert again.exit_code == 0 and "nothing to cut" in again.stdout
    # A file the ledger did not seal, or one whose sealed events changed, is left alone.
    other = we("season", "put-back", ledger, REPLAYS / "tie-5p.jsonl")
    assert other.exit_code == 1 and "sealed no file of game 'new-years-eve-2026'" in other.stderr


def test_an_import_that_would_extend_a_sealed_game_is_refused(tmp_path: Path) -> None:
    sims, ledger = tmp_path / "sims", tmp_path / "club-2026.jsonl"
    assert we("simulate", "-k", "1", "-s", "boxing", "-o", sims).exit_code == 0
    game = sims / "sim-boxing-1.jsonl"
    assert we("season", "add", ledger, game).exit_code == 0
    library = tmp_path / "club.db"
    assert we("import", game, "--db", library).exit_code == 0  # as sealed: welcome
    mark = (sims / "sim-boxing-1.jsonl.seal").read_bytes()
    (sims / "sim-boxing-1.jsonl.seal").unlink()
    from service.table import Table, Undo

    Table.of_file(game).move(Undo(reason="a late change of mind"))
    (sims / "sim-boxing-1.jsonl.seal").write_bytes(mark)
    refused = we("import", game, "--db", library)
    assert refused.exit_code == 1
    assert "is sealed into the season ledger" in refused.stdout + refused.stderr
    assert "not imported" in refused.stdout + refused.stderr
    listed = [json.loads(line) for line in we("games", "--json", "--db", library).stdout.splitlines()]
    assert [g["events"] for g in listed] == [len(game.read_bytes().splitlines()) - 1]


def test_a_library_game_sealed_by_id_is_final_for_every_writer_of_the_library(
    folder: Path, library: str | Path
) -> None:
    """Sealed by its id, a library game has no file to mark: its seal is kept in the library,
    and an import that would extend it, or an append to it, is refused naming the ledger."""
    from eventstore.errors import SealedGameError
    from eventstore.libraries import connect

    whole = REPLAYS / "tie-5p.jsonl"
    _cut(whole, folder / "half.jsonl", 40)
    assert we("import", whole, "--db", library).exit_code == 0
    ledger = folder / "club-2026.jsonl"
    assert we("season", "add", ledger, "new-years-eve-2026", "--db", library).exit_code == 0
    assert we("import", whole, "--db", library).exit_code == 0  # the same log: unchanged
    assert we("import", folder / "half.jsonl", "--db", library).exit_code == 0  # a prefix: unchanged
    from service.table import AddNote, Table

    shutil.copy(whole, folder / "longer.jsonl")  # a copy: no mark beside it, and not sealed itself
    Table.of_file(folder / "longer.jsonl").move(AddNote(text="a late change of mind"))
    extended = we("import", folder / "longer.jsonl", "--db", library)
    assert extended.exit_code == 1
    assert f"is sealed into the season ledger {ledger}" in extended.stdout + extended.stderr
    with connect(library) as lib:
        with pytest.raises(SealedGameError, match=re.escape(str(ledger))):
            lib.log("new-years-eve-2026").append([("note", {"text": "a late change"})], expected_seq=76)
        assert lib.log("new-years-eve-2026").head()[0] == 76
    assert we("season", "verify", ledger, "--db", library).exit_code == 0
