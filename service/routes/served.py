"""What every route of `we serve` reaches: the served games, their keys, the bots at their seats
and the event that ends the streams, held in `app.state.served` and handed to a route as
`ServedDep`; and who a request's key is, for which game."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request

from service.bots import BotPlayer, BotSeats
from service.clock import TableClocks
from service.keys import HOST, KeyRing, Role
from service.live import Folder, LiveGame
from service.routes.answers import ApiError, key_text, shortened
from service.streams import LiveStreams

MAX_GAMES = 1_000

if TYPE_CHECKING:
    from eventstore.postgres import LibraryPool
    from service.library_games import StoredGames

# The bare address, opened without the host's link: where that link is.
LOBBY_WITHOUT_KEY = (
    "this is the host's lobby: open the link `we serve` printed in its terminal when it started,"
    ' after "Host (keep this link to yourself):" (it ends in ?k=...); players and the TV get'
    " their links from the host's lobby"
)

# (what is served, the game, a seat's role, a move's body, whether to build the answer) ->
# (status, answer): a bot's move, as service.routes.moves makes every move.
BotPost = Callable[["Served", LiveGame, Role, dict[str, Any], bool], tuple[int, dict[str, Any]]]


def log_problem(message: str) -> None:
    """One line on the server's stderr, with the time: what it could not read, and when."""
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(f"{when} we serve: {message}", file=sys.stderr, flush=True)


@dataclass
class Served:
    """The games of a folder (or of a PostgreSQL library), as one app serves them."""

    folder: Folder | StoredGames
    keys: KeyRing
    base_url: str
    host_key: str
    directory: Path | None  # None: the games are in a library (`we serve --db`)
    bot_seats: BotSeats
    clocks: TableClocks  # each game's table clock (service.clock)
    # Given by create_app, as service.routes.moves imports this module rather than the reverse.
    bot_post: BotPost
    # Set when the server stops: every stream then ends, rather than the shutdown waiting on it.
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # Who holds the live streams, so that one key or one address cannot hold them all.
    streams: LiveStreams = field(default_factory=LiveStreams)
    # The most games POST /api/v1/games makes the folder hold (`we serve --max-games`).
    max_games: int = MAX_GAMES
    bots: BotPlayer = field(init=False)

    def __post_init__(self) -> None:
        # A seated bot's move answers its head alone: nobody reads the rest.
        post = partial(self.bot_post, self)
        self.bots = BotPlayer(self.bot_seats, self.game, lambda g, r, b: post(g, r, b, False), log_problem)
        self.folder.on_grew = self.bots.grew  # a move read from the log: perhaps a bot's turn

    @classmethod
    def open(
        cls,
        directory: Path | None,
        base_url: str,
        host_key: str,
        library: LibraryPool | None,
        bot_post: BotPost,
        clock: float = 0,
    ) -> Served:
        """The games of `directory`, or of a PostgreSQL `library`; nothing is read until asked."""
        keys = KeyRing(host_key)
        folder: Folder | StoredGames
        if library is not None:
            from service.library_games import StoredGames

            folder = StoredGames(library, keys)
        else:
            assert directory is not None
            folder = Folder(directory, keys)
        # What the follower cannot read (a file, the database gone) goes to the server's log.
        folder.on_error = log_problem
        bot_seats = BotSeats(None if directory is None else directory / ".we" / "bots.json")
        clocks = TableClocks(clock, None if directory is None else directory / ".we" / "clocks.json", library)
        return cls(folder, keys, base_url, host_key, directory, bot_seats, clocks, bot_post)

    def game(self, game_id: str) -> LiveGame | None:
        """The game with this id, read up to its log's end; None if none is served."""
        game = self.folder.get(game_id)
        if game is not None:
            self.folder.refresh(game)
        return game

    def role_for(self, request: Request) -> Role:
        role = self.keys.role_of(key_text(request))
        if role is None:
            if key_text(request):
                raise ApiError(401, "that is not a key of this service")
            if request.url.path == "/":
                raise ApiError(401, LOBBY_WITHOUT_KEY)
            raise ApiError(401, "a key is needed (?k=KEY or Authorization: Bearer KEY)")
        return role

    def game_for(self, request: Request, game_id: str, refresh: bool = True) -> tuple[Role, LiveGame]:
        """The request's role and the game it names, in the spec's order: 401, 404, 403."""
        role = self.role_for(request)
        game = self.folder.get(game_id)
        if game is None:
            raise ApiError(404, f"no game {shortened(game_id)!r} here")
        if role.kind != HOST and role.game != game.game:
            raise ApiError(403, "this key is for another game")
        if refresh:
            self.folder.refresh(game)
        return role, game

    def host_only(self, request: Request, what: str) -> Role:
        role = self.role_for(request)
        if role.kind != HOST:
            raise ApiError(403, f"only the host's key can {what}")
        return role

    def links(self, game_id: str, players: tuple[str, ...]) -> dict[str, Any]:
        """The table's link and a link per seat a person plays (a bot's seat gets none)."""
        played_by_bots = self.bot_seats.of(game_id)
        return {
            "table": f"{self.base_url}/t/{game_id}?k={self.keys.table_key(game_id)}",
            "seats": {
                p: f"{self.base_url}/t/{game_id}?k={self.keys.seat_key(game_id, p)}"
                for p in players
                if p not in played_by_bots
            },
        }


def served_of(request: Request) -> Served:
    served: Served = request.app.state.served
    return served


async def _served(request: Request) -> Served:
    # async: a plain function would be run on a worker thread, for every request.
    return served_of(request)


ServedDep = Annotated[Served, Depends(_served)]
