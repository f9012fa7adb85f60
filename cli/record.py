"""`we record FILE`: a game recorded live at the table, one command per line.

The recorder parses what people type, asks wecore's `decide` for the events (or the rule
that refuses them), appends them durably, and tells the table what happened. It never
judges a move itself, and its sentences about the game come from wecore (`narrate`, `turns`).

This module is the click command only, so its flags and help are read in one screen. The rest
is split by concern: `cli.record_setup` (a new game from flags or questions, or carrying on),
`cli.record_session` (the loop), `cli.record_grammar` (what people type), and the terminal
layer `cli.line_editor` and `cli.glance`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cli.exits import CommandFailed
from cli.house_rules import given_flags, house_rule_options, pop_house_rule_flags
from cli.outputs import refuse_missing_directory
from cli.params import db_option, library_path
from cli.record_grammar import house_rule_move_lines
from cli.record_session import StartOver
from cli.record_setup import confirm_a_new_game, resume, set_up


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
@click.option(
    "--as",
    "viewer",
    metavar="PLAYER",
    help="Show the game as PLAYER's seat sees it (their own attic and gift, the opened gifts), for a"
    " host who also plays; every move is still recorded. Without it every hidden card is shown.",
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
    viewer: str | None,
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
    @@HOUSE_RULE_MOVES@@
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
        session = resume(file, lists=lists, attics=attics, viewer=viewer)
    else:
        # Before a question is asked or a flag judged: a new log needs a directory to go in.
        refuse_missing_directory(file)
        if all(value is None for value in new_game_flags.values()) and not given_flags(house_flags):
            # Nothing says a new game is meant: the name may be a typo of a game in progress.
            confirm_a_new_game(file)
        session = set_up(file, players, dealer, lists, title, game_id, house_flags, attics, viewer)
    session.library = None if no_library else library_path(db_path)
    while True:
        try:
            session.run()
            return
        except StartOver:
            again = set_up(file, None, None, None, None, None, session.house_flags, None, session.viewer)
            again.library = session.library
            session = again


# The house rules' moves, in the words their kinds declare (a rule added is listed by itself).
assert record.help is not None
record.help = record.help.replace("@@HOUSE_RULE_MOVES@@", house_rule_move_lines(indent=4, column=22))
