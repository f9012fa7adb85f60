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
import stat
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from eventstore.canonical import fingerprint
from eventstore.envelope import valid_game_id
from eventstore.errors import StoreError, file_kind
from eventstore.problems import TORN, Flaw, Problem, ProblemCode
from eventstore.verify import (
    READ_CAP,
    LineChecker,
    LongLine,
    open_log,
    rest_of_line,
)
from service.checking import GameReport, GameSource, check_game, damage_sentence
from service.keys import HOST, SEAT, TABLE, KeyRing, Role
from service.play import undo_preview
from wecore.audit import RULES, SCHEMA
from wecore.errors import EventSchemaError, RulesetError, WeError
from wecore.events import Event, EventVoided, parse_event
from wecore.moves import legal_moves, move_object
from wecore.narrate import describe, taken_back
from wecore.reducer import evolve
from wecore.rules import brought_with_first_open
from wecore.scoring import score
from wecore.state import INITIAL_STATE, GameState
from wecore.views import face_down_known, redact_log, view

POLL_SECONDS = 0.2
# Small: a followed log is mostly read a line or two at a time, as moves come in.
_FOLLOW_BUFFER = 1 << 14
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
    if brought_with_first_open(state):
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


class LiveGame:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.label = shown_name(path)
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
        self.problem: Problem | None = None  # why the game cannot be read further
        self.torn: Problem | None = None  # a torn last line, until the log changes
        self.pending = False  # bytes after the last newline at the last look
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
        """Take in what was appended since the last look; True when the game grew (or changed).

        Raises FileNotFoundError when the log is gone, StoreError when its path is no regular
        file (a FIFO, a device, a directory) or cannot be read: the Folder says so, once."""
        with self.lock:
            st = os.stat(self.path)  # a stat first: nothing is opened while nothing changed
            if not stat.S_ISREG(st.st_mode):
                raise StoreError(f"{self.label}: not a regular file ({file_kind(st.st_mode)}), so not a log")
            signature = (st.st_ino, st.st_size, st.st_mtime_ns)
            if signature == self.signature:
                if self.pending and self.torn is None and self.problem is None:
                    # The same bytes after the last newline a poll later: no append is under
                    # way (one is a single write), so the last line is torn, as `we audit` says.
                    self.torn = Problem.integrity(self.checker.line + 1, TORN)
                    return True
                return False
            # O_NONBLOCK, and the kind checked again on what was opened: the path may have
            # been replaced by a FIFO since the stat, and reading one would wait for ever.
            try:
                opened = open_log(self.path, buffering=_FOLLOW_BUFFER)
            except StoreError as exc:
                raise StoreError(in_our_words(exc, self)) from None
            with opened as f:
                st = os.fstat(f.fileno())
                signature = (st.st_ino, st.st_size, st.st_mtime_ns)
                changed = self.torn is not None
                self.torn = None
                if self.signature is not None and self._rewritten(f, st):
                    # Replaced, cut back (say by `we repair`) or edited: read it again from the start.
                    self._reset()
                    changed = True
                self.signature = signature
                if self.problem is not None:
                    return changed  # nothing after a bad line is taken until the log is rewritten
                return self._read_lines(f, st.st_size) or changed

    def _read_lines(self, f: BinaryIO, size: int) -> bool:
        """Take in the complete lines after `offset`, up to `size` (the size the signature was
        taken at, so a line appended meanwhile waits for the next look), each read with the
        format's cap: a line over 1 MiB is skipped in pieces, never held."""
        # At least one byte is tried, even where the size says 0: some files (in /proc, say)
        # say 0 and then cannot be read, and that is worth saying.
        end = max(size, self.offset + 1)
        f.seek(self.offset)

        def readline(limit: int) -> bytes:
            return f.readline(min(limit, end - f.tell()))

        grew = False
        self.pending = False
        while True:
            line = readline(READ_CAP)
            if not line:
                break
            if line[-1:] != b"\n":
                if len(line) < READ_CAP:
                    # An append in progress, or a torn line: judged at the next look.
                    self.pending = True
                    break
                line = rest_of_line(line, readline)
                if type(line) is LongLine and not line.ended:
                    # Over the limit and unended: no writer writes such a line, so it is torn.
                    self.offset = f.tell()
                    self._stop(Problem.integrity(self.checker.line + 1, TORN))
                    break
            self.offset = f.tell()
            self.last_line = line
            if not self._take(line):
                break
            grew = True
        return grew

    def _rewritten(self, f: BinaryIO, st: os.stat_result) -> bool:
        """Anything but an append since the last look: appends only ever add after `offset`."""
        if self.signature is None:
            return False
        if st.st_ino != self.signature[0] or st.st_size < self.offset:
            return True
        if st.st_size == self.offset:
            return True  # same size, new mtime: something was written over what was read
        if not self.last_line:
            return False
        where = self.offset - len(self.last_line)
        return os.pread(f.fileno(), len(self.last_line), where) != self.last_line

    def _take(self, line: bytes) -> bool:
        """Check one line of the log and fold it; False when it stops the game."""
        number = self.checker.line + 1
        return self._fold(number, *self.checker.feed(line))

    def _take_row(self, obj: Any) -> bool:
        """The same for a library's row, already parsed (it may nest too deep to encode)."""
        number = self.checker.line + 1
        return self._fold(number, *self.checker.feed_obj(obj))

    def _fold(self, number: int, raw: dict[str, Any] | None, msgs: list[Any] | None, usable: bool) -> bool:
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

    @property
    def stopped(self) -> str | None:
        """Why the game cannot be read further, in `we audit`'s words, or None."""
        problem = self.problem or self.torn
        if problem is None:
            return None
        return f"{self.label}: line {problem.line}: {problem.kind}: {problem.message}"

    def damage(self) -> str | None:
        """The recorder's sentence for a damaged log, or None."""
        problem = self.problem or self.torn
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
        self._told: dict[Path, str] = {}  # what the server's log last said of each path
        self.on_error: Callable[[str], None] = lambda message: None

    def scan(self) -> None:
        """Find new logs in the folder. Every `*.jsonl` is looked at; what is no log (a FIFO, a
        device, a directory, a link to nothing) is left out, with one line in the server's log."""
        with os.scandir(self.directory) as entries:
            names = [e.name for e in entries if e.name.endswith(".jsonl")]
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
        except FileNotFoundError:
            self._gone(game)
            return
        except StoreError as exc:
            self._tell(game.path, str(exc))
            return
        except OSError as exc:
            self._tell(game.path, f"{game.label}: cannot read: {exc.strerror or exc}")
            return
        self._told.pop(game.path, None)  # readable again: a new failure is worth a new line
        if game.game is None and game.stopped is not None and valid_game_id(game.path.stem):
            game.game = game.path.stem  # line 1 is unreadable: still listed, under its file's name
        if game.game is not None:
            with self.lock:
                if self.by_id.get(game.game) is not game:
                    for stale in [gid for gid, g in self.by_id.items() if g is game]:
                        del self.by_id[stale]  # rewritten under another game id
                    if game.game not in self.by_id:
                        self.by_id[game.game] = game
                        self.keys.add_game(game.game, game.current.players)
        elif game.stopped is not None:
            self._tell(game.path, f"{game.stopped}; not served (its name is no game id)")
        if grew:
            game.wake()

    def _tell(self, path: Path, message: str) -> None:
        """One line in the server's log per thing it cannot read, not one per look."""
        if self._told.get(path) != message:
            self._told[path] = message
            self.on_error(message)

    def _gone(self, game: LiveGame) -> None:
        """The log was deleted (or moved away) while served: it is no longer listed."""
        with self.lock:
            self.by_path.pop(game.path, None)
            served = [gid for gid, g in self.by_id.items() if g is game]
            for gid in served:
                del self.by_id[gid]
        if served:
            self.on_error(f"{game.label}: the log is gone from {self.directory}; no longer served")
        else:
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
                self.scan()  # made a moment ago by another program?
            except OSError as exc:
                self._tell(self.directory, f"{self.directory}: {exc.strerror or exc}")
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
        """The log to append a move to: only the folder's own regular file that was read and
        verified, never through a symbolic link (which may point anywhere) or onto a file put
        in its place since."""
        from eventstore.jsonl import JsonlLog
        from service.play import Refused

        try:
            st = os.lstat(game.path)
        except FileNotFoundError:
            raise Refused(f"{game.label}: the log is gone; nothing was recorded") from None
        if stat.S_ISLNK(st.st_mode):
            raise Refused(
                f"{game.label} is a symbolic link: the server shows it but records only into"
                " its folder's own files; nothing was recorded"
            )
        if game.signature is None or st.st_ino != game.signature[0] or not stat.S_ISREG(st.st_mode):
            raise Refused(f"{game.label} was replaced while served; nothing was recorded: try again")
        yield JsonlLog(game.path)

    def start_new(self, title: str | None, events: Sequence[Event]) -> tuple[list[Any], LiveGame]:
        """A new game's log in the folder, its set-up in one write; the envelopes and the game."""
        from service.play import start_game_in

        written = start_game_in(self.directory, title, events)
        return written, self.add(self.directory / f"{written[0].game}.jsonl")

    def check(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport:
        """The game read again from its log and checked (service.checking)."""
        try:
            return check_game(GameSource(label=game.label, path=game.path), keep_envelopes=keep_envelopes)
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

    def _follow(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                if time.monotonic() - self._last_scan >= SCAN_SECONDS:
                    self.scan()
                for game in self.games():
                    self._refresh(game)
            except OSError as exc:  # the folder itself went away; keep serving what we have
                self._tell(self.directory, f"{self.directory}: {exc.strerror or exc}")
