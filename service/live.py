"""The games of one folder, as the service holds them: each log followed as it grows.

A LiveGame reads its file from where it stopped (stat first: nothing is read while nothing
changed), checks each new complete line with the store's line checker (hash chain, seq, game
id) and folds it with the core. Whoever wrote the line (this service, `we record`, another
service), it is taken in the same way, so streams see one sequence. A line that fails a check
stops the game there (`stopped`), as `we replay` stops at a damaged log's first problem.

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
from eventstore.problems import INTEGRITY, Flaw, Problem, ProblemCode
from eventstore.verify import LineChecker
from service.checking import GameReport, GameSource, check_game, damage_sentence
from service.keys import HOST, SEAT, TABLE, KeyRing, Role
from service.play import undo_preview
from wecore.audit import RULES, SCHEMA
from wecore.errors import EventSchemaError, RulesetError, WeError
from wecore.events import Event, EventVoided, parse_event
from wecore.moves import legal_moves, move_object
from wecore.narrate import describe, taken_back
from wecore.reducer import evolve
from wecore.scoring import score
from wecore.state import INITIAL_STATE, GameState, Phase
from wecore.views import face_down_known, redact_log, view

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
    take back, None when there is nothing it may undo)."""
    if role.kind == TABLE:
        return []
    moves = [move_object(m) for m in legal_moves(state)]  # type: ignore[arg-type]
    if state.phase is Phase.BRINGING and state.attics is None and state.starter_name is not None:
        # Gifts not recorded go down unseen with the starter's first open, as in `we record`.
        moves.append({"type": "open", "as": state.starter_name, "card": None})
    if role.kind == SEAT:
        return _as_the_seat_knows([m for m in moves if m["as"] == role.seat], state, role.seat)
    if undoes is not None:
        moves.append({"type": "undo"})
    return moves


class _WrittenAt(Sequence[str | None]):
    """The envelopes' `at`, read where asked ([i] for seq i + 1), without copying a long game."""

    def __init__(self, envelopes: list[dict[str, Any]]) -> None:
        self.envelopes = envelopes

    def __len__(self) -> int:
        return len(self.envelopes)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [e.get("at") for e in self.envelopes[index]]
        return self.envelopes[index].get("at")


def _as_the_seat_knows(moves: list[dict[str, Any]], state: GameState, seat: str | None) -> list[dict]:
    """A seat's moves with the opens of face-down gifts it cannot see made one open of "any card
    not yet seen": naming them would show another player's face-down card."""
    known = set(face_down_known(state, seat))
    shown = [m for m in moves if m["type"] != "open" or m["card"] is None or m["card"] in known]
    if len(shown) < len(moves) and not any(m["type"] == "open" and m["card"] is None for m in shown):
        shown.append({"type": "open", "as": seat, "card": None})
    return shown


@dataclass
class Subscribers:
    """The streams of one game wait on `changed`; it is set (and replaced) when the game grows."""

    loop: asyncio.AbstractEventLoop
    changed: asyncio.Event


class LiveGame:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.label = path.name
        self.lock = threading.RLock()
        self._reset()
        self._waiters: list[Subscribers] = []

    def _reset(self) -> None:
        self.game: str | None = None
        self.envelopes: list[dict[str, Any]] = []  # good lines, as written; [i] has seq i + 1
        self.events: list[Event] = []
        # The state after the last good line, and after every CHECKPOINT-th: any other is a
        # short fold away, so a long game costs a state per 32 events, not one per event.
        self.current: GameState = INITIAL_STATE
        self.checkpoints: dict[int, GameState] = {0: INITIAL_STATE}
        self.recent: deque[GameState] = deque(maxlen=RECENT)  # after the last RECENT lines
        self.offset = 0  # bytes of the file taken in
        self.last_line = b""  # the last line taken in, to notice a rewrite
        self.checker = LineChecker()
        self.stopped: str | None = None  # why the game cannot be read further
        self.problem: Problem | None = None
        self.signature: tuple[int, int, int] | None = None
        self.messages: OrderedDict[tuple[int, str], bytes] = OrderedDict()

    # --- reading ---
    @property
    def head(self) -> int:
        return len(self.envelopes)

    @property
    def state(self) -> GameState:
        return self.current

    def refresh(self) -> bool:
        """Take in what was appended since the last look; True when the game grew (or changed)."""
        with self.lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                return False
            signature = (st.st_ino, st.st_size, st.st_mtime_ns)
            if signature == self.signature:
                return False
            changed = False
            if self.signature is not None and self._rewritten(st):
                # Replaced, cut back (say by `we repair`) or edited: read it again from the start.
                self._reset()
                changed = True
            self.signature = signature
            if self.stopped is not None and self.problem is not None and self.problem.kind != INTEGRITY:
                return changed
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read(st.st_size - self.offset)
            end = data.rfind(b"\n") + 1
            grew = False
            for line in data[:end].splitlines(keepends=True):
                self.offset += len(line)
                self.last_line = line
                if not self._take(line):
                    break
                grew = True
            # Bytes after the last newline: an append in progress, or a torn line; judged again
            # when the file changes (the recorder and `we repair` name a torn tail).
            return grew or changed

    def _rewritten(self, st: os.stat_result) -> bool:
        """Anything but an append since the last look: appends only ever add after `offset`."""
        if self.signature is None:
            return False
        if st.st_ino != self.signature[0] or st.st_size < self.offset:
            return True
        if st.st_size == self.offset:
            return True  # same size, new mtime: something was written over what was read
        if not self.last_line:
            return False
        with open(self.path, "rb") as f:
            f.seek(self.offset - len(self.last_line))
            return f.read(len(self.last_line)) != self.last_line

    def _take(self, line: bytes) -> bool:
        number = self.checker.line + 1
        raw, msgs, usable = self.checker.feed(line)
        if msgs or not usable or raw is None:
            flaw = msgs[0] if msgs else Flaw(ProblemCode.ENVELOPE_FIELDS, "unusable line")
            self._stop(Problem.integrity(number, flaw))
            return False
        try:
            event = parse_event(raw["type"], raw["data"])
            state = evolve(self.state, event)
        except WeError as exc:
            kind = SCHEMA if isinstance(exc, EventSchemaError | RulesetError) else RULES
            self._stop(Problem(number, kind, str(exc)))
            return False
        if self.game is None:
            self.game = raw["game"]
        self.envelopes.append(raw)
        self.events.append(event)
        self.current = state
        self.recent.append(state)
        if len(self.envelopes) % CHECKPOINT == 0:
            self.checkpoints[len(self.envelopes)] = state
        return True

    def _stop(self, problem: Problem) -> None:
        self.problem = problem
        self.stopped = f"{self.label}: line {problem.line}: {problem.kind}: {problem.message}"

    def damage(self) -> str | None:
        """The recorder's sentence for a damaged log, or None."""
        if self.problem is None:
            return None
        return damage_sentence(self.label, [self.problem])

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
    def fingerprint(self, seq: int) -> str | None:
        if not seq:
            return None
        return fingerprint(self.envelopes[seq - 1].get("hash"))

    def view_object(self, seq: int, role: Role) -> dict[str, Any]:
        """GET /games/{id} as of event `seq`: `we replay --at seq --json` for this key, plus
        seq, fingerprint and legal."""
        state = self.state_at(seq)
        if state.players:
            seat = role.seat if role.kind == SEAT else None
            data = view(state, seat, omniscient=role.kind == HOST).to_dict()
        else:
            data = {}
        fingerprint = self.fingerprint(seq)
        if role.kind != HOST and not state.is_over:
            fingerprint = None
        data.update(game=self.game, seq=seq, fingerprint=fingerprint)
        undoes = None
        if role.kind == HOST:
            # What the Undo button takes back, in the recorder's words; the events after `seq`
            # are never read (plan_undo reads only those in effect at `seq`).
            undoes = undo_preview(state, self.events, _WrittenAt(self.envelopes))
            data["undoes"] = undoes
        data["legal"] = legal_for(state, role, undoes)
        return plain(data)

    def sentence(self, seq: int, role: Role) -> str:
        event = self.events[seq - 1]
        before = self.state_at(seq - 1)
        after = self.state_at(seq)
        seat = role.seat if role.kind == SEAT else None
        if isinstance(event, EventVoided):
            return taken_back(event, self.events[event.voids - 1], after, seat, role.kind == HOST)
        return describe(event, before, after, viewer=seat, omniscient=role.kind == HOST)

    def message(self, seq: int, role: Role) -> bytes:
        """One stream message's data (cached: every follower with this kind of key shares it)."""
        key = (seq, role.cache_key)
        with self.lock:
            found = self.messages.get(key)
            if found is not None:
                return found
            from service.replay_page import board_dict, swapped_seats

            data = {
                "envelope": redact_envelope(self.envelopes[seq - 1], role),
                "view": self.view_object(seq, role),
                "sentence": self.sentence(seq, role),
                "board": board_dict(score(self.state_at(seq))),
                "swapped": swapped_seats(self.events[seq - 1]),
            }
            encoded = orjson.dumps(data)
            self.messages[key] = encoded
            if len(self.messages) > _MESSAGE_CACHE:
                self.messages.popitem(last=False)
            return encoded

    # --- waking streams ---
    def subscribe(self) -> Subscribers:
        sub = Subscribers(asyncio.get_running_loop(), asyncio.Event())
        with self.lock:
            self._waiters.append(sub)
        return sub

    def unsubscribe(self, sub: Subscribers) -> None:
        with self.lock:
            if sub in self._waiters:
                self._waiters.remove(sub)

    def wake(self) -> None:
        with self.lock:
            waiters = list(self._waiters)
        for sub in waiters:
            with contextlib.suppress(RuntimeError):  # its loop is closed: the server is stopping
                sub.loop.call_soon_threadsafe(sub.changed.set)


class Folder:
    """Every game log in GAMES_DIR, by game id, kept up to date by a background thread."""

    def __init__(self, directory: Path, keys: KeyRing) -> None:
        self.directory = directory
        self.keys = keys
        self.by_path: dict[Path, LiveGame] = {}
        self.by_id: dict[str, LiveGame] = {}
        self.lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_scan = 0.0
        self.on_error: Callable[[str], None] = lambda message: None

    def scan(self) -> None:
        """Find new logs in the folder."""
        with os.scandir(self.directory) as entries:
            names = [e.name for e in entries if e.name.endswith(".jsonl") and e.is_file()]
        paths = [self.directory / name for name in sorted(names) if not name.startswith(".")]
        for path in paths:
            with self.lock:
                known = self.by_path.get(path)
                if known is None:
                    known = self.by_path[path] = LiveGame(path)
            if known.game is None:
                self._refresh(known)
        self._last_scan = time.monotonic()

    def _refresh(self, game: LiveGame) -> None:
        try:
            grew = game.refresh()
        except OSError as exc:
            self.on_error(f"{game.label}: cannot read: {exc.strerror or exc}")
            return
        if game.game is None and game.stopped is not None and valid_game_id(game.path.stem):
            game.game = game.path.stem  # line 1 is unreadable: still listed, under its file's name
        if game.game is not None:
            with self.lock:
                if game.game not in self.by_id:
                    self.by_id[game.game] = game
                    self.keys.add_game(game.game, game.current.players)
        if grew:
            game.wake()

    def refresh(self, game: LiveGame) -> None:
        self._refresh(game)

    def get(self, game_id: str) -> LiveGame | None:
        with self.lock:
            found = self.by_id.get(game_id)
        if found is None:
            self.scan()  # made a moment ago by another program?
            with self.lock:
                found = self.by_id.get(game_id)
        return found

    def games(self) -> list[LiveGame]:
        with self.lock:
            return sorted(self.by_id.values(), key=lambda g: g.label)

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
        """The log to append a move to."""
        from eventstore.jsonl import JsonlLog

        yield JsonlLog(game.path)

    def start_new(self, title: str | None, events: Sequence[Event]) -> tuple[list[Any], LiveGame]:
        """A new game's log in the folder, its set-up in one write; the envelopes and the game."""
        from service.play import start_game_in

        written = start_game_in(self.directory, title, events)
        return written, self.add(self.directory / f"{written[0].game}.jsonl")

    def check(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport:
        """The game read again from its log and checked (service.checking)."""
        return check_game(GameSource(label=game.label, path=game.path), keep_envelopes=keep_envelopes)

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

    def _follow(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                if time.monotonic() - self._last_scan >= SCAN_SECONDS:
                    self.scan()
                for game in self.games():
                    self._refresh(game)
            except OSError as exc:  # the folder itself went away; keep serving what we have
                self.on_error(f"{self.directory}: {exc.strerror or exc}")
