"""`we serve --max-games N`: the host's key starts no game once the folder holds N; the games
already there are still served (docs/service.md, "On a party's Wi-Fi")."""

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
