"""The recording session of `we record`: read a line, decide through the service, append it
durably, tell the table; undo, notes, ties, `start over`, catching up with another recorder, and
the game into the library when it ends.

Over 500 lines with a reason: it is one class, because every step shares the log's head and
the state folded from it, and cutting it in two would split one object for the line count. The
words people type are read by `cli.record_grammar`; the terminal layer is apart:
`cli.line_editor` (history, editing, completion) and `cli.glance` (what the toolbar shows).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from cli.common import CommandFailed, check_game, echo, one_line
from cli.glance import openable_cards, table_at_a_glance
from cli.record_grammar import (
    AFTER_THE_END,
    COMMAND_WORDS,
    HELP,
    MOVES,
    VERBS,
    WITHOUT_WORDS,
    Rejected,
    _is_number,
    _without_comment,
    did_you_mean,
    split_entries,
    spoken_card,
)
from cli.render import console, error_console, print_table, story_text
from cli.replay import explanation, party_header, standings, view_table
from service.play import (
    DEFAULT_TIE_REASON,
    DEFAULT_UNDO_REASON,
    GAME_OVER,
    Refused,
    RuleRefused,
    StaleHead,
    commit,
    decide_move,
    note_events,
    plan_undo,
    tie_events,
    undone_sentence,
)
from wecore.cards import is_card, parse_card, parse_gift_list
from wecore.decider import (
    Bring,
    Command,
    DealLists,
    Open,
    Steal,
    Swap,
    decide,
    resolve_player,
)
from wecore.errors import UnknownPlayerError, WeError
from wecore.events import (
    AtticsDealt,
    Event,
    GiftBrought,
    GiftListsDealt,
    TieBroken,
)
from wecore.moves import legal_moves
from wecore.narrate import describe, party_end, unseen_brings, winners_line
from wecore.reducer import evolve, fold
from wecore.state import GameState, Phase
from wecore.turns import LISTS_AGAIN, moves_hint, next_up, prompt, turn
from wecore.views import view

if TYPE_CHECKING:
    from eventstore.persistence import GameLog

IN_PLAY = (Phase.PLAYING, Phase.FINAL_SWAP)  # a party's moves, and its starter's final swap

# The longest input line taken, in characters. A typed move is a few words; a set-up line of
# gift lists for a big table is well under this. A longer line (a file piped in by mistake,
# /dev/zero) is refused and skipped in pieces this size, so it is never held in memory whole.
MAX_INPUT_LINE = 4096


class _OverlongLine(str):
    """What the plain reader hands on for an input line over MAX_INPUT_LINE: its start only."""


def read_bounded_line(stream: Any, limit: int = MAX_INPUT_LINE) -> str:
    """One line of `stream` (a text file), "" at its end. A line over `limit` characters comes
    back as an _OverlongLine of its first `limit`, the rest of it read and dropped piece by piece."""
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith("\n"):
        return line
    start = _OverlongLine(line[:limit])
    while True:
        rest = stream.readline(limit)
        if not rest or rest.endswith("\n"):
            return start


def shorten(text: str, width: int = 60) -> str:
    """`text` as an error message shows it: at most `width` characters."""
    return text if len(text) <= width else text[: width - 3] + "..."


class _Finished(Exception):
    """The recording went on in a new session (after `start over`), which has said goodbye."""


def backup_path(path: Path) -> Path:
    """Where an abandoned set-up is kept: FILE.abandoned, FILE.abandoned-2, ... never overwritten."""
    candidate = path.with_name(f"{path.name}.abandoned")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.abandoned-{number}")
    return candidate


@contextmanager
def _ctrl_c_after_this() -> Iterator[None]:
    """Ctrl-C while a line is being written waits until it is written and told, so the
    goodbye counts what is in the file."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _stdout_is_a_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@dataclass
class Session:
    path: Path
    log: GameLog
    state: GameState
    events: list[Event]  # every event in the log; events[i] has seq i + 1
    head: int  # seq of the last event in the log
    last_hash: str | None
    interactive: bool
    game: str
    line_no: int = 0  # lines read from the input
    library: Any = None  # where the game goes when it ends (a file or a URL); None: nowhere
    house_flags: dict[str, Any] = field(default_factory=dict)  # the set-up's, kept for `start over`
    in_library: int = 0  # the head last added to the library
    # The envelopes' `at`, [i] for seq i + 1: undo tells the unseen brings written with an open
    # from those players made on their phones (`we serve` on the same log) by it.
    written_at: list[str | None] = field(default_factory=list)
    stopped: str | None = None  # why a piped script was stopped before its end (then exit 1)
    # Piped: the input lines refused (the first's number), so a script's run ends in exit 1.
    refused_lines: int = 0
    first_refused: int | None = None

    # --- output ---
    def say(self, text: Text | str) -> None:
        # A str is printed as it stands: no rich markup or emoji codes read into names and notes.
        # At a terminal, long lines wrap at words; piped, each stays one line.
        out = console()
        out.print(Text(text) if isinstance(text, str) else text, soft_wrap=not out.is_terminal)

    def complain(self, message: str, text: str) -> None:
        """A refused line, on stderr; on a pipe it names the input line, so a script can be fixed."""
        shown_text = "".join(c if c.isprintable() else "?" for c in shorten(text))
        where = "" if self.interactive else f" (input line {self.line_no}: {shown_text})"
        if not self.interactive:
            self.refused_lines += 1
            if self.first_refused is None:
                self.first_refused = self.line_no
        line = Text().append("rejected", style="bold red").append(f"{where}: ")
        line.append_text(story_text(message))
        err = error_console()
        err.print(line, soft_wrap=not err.is_terminal)

    @property
    def fingerprint(self) -> str | None:
        from eventstore.canonical import fingerprint

        return fingerprint(self.last_hash)

    def prompt(self) -> str:
        return one_line(prompt(turn(self.state)))  # a name from a log with a newline in it

    def greet(self) -> None:
        state = self.state
        self.say(
            Text(
                f"Carrying on with game {self.game} in {self.path} ({self.head} events so far).", style="bold"
            )
        )
        if state.is_over:
            self.final_words()
            self.say("The game is over: only tie, undo, note, status and quit are taken now.")
        elif state.phase is Phase.SETTING_UP:
            self.say(LISTS_AGAIN)
        else:
            # The table as it stands, so whoever picks up the recording sees it at a glance.
            self.say(party_header(state, state.party))
            print_table(view_table(view(state, None, omniscient=True)))
            self.say(moves_hint(state))

    # --- the loop ---
    def run(self) -> None:
        read = self.line_reader()
        try:
            while True:
                line = read()
                if line is None:  # end of input: quit
                    break
                if not self.handle(line):
                    break
        except KeyboardInterrupt:
            # Ctrl-C is a quit like any other: everything accepted is already saved.
            echo()
        except _Finished:
            return
        self.farewell()
        if self.stopped is not None:
            raise CommandFailed(self.stopped)
        if self.refused_lines:
            lines = (
                "1 input line was" if self.refused_lines == 1 else f"{self.refused_lines} input lines were"
            )
            raise CommandFailed(
                f"{lines} refused (the first: input line {self.first_refused}); every other line was recorded"
            )

    def line_reader(self) -> Callable[[], str | None]:
        """At a terminal, an editing prompt with history, completion and a toolbar; otherwise
        plain lines from stdin exactly as they come."""
        if self.interactive and _stdout_is_a_terminal():
            from cli.line_editor import LineEditor

            editor = LineEditor(self.path, self.completions, self.toolbar)
            return lambda: editor.read(self.prompt())
        stdin = sys.stdin

        def plain() -> str | None:
            if self.interactive:
                echo(self.prompt(), nl=False)
            line = read_bounded_line(stdin)
            if not line:
                if self.interactive:
                    echo()
                return None
            return line

        return plain

    # --- what can be typed now (Tab) and the table at a glance (the toolbar) ---
    def completions(self, before: list[str]) -> list[str]:
        """The words that can come next after `before`, asking wecore what is legal now."""
        state = self.state
        if not before:
            return [*COMMAND_WORDS, *state.players]
        verb = VERBS.get(before[0].lower())
        if verb is None:
            # "Ann open R7", "Ann Marie: open R7": the name first, as a check (read as dispatch
            # reads it: up to three words before the move).
            moved = [i for i in range(1, min(len(before), 4)) if VERBS.get(before[i].lower()) in MOVES]
            at = moved[0] if moved else None
            if at is not None:
                verb, before = VERBS[before[at].lower()], before[at:]
            elif state.phase is Phase.PLAYING and (len(before) == 1 or self._a_player(before)):
                return list(MOVES)
            else:
                return []
        if len(before) == 1:
            if verb == "open":
                return openable_cards(state)
            if verb == "steal":
                return [m.from_player for m in legal_moves(state) if isinstance(m, Steal) and m.from_player]
            if verb == "bring":
                return list(state.waiting_to_bring)
            if verb == "swap":
                return [m.with_player for m in legal_moves(state) if isinstance(m, Swap) and m.with_player]
            if verb == "tie" and state.is_over:
                return list(state.scoreboard.winners)
            if verb == "start":
                return ["over"]
        if len(before) >= 2 and verb == "bring" and state.attics is not None:
            player = self._a_player(before[1:])
            if player is None:
                return []
            return [
                m.card for m in legal_moves(state) if isinstance(m, Bring) and m.player == player and m.card
            ]
        return []

    def _a_player(self, words: list[str]) -> str | None:
        """The player these words name, or None."""
        try:
            return resolve_player(self.state, " ".join(words).rstrip(":,"))
        except WeError:
            return None

    def toolbar(self) -> str:
        return table_at_a_glance(self.state)

    def add_to_library(self) -> None:
        """A game that ended goes into the library, as `we import` would put it there."""
        if self.library is None or not self.state.is_over or self.in_library == self.head:
            return
        from cli.common import library_name
        from service.library import EXTENDED, IMPORTED, import_file

        self.in_library = self.head
        outcome = import_file(self.library, self.path, check_game, lambda m: echo(f"we: {m}", err=True))
        where = library_name(self.library)
        if not outcome.in_library:
            self.say(f"Not added to the library {where}: {outcome.text}. The game is safe in {self.path}.")
        elif outcome.status == IMPORTED:
            self.say(f"Added to the library {where} as {outcome.game_id} (see `we games`).")
        elif outcome.status == EXTENDED:
            self.say(f"The library {where} has the new events of {outcome.game_id} too.")

    def farewell(self) -> None:
        self.add_to_library()  # in case the last sitting was cut off before it could
        if self.state.is_over:
            self.say(f"Saved: {self.head} events in {self.path}. Fingerprint: {self.fingerprint}")
        else:
            self.say(
                f"Saved: {self.head} events in {self.path}; carry on later with `we record {self.path}`."
                f" Fingerprint so far: {self.fingerprint}"
            )

    def handle(self, line: str) -> bool:
        """One line; False to stop."""
        self.line_no += 1
        if isinstance(line, _OverlongLine):
            self.complain(f"the line is longer than {MAX_INPUT_LINE:,} characters (skipped)", line)
            return True
        text = line.strip()
        if not text or text.startswith("#"):
            return True
        try:
            return self.dispatch(text)
        except (Rejected, Refused, WeError) as exc:
            self.complain(str(exc), text)
        return True

    def dispatch(self, text: str) -> bool:
        words = text.split()
        actor = None
        verb = VERBS.get(words[0].lower())
        if verb is None:
            # "Cat steal Ann", "Ann Marie: open R7": the acting player's name first, as a check.
            for at in range(1, min(len(words), 4)):
                if VERBS.get(words[at].lower()) in MOVES:
                    actor = " ".join(words[:at]).rstrip(":,")
                    words = words[at:]
                    verb = VERBS[words[0].lower()]
                    break
        if verb is None:
            raise Rejected(
                f"{shorten(words[0], 40)!r} is not a command{did_you_mean(words[0], COMMAND_WORDS)}:"
                " type `help` for the list"
            )
        rest = " ".join(words[1:])
        args = _without_comment(words[1:])
        state = self.state
        if verb in WITHOUT_WORDS and args:
            raise Rejected(f"`{verb}` takes nothing after it, but {' '.join(args)!r} followed")

        if state.is_over and verb not in AFTER_THE_END:
            raise Rejected(f"{GAME_OVER}; `tie`, `undo`, `note`, `status` and `quit` still work")
        if verb == "quit":
            return False
        if verb == "help":
            self.say(HELP)
            return True
        if verb == "status":
            self.status()
            return True
        if state.phase is Phase.SETTING_UP and verb not in ("lists", "start", "undo", "note"):
            raise Rejected(
                f"the gift lists are not dealt yet: give them with {LISTS_AGAIN.split(': ', 1)[1]}"
            )
        if verb == "lists":
            self.deal_lists(" ".join(args))
            return True
        if verb == "start":
            if [a.lower() for a in args] != ["over"]:
                raise Rejected("to set the game up again, type `start over`")
            return self.start_over()
        if verb == "open":
            if not args:
                raise Rejected("say which card was turned over, e.g. `open R7`")
            self.move(Open(card=spoken_card(args), player=actor))
        elif verb == "steal":
            if not args:
                raise Rejected("say whose gift is stolen, e.g. `steal Ann`")
            self.move(Steal(from_player=self.victim(" ".join(args)), player=actor))
        elif verb == "swap":
            if not args:
                raise Rejected("say whose gift the starter takes, e.g. `swap Ann` (or `keep`: no swap)")
            self.move(Swap(with_player=self.victim(" ".join(args)), player=actor))
        elif verb == "keep":
            self.move(Swap(with_player=None, player=actor))
        elif verb == "bring":
            if len(args) < 2:
                raise Rejected("say who brings which card, e.g. `bring Ann R7`")
            if len(args) >= 3 and _is_number(args[-1]):  # `bring Ann red 7`
                self.move(Bring(player=" ".join(args[:-2]), card=spoken_card(args[-2:])))
            else:
                self.move(Bring(player=" ".join(args[:-1]), card=spoken_card(args[-1:])))
        elif verb == "undo":
            self.undo(rest or DEFAULT_UNDO_REASON)
        elif verb == "note":
            if not rest:
                raise Rejected("a note needs some text, e.g. `note Ben spilled cocoa on the red 9`")
            self.commit(note_events(state, rest))
        elif verb == "tie":
            if not args:
                raise Rejected("say who wins the tie, e.g. `tie Ann best speech for Fluffy the Cat`")
            winner, reason = self.tie_words(args)
            self.commit(tie_events(state, winner, reason))
        return True

    def deal_lists(self, text: str) -> None:
        if self.state.phase is not Phase.SETTING_UP:
            raise Rejected(
                "the gift lists are dealt already; to deal them again before the first gift is brought,"
                " `undo` them first"
            )
        if not text:
            raise Rejected(LISTS_AGAIN)
        try:
            entries = split_entries(text, "lists")
        except click.BadParameter as exc:
            raise Rejected(exc.format_message()) from None
        lists = {}
        for name, value in entries:
            lists[resolve_player(self.state, name)] = parse_gift_list(value)
        self.commit(decide(self.state, DealLists(lists=lists)))
        self.say(next_up(turn(self.state)))

    def start_over(self) -> bool:
        """Before the first gift: set the game up again in a new FILE, the old one kept."""
        if any(isinstance(e, GiftBrought) for e in self.events):
            raise Rejected(
                "gifts have been brought already, so the game cannot start over; `undo` takes back moves"
            )
        if not self.interactive:
            # Nobody on a pipe can answer the set-up's questions, and the lines after this one
            # were meant for another set-up: recording them into this one would be wrong.
            self.stopped = (
                f"input line {self.line_no}: start over at a terminal (it asks for the set-up again),"
                f" or move {self.path} away and run `we record` again with the right --players,"
                " --dealer and --lists; nothing after this line was read"
            )
            return False
        backup = backup_path(self.path)
        self.path.rename(backup)
        self.say(f"{self.path} is kept as {backup}; setting the game up again.")
        # Imported here: the set-up module builds Sessions, so it imports this one.
        from cli.record_setup import set_up

        fresh = set_up(self.path, None, None, None, None, None, self.house_flags, None)
        fresh.library = self.library
        fresh.run()
        raise _Finished

    def tie_words(self, args: list[str]) -> tuple[str, str]:
        """`tie Ann Marie best speech`: the longest run of words naming a player, then the reason."""
        for cut in range(min(len(args), 4), 0, -1):
            try:
                winner = resolve_player(self.state, " ".join(args[:cut]))
            except UnknownPlayerError:
                continue
            return winner, " ".join(args[cut:]) or DEFAULT_TIE_REASON
        return args[0], " ".join(args[1:]) or DEFAULT_TIE_REASON

    def victim(self, text: str) -> str:
        """The player named, or (as a courtesy) the player holding the card named."""
        try:
            return resolve_player(self.state, text)
        except UnknownPlayerError:
            if not is_card(text):
                raise
            card = parse_card(text)
            for player, held in self.state.holdings.items():
                if held == card:
                    return player
            raise Rejected(f"nobody holds {card} now") from None

    def move(self, command: Command) -> None:
        try:
            events = decide_move(self.state, command)
        except RuleRefused as exc:
            raise Rejected(f"{exc}. {moves_hint(self.state, refused=str(exc))}") from None
        self.commit(events)

    def undo(self, reason: str) -> None:
        state = self.state
        was_over = state.is_over
        try:
            plan = plan_undo(state, self.events, self.written_at, reason, lists_too=True)
        except Refused as exc:
            if state.undo is not None and isinstance(self.events[state.undo[0] - 1], AtticsDealt):
                # The service's sentence, and what the recorder can do that the service cannot.
                raise Rejected(f"{exc} (`start over` does that, keeping this file as a backup)") from None
            raise
        undone = plan.undone
        self.commit(plan.voids, narrate=False)
        self.say(story_text(undone_sentence(plan, reason)))
        if was_over and not self.state.is_over:
            self.say("The game is open again.")
        if isinstance(undone, GiftListsDealt):
            self.say(LISTS_AGAIN)
        else:
            self.say(next_up(turn(self.state)))

    # --- writing ---
    def commit(self, events: list[Event], narrate: bool = True) -> None:
        try:
            with _ctrl_c_after_this():
                written = commit(self.log, events, self.head)
                self.absorb(events, written, narrate=narrate)
            return
        except StaleHead:
            # Another recorder wrote to this file meanwhile. Nothing of this line was written;
            # catch up with the log, show what was added, and let the table decide whether the
            # move still stands.
            seen = self.head
            self.catch_up()
            added = self.head - seen
            plural = "s" if added != 1 else ""
            self.say(
                Text(
                    f"Added to {self.path} by another recorder meanwhile ({added} event{plural}):",
                    style="bold",
                )
            )
            state = self.replayed_to(seen)
            for seq, event in enumerate(self.events[seen:], start=seen + 1):
                after = evolve(state, event)
                self.say(story_text(f"  {seq}. {describe(event, state, after)}"))
                state = after
            raise Rejected(
                f"another recorder added to {self.path} meanwhile (shown above), so this line was not"
                f" recorded; the log now has {self.head} events. {next_up(turn(self.state))} Type the move"
                " again if it still stands."
            ) from None

    def replayed_to(self, seq: int) -> GameState:
        return fold(self.events[:seq])

    def catch_up(self) -> None:
        from cli.record_setup import resume  # imported here: record_setup imports this module

        fresh = resume(self.path, greet=False)
        self.state, self.events, self.written_at, self.head, self.last_hash = (
            fresh.state,
            fresh.events,
            fresh.written_at,
            fresh.head,
            fresh.last_hash,
        )

    def absorb(self, events: list[Event], written: list[Any], narrate: bool = True) -> None:
        """Fold events that are now in the log, and tell the table."""
        unseen: list[str] = []
        for event, envelope in zip(events, written, strict=True):
            before, self.state = self.state, evolve(self.state, event)
            self.events.append(event)
            self.written_at.append(envelope.at)
            self.head, self.last_hash = envelope.seq, envelope.hash
            if not narrate:
                continue
            if isinstance(event, GiftBrought) and event.card is None and len(events) > 1:
                unseen.append(event.player)  # brought unseen for an open: said in one line
            else:
                if unseen:
                    self.say(unseen_brings(unseen))
                    unseen = []
                self.say(story_text(describe(event, before, self.state)))
            self.transitions(before, event)
        if unseen:
            self.say(unseen_brings(unseen))
        if narrate and self.state.is_over and any(isinstance(e, TieBroken) for e in events):
            self.say(winners_line(self.state.scoreboard))
            self.say(
                Text(
                    f"The fingerprint changed with the tie-break: {self.fingerprint}"
                    " (note this one down instead; `we audit` proves a log against it)",
                    style="bold",
                )
            )
        self.add_to_library()

    def transitions(self, before: GameState, event: Event) -> None:
        after = self.state
        if before.phase not in IN_PLAY or after.phase in IN_PLAY:
            if before.phase is Phase.SETTING_UP and after.phase is Phase.BRINGING:
                self.say(party_header(after, after.party))
            return
        self.say(story_text(party_end(before, after)))
        if after.is_over:
            self.final_words()
        else:
            self.say(party_header(after, after.party))

    def final_words(self) -> None:
        board = self.state.scoreboard
        print_table(standings(board))
        self.say(explanation(board))
        if len(board.winners) > 1 and board.tie_broken_by is None:
            self.say("To break the tie the rulebook's way (the best speech): `tie PLAYER REASON`.")
        note = "note it down; `we audit` proves a log against it"
        self.say(Text(f"Fingerprint: {self.fingerprint} ({note})", style="bold"))

    def status(self) -> None:
        state = self.state
        print_table(view_table(view(state, None, omniscient=True)))
        if not state.is_over:
            self.say(moves_hint(state))
        self.say(f"{self.head} events recorded; fingerprint {self.fingerprint}.")


# --- table language -------------------------------------------------------------------------
