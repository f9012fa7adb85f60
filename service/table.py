"""The table: the one way every writer (`we record`, the HTTP service, a bot at a seat) makes a
move on a game's log, and reads the game as it stands.

    table = Table.of_file(path)                 # or Table(folder, game) in the service
    outcome = table.move(Open(card="R7"))       # a wecore move, or Undo / AddNote / BreakTie / DealLists
    outcome.meanwhile   # what others appended since the caller last looked (`since=`)
    outcome.steps       # this move's events, each with the states around it
    outcome.state, outcome.head, outcome.fingerprint   # the game after it, as the log has it

`move` reads the log's head (taking in whatever anyone appended), decides against the game as
it stands there, never against a picture kept from before, and appends with that head as the
expected one: the store re-reads the head under its lock and writes nothing if it moved, so two
writers never fork a log. When someone slipped in between, `move` reads and decides again (a
move that is still legal is taken; one that is not is refused with the sentence for the game as
it is now). With `expect=N` (the HTTP API's `expect`) it does not: StaleHead, nothing written.
What `move` returns is fsynced on disk. A refusal is a Refused (service.play) with one sentence,
the same whichever writer asked.

The log is followed by a LiveGame (service.live): a look costs a stat while nothing changed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from eventstore.canonical import fingerprint
from eventstore.envelope import Envelope
from eventstore.errors import ConnectionLostError, GameNotFoundError, SealedGameError, StoreError
from service.live import LiveGame, WrittenAt, file_of
from service.play import (
    Refused,
    StaleHead,
    UndoPlan,
    commit,
    decide_move,
    decide_move_folded,
    plan_undo,
    undone_sentence,
)
from service.reading import GameReport, GameSource, damage_sentence, read_game
from wecore.cards import ALL_CARDS
from wecore.decider import AddNote, BreakTie, DealAttics, DealLists, Undo, resolve_player
from wecore.errors import WeError
from wecore.events import AnyEvent
from wecore.moves import Bring, Move, Open, Steal, Swap
from wecore.reducer import evolve
from wecore.state import GameState

__all__ = [
    "AddNote",
    "BreakTie",
    "Bring",
    "Damaged",
    "DealAttics",
    "DealLists",
    "Happened",
    "Open",
    "Outcome",
    "Sealed",
    "Standing",
    "Steal",
    "Swap",
    "Table",
    "Undo",
    "openable_cards",
    "resolve_player",
]

# How often `move` reads and decides again when other writers keep slipping in between its
# read and its append; each round is a stat, a short read and an append attempt.
ATTEMPTS = 20

# Every move of the kinds (wecore.moves), and the records a table makes that are no player's move.
TableCommand = Move | Undo | AddNote | BreakTie | DealLists | DealAttics


class Damaged(Refused):
    """The log cannot be added to (a torn or edited line): the sentence says where and what to do."""


class Sealed(Refused):
    """The game is sealed into its folder's season ledger: its log is final (no move, no undo)."""


@dataclass(frozen=True)
class Happened:
    """One event in the log, with the game's state before and after it."""

    seq: int
    event: AnyEvent
    before: GameState
    after: GameState
    at: str | None  # when it was written (events written together share it)


@dataclass(frozen=True)
class Standing:
    """The game as its log stands at one look."""

    state: GameState
    head: int
    events: Sequence[AnyEvent]  # [i] has seq i + 1
    written_at: Sequence[str | None]
    fingerprint: str | None
    damage: str | None  # why nothing can be appended, or None
    game: str | None


@dataclass(frozen=True)
class Outcome:
    """What one move did, read back from the log."""

    meanwhile: list[Happened]  # appended by others after `since`, before this move
    steps: list[Happened]  # this move's events
    written: list[Envelope]  # as stored
    before: GameState  # the game the move was decided against
    state: GameState  # the game after it
    head: int
    fingerprint: str | None
    undo: UndoPlan | None = None
    undone: str | None = None  # for an undo: the "Undone: ..." sentence both faces give


class Shelf(Protocol):
    """Where a game's log is kept: a folder of files, a library, or one file (OneFile)."""

    def refresh(self, game: LiveGame) -> None: ...

    def writer(self, game: LiveGame) -> contextlib.AbstractContextManager[Any]: ...

    def read_game(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport: ...


class OneFile:
    """The shelf of one log file, as `we record` writes it (through links too: it is the
    user's own file, named on the command line)."""

    def refresh(self, game: LiveGame) -> None:
        try:
            game.refresh()
        except FileNotFoundError:
            raise GameNotFoundError(str(game.path)) from None

    @contextlib.contextmanager
    def writer(self, game: LiveGame) -> Iterator[Any]:
        from eventstore.jsonl import JsonlLog

        try:
            st = os.stat(game.path)
        except FileNotFoundError:
            raise GameNotFoundError(str(game.path)) from None
        read = file_of(game)
        if read is not None and read != (st.st_dev, st.st_ino):
            # Another file is at the path now (`we repair`, a copy put back): what was decided
            # was decided on the one read, so read again and decide again.
            raise StaleHead(game.head, game.head)
        yield JsonlLog(game.path)

    def read_game(self, game: LiveGame, keep_envelopes: bool = False) -> GameReport:
        return read_game(GameSource(label=str(game.path), path=game.path), keep_envelopes=keep_envelopes)


class Table:
    """One game's table (see the module's docstring). Safe to share between threads."""

    def __init__(self, shelf: Shelf, game: LiveGame, *, lists_again: bool = False) -> None:
        self.shelf = shelf
        self.game = game
        # The recorder can deal the gift lists again after undoing them (before the first gift
        # is brought); the service has no way to, so its undo stops at the set-up.
        self.lists_again = lists_again

    @classmethod
    def of_file(cls, path: Path, *, lists_again: bool = False) -> Table:
        """The table of one log file; the file is read now (StoreError if it cannot be)."""
        table = cls(OneFile(), LiveGame(path), lists_again=lists_again)
        table.look()
        return table

    # --- reading ---
    def look(self) -> Standing:
        """The game as the log has it now, after taking in whatever was appended."""
        self.shelf.refresh(self.game)
        game = self.game
        with game.lock:
            head = game.head
            return Standing(
                state=game.state,
                head=head,
                events=list(game.events),
                written_at=WrittenAt(list(game.envelopes)),
                fingerprint=game.fingerprint(head),
                damage=game.damage(),
                game=game.game,
            )

    def since(self, seq: int, upto: int | None = None) -> list[Happened]:
        """The events after `seq` (up to `upto`, default the head read last), with their states."""
        game = self.game
        with game.lock:
            end = game.head if upto is None else min(upto, game.head)
            if seq >= end:
                return []
            state = game.state_at(seq)
            out = []
            for number in range(seq + 1, end + 1):
                event = game.events[number - 1]
                after = evolve(state, event)
                out.append(Happened(number, event, state, after, game.envelopes[number - 1].get("at")))
                state = after
            return out

    # --- writing ---
    def move(
        self,
        command: TableCommand,
        *,
        expect: int | None = None,
        since: int | None = None,
        looked: Standing | None = None,
        wake: bool = True,
    ) -> Outcome:
        """Make `command` on the game as it stands; what happened (see the module's docstring).

        `command`: a wecore move (Open, Steal, Bring, Swap: `player=None` is the player to
        move, a name is checked against whose turn it is), Undo(reason), AddNote(text),
        BreakTie(winner, reason), DealLists(lists) or DealAttics(attics).
        `expect`: the head the caller decided on; StaleHead (nothing written) when it is not
        the head. Without it the move is judged against whatever the head is.
        `since`: the head the caller last showed; the events after it come back in `meanwhile`.
        `looked`: what the caller's `look` gave a moment ago, decided on instead of looking again
        (the store still re-reads the head under its lock before the append).
        `wake`: False when the caller wakes the game's streams itself once this returns (a
        request answered on the streams' event loop wakes them there, with no thread's call into it).
        Refused (a rule, a damaged log), StaleHead, or a StoreError the store could not avoid."""
        for _ in range(ATTEMPTS):
            now = looked if looked is not None else self.look()
            looked = None  # another round looks again
            if now.damage is not None:
                raise Damaged(now.damage)
            sealed = self.game.sealed()
            if sealed is not None:
                raise Sealed(sealed)
            if expect is not None and expect != now.head:
                raise StaleHead(expect, now.head)
            events, plan, states = self._decide(now, command)
            try:
                with self.shelf.writer(self.game) as log:
                    written = commit(log, events, now.head, now.state)
            except StaleHead:
                if expect is not None:
                    raise
                continue  # someone slipped in between: read and decide again
            except ConnectionLostError:
                raise
            except SealedGameError as exc:  # a library game its ledger sealed by id
                raise Sealed(str(exc)) from None
            except StoreError:
                report = self.shelf.read_game(self.game)
                if report.problems:
                    raise Damaged(damage_sentence(self.game.label, report.problems)) from None
                raise
            outcome = self._outcome(now, since, events, written, plan, command, states)
            # The lines just written are taken as written, folded above: never read back.
            envelopes = [envelope.to_dict() for envelope in written]
            states = [step.after for step in outcome.steps]
            if self.game.took_own(getattr(log, "appended", None), envelopes, events, states):
                # The streams' messages first, then the streams woken (by the caller, when it
                # answers on their event loop: as soon as its worker returns, before the answer
                # goes out), so a follower hears of the move as early as it can.
                self.game.prepare(now.head, unsealed=True)  # looked for above, before the append
                if wake:
                    self.game.wake()
            else:
                self.shelf.refresh(self.game)
            return outcome
        raise StaleHead(now.head, self.look().head)

    def _decide(
        self, now: Standing, command: TableCommand
    ) -> tuple[list[AnyEvent], UndoPlan | None, list[GameState] | None]:
        """The events, the undo's plan, and the game after each event where deciding folded them."""
        if isinstance(command, Undo):
            lists_too = self.lists_again
            plan = plan_undo(now.state, now.events, now.written_at, command.reason, lists_too=lists_too)
            return plan.voids, plan, None
        events, states = decide_move_folded(now.state, command)
        return events, None, states

    def _outcome(
        self,
        now: Standing,
        since: int | None,
        events: list[AnyEvent],
        written: list[Envelope],
        plan: UndoPlan | None,
        command: TableCommand,
        states: list[GameState] | None = None,
    ) -> Outcome:
        """`states`: the game after each event, as deciding folded them (else folded here)."""
        meanwhile = [] if since is None else self.since(since, now.head)
        steps = []
        state = now.state
        for number, (event, envelope) in enumerate(zip(events, written, strict=True)):
            after = states[number] if states is not None else evolve(state, event)
            steps.append(Happened(envelope.seq, event, state, after, envelope.at))
            state = after
        head = written[-1].seq if written else now.head
        last = fingerprint(written[-1].hash) if written else now.fingerprint
        undone = None
        if plan is not None and isinstance(command, Undo):
            undone = undone_sentence(plan, command.reason)
        return Outcome(meanwhile, steps, written, now.state, state, head, last, plan, undone)


def openable_cards(state: GameState) -> list[str]:
    """Every card the player to move could say they turned over now, as the decider would take
    it (an unseen gift can be any card not yet met)."""
    cards = []
    for card in ALL_CARDS:
        try:
            decide_move(state, Open(card=card))
        except (Refused, WeError):
            continue
        cards.append(card)
    return cards
