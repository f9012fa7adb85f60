"""A folder of many games: `we serve --max-games N` starts no game once the folder holds N (the
games already there are still served), and the lobby shows a page of unfinished games at a time
with their codes, the finished ones folded (docs/service.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from served import ROOT, new_game, start_server

GAME = {
    "players": ["Ann", "Ben", "Cat"],
    "dealer": "Cat",
    "lists": {"Ann": "RGY", "Ben": "BGO", "Cat": "RBO"},
}


def test_new_games_stop_at_the_cap_and_the_games_there_are_still_served(tmp_path: Path) -> None:
    shutil.copy(ROOT / "replays" / "game-night-3p.jsonl", tmp_path / "game-night-3p.jsonl")
    server = start_server(tmp_path, "--max-games", "2")
    try:
        new_game(server, title="The second")  # 201: the folder held one game
        with server.host as host:
            refused = host.post("/api/v1/games", json={**GAME, "title": "The third"})
            assert refused.status_code == 409, refused.text
            sentence = refused.json()["error"]
            assert "holds 2 games" in sentence and "--max-games 2" in sentence, sentence
            listed = host.get("/api/v1/games").json()
            assert len(listed) == 2
            for game in listed:
                assert host.get(f"/api/v1/games/{game['id']}").status_code == 200
        assert len(list(tmp_path.glob("*.jsonl"))) == 2  # nothing written for the refused game
    finally:
        assert server.stop() == 0


def test_a_folder_already_over_the_cap_is_served_whole(tmp_path: Path) -> None:
    for name in ("game-night-3p", "tie-5p", "bots-7p"):
        shutil.copy(ROOT / "replays" / f"{name}.jsonl", tmp_path / f"{name}.jsonl")
    server = start_server(tmp_path, "--max-games", "1")
    try:
        with server.host as host:
            assert len(host.get("/api/v1/games").json()) == 3
            assert host.post("/api/v1/games", json=GAME).status_code == 409
            assert host.get("/").status_code == 200
    finally:
        assert server.stop() == 0


def test_the_lobby_pages_the_unfinished_games_and_folds_the_finished(tmp_path: Path) -> None:
    from service.pages import LOBBY_PAGE

    for name in ("game-night-3p", "tie-5p"):
        shutil.copy(ROOT / "replays" / f"{name}.jsonl", tmp_path / f"{name}.jsonl")
    server = start_server(tmp_path)
    try:
        started = [new_game(server, title=f"Table {n:02d}")["id"] for n in range(LOBBY_PAGE + 1)]
        with server.host as host:
            first = host.get("/").text
            second = host.get("/", params={"page": 2}).text
            past = host.get("/", params={"page": 99}).text
            assert host.get("/", params={"page": 0}).status_code == 422
    finally:
        assert server.stop() == 0
    finished = first[first.index('<details id="finished-games">') :]
    assert "<summary>2 finished games</summary>" in finished and "<svg" not in finished
    assert 'data-game="game-night-2026-12-05"' in finished  # its links are still there
    unfinished = first[: first.index('<details id="finished-games">')]
    # The game played last comes first: page 1 holds the newest, page 2 the first one started.
    newest_first = started[::-1]
    assert [g for g in newest_first if f'data-game="{g}"' in unfinished] == newest_first[:LOBBY_PAGE]
    assert unfinished.count("<svg") == 3 * LOBBY_PAGE  # a code for each seat of the page's games
    assert "page 1 of 2" in first and "later games" in first
    assert f'data-game="{started[0]}"' in second and f'data-game="{started[-1]}"' not in second
    assert past == second  # past the last page: the last
