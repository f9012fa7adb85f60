"""What a move costs besides its rules: the seal looked for once, the log's head looked at once; and
what a move says when another writer moved the log on since the server last read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.keys import Role
from service.live import LiveGame
from service.routes import moves
from service.routes.bodies import NewGame, adapter
from service.routes.games import _new_game_events
from service.routes.served import Served
from service.table import Table


def _served_game(tmp_path: Path) -> tuple[Served, LiveGame, dict[str, object]]:
    served = Served.open(tmp_path, "http://127.0.0.1:1", "host-key", None, bot_post=moves.post_for_bot)
    spec = adapter(NewGame).validate_python(
        {"players": ["Ann", "Ben", "Cat"], "dealer": "Ann", "lists": None, "deal_attics": True}
    )
    _, game = served.folder.start_new(None, _new_game_events(spec))
    host = served.keys.role_of("host-key")
    assert host is not None
    move = next(m for m in game.view_object(game.head, host)["legal"] if m["type"] != "undo")
    return served, game, {"expect": game.head, "move": move}


def test_a_move_looks_for_the_seal_once_and_at_the_log_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served, game, body = _served_game(tmp_path)
    host = served.keys.role_of("host-key")
    assert host is not None
    seals: list[int] = []
    looks: list[int] = []
    reads: list[int] = []
    real_sealed, real_look, real_refresh = LiveGame.sealed, Table.look, LiveGame.refresh
    monkeypatch.setattr(LiveGame, "sealed", lambda self: seals.append(1) or real_sealed(self))
    monkeypatch.setattr(Table, "look", lambda self: looks.append(1) or real_look(self))
    monkeypatch.setattr(LiveGame, "refresh", lambda self: reads.append(1) or real_refresh(self))
    status, answer = moves.post_for_bot(served, game, host, body)
    assert status == 201, answer
    assert answer["view"]["seq"] == game.head
    # The log is read before the move is decided (the store reads its head again under its lock).
    assert (len(seals), len(looks), len(reads)) == (1, 1, 1)


def _host_and_a_recorders_line(tmp_path: Path) -> tuple[Served, LiveGame, dict[str, object], Role, int]:
    """A served game, its host's role, and the log's head after a recorder appended a note the
    server has not read yet."""
    served, game, body = _served_game(tmp_path)
    host = served.keys.role_of("host-key")
    assert host is not None
    return served, game, body, host, _someone_else_appends(game)


def _someone_else_appends(game: LiveGame) -> int:
    """Another writer (a recorder) adds a note to the log, unseen by the server so far: the
    log's head now."""
    other = Table.of_file(game.path)
    from wecore.decider import AddNote

    return other.move(AddNote(text="from the recorder")).head


def test_a_move_on_the_head_last_read_when_the_log_moved_on_is_409_naming_the_new_head(
    tmp_path: Path,
) -> None:
    served, game, body, host, head = _host_and_a_recorders_line(tmp_path)
    size = game.path.stat().st_size
    status, answer = moves.post_for_bot(served, game, host, body)
    assert status == 409, answer
    assert f"the log's head is {head}" in answer["error"]
    assert game.head == head  # read now, so the next look shows it
    assert game.path.stat().st_size == size  # nothing written


def test_a_move_on_a_head_the_server_has_not_read_yet_reads_the_log_and_is_made(tmp_path: Path) -> None:
    """A client that saw the other writer's line first (from another server on the folder)
    names the new head: the move is made on it."""
    served, game, body, host, head = _host_and_a_recorders_line(tmp_path)
    status, answer = moves.post_for_bot(served, game, host, {**body, "expect": head})
    assert status == 201, answer
    assert answer["seq"] == head + 1


@pytest.mark.parametrize(
    ("put_in_its_place", "sentence"),
    [
        ("link", "is a symbolic link: the server shows it but records only into its folder's own files"),
        ("nothing", "the log is gone; nothing was recorded"),
    ],
)
def test_a_move_onto_a_log_not_the_one_read_is_refused_and_writes_nothing(
    tmp_path: Path, put_in_its_place: str, sentence: str
) -> None:
    served, game, body = _served_game(tmp_path)
    host = served.keys.role_of("host-key")
    assert host is not None
    kept = tmp_path / "elsewhere.jsonl.bak"
    original = game.path.read_bytes()
    game.path.rename(kept)
    if put_in_its_place == "link":
        game.path.symlink_to(kept)
    status, answer = moves.post_for_bot(served, game, host, body)
    assert status == 422, answer
    assert sentence in answer["error"]
    assert kept.read_bytes() == original  # nothing appended through the link


def test_a_log_put_in_the_place_of_the_one_read_is_read_again_and_the_move_goes_onto_it(
    tmp_path: Path,
) -> None:
    served, game, body = _served_game(tmp_path)
    host = served.keys.role_of("host-key")
    assert host is not None
    kept = tmp_path / "elsewhere.jsonl.bak"
    original = game.path.read_bytes()
    game.path.rename(kept)
    game.path.write_bytes(original)  # a copy: another file at the path
    status, answer = moves.post_for_bot(served, game, host, body)
    assert status == 201, answer
    assert kept.read_bytes() == original  # the file moved away is left as it was
    assert game.path.read_bytes().startswith(original)
    assert len(game.path.read_bytes().splitlines()) == len(original.splitlines()) + 1
