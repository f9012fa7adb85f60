"""The start of a sitting of `we record`: a new game set up from flags or, on a terminal, from
questions (written in one append), or an existing log checked and carried on, finishing a set-up
that was cut off.

Apart from the session loop because it runs once, before any line is read, and is where the
flags of a new game are judged; the session returns here only for `start over` and to catch up.
"""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from cli.exits import CommandFailed
from cli.house_rules import options_from_flags
from cli.opening import read_game
from cli.record_grammar import names_clash, parse_players, split_entries
from cli.record_session import Session
from cli.terminal import echo, shown_path, terminal_safe
from eventstore.errors import NotALogError, SeasonLedgerError
from eventstore.libraries import is_sqlite_file as _is_library
from service.play import Refused, StartGame, decide_and_apply, start_game, title_refusal
from service.reading import GameSource, damage_sentence
from service.table import DealAttics, DealLists, Table, TableCommand, resolve_player
from wecore.cards import parse_card, parse_gift_list
from wecore.errors import WeError, shown
from wecore.events import AnyEvent
from wecore.names import players_refusal
from wecore.state import INITIAL_STATE, GameState, Phase


def is_interactive() -> bool:
    """A person at a terminal (prompts, questions) rather than a script on a pipe."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _rejected_option(option: str, exc: WeError | Refused | str) -> click.UsageError:
    """A flag's value that cannot start the game is a usage error (exit 2), as a missing flag is."""
    return click.UsageError(f"{option}: {exc}")


def _by_player(state: GameState, entries: list[tuple[str, str]], option: str) -> dict[str, str]:
    """NAME=VALUE entries keyed by the player each name stands for, each player at most once."""
    out: dict[str, str] = {}
    for name, value in entries:
        try:
            player = resolve_player(state, name)
        except WeError as exc:
            raise _rejected_option(option, exc) from None
        if player in out:
            raise _rejected_option(option, f"{player} is given twice")
        out[player] = value
    return out


def _start(
    names: tuple[str, ...], dealer: str, options: dict[str, Any], title: str | None
) -> tuple[list[AnyEvent], GameState]:
    """game_started for these flags, and the game after it; Refused with the rule."""
    return decide_and_apply(
        INITIAL_STATE, StartGame(players=names, dealer=dealer, options=options, title=title)
    )


def confirm_a_new_game(file: Path) -> None:
    """At a terminal, say that FILE is not there and ask before a new game is set up in it: a
    typo of tonight's log must not quietly start a second game beside it. Elsewhere set_up says
    so in its usage error."""
    if not is_interactive():
        return
    name = shown_path(str(file))
    echo(f"no such file: {name}; starting a new game")
    logs = sorted(shown_path(p.name) for p in file.parent.glob("*.jsonl"))
    if logs:
        echo(f"(the logs beside it: {', '.join(logs[:5])}{', ...' if len(logs) > 5 else ''})")
    if not click.confirm(f"Start a new game in {name}?", default=False):
        raise CommandFailed(f"no such file: {name}; nothing was created")


def set_up(
    file: Path,
    players: str | None,
    dealer: str | None,
    lists: str | None,
    title: str | None,
    game_id: str | None,
    house_flags: dict[str, Any],
    attics: str | None,
    viewer: str | None = None,
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
            f"no such file: {file}; starting a new game needs {', '.join(missing)}"
            " (on a terminal, `we record` asks for them)"
        )
    if game_id is not None and not valid_game_id(game_id):
        raise click.BadParameter(
            f"{shown(game_id)} is not a game id: use 1-64 of a-z 0-9 -", param_hint="--game-id"
        )

    def options_for(count: int) -> dict[str, Any]:
        return options_from_flags(house_flags, count)

    def check_players(text: str) -> tuple[str, ...]:
        names = parse_players(text)
        if not names:
            raise click.BadParameter("give the players' names, separated by commas")
        clash = names_clash(names) or players_refusal(names)
        if clash:
            raise click.BadParameter(terminal_safe(clash))
        try:
            _start(names, names[0], options_for(len(names)), title)
        except Refused as exc:
            raise click.BadParameter(terminal_safe(str(exc))) from None
        return names

    # Players, then the dealer: asked for on a terminal, else taken from the flags.
    if title is None and interactive:
        title = (
            click.prompt("Title of the game (Enter for none)", default="", show_default=False).strip() or None
        )
    if (refusal := title_refusal(title)) is not None:
        raise _rejected_option("--title", refusal)
    if players is None:
        names = click.prompt("Players, in clockwise seat order (e.g. Ann,Bob,Cat)", value_proc=check_players)
    else:
        names = parse_players(players)
        clash = names_clash(names)
        if clash:
            raise _rejected_option("--players", clash)
        try:
            _start(names, names[0] if names else "", options_for(len(names)), title)
        except Refused as exc:
            raise _rejected_option("--players", exc) from None
        # After the rules (the same name twice is theirs): names a person cannot read as they
        # are, or tell apart.
        if (unreadable := players_refusal(names)) is not None:
            raise click.UsageError(f"--players: {terminal_safe(unreadable)}")
    _, probe = _start(names, names[0], options_for(len(names)), title)

    def check_dealer(text: str) -> str:
        try:
            return resolve_player(probe, text)
        except WeError as exc:
            raise click.BadParameter(terminal_safe(str(exc))) from None

    if dealer is None:
        dealer_name = click.prompt("Dealer", value_proc=check_dealer)
    else:
        try:
            dealer_name = resolve_player(probe, dealer)
        except WeError as exc:
            raise _rejected_option("--dealer", exc) from None
    events, state = _start(names, dealer_name, options_for(len(names)), title)

    seat = _seat_of(state, viewer)  # before anything is written
    _, more, state = _deal(state, lists, attics)
    events += more

    gid = game_id or make_game_id(title, datetime.now(UTC))
    start_game(file, gid, events)

    session = Session(file, Table.of_file(file, lists_again=True), interactive, gid, house_flags=house_flags)
    session.viewer = seat
    named = f" \u201c{title}\u201d" if title else ""
    session.say(Text(f"Recording game {gid}{named} in {file}.", style="bold"))
    session.narrate(session.table.since(0))
    session.told = session.head
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


def _deal(
    state: GameState, lists: str | None, attics: str | None
) -> tuple[list[TableCommand], list[AnyEvent], GameState]:
    """The set-up's second half after game_started: the gift lists (asked for on a terminal
    when not given) and the attics if given. Returns the commands, their events and the state
    after them."""
    dealt: list[AnyEvent] = []
    commands: list[TableCommand] = []
    # The gift lists.
    if lists is None:
        chosen: dict[str, tuple[Any, ...]] = {}
        for name in state.players:

            def check_list(text: str, name: str = name) -> tuple[Any, ...]:
                try:
                    colours = parse_gift_list(text)
                except WeError as exc:
                    raise click.BadParameter(terminal_safe(str(exc))) from None
                for other, theirs in chosen.items():
                    if set(theirs) == set(colours):
                        raise click.BadParameter(
                            terminal_safe(f"{other} already has that list: every list differs")
                        )
                return colours

            # click.prompt writes its prompt and its complaints as they are: a log's names (a
            # set-up cut off after game_started) are made terminal_safe first.
            chosen[name] = click.prompt(
                terminal_safe(f"{name}'s gift list (three colours, e.g. RGY)"), value_proc=check_list
            )
        gift_lists = chosen
    else:
        gift_lists = {}
        for player, value in _by_player(state, split_entries(lists, "--lists"), "--lists").items():
            try:
                gift_lists[player] = parse_gift_list(value)
            except WeError as exc:
                raise _rejected_option("--lists", exc) from None
    commands.append(DealLists(lists=gift_lists))
    try:
        more, state = decide_and_apply(state, commands[-1])
    except Refused as exc:
        raise _rejected_option("--lists", exc) from None
    dealt += more

    # The attics, when the hands were recorded.
    if attics is not None:
        hands: dict[str, tuple[str, ...]] = {}
        for player, value in _by_player(state, split_entries(attics, "--attics"), "--attics").items():
            try:
                hands[player] = tuple(parse_card(c) for c in re.split(r"[\s,]+", value) if c)
            except WeError as exc:
                raise _rejected_option("--attics", exc) from None
        commands.append(DealAttics(attics=hands))
        try:
            more, state = decide_and_apply(state, commands[-1])
        except Refused as exc:
            raise _rejected_option("--attics", exc) from None
        dealt += more

    return commands, dealt, state


# --- carrying on -----------------------------------------------------------------------------


def _seat_of(state: GameState, name: str | None) -> str | None:
    """The player `--as` names, as the log spells them; a usage error for anyone else."""
    if name is None:
        return None
    try:
        return resolve_player(state, name)
    except WeError as exc:
        raise click.BadParameter(terminal_safe(str(exc)), param_hint="--as") from None


def resume(
    file: Path,
    greet: bool = True,
    lists: str | None = None,
    attics: str | None = None,
    viewer: str | None = None,
) -> Session:
    try:
        report = read_game(GameSource(label=str(file), path=file))
    except SeasonLedgerError:
        raise
    except NotALogError as exc:
        what = str(exc).removeprefix(f"{file}: not a game log (").removesuffix(")")
        raise CommandFailed(
            f"{file} is not a game log ({what}); give `we record` a .jsonl log,"
            " or a new file name to start a game"
        ) from None
    if report.problems and report.problems[0].line == 1 and report.problems[0].kind == "integrity":
        # Not a game log at all (a library, a document): repair could not help either.
        # What line 1 is, without the advice meant for a log (`we repair` does not help here).
        what = report.problems[0].message.split(";")[0].removeprefix("not a game log (")
        what = what.removesuffix(")") if what != report.problems[0].message.split(";")[0] else what
        what = what if len(what) <= 80 else what[:77] + "..."
        if _is_library(file):
            what = "it is a SQLite database"
        raise CommandFailed(
            f"{file} is not a game log (line 1: {what}); give `we record` a .jsonl log,"
            " or a new file name to start a game"
        )
    if report.problems:
        raise CommandFailed(damage_sentence(str(file), report.problems))
    state = report.state
    session = Session(file, Table.of_file(file, lists_again=True), is_interactive(), report.game or "")
    session.viewer = _seat_of(state, viewer)
    session.told = session.head
    if state.phase is Phase.SETTING_UP:
        # Only game_started: the set-up was cut off (by a recorder older than the one-write
        # set-up). Offer to finish it.
        if lists is None and not session.interactive:
            raise CommandFailed(
                f"{file}: the set-up was cut off before the gift lists were written; finish it"
                f" with `we record {file} --lists NAME=RGY,...` (on a terminal, `we record {file}` asks)"
            )
        session.say(Text(f"{file} holds only the start of a set-up: finishing it.", style="bold"))
        commands, _, _ = _deal(state, lists, attics)
        try:
            for command in commands:
                session.make(command)
        except Refused as exc:
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
