"""The recording session of `we record`: read a line, make it through the table (service.table),
tell the table what happened; undo, notes, ties, `start over`, and the game into the library
when it ends.

Every line, `status` and `quit` is judged against the log as it stands, not a picture kept from
before: the session looks at the log first (a stat while nothing changed) and says in one line
what anyone else (another recorder, a phone) added meanwhile; the table object decides and
writes. At a terminal the prompt and toolbar follow the log while it waits (`cli.line_editor`).
What it tells is worded in `cli.record_story`, the words people type are read by
`cli.record_grammar`, plain input by `cli.record_input`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from cli.exits import CommandFailed
from cli.glance import table_at_a_glance
from cli.opening import read_game
from cli.record_grammar import (
    AFTER_THE_END,
    COMMAND_WORDS,
    HELP,
    MOVE_WORDS,
    MOVES,
    VERBS,
    WITHOUT_WORDS,
    Rejected,
    completions,
    did_you_mean,
    lists_again,
    moves_hint,
    next_up,
    prompt,
    split_entries,
    spoken_card,
    tie_words,
    without_comment,
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
from cli.record_story import Teller
from cli.render import story_text
from cli.terminal import echo, one_line
from service.play import DEFAULT_UNDO_REASON, GAME_OVER, Refused, RuleRefused, StaleHead, start_over_refusal
from service.table import (
    AddNote,
    BreakTie,
    Damaged,
    DealLists,
    Standing,
    Table,
    TableCommand,
    Undo,
    resolve_player,
)
from wecore.cards import parse_gift_list
from wecore.errors import WeError
from wecore.events import AtticsDealt, GiftListsDealt
from wecore.state import Phase
from wecore.turns import turn
from wecore.views import gift_at, hidden_card_refusal

OVER_BUT = f"{GAME_OVER}; `tie`, `undo`, `note`, `status` and `quit` still work"
UNDO_OUTRUN = (
    "nothing undone: the game moved on meanwhile (told above), so the latest event is not the one"
    " you saw; type `undo` again to take back the latest as it is now"
)


class StartOver(Exception):
    """`start over` moved the log aside: the game is to be set up again in a new session (by
    `we record`, which sets games up; this module only runs them)."""


@dataclass
class Session(Teller):
    path: Path
    table: Table
    interactive: bool
    game: str
    told: int = 0  # the head the table has been told of: what is after it is news
    line_no: int = 0  # lines read from the input
    library: Any = None  # where the game goes when it ends (a file or a URL); None: nowhere
    house_flags: dict[str, Any] = field(default_factory=dict)  # the set-up's, kept for `start over`
    in_library: int = 0  # the head last added to the library
    news_before_line: bool = False  # whether others had moved when the line being made was read
    # The prompt as last drawn, and as it stood when the line being made was typed: an
    # unprefixed move means the move of the player that prompt named.
    prompt_drawn: str | None = None
    prompt_typed_at: str | None = None
    viewer: str | None = None  # `--as`: the seat whose view is shown (None: every card)
    told_every_card: bool = False
    stopped: str | None = None  # why the recording was stopped before its input's end (then exit 1)
    # Piped: the input lines refused (the first's number), so a script's run ends in exit 1.
    refused_lines: int = 0
    first_refused: int | None = None
    now: Standing = field(init=False)

    def __post_init__(self) -> None:
        self.now = self.table.look()

    # --- the game as the log stands ---
    def look(self) -> bool:
        """Read the log as it stands and tell the table what others added since it was told
        (True if anything was)."""
        self.now = self.table.look()
        news = self.table.since(self.told, self.now.head)
        self.told = max(self.told, self.now.head)
        if news:
            self.tell_meanwhile(news)
        return bool(news)

    def has_news(self) -> bool:
        """Whether the log grew since the table was told (a look: a stat while nothing changed)."""
        self.now = self.table.look()
        return self.now.head != self.told

    def prompt(self) -> str:
        self.prompt_drawn = one_line(prompt(turn(self.state)))  # a name from a log with a newline in it
        return self.prompt_drawn

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
                hidden = self.hidden_cards(self.state)
                return [word for word in completions(self.state, before) if word not in hidden]

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
        return table_at_a_glance(self.state, self.viewer)

    def add_to_library(self) -> None:
        """A game that ended goes into the library, as `we import` would put it there."""
        if self.library is None or not self.state.is_over or self.in_library == self.head:
            return
        from eventstore.libraries import library_name
        from service.library import EXTENDED, IMPORTED, import_file

        self.in_library = self.head
        outcome = import_file(self.library, self.path, read_game, lambda m: echo(f"we: {m}", err=True))
        where = library_name(self.library)
        if not outcome.in_library:
            self.say(f"Not added to the library {where}: {outcome.text}. The game is safe in {self.path}.")
        elif outcome.status == IMPORTED:
            self.say(f"Added to the library {where} as {outcome.game_id} (see `we games`).")
        elif outcome.status == EXTENDED:
            self.say(f"The library {where} has the new events of {outcome.game_id} too.")

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
            # Judged against the log as it stands, whoever wrote to it meanwhile.
            self.prompt_typed_at, self.prompt_drawn = self.prompt_drawn, None
            self.news_before_line = self.look()
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
        args = without_comment(words[1:])
        state = self.state
        if verb in WITHOUT_WORDS and args:
            raise Rejected(f"`{verb}` takes nothing after it, but {' '.join(args)!r} followed")

        if state.is_over and verb not in AFTER_THE_END:
            raise Rejected(OVER_BUT)
        if verb == "quit":
            return False
        if verb == "help":
            self.say(HELP)
            return True
        if verb == "status":
            self.status()
            return True
        if state.phase is Phase.SETTING_UP and verb not in ("lists", "start", "undo", "note"):
            how = lists_again(state.players).split(": ", 1)[1]
            raise Rejected(f"the gift lists are not dealt yet: give them with {how}")
        if verb == "lists":
            self.deal_lists(" ".join(args))
            return True
        if verb == "start":
            if [a.lower() for a in args] != ["over"]:
                raise Rejected("to set the game up again, type `start over`")
            return self.start_over()
        if verb in MOVES and actor is None:
            actor = self._mover_as_prompted(text)
        words_of_move = MOVE_WORDS.get(verb)
        if words_of_move is not None:
            self.move(words_of_move.parse(self, args, actor))
        elif verb == "undo":
            self.undo(rest or DEFAULT_UNDO_REASON)
        elif verb == "note":
            if not rest:
                raise Rejected("a note needs some text, e.g. `note Ben spilled cocoa on the red 9`")
            self.make(AddNote(text=rest))
        elif verb == "tie":
            if not args:
                raise Rejected("say who wins the tie, e.g. `tie Ann best speech for Fluffy the Cat`")
            self.make(BreakTie(*tie_words(self.state, args)))
        else:
            # Every word VERBS knows is handled above: one it does not must fail here, not pass.
            raise Rejected(f"`{verb}` is known but not handled: this is a bug in the recorder")
        return True

    def _mover_as_prompted(self, text: str) -> str | None:
        """Who an unprefixed move is for: the player the prompt named when the line was typed.
        When someone else's move changed the turn after that prompt was drawn, the line is not
        recorded for the new player unasked: typing it again with that player's name prefixed
        is the confirmation. None (the player to move, as the table decides) when nothing was
        drawn (a pipe) or nothing changed."""
        shown = self.prompt_typed_at
        if shown is None or shown == one_line(prompt(turn(self.state))):
            return None
        now = turn(self.state)
        player = now.to_move or now.starter
        if player is None:
            raise Rejected(f"not recorded: the game moved on after the prompt {shown.strip()!r} (told above)")
        raise Rejected(
            f"not recorded: the prompt said {shown.strip()!r}, but the turn changed meanwhile (told above);"
            f" to make this {player}'s move, type `{player}: {text}`"
        )

    def opened_card(self, args: list[str], actor: str | None) -> str:
        """The card an `open` names. With `--as`, the seat opens a face-down gift it has not seen
        by its place (`open gift 2`, as the seat's page numbers them), and a card it names that it
        has not seen gets the seat's one answer, whatever the card (wecore.views)."""
        place = args[1:] if args[0].lower() == "gift" else args
        if self.viewer is None or len(place) != 1 or not place[0].isdigit():
            card = spoken_card(args)
            mover = actor or turn(self.state).to_move
            if self.viewer is not None and mover == self.viewer:
                refusal = hidden_card_refusal(self.state, self.viewer, "open", card)
                if refusal is not None:
                    raise Rejected(f"{refusal.split(': send')[0]}: type `open gift N`")
            return card
        try:
            under = gift_at(self.state, self.viewer, int(place[0]))
        except ValueError as exc:
            raise Rejected(str(exc)) from None
        if under is None:
            raise Rejected(f"gift {place[0]} was brought unseen: say the card turned over, e.g. `open R7`")
        return under

    def deal_lists(self, text: str) -> None:
        if self.state.phase is not Phase.SETTING_UP:
            raise Rejected(
                "the gift lists are dealt already; to deal them again before the first gift is brought,"
                " `undo` them first"
            )
        if not text:
            raise Rejected(lists_again(self.state.players))
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
        if (refusal := start_over_refusal(self.now.events)) is not None:
            raise Rejected(refusal)
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
        raise StartOver

    def move(self, command: TableCommand) -> None:
        try:
            self.make(command)
        except RuleRefused as exc:
            raise Rejected(f"{exc}. {moves_hint(self.state, refused=str(exc))}") from None
        except Refused as exc:
            if str(exc) == GAME_OVER:  # ended by someone else after this line was first looked at
                raise Rejected(OVER_BUT) from None
            raise

    def undo(self, reason: str) -> None:
        # An undo means "take back the latest I saw": when others moved since (or move while
        # it is made), the latest is theirs, so nothing is taken back unseen.
        if self.news_before_line:
            raise Rejected(UNDO_OUTRUN)
        was_over = self.state.is_over
        try:
            outcome = self.make(Undo(reason=reason), narrate=False, expect=self.told)
        except StaleHead:
            self.look()
            raise Rejected(UNDO_OUTRUN) from None
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
            self.say(lists_again(self.state.players))
        else:
            self.say(next_up(turn(self.state)))

    # --- writing ---
    def make(self, command: TableCommand, narrate: bool = True, expect: int | None = None) -> Any:
        """Make `command` through the table and tell what happened: first anything others
        added meanwhile, then this line's events. A refusal is judged against the log as it
        stands, and what others added before it is told first too."""
        try:
            with ctrl_c_after_this():
                outcome = self.table.move(command, since=self.told, expect=expect)
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
        except StaleHead:
            if expect is not None:
                raise
            self.look()  # decided again and again, another writer quicker each time: nothing written
            raise Rejected(
                f"other writers kept adding to {self.path} while this line was made, so it was not"
                " recorded; type it again"
            ) from None
        return outcome
