"""`we record FILE`: a game recorded live at the table, one command per line.

The recorder parses what people type, asks wecore's `decide` for the events (or the rule
that refuses them), appends them durably, and tells the table what happened. It never
judges a move itself, and its sentences about the game come from wecore (`narrate`, `turns`).

Over 500 lines for now: the new-game set-up from flags or questions, the session loop and
the table's grammar (spoken cards, suggestions, fixing the set-up) live here together. The
terminal layer is apart: `cli.line_editor` (history, editing, completion) and `cli.glance`
(what the toolbar shows).
"""

from __future__ import annotations

import difflib
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from cli.common import CommandFailed, GameSource, check_game, db_option, library_path
from cli.glance import openable_cards, table_at_a_glance
from cli.house_rules import given_flags, house_rule_options, options_from_flags, pop_house_rule_flags
from cli.render import console, error_console, print_table, story_text
from cli.replay import explanation, party_header, standings, view_table
from service.checking import damage_sentence
from service.play import (
    GAME_OVER,
    Refused,
    RuleRefused,
    StaleHead,
    commit,
    decide_move,
    note_events,
    plan_undo,
    start_game,
    tie_events,
)
from wecore.cards import CARD_FORM_HINT, COLOURS, is_card, parse_card, parse_gift_list
from wecore.decider import (
    Bring,
    Command,
    DealAttics,
    DealLists,
    Open,
    StartGame,
    Steal,
    Swap,
    decide,
    resolve_player,
)
from wecore.errors import CardNotationError, UnknownPlayerError, WeError
from wecore.events import (
    AtticsDealt,
    Event,
    GiftBrought,
    GiftListsDealt,
    TieBroken,
    parse_event,
)
from wecore.moves import legal_moves
from wecore.narrate import describe, gist, party_end, unseen_brings, winners_line
from wecore.reducer import evolve, fold
from wecore.state import INITIAL_STATE, GameState, Phase
from wecore.turns import LISTS_AGAIN, moves_hint, next_up, prompt, turn
from wecore.views import view

if TYPE_CHECKING:
    from eventstore.persistence import GameLog

HELP = """\
Commands (names and cards in any case; a unique start of a name is enough):
  open CARD          (o)  the player to move opens CARD, e.g. `open R7`
  steal PLAYER       (s)  the player to move steals the gift PLAYER holds
  NAME open CARD / NAME steal PLAYER   the same, checking whose turn it is
  swap PLAYER             starter_final_swap: after a party's last open, its starter swaps
                          gifts with PLAYER (`keep`: no swap)
  bring PLAYER CARD       PLAYER brings CARD face down (needed when the attics were dealt;
                          otherwise gifts not yet brought go down unseen at the first open)
  undo [REASON]           take back the latest event still in effect
  note TEXT               a remark for the record
  tie PLAYER [REASON]     after the last party: PLAYER wins the tie (the best speech)
  status                  whose turn, who holds what, locked and face-down gifts, legal moves
  help                    this list
  quit               (q)  stop; everything accepted is already saved (end of input and Ctrl-C too)
Before the first gift is brought: `undo` takes back the gift lists (then `lists Ann=RGY,...`),
and `start over` sets the game up again (wrong players or dealer), keeping FILE as a backup.
At a terminal: Up/Down for earlier lines, Tab to complete, arrows to edit.
Blank lines and lines starting with # are ignored."""

VERBS = {
    "open": "open",
    "o": "open",
    "opens": "open",
    "steal": "steal",
    "s": "steal",
    "steals": "steal",
    "swap": "swap",
    "swaps": "swap",
    "keep": "keep",
    "keeps": "keep",
    "bring": "bring",
    "b": "bring",
    "brings": "bring",
    "undo": "undo",
    "note": "note",
    "tie": "tie",
    "status": "status",
    "st": "status",
    "help": "help",
    "h": "help",
    "?": "help",
    "quit": "quit",
    "q": "quit",
    "exit": "quit",
    "lists": "lists",
    "start": "start",
}
MOVES = ("open", "steal", "swap", "keep")
IN_PLAY = (Phase.PLAYING, Phase.FINAL_SWAP)  # a party's moves, and its starter's final swap
COMMAND_WORDS = (
    "open",
    "steal",
    "swap",
    "keep",
    "bring",
    "undo",
    "note",
    "tie",
    "status",
    "help",
    "quit",
    "lists",
    "start",
)
WITHOUT_WORDS = ("status", "help", "quit", "keep")
COLOUR_NAMES = {colour.value: colour for colour in COLOURS}
AFTER_THE_END = ("tie", "undo", "note", "status", "help", "quit")
DEFAULT_UNDO_REASON = "undone at the table"
DEFAULT_TIE_REASON = "won the tie-break at the table"


def is_interactive() -> bool:
    """A person at a terminal (prompts, questions) rather than a script on a pipe."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


# --- the command ---------------------------------------------------------------------------


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--players", metavar="NAMES", help="New game: the players in clockwise seat order, e.g. Ann,Bob,Cat."
)
@click.option("--dealer", metavar="NAME", help="New game: who deals (the player to their left starts).")
@click.option(
    "--lists",
    metavar="LISTS",
    help='New game: every gift list, e.g. "Ann=RGY,Bob=BGO,Cat=RBO" (colour letters or names).',
)
@click.option("--title", help="New game: a title, e.g. 'Thanksgiving 2026'.")
@click.option(
    "--game-id", "game_id", metavar="ID", help="New game: the game id (default: from the title or the date)."
)
@house_rule_options("New game, house rule: ")
@click.option(
    "--attics",
    metavar="HANDS",
    help='New game: the attics, when the hands are recorded, e.g. "Ann=R7 B2 G5,Bob=...".',
)
@db_option
@click.option(
    "--no-library",
    is_flag=True,
    help="Do not add the game to the library when it ends (by default it is, like `we import`).",
)
def record(
    file: Path,
    players: str | None,
    dealer: str | None,
    lists: str | None,
    title: str | None,
    game_id: str | None,
    attics: str | None,
    db_path: Path | None,
    no_library: bool,
    **flags: Any,
) -> None:
    """Record a game live at the table into FILE, one command per line.

    A new FILE needs --players, --dealer and --lists (on a terminal, whatever is missing is
    asked for). An existing FILE is checked and recording carries on where it stopped.

    Then type one command per line (or pipe them in); each accepted command is saved before
    the next is read, and a refused one is explained on stderr and changes nothing.

    \b
    open CARD (o)         the player to move opens CARD
    steal PLAYER (s)      the player to move steals PLAYER's gift
    swap PLAYER, keep     the starter's final swap (house rule), or none
    NAME open CARD        the same, checking that it is NAME's turn
    bring PLAYER CARD     a gift brought seen (when the attics were dealt)
    undo [REASON]         take back the latest event still in effect
    note TEXT             a remark for the record
    tie PLAYER [REASON]   after the last party, break a tie
    start over            before the first gift: set up again (FILE kept as a backup)
    status, help, quit    (end of input and Ctrl-C quit too)

    At a terminal, lines can be edited (arrows, Home, End), Up and Down go through what was
    typed for FILE before (kept in .FILE.history beside it), Tab completes commands, names and
    the cards that can be opened or stolen now, and the bottom line shows the table.

    When the game ends it is added to the library (--db, default $WE_DB or
    ~/.local/share/we/games.db), unless --no-library.

    Exit status: 0 when the game ended or you quit, 1 when FILE is damaged or invalid,
    2 for a usage error (such as a flag missing for a new game when not on a terminal).
    """
    house_flags = pop_house_rule_flags(flags)
    new_game_flags = {
        "--players": players,
        "--dealer": dealer,
        "--lists": lists,
        "--title": title,
        "--game-id": game_id,
        "--attics": attics,
    }
    if file.exists():
        if file.is_file() and file.stat().st_size == 0:
            # Nothing was ever recorded in it (a log has at least its first line).
            raise CommandFailed(f"{file} is empty, so it holds no game: delete it, then start the game again")
        # --lists and --attics may finish a set-up that was cut off after game_started.
        given = [
            flag
            for flag, value in new_game_flags.items()
            if value is not None and flag not in ("--lists", "--attics")
        ]
        given += given_flags(house_flags)
        if given:
            raise click.UsageError(
                f"{file} already exists, and {', '.join(given)} only set up a new game;"
                f" to carry on recording it, run `we record {file}` alone"
            )
        session = resume(file, lists=lists, attics=attics)
    else:
        session = set_up(file, players, dealer, lists, title, game_id, house_flags, attics)
    session.library = None if no_library else library_path(db_path)
    session.run()


# --- a new game ----------------------------------------------------------------------------

# "Ann=RGY,Bob=red green blue;Cat=..." : a comma separates entries only before "NAME=".
_ENTRY_SPLIT = re.compile(r"\s*;\s*|\s*,\s*(?=[^,;=]+=)")


def split_entries(text: str, option: str) -> list[tuple[str, str]]:
    """'Ann=RGY,Bob=BGO' -> [('Ann', 'RGY'), ('Bob', 'BGO')]; usage error if malformed."""
    entries = []
    for part in _ENTRY_SPLIT.split(text.strip()):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise click.BadParameter(f"{part!r} is not NAME=VALUE (e.g. Ann=RGY)", param_hint=option)
        entries.append((name.strip(), value.strip()))
    if not entries:
        raise click.BadParameter("give one NAME=VALUE per player", param_hint=option)
    return entries


def parse_players(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def names_clash(names: Sequence[str]) -> str | None:
    """Why a name cannot be recorded at this table: a command word or a card would make
    `Open open R7` or `steal B2` mean two things."""
    for name in names:
        first = name.split()[0]
        if first.lower() in VERBS:
            return f"{name!r} starts with the command word {first.lower()!r}: give that player another name"
        if is_card(first):
            return f"{name!r} starts like the card {parse_card(first)}: give that player another name"
    return None


def _rejected_option(option: str, exc: WeError) -> CommandFailed:
    return CommandFailed(f"{option}: {exc}")


def _by_player(state: GameState, entries: list[tuple[str, str]], option: str) -> dict[str, str]:
    """NAME=VALUE entries keyed by the player each name stands for, each player at most once."""
    out: dict[str, str] = {}
    for name, value in entries:
        try:
            player = resolve_player(state, name)
        except WeError as exc:
            raise _rejected_option(option, exc) from None
        if player in out:
            raise CommandFailed(f"{option}: {player} is given twice")
        out[player] = value
    return out


def _start(names: tuple[str, ...], dealer: str, options: dict[str, Any], title: str | None) -> list[Event]:
    return decide(INITIAL_STATE, StartGame(players=names, dealer=dealer, options=options, title=title))


def set_up(
    file: Path,
    players: str | None,
    dealer: str | None,
    lists: str | None,
    title: str | None,
    game_id: str | None,
    house_flags: dict[str, Any],
    attics: str | None,
) -> Session:
    from eventstore.envelope import make_game_id, valid_game_id

    interactive = is_interactive()
    missing = [
        flag
        for flag, value in (("--players", players), ("--dealer", dealer), ("--lists", lists))
        if value is None
    ]
    if missing and not interactive:
        raise click.UsageError(
            f"{file} is a new game, so it needs {', '.join(missing)}"
            " (on a terminal, `we record` asks for them)"
        )
    if game_id is not None and not valid_game_id(game_id):
        raise click.BadParameter(
            f"{game_id!r} is not a game id: use 1-64 of a-z 0-9 -", param_hint="--game-id"
        )

    def options_for(count: int) -> dict[str, Any]:
        return options_from_flags(house_flags, count)

    def check_players(text: str) -> tuple[str, ...]:
        names = parse_players(text)
        if not names:
            raise click.BadParameter("give the players' names, separated by commas")
        clash = names_clash(names)
        if clash:
            raise click.BadParameter(clash)
        try:
            _start(names, names[0], options_for(len(names)), title)
        except WeError as exc:
            raise click.BadParameter(str(exc)) from None
        return names

    # Players, then the dealer: asked for on a terminal, else taken from the flags.
    if title is None and interactive:
        title = (
            click.prompt("Title of the game (Enter for none)", default="", show_default=False).strip() or None
        )
    if players is None:
        names = click.prompt("Players, in clockwise seat order (e.g. Ann,Bob,Cat)", value_proc=check_players)
    else:
        names = parse_players(players)
        clash = names_clash(names)
        if clash:
            raise CommandFailed(f"--players: {clash}")
        try:
            _start(names, names[0] if names else "", options_for(len(names)), title)
        except WeError as exc:
            raise _rejected_option("--players", exc) from None
    probe = fold(_start(names, names[0], options_for(len(names)), title))

    def check_dealer(text: str) -> str:
        try:
            return resolve_player(probe, text)
        except WeError as exc:
            raise click.BadParameter(str(exc)) from None

    if dealer is None:
        dealer_name = click.prompt("Dealer", value_proc=check_dealer)
    else:
        try:
            dealer_name = resolve_player(probe, dealer)
        except WeError as exc:
            raise _rejected_option("--dealer", exc) from None
    events = _start(names, dealer_name, options_for(len(names)), title)
    state = fold(events)

    more, state = _deal(state, lists, attics)
    events += more

    from eventstore.jsonl import JsonlLog

    gid = game_id or make_game_id(title, datetime.now(UTC))
    written = start_game(file, gid, events)
    log = JsonlLog(file)

    session = Session(file, log, INITIAL_STATE, [], 0, None, interactive, gid, house_flags=house_flags)
    named = f" \u201c{title}\u201d" if title else ""
    session.say(Text(f"Recording game {gid}{named} in {file}.", style="bold"))
    session.absorb(events, written)
    if interactive:
        session.say(
            Text(
                "Type `open CARD` as each gift is opened, `steal PLAYER` for a steal, `help` for more;"
                " Tab completes, Up recalls. Wrong set-up? Before the first gift, `undo` takes back the"
                " lists and `start over` begins again (this file is kept).",
                style="dim",
            )
        )
    return session


def _deal(state: GameState, lists: str | None, attics: str | None) -> tuple[list[Event], GameState]:
    """The set-up's second half after game_started: the gift lists (asked for on a terminal
    when not given) and the attics if given. Returns the events and the state after them."""
    dealt: list[Event] = []
    # The gift lists.
    if lists is None:
        chosen: dict[str, tuple[Any, ...]] = {}
        for name in state.players:

            def check_list(text: str, name: str = name) -> tuple[Any, ...]:
                try:
                    colours = parse_gift_list(text)
                except WeError as exc:
                    raise click.BadParameter(str(exc)) from None
                for other, theirs in chosen.items():
                    if set(theirs) == set(colours):
                        raise click.BadParameter(f"{other} already has that list: every list differs")
                return colours

            chosen[name] = click.prompt(
                f"{name}'s gift list (three colours, e.g. RGY)", value_proc=check_list
            )
        gift_lists = chosen
    else:
        gift_lists = {}
        for player, value in _by_player(state, split_entries(lists, "--lists"), "--lists").items():
            try:
                gift_lists[player] = parse_gift_list(value)
            except WeError as exc:
                raise _rejected_option("--lists", exc) from None
    try:
        more = decide(state, DealLists(lists=gift_lists))
    except WeError as exc:
        raise _rejected_option("--lists", exc) from None
    dealt += more
    state = fold(more, state)

    # The attics, when the hands were recorded.
    if attics is not None:
        hands: dict[str, tuple[str, ...]] = {}
        for player, value in _by_player(state, split_entries(attics, "--attics"), "--attics").items():
            try:
                hands[player] = tuple(parse_card(c) for c in re.split(r"[\s,]+", value) if c)
            except WeError as exc:
                raise _rejected_option("--attics", exc) from None
        try:
            more = decide(state, DealAttics(attics=hands))
        except WeError as exc:
            raise _rejected_option("--attics", exc) from None
        dealt += more
        state = fold(more, state)

    return dealt, state


# --- carrying on -----------------------------------------------------------------------------


def resume(file: Path, greet: bool = True, lists: str | None = None, attics: str | None = None) -> Session:
    from eventstore.jsonl import JsonlLog

    report = check_game(GameSource(label=str(file), path=file), keep_envelopes=True)
    if report.problems and report.problems[0].line == 1 and report.problems[0].kind == "integrity":
        # Not a game log at all (a library, a document): repair could not help either.
        raise CommandFailed(
            f"{file} is not a game log (line 1: {report.problems[0].message[:80]});"
            " give `we record` a .jsonl log, or a new file name to start a game"
        )
    if report.problems:
        raise CommandFailed(damage_sentence(str(file), report.problems))
    state = report.state
    events = [parse_event(e.type, e.data) for e in report.envelopes]
    last_hash = report.envelopes[-1].hash if report.envelopes else None
    session = Session(
        file, JsonlLog(file), state, events, report.events, last_hash, is_interactive(), report.game or ""
    )
    if state.phase is Phase.SETTING_UP:
        # Only game_started: the set-up was cut off (by a recorder older than the one-write
        # set-up). Offer to finish it.
        if lists is None and not session.interactive:
            raise CommandFailed(
                f"{file}: the set-up was cut off before the gift lists were written; finish it"
                f" with `we record {file} --lists NAME=RGY,...` (on a terminal, `we record {file}` asks)"
            )
        session.say(Text(f"{file} holds only the start of a set-up: finishing it.", style="bold"))
        dealt, _ = _deal(state, lists, attics)
        try:
            session.commit(dealt)
        except Rejected as exc:
            raise CommandFailed(str(exc)) from None
        return session
    if lists is not None or attics is not None:
        raise click.UsageError(
            f"{file} already exists and its set-up is complete; --lists and --attics only finish"
            f" a set-up that was cut off: run `we record {file}` alone"
        )
    if greet:
        session.greet()
    return session


# --- the session ---------------------------------------------------------------------------


class Rejected(Exception):
    """A line the recorder refuses; the message is for the table."""


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

    # --- output ---
    def say(self, text: Text | str) -> None:
        # A str is printed as it stands: no rich markup or emoji codes read into names and notes.
        # At a terminal, long lines wrap at words; piped, each stays one line.
        out = console()
        out.print(Text(text) if isinstance(text, str) else text, soft_wrap=not out.is_terminal)

    def complain(self, message: str, text: str) -> None:
        """A refused line, on stderr; on a pipe it names the input line, so a script can be fixed."""
        shown_text = text if len(text) <= 60 else text[:57] + "..."
        where = "" if self.interactive else f" (input line {self.line_no}: {shown_text})"
        line = Text().append("rejected", style="bold red").append(f"{where}: ")
        line.append_text(story_text(message))
        err = error_console()
        err.print(line, soft_wrap=not err.is_terminal)

    @property
    def fingerprint(self) -> str | None:
        from eventstore.canonical import fingerprint

        return fingerprint(self.last_hash)

    def prompt(self) -> str:
        return prompt(turn(self.state))

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
            click.echo()
        except _Finished:
            return
        self.farewell()

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
                click.echo(self.prompt(), nl=False)
            line = stdin.readline()
            if not line:
                if self.interactive:
                    click.echo()
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
            if len(before) == 1 and state.phase is Phase.PLAYING:
                return list(MOVES)  # "Ann open R7": the name first, as a check
            if len(before) == 2 and VERBS.get(before[1].lower()) in MOVES:
                verb, before = VERBS[before[1].lower()], before[1:]
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
        if len(before) == 2 and verb == "bring" and state.attics is not None:
            try:
                player = resolve_player(state, before[1])
            except WeError:
                return []
            return [
                m.card for m in legal_moves(state) if isinstance(m, Bring) and m.player == player and m.card
            ]
        return []

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
                f"{words[0]!r} is not a command{did_you_mean(words[0], COMMAND_WORDS)}:"
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
        if not (self.interactive and _stdout_is_a_terminal()):
            raise Rejected(
                f"start over at a terminal, or move {self.path} away and run `we record` again with"
                " the right --players, --dealer and --lists"
            )
        backup = backup_path(self.path)
        self.path.rename(backup)
        self.say(f"{self.path} is kept as {backup}; setting the game up again.")
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
        if state.undo is not None and isinstance(self.events[state.undo[0] - 1], AtticsDealt):
            # The log allows it, but the recorder could not deal them again: start over instead.
            raise Rejected(
                "the attics are not undone at the table: if the set-up was wrong, `start over`"
                " (the file is kept as a backup)"
            )
        was_over = state.is_over
        plan = plan_undo(state, self.events, reason, lists_too=True)
        seq, undone, brings = plan.seq, plan.undone, plan.brings
        self.commit(plan.voids, narrate=False)
        plural = "s" if brings != 1 else ""
        also = f", with the {brings} unseen bring{plural} recorded for it" if brings else ""
        self.say(story_text(f"Undone: event {seq}, {gist(undone)}{also} ({reason})."))
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
        fresh = resume(self.path, greet=False)
        self.state, self.events, self.head, self.last_hash = (
            fresh.state,
            fresh.events,
            fresh.head,
            fresh.last_hash,
        )

    def absorb(self, events: list[Event], written: list[Any], narrate: bool = True) -> None:
        """Fold events that are now in the log, and tell the table."""
        unseen: list[str] = []
        for event, envelope in zip(events, written, strict=True):
            before, self.state = self.state, evolve(self.state, event)
            self.events.append(event)
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


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """', did you mean `open`?' for a slip of the keyboard, or nothing."""
    close = difflib.get_close_matches(word.lower(), choices, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _is_number(word: str) -> bool:
    return word.isdigit()


def spoken_card(words: list[str]) -> str:
    """A card as people say it: `R7`, `r 7`, `red 7`, `red7`; CardNotationError otherwise."""
    text = "".join(words)
    match = re.fullmatch(r"([A-Za-z]+)(\d+)", text)
    if match is not None and len(match[1]) > 1:
        colour = COLOUR_NAMES.get(match[1].lower())
        if colour is not None:
            text = colour.letter + match[2]
    try:
        return parse_card(text)
    except CardNotationError:
        if len(words) > 1 and is_card("".join(words[:1])):
            raise Rejected(f"one card is opened at a time: {' '.join(words)!r} is more than a card") from None
        raise CardNotationError(f"{' '.join(words)!r} is not a card: write {CARD_FORM_HINT}") from None


def _without_comment(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word.startswith("#"):
            return words[:index]
    return words
