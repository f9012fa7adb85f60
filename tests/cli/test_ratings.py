"""`we stats --ratings` and `we season show --ratings`: openskill's Plackett-Luce ratings, held
to openskill's own numbers computed here directly (ranks written out by hand), on a hand-made
season and on replays/; the library's ratings table and its Datasette query."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce
from weharness import ROOT, sealed, we

REPLAYS = ROOT / "replays"
VALID_REPLAYS = ("bots-7p.jsonl", "disputed-honest.jsonl", "game-night-3p.jsonl", "tie-5p.jsonl")
HASH = "sha256:" + "ab" * 32

# A hand-made season: (game id, first event's at, players, scores, winners). Listed out of the
# order played, with a tie nobody broke, a broken tie (Cat alone, Ben level with her) and a
# player spelled two ways.
HAND_MADE = [
    ("g-third", "2026-03-01T20:00:00Z", ["Ann", "Ben", "Cat", "Dev"], [10, 19, 19, 12], ["Cat"]),
    ("g-first", "2026-01-01T20:00:00Z", ["Ann", "Ben", "Cat"], [20, 15, 10], ["Ann"]),
    ("g-second", "2026-02-01T20:00:00Z", ["ann", "Ben", "Cat"], [12, 18, 18], ["Ben", "Cat"]),
    ("g-same-day-b", "2026-04-01T20:00:00Z", ["Ben", "Dev", "Eve"], [9, 9, 9], ["Ben", "Dev", "Eve"]),
    ("g-same-day-a", "2026-04-01T20:00:00Z", ["Eve", "Ann"], [14, 11], ["Eve"]),
]
# The same games as openskill takes them, in the order played (at, then id), ranks by hand.
BY_HAND = [
    (["Ann", "Ben", "Cat"], [1, 2, 3]),
    (["Ann", "Ben", "Cat"], [3, 1, 1]),  # a tie nobody broke: shared first place
    (["Ann", "Ben", "Cat", "Dev"], [4, 2, 1, 3]),  # tie_broken: Cat first, Ben second
    (["Eve", "Ann"], [1, 2]),  # g-same-day-a before g-same-day-b
    (["Ben", "Dev", "Eve"], [1, 1, 1]),
]


def openskill_directly(games: list[tuple[list[str], list[int]]]) -> dict[str, Any]:
    model = PlackettLuce()
    current: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for players, ranks in games:
        teams = [[current.setdefault(p, model.rating())] for p in players]
        for p, team in zip(players, model.rate(teams, ranks=ranks), strict=True):
            current[p] = team[0]
            counts[p] = counts.get(p, 0) + 1
    return {p: (counts[p], r.mu, r.sigma, r.ordinal()) for p, r in current.items()}


def assert_same(ratings: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    assert {r["player"] for r in ratings} == set(expected)
    for rating in ratings:
        games, mu, sigma, ordinal = expected[rating["player"]]
        assert rating["games"] == games
        assert abs(rating["mu"] - mu) <= 1e-9
        assert abs(rating["sigma"] - sigma) <= 1e-9
        assert abs(rating["ordinal"] - ordinal) <= 1e-9
    ordinals = [r["ordinal"] for r in ratings]
    assert ordinals == sorted(ordinals, reverse=True)


def hand_made_ledger(path: Path) -> Path:
    events = [{"game": "hand-season", "at": "2026-01-01T00:00:00Z", "type": "season_started",
               "data": {"name": "Hand-made", "format": 1}}]  # fmt: skip
    for game, at, players, scores, winners in HAND_MADE:
        data = {"game": game, "hash": HASH, "title": None, "players": players, "scores": scores,
                "winners": winners, "events": 60, "started_at": at, "source": {"library": game}}  # fmt: skip
        at_seal = "2026-06-01T00:00:00Z"
        events.append({"game": "hand-season", "at": at_seal, "type": "game_sealed", "data": data})
    return sealed(path, events)


def test_season_ratings_equal_openskill_on_a_hand_made_sequence(tmp_path: Path) -> None:
    ledger = hand_made_ledger(tmp_path / "season.jsonl")
    shown = we("season", "show", "--ratings", "--json", ledger)
    assert shown.exit_code == 0, shown.stderr
    out = json.loads(shown.stdout)
    assert out["model"] == "openskill PlackettLuce" and out["games"] == 5 and out["season"] == "Hand-made"
    assert_same(out["ratings"], openskill_directly(BY_HAND))
    # Reproducible: the same games give the same numbers, byte for byte.
    assert we("season", "show", "--ratings", "--json", ledger).stdout == shown.stdout
    table = we("season", "show", "--ratings", ledger)
    assert table.exit_code == 0 and "ordinal" in table.stdout and "ann" not in table.stdout


def _restamped(source: Path, path: Path, game: str, start: str) -> Path:
    """`source` as another game: its id `game`, its first event at `start`, the rest as far after."""
    from datetime import datetime

    events = [json.loads(line) for line in source.read_text().splitlines()]
    shift = datetime.fromisoformat(start) - datetime.fromisoformat(events[0]["at"])
    for event in events:
        event["game"] = game
        event["at"] = (datetime.fromisoformat(event["at"]) + shift).strftime("%Y-%m-%dT%H:%M:%SZ")
    return sealed(path, events)


def test_stats_ratings_equal_openskill_on_a_hand_made_sequence(tmp_path: Path) -> None:
    night, tie = REPLAYS / "game-night-3p.jsonl", REPLAYS / "tie-5p.jsonl"
    logs = [  # imported tie, night, tie, night; played night-a, tie-b, night-c, tie-d
        _restamped(tie, tmp_path / "1.jsonl", "tie-d", "2026-04-01T19:00:00Z"),
        _restamped(night, tmp_path / "2.jsonl", "night-c", "2026-03-01T19:00:00Z"),
        _restamped(tie, tmp_path / "3.jsonl", "tie-b", "2026-02-01T19:00:00Z"),
        _restamped(night, tmp_path / "4.jsonl", "night-a", "2026-02-01T19:00:00Z"),  # same start: by id
    ]
    library = tmp_path / "club.db"
    assert we("import", *logs, "--db", library).exit_code == 0
    # By hand: the night ends Maria 21, Jonas 22, Priya 19; the tie Ann 16, Ben 19, Cat 19, Dev 18,
    # Eve 16, Cat winning the tie-break (so Ben second, not first with her).
    by_night = (["Maria", "Jonas", "Priya"], [2, 1, 3])
    by_tie = (["Ann", "Ben", "Cat", "Dev", "Eve"], [4, 2, 1, 3, 4])
    expected = openskill_directly([by_night, by_tie, by_night, by_tie])
    shown = we("stats", "--ratings", "--json", "--db", library)
    assert shown.exit_code == 0, shown.stderr
    assert json.loads(shown.stdout)["games"] == 4
    assert_same(json.loads(shown.stdout)["ratings"], expected)


def test_stats_ratings_equal_openskill_on_the_replays(tmp_path: Path) -> None:
    library = tmp_path / "club.db"
    for name in VALID_REPLAYS:
        shutil.copy(REPLAYS / name, tmp_path / name)
    imported = we("import", *(tmp_path / n for n in VALID_REPLAYS), "--db", library)
    assert imported.exit_code == 0, imported.stderr
    games = []
    for name in VALID_REPLAYS:
        audit = json.loads(we("audit", "--json", tmp_path / name).stdout)
        first_at = json.loads((tmp_path / name).read_text().splitlines()[0])["at"]
        scores, winners = audit["scores"], audit["winners"]
        # Ranks: the winners first, then by score (competition ranking, ties equal).
        keys = {p: (p not in winners, -s) for p, s in scores.items()}
        ranks = [1 + sum(k < keys[p] for k in keys.values()) for p in scores]
        games.append((first_at, audit["game"], list(scores), ranks))
    games.sort()
    expected = openskill_directly([(players, ranks) for _, _, players, ranks in games])

    shown = we("stats", "--ratings", "--json", "--db", library)
    assert shown.exit_code == 0, shown.stderr
    out = json.loads(shown.stdout)
    assert out["games"] == 4
    assert_same(out["ratings"], expected)

    # The library keeps them as a table, and the canned query reads it.
    from service.datasette import CANNED_QUERIES

    with sqlite3.connect(library) as conn:
        rows = conn.execute(CANNED_QUERIES["ladder"]["sql"]).fetchall()
    assert [row[0] for row in rows] == [r["player"] for r in out["ratings"]]
    assert rows[0][4] == round(out["ratings"][0]["ordinal"], 2)


def test_a_plain_import_writes_the_ranks_and_the_ratings(tmp_path: Path) -> None:
    """No `we stats --ratings` first: each import keeps its games' places and the ratings
    over them; a library whose games have no places (older, or games finished by `we serve
    --db`) gets them once, on the next import, and the same ratings as folding every game."""
    library = tmp_path / "club.db"
    assert we("import", REPLAYS / "game-night-3p.jsonl", "--db", library).exit_code == 0
    with sqlite3.connect(library) as conn:
        assert {r[0] for r in conn.execute("SELECT player FROM ratings")} == {"Maria", "Jonas", "Priya"}
        places = conn.execute("SELECT player, score, rank, events FROM ranks ORDER BY seat").fetchall()
        audit = json.loads(we("audit", "--json", REPLAYS / "game-night-3p.jsonl").stdout)
        assert [(p, s) for p, s, _, _ in places] == list(audit["scores"].items())
        assert {p for p, _, rank, _ in places if rank == 1} == set(audit["winners"])
        assert {events for *_, events in places} == {audit["events"]}
        conn.execute("DELETE FROM ranks")  # as a library from before the ranks
        conn.execute("DELETE FROM ratings")
    assert we("import", REPLAYS / "tie-5p.jsonl", "--db", library).exit_code == 0
    with sqlite3.connect(library) as conn:
        after_import = conn.execute("SELECT * FROM ratings ORDER BY player").fetchall()
        assert conn.execute("SELECT count(DISTINCT game) FROM ranks").fetchone() == (2,)
        conn.execute("DELETE FROM ratings")
    assert len(after_import) == 8
    assert we("stats", "--ratings", "--db", library).exit_code == 0
    with sqlite3.connect(library) as conn:
        assert conn.execute("SELECT * FROM ratings ORDER BY player").fetchall() == after_import


def test_ratings_refuse_plot_and_a_second_mode(tmp_path: Path) -> None:
    both = we("stats", "--ratings", "--fairness", "--db", tmp_path / "x.db")
    assert both.exit_code == 2 and "choose one of --fairness and --ratings" in both.stderr
    plot = we("stats", "--ratings", "--plot", tmp_path / "x.png", "--db", tmp_path / "x.db")
    assert plot.exit_code == 2
    none = we("stats", "--ratings", "--db", tmp_path / "x.db")
    assert none.exit_code == 1 and "there is no library" in none.stderr


def test_the_ratings_table_in_a_postgresql_library(pg_url: str, tmp_path: Path) -> None:
    imported = we("import", REPLAYS / "game-night-3p.jsonl", REPLAYS / "tie-5p.jsonl", "--db", pg_url)
    assert imported.exit_code == 0, imported.stderr
    import psycopg

    def table() -> list[tuple[Any, ...]]:
        with psycopg.connect(pg_url) as conn:
            return conn.execute(
                "SELECT player, games, mu, sigma, ordinal FROM ratings ORDER BY ordinal DESC, player"
            ).fetchall()

    written_by_the_import = table()  # no `we stats --ratings` first
    shown = json.loads(we("stats", "--ratings", "--json", "--db", pg_url).stdout)
    rows = table()
    assert rows == written_by_the_import
    assert [(r["player"], r["games"], r["mu"], r["sigma"], r["ordinal"]) for r in shown["ratings"]] == rows


def test_concurrent_first_writers_of_a_postgresql_library(pg_url: str, tmp_path: Path) -> None:
    """Imports started together into a new library each make its tables on first use: none
    fails for another's CREATE TABLE, and every game gets its places."""
    logs = [REPLAYS / name for name in VALID_REPLAYS]
    imports = [
        subprocess.Popen(
            [sys.executable, "-m", "cli.main", "import", str(log), "--db", pg_url],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for log in logs
    ]
    for started in imports:
        _, err = started.communicate(timeout=120)
        assert started.returncode == 0, err
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(DISTINCT game) FROM ranks").fetchone() == (len(logs),)
        rated = conn.execute("SELECT sum(games) FROM ratings").fetchone()
    assert rated is not None and rated[0] == conn_places(pg_url)


def conn_places(pg_url: str) -> int:
    import psycopg

    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT count(*) FROM ranks").fetchone()
    assert row is not None
    return int(row[0])


def test_a_worker_of_we_import_hands_back_the_places_with_the_lines() -> None:
    """`we import --jobs` audits in worker processes: the places they found must reach the
    writer, or every import would rank its games again in the catch-up (a fold of each)."""
    from cli.library import _received, _verify
    from service.library import VerifiedLog
    from service.reading import GameSource

    log = REPLAYS / "game-night-3p.jsonl"
    verified = _received(_verify(GameSource(label=str(log), path=log)))
    assert isinstance(verified, VerifiedLog)
    assert verified.ranks == [(0, "Maria", 21, 2), (1, "Jonas", 22, 1), (2, "Priya", 19, 3)]
