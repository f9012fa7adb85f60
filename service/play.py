"""The use cases of a game at the table, written once for `we record` and the HTTP service:
set a game up, make a move expecting head N, undo (with the recorder's policy), note, tie.

Each step decides through wecore and appends through the store with a head check, so two
writers on one log never fork it: the loser gets StaleHead and nothing is written. A refusal
is a Refused with one sentence in table language; both faces show that same sentence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eventstore.envelope import Envelope, make_game_id, utc_now
from eventstore.errors import ConcurrencyError, LogExistsError
from eventstore.jsonl import JsonlLog
from wecore.cards import Colour
from wecore.decider import (
    Command,
    DealAttics,
    DealLists,
    StartGame,
    Undo,
    decide,
    decide_folded,
    title_refusal,
)
from wecore.errors import RuleViolation, WeError
from wecore.events import AnyEvent, AtticsDealt, GiftBrought, GiftListsDealt, GiftOpened, event_payload
from wecore.moves import MOVE_CLASSES
from wecore.narrate import gist
from wecore.reducer import fold
from wecore.scoring import library_summary
from wecore.state import INITIAL_STATE, GameState

DEFAULT_UNDO_REASON = "undone at the table"
DEFAULT_TIE_REASON = "won the tie-break at the table"
__all__ = ["StartGame", "title_refusal"]  # the set-up's words, for the recorder's questions

GAME_OVER = "the game is over, so nobody can open, steal or bring any more"
NOTHING_TO_UNDO = "there is nothing to undo"
SET_UP_NOT_UNDONE = (
    "there is nothing to undo: the set-up (gift lists, attics) is not undone at the table;"
    " if it was wrong, start a new file"
)


class Refused(Exception):
    """A move or request the game refuses; the message is one sentence for the table."""


class RuleRefused(Refused):
    """Refused by a rule of the game (the recorder adds what can be done instead)."""


class StaleHead(Exception):
    """Someone else appended first: nothing was written. `head` is the log's head now."""

    def __init__(self, expected: int, head: int) -> None:
        self.expected = expected
        self.head = head
        super().__init__(f"the log's last event is {head}, not {expected}: someone else moved first")


# --- deciding ------------------------------------------------------------------------------


def decide_move(state: GameState, command: Command) -> list[AnyEvent]:
    """The events for a command at the table, or Refused with the sentence both faces give."""
    return decide_move_folded(state, command)[0]


def decide_move_folded(state: GameState, command: Command) -> tuple[list[AnyEvent], list[GameState]]:
    """`decide_move`, with the game after each of its events (wecore.decider.decide_folded)."""
    if state.is_over and isinstance(command, MOVE_CLASSES):
        raise Refused(GAME_OVER)
    try:
        return decide_folded(state, command)
    except RuleViolation as exc:
        raise RuleRefused(str(exc)) from None
    except WeError as exc:
        raise Refused(str(exc)) from None


def decide_and_apply(state: GameState, command: Command) -> tuple[list[AnyEvent], GameState]:
    """decide_move, with the game after its events: a set-up decided one step at a time (the
    recorder's questions judge each answer against the game as the steps before left it)."""
    events, states = decide_move_folded(state, command)
    return events, states[-1] if states else state


@dataclass(frozen=True)
class UndoPlan:
    voids: list[AnyEvent]  # every event_voided to append, in order
    seq: int  # the event taken back
    undone: AnyEvent
    brings: int  # unseen brings taken back with it


GIFTS_BROUGHT = "gifts have been brought already, so the game cannot start over; `undo` takes back moves"


def start_over_refusal(events: Sequence[AnyEvent]) -> str | None:
    """Why a game's set-up cannot be begun again (the recorder's `start over`, which keeps the
    log and sets up a new one): once a gift is brought, the game is under way."""
    return GIFTS_BROUGHT if any(isinstance(e, GiftBrought) for e in events) else None


def is_unseen_bring(event: AnyEvent) -> bool:
    return isinstance(event, GiftBrought) and event.card is None


def plan_undo(
    state: GameState,
    events: Sequence[AnyEvent],
    written_at: Sequence[str | None],
    reason: str = DEFAULT_UNDO_REASON,
    lists_too: bool = False,
) -> UndoPlan:
    """The one undo of the table, for `we record` and the service alike: void the latest event
    in effect, then the unseen brings written with it (nobody typed those; they went down with
    the party's first open), so one undo takes back one move. The set-up is not undone this way,
    except the gift lists when `lists_too` (the recorder can deal them again before the first
    gift is brought; the service has no way to).

    `written_at` (the envelopes' `at`, [i] for seq i + 1) tells an unseen bring written with the
    open (one append, so the same `at`) from one a player made on a phone before it: only the
    former goes with the open. Both faces pass it: a recorder and a service may share one log."""
    seq, undone, brings = _taken_back(state, events, written_at, lists_too)
    voids: list[AnyEvent] = []
    after = state
    for _ in range(1 + brings):
        more = decide_move(after, Undo(reason=reason))
        voids += more
        after = fold(more, after)
    return UndoPlan(voids, seq, undone, brings)


def _taken_back(
    state: GameState, events: Sequence[AnyEvent], written_at: Sequence[str | None], lists_too: bool
) -> tuple[int, AnyEvent, int]:
    """(seq, event, unseen brings with it) of what plan_undo takes back; Refused as it is.

    Read off the undo stack without voiding anything: a void restores the state before the
    event it voids (`reducer.void_event`), so the state after each void is the one the stack
    holds (the host's answer to every move previews its undo, and events cost their models)."""
    if state.undo is None:
        raise Refused(NOTHING_TO_UNDO)
    seq, before = state.undo
    undone = events[seq - 1]
    if isinstance(undone, AtticsDealt) or (isinstance(undone, GiftListsDealt) and not lists_too):
        raise Refused(SET_UP_NOT_UNDONE)
    brings = 0
    # Only an open writes unseen brings, right before it in its own append (so with its `at`).
    last = seq
    entry = before.undo
    while isinstance(undone, GiftOpened) and entry is not None:
        bring, prior = entry
        if bring != last - 1 or not is_unseen_bring(events[bring - 1]):
            break
        if written_at[bring - 1] != written_at[seq - 1]:
            break
        brings += 1
        last = bring
        entry = prior.undo
    return seq, undone, brings


def undo_gist(plan: UndoPlan) -> str:
    """What an undo takes back, in the words both faces use: the recorder's "Undone: ..." line,
    the service's answer to an undo, and the host's Undo button before it is pressed."""
    plural = "s" if plan.brings != 1 else ""
    also = f", with the {plan.brings} unseen bring{plural} recorded for it" if plan.brings else ""
    return f"event {plan.seq}, {gist(plan.undone)}{also}"


def undone_sentence(plan: UndoPlan, reason: str) -> str:
    return f"Undone: {undo_gist(plan)} ({reason})."


def undo_preview(
    state: GameState, events: Sequence[AnyEvent], written_at: Sequence[str | None]
) -> str | None:
    """What the host's undo would take back now (undo_gist), or None when it would be refused."""
    try:
        seq, undone, brings = _taken_back(state, events, written_at, lists_too=False)
    except Refused:
        return None
    return undo_gist(UndoPlan([], seq, undone, brings))


# --- writing -------------------------------------------------------------------------------


def commit(
    log: Any, events: Sequence[AnyEvent], expect: int, state: GameState | None = None
) -> list[Envelope]:
    """Append `events` after event `expect`: under the log's lock, with the head re-read there,
    fsynced before it returns. StaleHead (nothing written) when `expect` is not the head.

    `state`: the game's state at `expect`. A game in a library keeps, in the same write, its
    summary (complete, winner) after these events, as `we import` computes it; the head check
    makes sure `state` is the stored game's. Without it the library keeps a summary that claims
    nothing."""
    payloads = [event_payload(e) for e in events]
    keeps = getattr(log, "keeps_summary", True)  # a file keeps none: no fold for it
    summary = None if state is None or not keeps else library_summary(fold(events, state))
    try:
        appended: list[Envelope] = log.append(payloads, expected_seq=expect, at=utc_now(), summary=summary)
        return appended
    except ConcurrencyError as exc:
        raise StaleHead(expect, exc.actual) from None


# --- a new game ----------------------------------------------------------------------------


def set_up_events(
    players: Sequence[str],
    dealer: str,
    lists: Mapping[str, Sequence[Colour | str]],
    attics: Mapping[str, Sequence[str]] | None = None,
    options: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> list[AnyEvent]:
    """game_started, gift_lists_dealt and (with attics) attics_dealt; Refused with the rule,
    or with the names a person could not read or tell apart (valid in a log, refused by every
    writer: wecore.names)."""
    from wecore.names import players_refusal

    try:
        events = decide(
            INITIAL_STATE,
            StartGame(players=tuple(players), dealer=dealer, options=dict(options or {}), title=title),
        )
        state = fold(events)
        more = decide(state, DealLists(lists={k: tuple(Colour(c) for c in v) for k, v in lists.items()}))
        events += more
        if attics is not None:
            state = fold(more, state)
            events += decide(state, DealAttics(attics={k: tuple(v) for k, v in attics.items()}))
    except (WeError, ValueError) as exc:
        raise Refused(_one_sentence(exc)) from None
    if (refusal := players_refusal(players)) is not None:
        raise Refused(refusal)
    return events


def _one_sentence(exc: Exception) -> str:
    """A refusal in one line: a set-up refused by the events' validation (pydantic) carries the
    rule's own words in its first error, under pydantic's framing."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        cause = first.get("ctx", {}).get("error")
        return str(cause) if cause is not None else first["msg"]
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def start_game(path: Path, game_id: str, events: Sequence[AnyEvent]) -> list[Envelope]:
    """Write a new log holding the set-up, in one write. LogExistsError if `path` exists."""
    return JsonlLog(path).create_many([event_payload(e) for e in events], game_id, at=utc_now())


def start_game_in(directory: Path, title: str | None, events: Sequence[AnyEvent]) -> list[Envelope]:
    """A new game in `directory`, its id made as `we record` makes its default (from the title
    or the time), with -2, -3, ... when that id's file is taken."""
    base = make_game_id(title, datetime.now(UTC))
    for n in range(1, 10_000):
        suffix = "" if n == 1 else f"-{n}"
        game_id = base[: 64 - len(suffix)].rstrip("-") + suffix
        try:
            return start_game(directory / f"{game_id}.jsonl", game_id, events)
        except LogExistsError:
            continue
    raise Refused(f"no free game id like {base!r} in {directory}")
