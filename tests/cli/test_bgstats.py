"""Plays for BG Stats: the createPlay link (`we score --bgstats-link`) and the play file
(`we export --format bgstats`), read back and held against `we score --json`."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from weharness import ROOT, we

REPLAYS = ROOT / "replays"
# A tie broken by a speech (one winner among equals), an evening by the printed rules, 7 bots.
GAMES = ("tie-5p.jsonl", "game-night-3p.jsonl", "bots-7p.jsonl")


def _score(game: object, *db: object) -> dict:
    result = we("score", game, "--json", *db)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _first_and_last_at(path: Path) -> tuple[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0])["at"], json.loads(lines[-1])["at"]


def _bgstats_date(at: str) -> str:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _fingerprint(path: Path) -> str:
    return json.loads(path.read_text().splitlines()[-1])["hash"][7:19]


def test_the_link_carries_the_scores_winners_and_dates_of_we_score() -> None:
    for name in GAMES:
        path = REPLAYS / name
        result = we("score", path, "--bgstats-link", "--location", "Maria's")
        assert result.exit_code == 0, result.stderr
        url = result.stdout.strip()
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://app.bgstatsapp.com/createPlay.html"
        (encoded,) = parse_qs(parts.query, strict_parsing=True)["data"]
        assert " " not in url and '"' not in url  # URL-encoded, every character of the JSON
        play = json.loads(encoded)
        board = _score(path)
        first, last = _first_and_last_at(path)
        assert play["sourceName"] == "we"
        assert play["sourcePlayId"] == f"{board['game']}:{_fingerprint(path)}"
        assert play["playDate"] == _bgstats_date(first)
        minutes = datetime.fromisoformat(last.replace("Z", "+00:00")) - datetime.fromisoformat(
            first.replace("Z", "+00:00")
        )
        assert play["durationMin"] == round(minutes.total_seconds() / 60)
        assert play["location"] == "Maria's"
        assert play["game"] == {
            "name": "White Elephant",
            "sourceGameId": "white-elephant-2011",
            "highestWins": True,
            "noPoints": False,
        }
        assert [p["name"] for p in play["players"]] == list(board["scores"])
        assert {p["name"]: p["score"] for p in play["players"]} == board["scores"]
        assert [p["name"] for p in play["players"] if p["winner"]] == board["winners"]
        assert sum(p["startPlayer"] for p in play["players"]) == 1
        assert {p["name"] for p in play["players"] if p["rank"] == 1} == set(board["winners"])
    tie = json.loads(
        parse_qs(urlsplit(we("score", REPLAYS / "tie-5p.jsonl", "--bgstats-link").stdout.strip()).query)[
            "data"
        ][0]
    )
    # Ben and Cat tied on 19; the speech made Cat the winner alone.
    assert [(p["name"], p["winner"], p["rank"]) for p in tie["players"] if p["score"] == 19] == [
        ("Ben", False, 2),
        ("Cat", True, 1),
    ]
    assert "location" not in tie


def test_an_unfinished_game_has_no_link(tmp_path: Path) -> None:
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"".join((REPLAYS / "tie-5p.jsonl").read_bytes().splitlines(keepends=True)[:10]))
    result = we("score", short, "--bgstats-link")
    assert result.exit_code == 1 and "not over yet" in result.stderr and not result.stdout


def _check_file(path: Path, boards: dict[str, dict], starts: dict[str, str]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) >= {"games", "players", "locations", "plays"}
    players = {p["id"]: p["name"] for p in data["players"]}
    assert [g["name"] for g in data["games"]] == ["White Elephant"]
    assert sorted(p["sourcePlayId"].split(":")[0] for p in data["plays"]) == sorted(boards)
    for play in data["plays"]:
        game = play["sourcePlayId"].split(":")[0]
        board = boards[game]
        assert play["gameRefId"] == data["games"][0]["id"]
        assert play["playDate"] == _bgstats_date(starts[game])
        scores = play["playerScores"]
        assert [players[s["playerRefId"]] for s in sorted(scores, key=lambda s: s["seatOrder"])] == list(
            board["scores"]
        )
        assert {players[s["playerRefId"]]: int(s["score"]) for s in scores} == board["scores"]
        assert sorted(players[s["playerRefId"]] for s in scores if s["winner"]) == sorted(board["winners"])
        assert sum(s["startPlayer"] for s in scores) == 1


def test_the_play_file_from_files_ids_and_a_whole_library(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    for name in GAMES:
        shutil.copy(REPLAYS / name, tmp_path / name)
    assert we("import", tmp_path / GAMES[1], tmp_path / GAMES[2], "--db", db).exit_code == 0
    boards = {_score(tmp_path / name)["game"]: _score(tmp_path / name) for name in GAMES}
    starts = {_score(tmp_path / name)["game"]: _first_and_last_at(tmp_path / name)[0] for name in GAMES}

    # A log file and a library id in one file.
    mixed = tmp_path / "mixed.bgsplay"
    result = we(
        "export", tmp_path / GAMES[0], "game-night-2026-12-05", "--format", "bgstats", "-o", mixed, "--db", db
    )
    assert result.exit_code == 0, result.stderr
    _check_file(mixed, {g: boards[g] for g in ("new-years-eve-2026", "game-night-2026-12-05")}, starts)
    assert we("export", tmp_path / GAMES[0], "--format", "bgstats", "-o", mixed).exit_code == 1  # no --force

    # The whole library, an unfinished game in it left out.
    short = tmp_path / "short.jsonl"
    short.write_bytes(b"".join((REPLAYS / "tie-5p.jsonl").read_bytes().splitlines(keepends=True)[:10]))
    assert we("import", short, "--db", db).exit_code == 0
    every = tmp_path / "all.bgsplay"
    assert we("export", "--all", "--format", "bgstats", "-o", every, "--db", db).exit_code == 0
    library_games = {g: boards[g] for g in ("game-night-2026-12-05", _score(tmp_path / GAMES[2])["game"])}
    _check_file(every, library_games, starts)

    # One game by default beside us, named after it; an unfinished one is refused.
    single = we("export", tmp_path / GAMES[0], "--format", "bgstats", "-o", "-")
    assert single.exit_code == 0
    assert json.loads(single.stdout)["plays"][0]["sourcePlayId"].startswith("new-years-eve-2026:")
    refused = we("export", short, "--format", "bgstats", "-o", tmp_path / "x.bgsplay")
    assert refused.exit_code == 1 and "not over yet" in refused.stderr
    assert not (tmp_path / "x.bgsplay").exists()


def test_a_game_ending_on_a_leap_second_is_a_play_all_the_same(tmp_path: Path) -> None:
    """`at` may be a leap second (23:59:60, log-format.md); BG Stats has no such time, so the
    play's times hold it at 23:59:59 of that day, and nothing fails."""
    from eventstore.envelope import seal

    lines = (REPLAYS / "game-night-3p.jsonl").read_bytes().splitlines()
    out, prev = [], None
    for seq, line in enumerate(lines, start=1):
        obj = json.loads(line)
        at = "2026-12-31T23:59:60Z" if seq == len(lines) else obj["at"]
        envelope = seal(obj["game"], seq, at, obj["type"], obj["data"], prev)
        prev = envelope.hash
        out.append(envelope.to_line())
    leap = tmp_path / "leap.jsonl"
    leap.write_bytes(b"".join(out))
    assert we("audit", leap).exit_code == 0
    linked = we("score", leap, "--bgstats-link")
    assert linked.exit_code == 0, linked.stderr
    play = json.loads(parse_qs(urlsplit(linked.stdout.strip()).query)["data"][0])
    first = _bgstats_date(_first_and_last_at(leap)[0])
    assert play["playDate"] == first and play["durationMin"] > 0
    exported = we("export", leap, "--format", "bgstats", "-o", tmp_path / "leap.bgsplay")
    assert exported.exit_code == 0, exported.stderr
