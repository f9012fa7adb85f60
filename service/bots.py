"""Bots at the seats of a served game (docs/service.md, "Bots at the table").

`BotSeats` says which seats of which game a bot plays (kept beside the host key, in
GAMES_DIR/.we/bots.json, so a restarted service goes on playing them). `BotPlayer` is one
background thread: whenever a game with bots grows (the follower or a move tells it), it asks each
bot (wecore.bots, as `we simulate` seats them) for the move that is now theirs and posts it
through `post`, the very path an HTTP move takes (its body parsed, its seat's key checked, its
head expected), as the seat would send it: a face-down gift it has not seen by its place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from service.keys import SEAT, Role
from wecore.bots import Bot, bot_move
from wecore.levels import BOTS
from wecore.moves import chance_outcomes
from wecore.search import GameMovedOn, SearchBot, TimeLimit
from wecore.views import seat_move_object

POLL_SECONDS = 0.2
# A search bot's move at a served table stops searching after this much wall time, however
# busy the machine (the spec allows a bot 2 s a move; people wait on it). On an idle machine
# its playouts end well before: see docs/decisions.md for what this does to reproducibility.
SEARCH_SECONDS = 0.4

# The bots a host can seat, easiest first, as the lobby offers them (levels to choose from).
BOT_LEVELS: dict[str, str] = {
    "random": "random: any legal move",
    "greedy": "greedy: takes what scores most for it now",
    "ismcts": "ismcts: searches the game out, guessing only what it cannot see (the hardest)",
}

# (game, the seat's role, the request body) -> (status, answer): the service's own move path.
Post = Callable[[Any, Role, dict[str, Any]], tuple[int, dict[str, Any]]]


def bot_refusal(bots: Mapping[str, str], players: list[str], attics_dealt: bool) -> str | None:
    """Why a new game's `"bots"` are refused, in the table's words, or None."""
    if not bots:
        return None
    if not attics_dealt:
        return 'bots play only where the attics are dealt ("deal_attics": true): they bring from them'
    for player, name in bots.items():
        if player not in players:
            return f"bots: {player!r} is not a player of this game ({', '.join(players)})"
        if name not in BOTS:
            return f"bots: there is no bot called {name!r} (the bots are {', '.join(sorted(BOTS))})"
    return None


def served_bot(name: str, moved_on: Callable[[], bool] | None = None) -> Bot:
    """The bot called `name` as a served table seats it: as `we simulate` does, but the search
    bot stops searching before SEARCH_SECONDS of wall time have passed, and as soon as
    `moved_on()` says its game has moved on (its move would be refused: it decides again)."""
    if name == SearchBot.name:
        return SearchBot(time_limit=TimeLimit(time.monotonic, SEARCH_SECONDS, moved_on))
    return BOTS[name]()


class BotSeats:
    """Which seats a bot plays, by game; kept in `path` (None: in memory only)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.by_game: dict[str, dict[str, str]] = {}
        if path is not None and path.is_file():
            with contextlib.suppress(OSError, orjson.JSONDecodeError):
                found = orjson.loads(path.read_bytes())
                if isinstance(found, dict):
                    self.by_game = {
                        str(g): {str(p): str(b) for p, b in seats.items() if b in BOTS}
                        for g, seats in found.items()
                        if isinstance(seats, dict)
                    }

    def add(self, game: str, bots: Mapping[str, str]) -> None:
        if not bots:
            return
        with self.lock:
            self.by_game[game] = dict(bots)
            if self.path is not None:
                self._save()

    def _save(self) -> None:
        assert self.path is not None
        fd, name = tempfile.mkstemp(dir=self.path.parent, prefix=".bots-")
        with os.fdopen(fd, "wb") as out:
            out.write(orjson.dumps(self.by_game, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, self.path)

    def of(self, game: str | None) -> dict[str, str]:
        with self.lock:
            return dict(self.by_game.get(game or "", {}))

    def games(self) -> list[str]:
        with self.lock:
            return list(self.by_game)


class BotPlayer:
    """Makes the bots' moves of every served game, each as soon as it is theirs."""

    def __init__(
        self, seats: BotSeats, find: Callable[[str], Any], post: Post, on_error: Callable[[str], None]
    ) -> None:
        self.seats = seats
        self.find = find  # game id -> the served game (LiveGame), or None
        self.post = post
        self.on_error = on_error
        self._poked = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._refused: dict[str, int] = {}  # a bot's move refused at this head: not tried again there
        self._bots: dict[str, Bot] = {name: served_bot(name) for name in BOTS}

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="we-bots", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._poked.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def poke(self) -> None:
        """Something moved: look now rather than at the next poll."""
        self._poked.set()

    def grew(self, game: Any) -> None:
        """The follower read more of `game` (a LiveGame): its bots look now, if it has any."""
        if self.seats.of(game.game):
            self._poked.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._poked.wait(POLL_SECONDS)
            self._poked.clear()
            # A move a game a round, round after round while any game had one: a game of bots
            # alone, played out, would keep every other table's bot waiting for its end.
            moved = True
            while moved:
                moved = False
                for game_id in self.seats.games():
                    if self._stop.is_set():
                        return
                    try:
                        moved = self._play_one(game_id) or moved
                    except Exception as exc:  # one game's trouble must not stop the others' bots
                        self.on_error(f"{game_id}: a bot could not move: {exc}")

    def bot_for(self, name: str, game: Any, head: int) -> Bot:
        """The bot called `name`, deciding in `game` at `head`: a search bot stops searching
        once the game has moved past it (a person's move landed), as its move would be
        refused; the others never take long enough to need to."""
        if name != SearchBot.name:
            return self._bots[name]
        return served_bot(name, moved_on=lambda: game.head != head)

    def _play_one(self, game_id: str) -> bool:
        """The next bot move of this game, made; False when no bot has one to make now."""
        game = self.find(game_id)
        if game is None:
            return False
        with game.lock:
            state, head, stopped = game.state, game.head, game.stopped
        if stopped is not None or state.is_over or self._refused.get(game_id) == head:
            return False
        for player, name in self.seats.of(game_id).items():
            if player not in state.seat_of:
                continue
            outcomes = chance_outcomes(state)
            if outcomes:
                # A bot never chooses a face: its seat rolls, and the server draws it.
                if state.player_to_move != player:
                    continue
                body = {"expect": head, "move": {"type": outcomes[0][0].TYPE, "as": player}}
            else:
                try:
                    move = bot_move(state, player, self.bot_for(name, game, head), game_id)
                except GameMovedOn:
                    return True  # someone moved while it searched: decide again from there
                if move is None:
                    continue
                body = {"expect": head, "move": seat_move_object(state, player, move)}
            status, answer = self.post(game, Role(SEAT, game_id, player), body)
            if status == 201:
                return True
            if status != 409:  # 409: someone moved first; the next look decides again
                self._refused[game_id] = head
                self.on_error(f"{game_id}: {player}'s bot was refused ({status}): {answer.get('error')}")
            return False
        return False
