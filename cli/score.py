"""`we score GAME`: the standings of a game, card by card with --explain, or as JSON.

The game is read and folded by service.reading; this only renders, as `we replay` does
(whose tables it shares).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.text import Text

from cli.exits import CommandFailed
from cli.opening import load_game, read_game, require_valid, resolve_game
from cli.params import FILE_NAME, db_option
from cli.render import console, print_table
from cli.replay import explanation, standings
from cli.terminal import echo_json, one_line
from wecore.narrate import parties_played
from wecore.scoring import Scoreboard
from wecore.scoring import score as compute_score
from wecore.state import GameState


def score_json(game: str | None, board: Scoreboard, state: GameState) -> dict[str, Any]:
    return {
        "game": game,
        "complete": board.complete,
        "scores": board.totals,
        "winners": list(board.winners),
        "breakdown": {
            entry.player: {colour.value: card for colour, card in entry.counted.items()}
            for entry in board.players
        },
        "kept": {name: list(cards) for name, cards in state.kept_by.items()},
    }


@click.command()
@click.argument("game", type=FILE_NAME)
@click.option(
    "--explain",
    is_flag=True,
    help="Card by card: the card that counts per list colour, and why the others do not.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON (keys above).")
@click.option(
    "--bgstats-link",
    "bgstats_link",
    is_flag=True,
    help="Print the link that logs this finished game as a play in the BG Stats app.",
)
@click.option("--location", default=None, help="With --bgstats-link: where the game was played.")
@db_option
def score(
    game: str, explain: bool, as_json: bool, bgstats_link: bool, location: str | None, db_path: Path | None
) -> None:
    """Show the standings of GAME.

    --json prints {"game", "complete", "scores", "winners", "breakdown", "kept"}: scores per
    player; breakdown maps each player's list colours to the card that counts (or null);
    kept lists the cards each player kept. "winners" is in seat order, and only the
    tie-break winner when the tie was broken. For a game not over yet ("complete": false)
    "winners" are the players leading so far.

    An invalid game is refused with its first problem (exit status 1).
    """
    if location is not None and not bgstats_link:
        raise click.UsageError("--location goes with --bgstats-link")
    if bgstats_link:
        if as_json or explain:
            raise click.UsageError("--bgstats-link prints the link alone: not with --json or --explain")
        click.echo(_bgstats_link(game, location, db_path))
        return
    report = require_valid(load_game(game, db_path, keep_envelopes=False))
    state = report.state
    board = compute_score(state)
    if as_json:
        echo_json(score_json(report.game, board, state))
        return
    out = console()
    title = f"{report.game}" + (f" \u201c{one_line(state.title)}\u201d" if state.title else "")
    progress = "complete" if state.is_over else f"in progress \u2014 {parties_played(state)}"
    out.print(Text(f"{title}: {progress}", style="bold"))
    print_table(standings(board))
    if explain:
        out.print()
        out.print(explanation(board))
    if report.fingerprint:
        out.print(f"Fingerprint: {report.fingerprint}")


def _bgstats_link(game: str, location: str | None, db_path: Path | None) -> str:
    from service import bgstats

    report = require_valid(read_game(resolve_game(game, db_path), keep_lines=True))
    if not report.complete:
        raise CommandFailed(f"{report.source}: the game is not over yet, so it is not a play to log")
    return bgstats.link(bgstats.play_from_report(report), location)
