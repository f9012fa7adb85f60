"""What a move costs besides its rules: the seal looked for once, the log's head looked at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.live import LiveGame
from service.routes import moves
from service.routes.bodies import NewGame, adapter
from service.routes.games import _new_game_events
from service.routes.served import Served
from service.table import Table


def test_a_move_looks_for_the_seal_once_and_at_the_log_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = Served.open(tmp_path, "http://127.0.0.1:1", "host-key", None, bot_post=moves.post_for_bot)
    spec = adapter(NewGame).validate_python(
        {"players": ["Ann", "Ben", "Cat"], "dealer": "Ann", "lists": None, "deal_attics": True}
    )
    _, game = served.folder.start_new(None, _new_game_events(spec))
    host = served.keys.role_of("host-key")
    assert host is not None
    move = next(m for m in game.view_object(game.head, host)["legal"] if m["type"] != "undo")
    seals: list[int] = []
    looks: list[int] = []
    real_sealed, real_look = LiveGame.sealed, Table.look
    monkeypatch.setattr(LiveGame, "sealed", lambda self: seals.append(1) or real_sealed(self))
    monkeypatch.setattr(Table, "look", lambda self: looks.append(1) or real_look(self))
    status, body = moves.post_for_bot(served, game, host, {"expect": game.head, "move": move})
    assert status == 201, body
    assert body["view"]["seq"] == game.head
    assert (len(seals), len(looks)) == (1, 1)
