"""The games of one folder, as the service holds them: each log followed as it grows.

A LiveGame follows its file with the store's follower (eventstore.follow: new complete lines,
checked; a torn tail waited on; a replaced file read again from line 1) and folds each line
with the core. Whoever wrote the line (this service, `we record`, another service), it is
taken in the same way, so streams see one sequence. A line that fails a check stops the game
there (`stopped`), as `we replay` stops at a damaged log's first problem.

The Folder finds the logs (`*.jsonl`), polls the ones in memory every 0.2 s and the folder
every 2 s, and wakes the streams of a game that grew.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from eventstore.canonical import fingerprint
from eventstore.envelope import valid_game_id
from eventstore.errors import StoreError
from eventstore.follow import LogFollower, Look, RowFollower
from eventstore.problems import Problem
from service.keys import HOST, SEAT, TABLE, KeyRing, Role
from service.play import undo_preview
from service.reading import GameReport, GameSource, damage_sentence, read_game
from service.season import SEASON_FILE, seal_mark, sealed_sentence
from wecore.conformance import RULES, SCHEMA
from wecore.errors import EventSchemaError, RulesetError, WeError
from wecore.events import AnyEvent, EventVoided, parse_event
from wecore.moves import legal_moves, move_object
from wecore.narrate import describe, taken_back
from wecore.reducer import evolve
from wecore.rules import brought_with_first_open
from wecore.scoring import Scoreboard, score
from wecore.state import INITIAL_STATE, GameState
from wecore.views import SeatView, redact_log, seat_moves, view, view_as

POLL_SECONDS = 0.2
CHECKPOINT = 32
RECENT = 16  # the newest states kept whole: live messages need the one before the latest
SCAN_SECONDS = 2.0
# Encoded stream messages kept per game (each seq, per kind of key): enough for every follower
# of a live game to share them, few enough that memory does not grow with the game.
_MESSAGE_CACHE = 256


def plain(value: Any) -> Any:
    """Tuples to lists, enums to values: what JSON would give back."""
    return orjson.loads(orjson.dumps(value))


def redact_envelope(envelope: dict[str, Any], role: Role) -> dict[str, Any]:
    """An envelope as a key may see it: for a table or seat key, other players' attic cards and
    brought cards are null and `prev`/`hash` are dropped (a kept hash would give a hidden card
    away to anyone trying the 50 cards). The host sees the line as written."""
    if role.kind == HOST:
        return envelope
    return redact_log([envelope], role.seat)[0]


def legal_for(state: GameState, role: Role, undoes: str | None) -> list[dict[str, Any]]:
    """The moves this key may send now, as move objects (`undoes`: what the host's undo would
    take back, None when there is nothing it may undo). A seat's are what it may see of them
    (wecore.views.seat_moves)."""
    if role.kind == TABLE:
        return []
    if role.kind == SEAT:
        return seat_moves(state, role.seat) if role.seat is not None else []
    moves = [move_object(m) for m in legal_moves(state)]
    if brought_with_first_open(state):
        # Gifts not recorded go down unseen with the starter's first open, as in `we record`.
        moves.append({"type": "open", "as": state.starter_name, "card": None})
    if undoes is not None:
        moves.append({"type": "undo"})
    return moves


class WrittenAt(Sequence[str | None]):
    """The envelopes' `at`, read where asked ([i] for seq i + 1), without copying a long game."""

    def __init__(self, envelopes: list[dict[str, Any]]) -> None:
        self.envelopes = envelopes

    def __len__(self) -> int:
        return len(self.envelopes)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [e.get("at") for e in self.envelopes[index]]
        return self.envelopes[index].get("at")


def shown_name(path: Path) -> str:
    """A file's name as messages and pages show it: UTF-8 (a name of other bytes would make
    every answer naming it fail to encode) and one line (a name may hold a newline)."""
    name = os.fsencode(path.name).decode("utf-8", "replace")
    return name if name.isprintable() else repr(name)[1:-1]


def in_our_words(exc: StoreError, game: LiveGame) -> str:
    """The store's sentence about a game's log, naming it as the service does (its file name,
    not the server's folder) and in one line."""
    sentence = str(exc).replace(os.fspath(game.path), game.label)
    return os.fsencode(sentence).decode("utf-8", "replace").splitlines()[0]


@dataclass
class Subscribers:
    """The streams of one game wait on `changed`; it is set (and replaced) when the game grows."""

    loop: asyncio.AbstractEventLoop
    changed: asyncio.Event
    role: Role | None = None


class LiveGame:
    def __init__(self, path: Path, follower: LogFollower | RowFollower | None = None) -> None:
        self.path = path
        self.label = shown_name(path)
        # Where a seal of this log would be (see `sealed`): the folder's ledger, the log's mark.
        self._seal_places = (os.path.join(os.path.dirname(path), SEASON_FILE), os.fspath(seal_mark(path)))
        self.lock = threading.RLock()
        self.follower = follower if follower is not None else LogFollower(path)
        self._reset()
        self._waiters: dict[asyncio.AbstractEventLoop, list[Subscribers]] = {}

    def _reset(self) -> None:
        """The game as before its first line (the follower starts over on its own)."""
        self.game: str | None = None
        self.envelopes: list[dict[str, Any]] = []  # good lines, as written; [i] has seq i + 1
        self.events: list[AnyEvent] = []
        # The state after the last good line, and after every CHECKPOINT-th: any other is a
        # short fold away, so a long game costs a state per 32 events, not one per event.
        self.current: GameState = INITIAL_STATE
        self.checkpoints: dict[int, GameState] = {0: INITIAL_STATE}
        self.recent: deque[GameState] = deque(maxlen=RECENT)  # after the last RECENT lines
        self.problem: Problem | None = None  # the schema or rules problem folding stopped at
        self.messages: OrderedDict[tuple[int, str], bytes] = OrderedDict()
        # The scoreboard of the state last asked for: a move's message and its POST's answer
        # (each kind of key's view) all show the one of the new head.
        self._board: tuple[GameState, Scoreboard] | None = None
        self._seen: tuple[GameState, SeatView] | None = None
        self._head_views: dict[tuple[int, str], dict[str, Any]] = {}  # see view_object

    # --- reading ---
    @property
    def head(self) -> int:
        return len(self.envelopes)

    @property
    def state(self) -> GameState:
        return self.current

    def refresh(self) -> bool:
        """Take in what was appended since the last look; True when the game grew (or changed).
        A log replaced, cut back or written over is read again from its start.

        Raises FileNotFoundError when the log is gone, StoreError when its path is no regular
        file (a FIFO, a device, a directory) or cannot be read: the Folder says so, once."""
        assert isinstance(self.follower, LogFollower)
        with self.lock:
            try:
                look = self.follower.poll(self._take)
                if look is Look.REPLACED:
                    self._reset()
                    self.follower.poll(self._take)
            except StoreError as exc:
                raise StoreError(in_our_words(exc, self)) from None
            return look is not Look.SAME

    def _take(self, number: int, raw: dict[str, Any]) -> bool:
        """Fold one good line of the log (or row of a library); False when it stops the game."""
        try:
            event = parse_event(raw["type"], raw["data"])
            state = evolve(self.state, event)
        except WeError as exc:
            kind = SCHEMA if isinstance(exc, EventSchemaError | RulesetError) else RULES
            self.problem = Problem(number, kind, str(exc))
            return False
        if self.game is None:
            self.game = raw["game"]
        self._keep(raw, event, state)
        return True

    def _keep(self, raw: dict[str, Any], event: AnyEvent, state: GameState) -> None:
        """One more event read or written: its envelope, event and state, and a checkpoint of
        the state every CHECKPOINT events."""
        self.envelopes.append(raw)
        self.events.append(event)
        self.current = state
        self.recent.append(state)
        if len(self.envelopes) % CHECKPOINT == 0:
            self.checkpoints[len(self.envelopes)] = state

    def took_own(
        self,
        appended: Any,
        envelopes: list[dict[str, Any]],
        events: Sequence[AnyEvent],
        states: Sequence[GameState],
    ) -> bool:
        """Take the events this process just appended (`appended`: eventstore.jsonl.Appended),
        folded by the writer already, without reading the log back. False, nothing taken, when
        the log is not exactly as last read before them (then `refresh` reads them)."""
        with self.lock:
            follower = self.follower
            if (
                not isinstance(follower, LogFollower)
                or appended is None
                or self.problem is not None
                or not envelopes
                or envelopes[0]["seq"] != self.head + 1
            ):
                return False
            hashes = [e["hash"] for e in envelopes]
            if not follower.took(appended.size_before, appended.after, appended.lines, hashes):
                return False
            for raw, event, state in zip(envelopes, events, states, strict=True):
                self._keep(raw, event, state)
            return True

    @property
    def _stopped_at(self) -> Problem | None:
        follower = self.follower
        torn = follower.torn if isinstance(follower, LogFollower) else None
        return self.problem or follower.problem or torn

    @property
    def stopped(self) -> str | None:
        """Why the game cannot be read further, in `we audit`'s words, or None."""
        problem = self._stopped_at
        if problem is None:
            return None
        return f"{self.label}: line {problem.line}: {problem.kind}: {problem.message}"

    def damage(self) -> str | None:
        """The recorder's sentence for a damaged log, or None."""
        problem = self._stopped_at
        if problem is None:
            return None
        return damage_sentence(self.label, [problem])

    def state_at(self, seq: int) -> GameState:
        """The state after event `seq` (0: before the first)."""
        if seq >= self.head:
            return self.current
        back = self.head - seq  # 1: the state before the latest event
        if back <= len(self.recent) - 1:
            return self.recent[-1 - back]
        base = seq - seq % CHECKPOINT
        state = self.checkpoints[base]
        for event in self.events[base:seq]:
            state = evolve(state, event)
        return state

    # --- what a key sees ---
    def board_of(self, state: GameState) -> Scoreboard:
        """`score(state)`, worked out once for the state last asked about."""
        kept = self._board
        if kept is not None and kept[0] is state:
            return kept[1]
        board = score(state)
        self._board = (state, board)
        return board

    def seen(self, state: GameState, seat: str | None, omniscient: bool) -> SeatView:
        """`view(state, seat, omniscient)`: the first kind of key's worked out in full, each
        other's of the same state made from it (a move's answer and its stream messages view
        one state for several kinds of key). The caller holds the lock."""
        kept = self._seen
        if kept is not None and kept[0] is state:
            return view_as(kept[1], state, seat, omniscient)
        made = view(state, seat, omniscient=omniscient, board=self.board_of(state))
        self._seen = (state, made)
        return made

    def fingerprint(self, seq: int) -> str | None:
        if not seq:
            return None
        return fingerprint(self.envelopes[seq - 1].get("hash"))

    def view_object(
        self, seq: int, role: Role, seen: SeatView | None = None, unsealed: bool = False
    ) -> dict[str, Any]:
        """GET /games/{id} as of event `seq`: `we replay --at seq --json` for this key, plus
        seq, fingerprint and legal, as orjson writes it (tuples and enums are left as they are:
        `plain` gives what JSON would give back). The head's, for each kind of key, is derived once and
        shared (the POST's answer, the stream's message, a GET) until the game grows. `seen`:
        this key's `view` of the state at `seq`, where the caller has it already. `unsealed`:
        the caller found the game unsealed a moment ago (a move's writer, which checked just
        before its append): the seal is not looked for again (two stats, each a thread switch)."""
        with self.lock:
            sealed = None if unsealed or seq != self.head else self.sealed()
            if seq != self.head or sealed is not None:
                return self._view_object(seq, role, seen, sealed)
            key = (seq, role.cache_key)
            found = self._head_views.get(key)
            if found is None:
                if self._head_views and next(iter(self._head_views))[0] != seq:
                    self._head_views.clear()
                found = self._head_views[key] = self._view_object(seq, role, seen, None)
            return found

    def _view_object(self, seq: int, role: Role, seen: SeatView | None, sealed: str | None) -> dict[str, Any]:
        """The view object; `sealed`: why the game is sealed, for the head (None: not sealed,
        or not the head)."""
        state = self.state_at(seq)
        if state.players:
            seat = role.seat if role.kind == SEAT else None
            if seen is None:
                seen = self.seen(state, seat, role.kind == HOST)
            data = seen.to_dict()
        else:
            data = {}
        fingerprint = self.fingerprint(seq)
        if role.kind != HOST and not state.is_over:
            fingerprint = None
        data.update(game=self.game, seq=seq, fingerprint=fingerprint)
        if sealed is not None:
            # Sealed into the folder's season: its log is final, nothing is offered (Table refuses).
            data.update(sealed=sealed, legal=[])
            return data
        undoes = None
        if role.kind == HOST:
            # What the Undo button takes back, in the recorder's words; the events after `seq`
            # are never read (plan_undo reads only those in effect at `seq`).
            undoes = undo_preview(state, self.events, WrittenAt(self.envelopes))
            data["undoes"] = undoes
        data["legal"] = legal_for(state, role, undoes)
        return data

    def sealed(self) -> str | None:
        """Why nothing may be added to this game's log, when a season sealed it (its folder's, or
        any ledger that left its mark beside the log)."""
        # Most logs are sealed by no season: a look at each place a seal could be, made of
        # strings once, tells so without building a path (and `access` says "no" without the
        # exception a missing file's stat raises).
        season, mark = self._seal_places
        if not (_there(season) or _there(mark)):
            return None
        return sealed_sentence(self.path, self.game)

    def sentence(self, seq: int, role: Role) -> str:
        event = self.events[seq - 1]
        before = self.state_at(seq - 1)
        after = self.state_at(seq)
        seat = role.seat if role.kind == SEAT else None
        if isinstance(event, EventVoided):
            return taken_back(event, self.events[event.voids - 1], after, seat, role.kind == HOST)
        return describe(event, before, after, viewer=seat, omniscient=role.kind == HOST)

    def message(self, seq: int, role: Role, unsealed: bool = False) -> bytes:
        """One stream message, framed as a Server-Sent Event (`id:` its seq, `event: envelope`,
        `data:` the message), cached: every follower with this kind of key sends the same bytes.
        `unsealed`: as for `view_object`."""
        key = (seq, role.cache_key)
        # Built already (by the move's writer, usually): no lock, so a stream on the event loop
        # never waits for a worker holding the game (a dict's get is atomic).
        found = self.messages.get(key)
        if found is not None:
            return found
        with self.lock:
            found = self.messages.get(key)
            if found is not None:
                return found
            from service.replay_page import board_json, step_marks

            seat = role.seat if role.kind == SEAT else None
            state = self.state_at(seq)
            # This key's view of the step, derived once for the view and the page's marks.
            board = self.board_of(state)
            seen = self.seen(state, seat, role.kind == HOST) if state.players else None
            data = {
                "envelope": redact_envelope(self.envelopes[seq - 1], role),
                "view": self.view_object(seq, role, seen, unsealed),
                "sentence": self.sentence(seq, role),
                "board": board_json(board),
                **step_marks(self.events[seq - 1], state, seat, role.kind == HOST, seen),
            }
            encoded = b"id: %d\nevent: envelope\ndata: %s\n\n" % (seq, orjson.dumps(data))
            self.messages[key] = encoded
            if len(self.messages) > _MESSAGE_CACHE:
                self.messages.popitem(last=False)
            return encoded

    def prepare(self, after: int, unsealed: bool = False) -> None:
        """The stream messages of the events after `after`, for each kind of key following the
        game, built now by the move's writer (off the event loop) for the streams to share.
        `unsealed`: as for `view_object`."""
        roles = self.watching_roles()
        for seq in range(after + 1, self.head + 1):
            for role in roles:
                self.message(seq, role, unsealed)

    # --- waking streams ---
    def subscribe(self, role: Role | None = None) -> Subscribers:
        """A stream's wake-up; with its key's `role`, a move's writer builds that kind of key's
        message before waking it (`prepare`), off the event loop."""
        sub = Subscribers(asyncio.get_running_loop(), asyncio.Event(), role)
        with self.lock:
            self._waiters.setdefault(sub.loop, []).append(sub)
        return sub

    def unsubscribe(self, sub: Subscribers) -> None:
        with self.lock:
            subs = self._waiters.get(sub.loop, [])
            if sub in subs:
                subs.remove(sub)
            if not subs:
                self._waiters.pop(sub.loop, None)

    def wake(self) -> None:
        """Every stream of the game woken: one call into each event loop, not one per stream
        (a thread's call into a loop costs a write to its self-pipe and a turn of the loop)."""
        with self.lock:
            loops = list(self._waiters)
        here = asyncio._get_running_loop()
        for loop in loops:
            if loop is here:  # called on that loop: its streams are woken now, with no call into it
                self._wake_in(loop)
                continue
            with contextlib.suppress(RuntimeError):  # its loop is closed: the server is stopping
                loop.call_soon_threadsafe(self._wake_in, loop)

    def _wake_in(self, loop: asyncio.AbstractEventLoop) -> None:
        with self.lock:
            subs = list(self._waiters.get(loop, ()))
        for sub in subs:
            sub.changed.set()

    def watching_roles(self) -> list[Role]:
        """One role of each kind of key that follows the game now (their messages are shared)."""
        with self.lock:
            subs = [sub for loop_subs in self._waiters.values() for sub in loop_subs]
        return list({sub.role.cache_key: sub.role for sub in subs if sub.role is not None}.values())


def _there(place: str) -> bool:
    """Whether anything is at `place`, a link to nothing included (as `os.path.lexists`)."""
    return os.access(place, os.F_OK, follow_symlinks=False)


def file_of(game: LiveGame) -> tuple[int, int] | None:
    """(device, inode) of the file a game was read from; None if none was (yet)."""
    return game.follower.identity if isinstance(game.follower, LogFollower) else None


class Folder:
    """Every game log in GAMES_DIR, by game id, kept up to date by a background thread.

    Every `*.jsonl` is followed, served or not. A game id is served from one file: the first
    by name at the start, and then the one that served it for as long as it does (a stream
    never jumps from one file to another). Another file holding the same game (a copy) is
    followed too and listed as not served, with why; it is served once the first file is gone
    or holds another game. A file that is a link to a served one is the same log, not a copy."""

    def __init__(self, directory: Path, keys: KeyRing) -> None:
        self.directory = directory
        self.keys = keys
        self.by_path: dict[Path, LiveGame] = {}
        self.by_id: dict[str, LiveGame] = {}  # the file each game id is served from
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_scan = 0.0
        self._told: dict[Path, str] = {}  # what the server's log last said of each path
        self.on_error: Callable[[str], None] = lambda message: None
        # Told of every game that grew as the follower read it (the bots' thread looks then).
        self.on_grew: Callable[[LiveGame], None] = lambda game: None

    def scan(self) -> None:
        """Find new logs in the folder. Every `*.jsonl` is looked at; what is no log (a FIFO, a
        device, a directory, a link to nothing) is left out, with one line in the server's log."""
        with os.scandir(self.directory) as entries:
            names = [e.name for e in entries if e.name.endswith(".jsonl")]
        # The season ledger beside the games is no game (service.season): never served as one.
        paths = [self.directory / n for n in sorted(names) if not n.startswith(".") and n != SEASON_FILE]
        for path in paths:
            with self.lock:
                found = self.by_path.get(path)
                if found is None:
                    found = self.by_path[path] = LiveGame(path)
            if found.game is None:
                self._refresh(found)
        self._last_scan = time.monotonic()

    def _refresh(self, game: LiveGame) -> None:
        try:
            grew = game.refresh()
        except FileNotFoundError:
            self._gone(game)
            return
        except StoreError as exc:
            self._tell(game.path, str(exc))
            return
        except OSError as exc:
            self._tell(game.path, f"{game.label}: cannot read: {exc.strerror or exc}")
            return
        if game.game is None and game.stopped is not None and valid_game_id(game.path.stem):
            game.game = game.path.stem  # line 1 is unreadable: still listed, under its file's name
        said = self._place(game)
        if said is None:
            self._told.pop(game.path, None)  # readable and served: a new failure is worth a new line
        else:
            self._tell(game.path, said)
        if grew:
            game.wake()
            self.on_grew(game)

    def _place(self, game: LiveGame) -> str | None:
        """Serve the game under the id its file holds now, if no other file serves it; what the
        server's log should say of it, or None."""
        with self.lock:
            if game.game is not None and self.by_id.get(game.game) is game:
                return None
            for held in [gid for gid, g in self.by_id.items() if g is game]:
                del self.by_id[held]  # rewritten under another game id
                self._serve_another(held)
            if game.game is None:
                if game.stopped is None:
                    return None
                return f"{game.stopped}; not served (its name is no game id)"
            serving = self.by_id.get(game.game)
            if serving is None:
                self._serve(game)
                return None
            return self.twin_sentence(game, serving)

    def _serve(self, game: LiveGame) -> None:
        assert game.game is not None
        self.by_id[game.game] = game
        self.keys.add_game(game.game, game.current.players)

    def _serve_another(self, game_id: str) -> LiveGame | None:
        """The game no longer served from its file: served from the next file holding it."""
        twins = sorted((g for g in self.by_path.values() if g.game == game_id), key=lambda g: g.label)
        if not twins:
            return None
        self._serve(twins[0])
        self._told.pop(twins[0].path, None)
        twins[0].wake()
        return twins[0]

    def twin_sentence(self, game: LiveGame, serving: LiveGame) -> str | None:
        """Why `game`'s file is not served: `serving` serves its game id. None when the two
        are one file (one is a link to the other)."""
        if file_of(game) is not None and file_of(game) == file_of(serving):
            return None
        return (
            f"{game.label}: holds game {game.game} too, which is served from {serving.label};"
            " not served (move one of the two out of the folder to serve the other)"
        )

    def unserved(self) -> list[tuple[LiveGame, str]]:
        """The files holding a game id that another file serves, each with why, by name."""
        with self.lock:
            twins = []
            for game in self.by_path.values():
                serving = self.by_id.get(game.game) if game.game is not None else None
                if serving is not None and serving is not game:
                    said = self.twin_sentence(game, serving)
                    if said is not None:
                        twins.append((game, said))
        return sorted(twins, key=lambda twin: twin[0].label)

    def _tell(self, path: Path, message: str) -> None:
        """One line in the server's log per thing it cannot read, not one per look."""
        if self._told.get(path) != message:
            self._told[path] = message
            self.on_error(message)

    def _gone(self, game: LiveGame) -> None:
        """The log was deleted (or moved away) while followed: it is no longer listed; another
        file holding its game is served in its place, if there is one."""
        with self.lock:
            self.by_path.pop(game.path, None)
            served = game.game is not None and self.by_id.get(game.game) is game
            now = None
            if served:
                del self.by_id[game.game]  # type: ignore[arg-type]
                now = self._serve_another(game.game)  # type: ignore[arg-type]
        self._told.pop(game.path, None)
        if now is not None:
            self.on_error(f"{game.label}: the log is gone from {self.directory}; now served from {now.label}")
        elif served:
            self.on_error(f"{game.label}: the log is gone from {self.directory}; no longer served")
        elif game.game is None:
            self._tell(game.path, f"{game.label}: cannot read: no such file (a link to nothing?)")
        game.wake()

    def refresh(self, game: LiveGame) -> None:
        self._refresh(game)

    def get(self, game_id: str) -> LiveGame | None:
        if not valid_game_id(game_id):
            return None  # no file of the folder can hold it: nothing to look for
        with self.lock:
            found = self.by_id.get(game_id)
        if found is None and time.monotonic() - self._last_scan >= POLL_SECONDS:
            try:
                self.look()  # made a moment ago by another program, or moved over another log?
            except OSError as exc:
                self._tell(self.directory, f"{self.directory}: {exc.strerror or exc}")
            with self.lock:
                found = self.by_id.get(game_id)
        return found

    def games(self) -> list[LiveGame]:
        with self.lock:
            return sorted(self.by_id.values(), key=lambda g: g.label)

    def count(self) -> int:
        """How many logs the folder holds (served or not): what `we serve --max-games` caps."""
        with self.lock:
            return len(self.by_path)

    def add(self, path: Path) -> LiveGame:
        with self.lock:
            game = self.by_path.get(path)
            if game is None:
                game = self.by_path[path] = LiveGame(path)
        self._refresh(game)
        return game

    # --- what the service writes and checks (a library of games has the same) ---
    @property
    def where(self) -> str:
        return str(self.directory)

    @contextlib.contextmanager
    def writer(self, game: LiveGame) -> Iterator[Any]:
        """The log to append a move to: only the folder's own regular file that was read and
        verified, never through a symbolic link (which may point anywhere) or onto a file put
        in its place since. The store checks the file it opens, under its lock (JsonlLog's
        `only_file`), so a move looks at the path no more than its append does."""
        from eventstore.errors import GameNotFoundError, NotTheFileReadError
        from eventstore.jsonl import JsonlLog
        from service.play import Refused

        replaced = f"{game.label} was replaced while served; nothing was recorded: try again"
        read = file_of(game)
        if read is None:
            raise Refused(replaced)
        try:
            yield JsonlLog(game.path, only_file=read)
        except GameNotFoundError:
            raise Refused(f"{game.label}: the log is gone; nothing was recorded") from None
        except NotTheFileReadError as exc:
            if exc.link:
                raise Refused(
                    f"{game.label} is a symbolic link: the server shows it but records only into"
                    " its folder's own files; nothing was recorded"
                ) from None
            raise Refused(replaced) from None

    def start_new(self, title: str | None, events: Sequence[AnyEvent]) -> tuple[list[Any], LiveGame]:
        """A new game's log in the folder, its set-up in one write; the envelopes and the game."""
        from service.play import start_game_in

        written = start_game_in(self.directory, title, events)
        return written, self.add(self.directory / f"{written[0].game}.jsonl")

    def read_game(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport:
        """The game read again from its log and checked (service.reading)."""
        try:
            return read_game(GameSource(label=game.label, path=game.path), keep_envelopes=keep_envelopes)
        except StoreError as exc:
            raise StoreError(in_our_words(exc, game)) from None

    # --- the follower ---
    def start(self) -> None:
        self.scan()
        self._thread = threading.Thread(target=self._follow, name="we-follower", daemon=True)
        self._thread.start()

    def wake_all(self) -> None:
        for game in self.games():
            game.wake()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def look(self, scan: bool = True) -> None:
        """Every followed file looked at, the unserved too (a copy rewritten is read again),
        after looking for new ones in the folder (`scan`)."""
        if scan:
            self.scan()
        with self.lock:
            followed = list(self.by_path.values())
        for game in followed:
            self._refresh(game)

    def _follow(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self.look(scan=time.monotonic() - self._last_scan >= SCAN_SECONDS)
            except OSError as exc:  # the folder itself went away; keep serving what we have
                self._tell(self.directory, f"{self.directory}: {exc.strerror or exc}")
