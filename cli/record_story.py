"""What `we record` tells the table: each line's events in table language, what others added
meanwhile (one line), the end of a party or of the game, the table as it stands, refusals.

Apart from the session loop (cli.record_session) so that the loop reads as what it does with a
line, and this as what it says; the Session is a Teller. Every sentence about the game comes
from wecore (narrate, turns, views); this only chooses which and prints them.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType
from rich.text import Text

from cli.record_grammar import lists_again, moves_hint
from cli.record_input import shorten
from cli.render import console, error_console, print_table, story_text
from cli.replay import explanation, party_header, standings, view_table
from service.table import Happened, Standing
from wecore.events import EventVoided, GiftBrought, TieBroken
from wecore.kinds import IN_PLAY  # a party's moves, and any swap that follows them
from wecore.narrate import describe, party_end, taken_back, unseen_brings, winners_line
from wecore.state import GameState, Phase
from wecore.views import cards_known_to, view

# The most sentences a "Meanwhile ..." line tells one by one; more are counted, the latest told.
MEANWHILE_SENTENCES = 3


class Teller:
    """The telling half of a recording session (its fields are the Session's)."""

    path: Path
    game: str
    now: Standing
    interactive: bool
    # `--as`: the seat whose view is shown (None: every card, the host's view of the log).
    viewer: str | None
    told_every_card: bool  # whether the one warning that every hidden card is shown was given
    line_no: int
    refused_lines: int
    first_refused: int | None

    @property
    def state(self) -> GameState:
        return self.now.state

    @property
    def head(self) -> int:
        return self.now.head

    @property
    def fingerprint(self) -> str | None:
        return self.now.fingerprint

    @property
    def omniscient(self) -> bool:
        return self.viewer is None

    def hidden_cards(self, state: GameState) -> set[str]:
        """The cards in play whose place the `--as` seat does not know (wecore.views.cards_known_to):
        another attic, another face-down gift. None without `--as`."""
        if self.viewer is None:
            return set()
        in_play = set(state.face_down)
        for cards in state.attics or ():
            in_play.update(cards)
        return in_play - cards_known_to(state, state.seat_of[self.viewer])

    def warn_every_card_shown(self) -> None:
        """Once a session: without `--as`, a game with dealt attics shows every hidden card."""
        if self.viewer is not None or self.told_every_card or self.state.attics is None:
            return
        self.told_every_card = True
        self.say(
            Text(
                "This recorder shows every attic and every face-down gift. If you also play a seat,"
                f" record as that seat instead: `we record {self.path} --as NAME`.",
                style="yellow",
            )
        )

    # The Session's, which this half calls.
    def add_to_library(self) -> None:
        raise NotImplementedError

    def look(self) -> bool:
        raise NotImplementedError

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

    def tell_meanwhile(self, news: list[Happened]) -> None:
        first, last = news[0].seq, news[-1].seq
        which = f"event {first}" if first == last else f"events {first}-{last}"
        # Nothing in a log tells which program wrote a line, so no writer is named.
        said = self.sentences(news, transitions=False)
        if len(said) > MEANWHILE_SENTENCES:
            # A whole party or more went by: one short line, not a paragraph; `status` has the rest.
            said = [f"{len(news)} events, the latest: {said[-1]} (`status` shows the table)"]
        self.say(story_text(f"Meanwhile ({which}): " + " ".join(said)))
        for happened in news:
            self.transitions(happened.before, happened.after)
        self.warn_every_card_shown()
        self.add_to_library()

    # --- output ---
    def say(self, text: RenderableType) -> None:
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
            self.say(lists_again(state.players))
        else:
            # The table as it stands, so whoever picks up the recording sees it at a glance.
            self.say(party_header(state, state.party))
            print_table(view_table(view(state, self.viewer, omniscient=self.omniscient)))
            self.say(moves_hint(state))
        self.warn_every_card_shown()

    def sentence(self, happened: Happened) -> str:
        event = happened.event
        if isinstance(event, EventVoided):
            voided = self.now.events[event.voids - 1]
            return taken_back(event, voided, happened.after, self.viewer, self.omniscient)
        return describe(event, happened.before, happened.after, self.viewer, self.omniscient)

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
        self.warn_every_card_shown()
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
        print_table(view_table(view(state, self.viewer, omniscient=self.omniscient)))
        if not state.is_over:
            self.say(moves_hint(state))
        self.say(f"{self.head} events recorded; fingerprint {self.fingerprint}.")
