"""The games of a PostgreSQL library, as `we serve --db URL` holds them.

The same LiveGame as for a folder (each new row checked with the store's line checker and
folded with the core), read from the library instead of a file: `rows_after(head)` when the
game grew. Several servers on one database hear of each other's moves through the library's
announcements (LISTEN/NOTIFY, eventstore.postgres.Notifications): "game G has new events up to
seq N", and read them from the table. A server that loses the database keeps its streams open,
says so in its log, and reads again when it is back; every 2 s it also looks for new games and
new rows itself, in case an announcement went missing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eventstore.envelope import Envelope, make_game_id, utc_now, valid_game_id
from eventstore.errors import LogExistsError, StoreError
from eventstore.follow import Look, RowFollower
from eventstore.postgres import LibraryPool, Notifications
from service.keys import KeyRing
from service.live import SCAN_SECONDS, LiveGame
from service.play import Refused
from service.reading import GameReport, GameSource, read_game
from wecore.events import AnyEvent, event_payload


def connect_pool(url: str) -> tuple[LibraryPool, str]:
    """Connections to the PostgreSQL library at `url`, for a server, and the host key the
    library keeps; StoreError (one line) if it cannot be reached."""
    pool = LibraryPool(url)
    with pool.library() as library:
        return pool, library.host_key()


class StoredGame(LiveGame):
    """One game of the library, followed by its rows."""

    def __init__(self, pool: LibraryPool, game_id: str) -> None:
        # The path only names it in messages.
        super().__init__(Path(f"{game_id}.jsonl"), RowFollower())
        self.pool = pool
        self.game_id = game_id
        self.label = game_id

    def refresh(self) -> bool:
        """Take in the rows stored since the last look; True when the game grew."""
        with self.lock:
            if self.follower.halted:
                return False  # nothing is read after the row it stopped at: no query either
            assert isinstance(self.follower, RowFollower)
            with self.pool.library() as library:
                return self.follower.poll(library.log(self.game_id).rows_after, self._take) is not Look.SAME


class StoredGames:
    """Every game of the library, by game id, kept up to date by announcements and a look
    every SCAN_SECONDS; what the service asks of a Folder."""

    def __init__(self, pool: LibraryPool, keys: KeyRing) -> None:
        self.pool = pool
        self.where = pool.where
        self.keys = keys
        self.by_id: dict[str, StoredGame] = {}
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._notes = Notifications(pool.url, self._told, self._lost, self._back)
        self.on_error: Callable[[str], None] = lambda message: None
        # Told of every game that grew as it was read (the bots' thread looks then).
        self.on_grew: Callable[[LiveGame], None] = lambda game: None

    # --- what the service reads ---
    def scan(self) -> None:
        """Find games stored by anyone."""
        with self.pool.library() as library:
            ids = [row["id"] for row in library.games()]
        for game_id in ids:
            if game_id not in self.by_id:
                self.add(game_id)

    def add(self, game_id: str) -> StoredGame:
        with self.lock:
            game = self.by_id.get(game_id)
            if game is None:
                game = self.by_id[game_id] = StoredGame(self.pool, game_id)
        self._refresh(game)
        return game

    def _refresh(self, game: StoredGame) -> None:
        try:
            grew = game.refresh()
        except StoreError as exc:
            if self._notes.listening.is_set():  # else the outage is reported already, once
                self.on_error(str(exc))
            return
        if game.game is None:
            game.game = game.game_id
        with self.lock:
            self.keys.add_game(game.game_id, game.current.players)
        if grew:
            game.wake()
            self.on_grew(game)

    def refresh(self, game: LiveGame) -> None:
        self._refresh(game)  # type: ignore[arg-type]

    def get(self, game_id: str) -> LiveGame | None:
        with self.lock:
            found = self.by_id.get(game_id)
        if found is None and valid_game_id(game_id):  # no other id can be stored: no query
            try:
                with self.pool.library() as library:
                    known = library.has_game(game_id)
            except StoreError as exc:
                self.on_error(str(exc))
                return None
            if known:
                found = self.add(game_id)
        return found

    def games(self) -> list[LiveGame]:
        with self.lock:
            return sorted(self.by_id.values(), key=lambda g: g.label)

    def unserved(self) -> list[tuple[LiveGame, str]]:
        return []  # a library holds a game id once

    def count(self) -> int:
        """How many games the library holds: what `we serve --max-games` caps."""
        with self.lock:
            return len(self.by_id)

    # --- what the service writes ---
    @contextmanager
    def writer(self, game: LiveGame) -> Iterator[Any]:
        with self.pool.library() as library:
            yield library.log(game.game or game.label)

    def start_new(self, title: str | None, events: Sequence[AnyEvent]) -> tuple[list[Envelope], LiveGame]:
        """A new game, its id made as `we record` makes its default, with -2, -3, ... when
        that id is taken; its whole set-up in one write."""
        payloads = [event_payload(e) for e in events]
        base = make_game_id(title, datetime.now(UTC))
        with self.pool.library() as library:
            for n in range(1, 10_000):
                suffix = "" if n == 1 else f"-{n}"
                game_id = base[: 64 - len(suffix)].rstrip("-") + suffix
                try:
                    written = library.log(game_id).create_many(payloads, game_id, at=utc_now())
                    break
                except LogExistsError:
                    continue
            else:
                raise Refused(f"no free game id like {base!r} in {self.where}")
        return written, self.add(game_id)

    def read_game(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport:
        """The game read again from the library and checked (service.reading)."""
        source = GameSource(label=game.label, db_path=self.pool.url, game_id=game.game or game.label)
        with self.pool.library() as library:
            rows = library.log(source.game_id or "").rows
            return read_game(source, keep_envelopes=keep_envelopes, library_rows=lambda _source: rows())

    # --- the follower ---
    def _told(self, game_id: str, seq: int) -> None:
        with self.lock:
            game = self.by_id.get(game_id)
        if game is None:
            self.add(game_id)
        elif game.head < seq:
            self._refresh(game)

    def _lost(self, message: str) -> None:
        self.on_error(f"{message}; the streams stay open and catch up when it is back")

    def _back(self) -> None:
        self.on_error(f"{self.where}: the database is back; catching up")
        self._look()

    def _look(self) -> None:
        try:
            self.scan()
        except StoreError as exc:
            self.on_error(str(exc))
            return
        for game in self.games():
            self._refresh(game)  # type: ignore[arg-type]

    def start(self) -> None:
        try:
            self.scan()
        except StoreError as exc:
            self.on_error(str(exc))
        self._notes.start()
        self._thread = threading.Thread(target=self._follow, name="we-follower", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        while not self._stop.wait(SCAN_SECONDS):
            if self._notes.listening.is_set():
                self._look()

    def wake_all(self) -> None:
        for game in self.games():
            game.wake()

    def stop(self) -> None:
        self._stop.set()
        self._notes.stop()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.pool.close()
