"""The recording session of `we record`: read a line, make it through the table (service.table),
tell the table what happened; undo, notes, ties, `start over`, and the game into the library
when it ends.

Every line, `status` and `quit` is judged against the log as it stands, not a picture kept from
before: the session looks at the log first (a stat while nothing changed) and says in one line
what anyone else (another recorder, a phone) added meanwhile; the table object decides and
writes. At a terminal the prompt and toolbar follow the log while it waits (`cli.line_editor`).
The words people type are read by `cli.record_grammar`; plain input by `cli.record_input`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from cli.common import CommandFailed, check_game, echo, one_line
from cli.glance import table_at_a_glance
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
    completions,
    did_you_mean,
    split_entries,
    spoken_card,
)
from cli.record_input import (
    MAX_INPUT_LINE,
    OverlongLine,
    backup_path,
    ctrl_c_after_this,
    read_bounded_line,
    shorten,
    stdout_is_a_terminal,
)
from cli.render import console, error_console, print_table, story_text
from cli.replay import explanation, party_header, standings, view_table
from service.checking import GameSource
from service.play import DEFAULT_TIE_REASON, DEFAULT_UNDO_REASON, GAME_OVER, Refused, RuleRefused
from service.table import (
    AddNote,
    BreakTie,
    Bring,
    Damaged,
    DealLists,
    Happened,
    Open,
    Standing,
    Steal,
    Swap,
    Table,
    TableCommand,
    Undo,
    resolve_player,
)
from wecore.cards import is_card, parse_card, parse_gift_list
from wecore.errors import UnknownPlayerError, WeError
from wecore.events import AtticsDealt, EventVoided, GiftBrought, GiftListsDealt, TieBroken
from wecore.narrate import describe, party_end, taken_back, unseen_brings, winners_line
from wecore.state import GameState, Phase
from wecore.turns import LISTS_AGAIN, moves_hint, next_up, prompt, turn
from wecore.views import view

IN_PLAY = (Phase.PLAYING, Phase.FINAL_SWAP)  # a party's moves, and its starter's final swap


class _Finished(Exception):
    """The recording went on in a new session (after `start over`), which has said goodbye."""


@dataclass
class Session:
    path: Path
    table: Table
    interactive: bool
    game: str
    told: int = 0  # the head the table has been told of: what is after it is news
    line_no: int = 0  # lines read from the input
    library: Any = None  # where the game goes when it ends (a file or a URL); None: nowhere
    house_flags: dict[str, Any] = field(default_factory=dict)  # the set-up's, kept for `start over`
    in_library: int = 0  # the head last added to the library
    stopped: str | None = None  # why the recording was stopped before its input's end (then exit 1)
    # Piped: the input lines refused (the first's number), so a script's run ends in exit 1.
    refused_lines: int = 0
    first_refused: int | None = None
    now: Standing = field(init=False)

    def __post_init__(self) -> None:
        self.now = self.table.look()

    # --- the game as the log stands ---
    @property
    def state(self) -> GameState:
        return self.now.state

    @property
    def head(self) -> int:
        return self.now.head

    @property
    def fingerprint(self) -> str | None:
        return self.now.fingerprint

    def look(self) -> None:
        """Read the log as it stands and tell the table what others added since it was told."""
        self.now = self.table.look()
        news = self.table.since(self.told, self.now.head)
        self.told = max(self.told, self.now.head)
        if news:
            self.tell_meanwhile(news)

    def has_news(self) -> bool:
        """Whether the log grew since the table was told (a look: a stat while nothing changed)."""
        self.now = self.table.look()
        return self.now.head != self.told

    def tell_meanwhile(self, news: list[Happened]) -> None:
        first, last = news[0].seq, news[-1].seq
        which = f"event {first}" if first == last else f"events {first}-{last}"
        # Nothing in a log tells which program wrote a line, so no writer is named.
        self.say(story_text(f"Meanwhile ({which}): " + " ".join(self.sentences(news, transitions=False))))
        for happened in news:
            self.transitions(happened.before, happened.after)
        self.add_to_library()

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
            self.final_words(state)
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
        """At a terminal, an editing prompt with history, completion and a toolbar that follow
        the log; otherwise plain lines from stdin exactly as they come."""
        if self.interactive and stdout_is_a_terminal():
            from cli.line_editor import LineEditor

            def choices(before: list[str]) -> list[str]:
                return completions(self.state, before)

            editor = LineEditor(self.path, choices, self.toolbar, self.has_news, self.look)
            return lambda: editor.read(self.prompt)
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

    def toolbar(self) -> str:
        return table_at_a_glance(self.state)

    def add_to_library(self) -> None:
        """A game that ended goes into the library, as `we import` would put it there."""
        if self.library is None or not self.state.is_over or self.in_library == self.head:
            return
        from cli.common import connect_library, library_name
        from eventstore.errors import StoreError
        from wecore.scoring import library_summary

        self.in_library = self.head
        report = check_game(GameSource(label=str(self.path), path=self.path), keep_lines=True)
        try:
            if report.problems:
                raise StoreError(f"line {report.problems[0].line}: {report.problems[0].message}")
            library = connect_library(self.library)
            try:
                result = library.import_verified(report.lines, str(self.path), library_summary(report.state))
            finally:
                library.close()
        except (StoreError, OSError) as exc:
            where = library_name(self.library)
            self.say(f"Not added to the library {where}: {exc}. The game is safe in {self.path}.")
            return
        if result.status == "imported":
            self.say(
                f"Added to the library {library_name(self.library)} as {result.game_id} (see `we games`)."
            )
        elif result.status == "extended":
            self.say(f"The library {library_name(self.library)} has the new events of {result.game_id} too.")

    def farewell(self) -> None:
        self.look()  # the file's count and fingerprint, whoever wrote its last lines
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
        if isinstance(line, OverlongLine):
            self.complain(f"the line is longer than {MAX_INPUT_LINE:,} characters (skipped)", line)
            return True
        text = line.strip()
        if not text or text.startswith("#"):
            return True
        try:
            self.look()  # judged against the log as it stands, whoever wrote to it meanwhile
            return self.dispatch(text)
        except Damaged as exc:
            self.stopped = str(exc)
            return False
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
            self.make(AddNote(text=rest))
        elif verb == "tie":
            if not args:
                raise Rejected("say who wins the tie, e.g. `tie Ann best speech for Fluffy the Cat`")
            self.make(BreakTie(*self.tie_words(args)))
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
        self.make(DealLists(lists=lists))
        self.say(next_up(turn(self.state)))

    def start_over(self) -> bool:
        """Before the first gift: set the game up again in a new FILE, the old one kept."""
        if any(isinstance(e, GiftBrought) for e in self.now.events):
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

    def move(self, command: TableCommand) -> None:
        try:
            self.make(command)
        except RuleRefused as exc:
            raise Rejected(f"{exc}. {moves_hint(self.state, refused=str(exc))}") from None

    def undo(self, reason: str) -> None:
        was_over = self.state.is_over
        try:
            outcome = self.make(Undo(reason=reason), narrate=False)
        except Refused as exc:
            state = self.state
            if state.undo is not None and isinstance(self.now.events[state.undo[0] - 1], AtticsDealt):
                # The service's sentence, and what the recorder can do that the service cannot.
                raise Rejected(f"{exc} (`start over` does that, keeping this file as a backup)") from None
            raise
        assert outcome.undone is not None and outcome.undo is not None
        self.say(story_text(outcome.undone))
        if was_over and not self.state.is_over:
            self.say("The game is open again.")
        if isinstance(outcome.undo.undone, GiftListsDealt):
            self.say(LISTS_AGAIN)
        else:
            self.say(next_up(turn(self.state)))

    # --- writing ---
    def make(self, command: TableCommand, narrate: bool = True) -> Any:
        """Make `command` through the table and tell what happened: first anything others
        added meanwhile, then this line's events. A refusal is judged against the log as it
        stands, and what others added before it is told first too."""
        try:
            with ctrl_c_after_this():
                outcome = self.table.move(command, since=self.told)
                if outcome.meanwhile:
                    self.tell_meanwhile(outcome.meanwhile)
                self.now = self.table.look()
                self.told = outcome.head
                if narrate:
                    self.narrate(outcome.steps)
                self.add_to_library()
        except Refused:
            self.look()
            raise
        return outcome

    def sentence(self, happened: Happened) -> str:
        event = happened.event
        if isinstance(event, EventVoided):
            return taken_back(event, self.now.events[event.voids - 1], happened.after, None, True)
        return describe(event, happened.before, happened.after)

    def sentences(self, steps: list[Happened], transitions: bool) -> list[str]:
        """The events in table language (unseen brings written together said in one sentence);
        with `transitions`, each said as it comes and followed by the end of a party or game."""
        out: list[str] = []
        unseen: list[str] = []
        grouped = len(steps) > 1

        def flush() -> None:
            if unseen:
                out.append(unseen_brings(unseen))
                if transitions:
                    self.say(out[-1])
                unseen.clear()

        for happened in steps:
            event = happened.event
            if grouped and isinstance(event, GiftBrought) and event.card is None:
                unseen.append(event.player)  # brought unseen for an open: said in one line
            else:
                flush()
                out.append(self.sentence(happened))
                if transitions:
                    self.say(story_text(out[-1]))
            if transitions:
                self.transitions(happened.before, happened.after)
        flush()
        return out

    def narrate(self, steps: list[Happened]) -> None:
        """This line's own events, one sentence each, and the end of a party or of the game."""
        self.sentences(steps, transitions=True)
        after = steps[-1].after if steps else self.state
        if after.is_over and any(isinstance(h.event, TieBroken) for h in steps):
            self.say(winners_line(after.scoreboard))
            self.say(
                Text(
                    f"The fingerprint changed with the tie-break: {self.fingerprint}"
                    " (note this one down instead; `we audit` proves a log against it)",
                    style="bold",
                )
            )

    def transitions(self, before: GameState, after: GameState) -> None:
        if before.phase not in IN_PLAY or after.phase in IN_PLAY:
            if before.phase is Phase.SETTING_UP and after.phase is Phase.BRINGING:
                self.say(party_header(after, after.party))
            return
        self.say(story_text(party_end(before, after)))
        if after.is_over:
            self.final_words(after)
        else:
            self.say(party_header(after, after.party))

    def final_words(self, state: GameState) -> None:
        board = state.scoreboard
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
