"""The bots' thread of a served folder looks as soon as a game grows, whoever appended to it,
not at its next poll; and a served search stops as soon as its game moves on (a person's move
landed while it searched), so the bot decides again rather than search for a refused move."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import service.bots
from service.keys import SEAT, KeyRing, Role
from service.live import Folder
from service.routes.bodies import NewGame
from service.routes.games import _new_game_events
from service.routes.moves import post_for_bot
from service.routes.served import Served
from service.table import Table
from wecore.bots import GreedyBot, bot_move
from wecore.search import GameMovedOn
from wecore.state import GameState

HOST_KEY = "h" * 43
PLAYERS = ["Ann", "Ben", "Cat"]


def _served(directory: Path, bots: dict[str, str]) -> tuple[Served, str]:
    (directory / ".we").mkdir()  # where `we serve` keeps its bots' seats
    served = Served.open(directory, "http://testserver", HOST_KEY, None, bot_post=post_for_bot)
    served.folder.scan()
    spec = NewGame(players=PLAYERS, dealer="Cat", deal_attics=True, bots=bots)
    written, _ = served.folder.start_new(None, _new_game_events(spec))
    game_id = written[0].game
    served.bot_seats.add(game_id, bots)
    return served, game_id


def _until(done: object, what: str) -> None:
    """Wait for `done()` (a bound on a wait for a thread, never a guess of how long it takes)."""
    pause = threading.Event()
    for _ in range(3000):
        if done():  # type: ignore[operator]
            return
        pause.wait(0.01)
    raise AssertionError(what)


def test_a_bot_moves_after_a_persons_append_read_from_the_log_without_waiting_for_a_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bots' own poll never comes: only a wake-up can make them move.
    monkeypatch.setattr(service.bots, "POLL_SECONDS", 3600.0)
    served, game_id = _served(tmp_path, {"Ben": "greedy", "Cat": "greedy"})
    game = served.folder.get(game_id)
    assert game is not None
    # Ann plays from another program (as `we record` would): the served folder reads her moves
    # only when its follower looks, which this test does itself, once a move.
    elsewhere = Folder(tmp_path, KeyRing(HOST_KEY))
    hers = elsewhere.add(game.path)
    served.bots.start()
    served.bots.poke()  # as POST /api/v1/games does
    try:
        ann_moves = 0
        while not game.state.is_over:
            _until(
                lambda: game.state.is_over or _only_ann_moves(game.state),
                f"the bots did not move at head {game.head}, after Ann's move {ann_moves}",
            )
            if game.state.is_over:
                break
            elsewhere.refresh(hers)
            move = bot_move(hers.state, "Ann", GreedyBot(), f"ann/{hers.head}")
            assert move is not None
            Table(elsewhere, hers).move(move, expect=hers.head)
            ann_moves += 1
            served.folder.look(scan=False)  # the follower's look: the game grew
        assert ann_moves >= 2
    finally:
        served.bots.stop()


def test_a_served_search_stops_once_a_persons_move_lands_and_the_bot_decides_again(tmp_path: Path) -> None:
    served, game_id = _served(tmp_path, {"Ben": "ismcts"})
    game = served.folder.get(game_id)
    assert game is not None
    state, head = game.state, game.head
    bot = served.bots.bot_for("ismcts", game, head)
    assert bot_move(state, "Ben", bot, game_id) is not None  # nothing moved: it decides
    # Ann brings while Ben's bot would be searching at `head`: its search stops at once.
    ann_bring = bot_move(state, "Ann", GreedyBot(), "ann")
    assert ann_bring is not None
    status, _ = post_for_bot(
        served, game, Role(SEAT, game_id, "Ann"), _move_body(state, "Ann", ann_bring, head)
    )
    assert status == 201
    with pytest.raises(GameMovedOn):
        bot_move(state, "Ben", bot, game_id)
    # The bots' thread decides again from the game as it is now, and Ben brings.
    refused: list[str] = []
    served.bots.on_error = refused.append
    served.bots.start()
    served.bots.poke()
    try:
        _until(lambda: "Ben" not in game.state.waiting_to_bring, "Ben's bot never brought")
    finally:
        served.bots.stop()
    assert refused == []


def _only_ann_moves(state: GameState) -> bool:
    """Ann has a move to make and the bots none: they wait for her."""
    return all(
        (bot_move(state, player, GreedyBot(), "look") is not None) == (player == "Ann") for player in PLAYERS
    )


def _move_body(state: object, player: str, move: object, head: int) -> dict[str, object]:
    from wecore.views import seat_move_object

    return {"expect": head, "move": seat_move_object(state, player, move)}  # type: ignore[arg-type]
