"""`we replay GAME`: the story, event by event (`we score GAME` is cli.score); and how a table,
its standings and their explanation look at a terminal, shared with `we score` and `we record`.

Both read the game through service.reading and only render: every step from wecore's
`replay.steps`, every sentence from `narrate.describe`, every table from `views.view`, every
score from `scoring.score`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cli.exits import CommandFailed
from cli.opening import read_game, resolve_game
from cli.outputs import put_in_place, refuse_unsafe_output, temporary_beside
from cli.params import FILE_NAME, db_option
from cli.render import (
    card_text,
    cards_text,
    colour_text,
    console,
    error_console,
    explanation_line,
    print_table,
    standings_table,
    story_text,
)
from cli.terminal import echo_json, one_line, shown
from service.reading import fold_what_can_be
from service.table import resolve_player
from wecore.cards import Colour
from wecore.errors import WeError
from wecore.events import (
    AnyEvent,
    EventVoided,
)
from wecore.kinds import IN_PLAY
from wecore.narrate import describe, party_heading, taken_back, winners_line
from wecore.replay import Step, steps, voided_by
from wecore.scoring import Scoreboard
from wecore.scoring import score as compute_score
from wecore.state import GameState, Phase
from wecore.turns import table_heading, turn_of_view
from wecore.views import SeatView, view

# --- shared with `we record` -------------------------------------------------------------


def party_header(state: GameState, party: int) -> Text:
    """'── Party 2 of 3 · Cat starts ──', from a state in that party."""
    return Text(f"\u2500\u2500 {one_line(party_heading(state, party))} \u2500\u2500", style="bold")


def view_table(sv: SeatView, title: str | None = None) -> RenderableType:
    """The table as one seat (or everyone) sees it: lists, held, kept, scores, face-down gifts."""
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("player")
    table.add_column("list")
    table.add_column("holds")
    table.add_column("kept")
    table.add_column("score", justify="right")
    attics = sv.attics
    if attics is not None:
        table.add_column("attic")
    for name in sv.players:
        label = Text(one_line(name))
        if name == sv.to_move:
            label.append(" \u2190 to move", style="bold")
        if name == sv.viewer:
            label.append(" (you)", style="dim")
        colours = sv.gift_lists.get(name, [])
        gift_list = Text(" ").join(colour_text(Colour(c)) for c in colours) if colours else Text("-")
        held = sv.holding.get(name)
        holds = card_text(held)
        if held is not None and held in sv.locked:
            holds.append(" locked", style="italic")
        if held is not None and held in sv.frozen:
            holds.append(" frozen", style="italic")
        row: list[RenderableType] = [
            label,
            gift_list,
            holds,
            cards_text(sv.kept.get(name, [])),
            str(sv.scores.get(name, 0)),
        ]
        if attics is not None:
            cards = attics.get(name)
            row.append(cards_text(cards) if isinstance(cards, list) else Text(f"{cards} cards", style="dim"))
        table.add_row(*row)
    lines: list[RenderableType] = [Text(one_line(table_heading(turn_of_view(sv)))), table]
    face_down = len(sv.face_down_known) + sv.face_down_hidden
    if face_down:
        down = Text(f"Face down: {face_down} gift{'s' if face_down > 1 else ''}")
        if sv.face_down_known:
            down.append(" \u2014 known: ")
            down.append_text(cards_text(sv.face_down_known))
            if sv.face_down_hidden:
                down.append(f", and {sv.face_down_hidden} unseen")
        lines.append(down)
    if Phase(sv.phase) in IN_PLAY:
        locked = Text("Locked: ").append_text(cards_text(sv.locked, empty="none"))
        if sv.frozen:
            locked.append("   Frozen: ").append_text(cards_text(sv.frozen))
        lines.append(locked)
    return Group(*lines)


def standings(board: Scoreboard, explain: bool = False) -> RenderableType:
    title = "Final standings" if board.complete else "Standings so far"
    return Group(standings_table(board, explain=explain, title=title), Text(one_line(winners_line(board))))


def explanation(board: Scoreboard) -> RenderableType:
    """Card by card: the card that counts per list colour, and the kept cards that do not."""
    lines: list[RenderableType] = [
        Text(
            "Card by card (the highest card of each list colour counts; the party it was kept in):",
            style="bold",
        )
    ]
    for entry in board.players:
        lines.append(Text("  ").append_text(explanation_line(entry, with_party=True)))
        if entry.unused:
            text = ", ".join(f"{' '.join(cards)} ({why})" for why, cards in entry.unused_by_reason().items())
            lines.append(Text("      not counted: ").append_text(story_text(text)))
    return Group(*lines)


def fingerprint_of(envelope: Any) -> str | None:
    """The fingerprint of the log as it stands after `envelope`."""
    from eventstore.canonical import fingerprint

    return fingerprint(envelope.hash)


# --- reading a game ----------------------------------------------------------------------


def story_line(step: Step, sentence: str, voided: int | None) -> Text:
    line = Text(f"{step.seq:>4}  ")
    if voided is not None:
        line.append_text(story_text(sentence, style="strike dim"))
        line.append(f"  [voided by event {voided}]", style="bold")
    else:
        line.append_text(story_text(sentence))
    return line


# --- we replay ---------------------------------------------------------------------------


@click.command()
@click.argument("game", type=FILE_NAME)
@click.option(
    "--at",
    "at_seq",
    type=click.IntRange(min=1),
    metavar="SEQ",
    help="Stop after event SEQ and show the table at that point.",
)
@click.option(
    "--party",
    "party",
    type=click.IntRange(min=1),
    metavar="N",
    help="Only party N's events, with the table at its end.",
)
@click.option(
    "--as",
    "viewer",
    metavar="PLAYER",
    help="Only what PLAYER's seat could know (any case, a unique prefix is enough).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the table at that point as JSON (the view of wecore.views) instead of the story.",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="OUT.html",
    help="Write the replay as one self-contained web page (never over an existing file without --force).",
)
@click.option("--force", is_flag=True, help="With --html: replace OUT.html if it exists.")
@click.option(
    "--analyse",
    "analyse",
    is_flag=True,
    help="With --html: mark the pivotal moves on the timeline and show each decision's alternatives"
    " (as `we analyse` at its defaults; that command tunes rollouts, policy and seed).",
)
@db_option
def replay(
    game: str,
    at_seq: int | None,
    party: int | None,
    viewer: str | None,
    as_json: bool,
    html_out: Path | None,
    force: bool,
    analyse: bool,
    db_path: Path | None,
) -> None:
    """Tell the story of GAME in plain language, event by event, ending with the standings.

    Voided events are shown struck through and marked [voided]. A damaged log is told up to
    its first problem, which is then named (exit status 1).
    """
    if analyse and html_out is None:
        raise click.UsageError("--analyse goes with --html OUT.html")
    if analyse and viewer is not None:
        # The rollouts see every card in the log; a seat's page must not.
        raise click.UsageError("--analyse shows what every card was worth: not with --as")
    replace = False
    source = resolve_game(game, db_path)
    if html_out is not None:
        # The page must never land on a saved game (or anything else) by a slip of the keyboard,
        # and never on the game it is made from, --force or not.
        replace = refuse_unsafe_output(
            html_out,
            force,
            inputs=[source.path, source.db_path],
            exists=f"{html_out} already exists: choose another name, or add --force to replace it",
        )
    folded = fold_what_can_be(read_game(source, keep_envelopes=True))
    events, envelopes = folded.events, folded.envelopes
    if not events:
        raise CommandFailed(folded.stopped or f"{game}: the log has no events")
    total = len(events)
    if at_seq is not None and at_seq > total:
        if folded.stopped:
            raise CommandFailed(
                f"--at {at_seq}: the log can only be read up to event {total}: {folded.stopped}"
            )
        raise CommandFailed(f"--at {at_seq}: {game} has only {total} events")
    limit = at_seq if at_seq is not None else total
    shown_events = events[:limit]
    all_steps = list(steps(shown_events))
    final = all_steps[-1].after
    seat = None
    if viewer is not None:
        try:
            seat = resolve_player(final, viewer)
        except WeError as exc:
            raise CommandFailed(f"--as: {exc}") from None
    omniscient = seat is None
    chosen = all_steps
    if party is not None:
        chosen = [s for s in all_steps if s.party == party]
        if not chosen:
            played = max((s.party for s in all_steps), default=0)
            where = f" up to event {limit}" if at_seq is not None else ""
            raise CommandFailed(
                f"--party {party}: no events of party {party} in {game}{where}"
                f" (the game has {final.attic_size} parties; the log reaches party {played})"
            )
    end_state = chosen[-1].after
    end_seq = chosen[-1].seq

    if html_out is not None:
        cut = None
        label = "Fingerprint of the log"
        if folded.stopped and limit == total:
            label = f"Fingerprint at event {limit}, the last that can be read"
            cut = shown(f"This page ends at event {limit}: the log is damaged after it. {folded.stopped}")
        elif limit < total:
            label = f"Fingerprint at event {limit}"
            cut = f"This page shows events 1 to {limit} of the log (--at {limit})."
        _write_html(html_out, envelopes[:limit], seat, replace, analyse, label, cut)
    if as_json:
        data = view(end_state, seat, omniscient=omniscient).to_dict()
        data.update(game=folded.report.game, seq=end_seq, fingerprint=fingerprint_of(envelopes[end_seq - 1]))
        echo_json(data)
    elif html_out is None:
        damaged = folded.stopped is not None and at_seq is None
        _tell(chosen, shown_events, seat, omniscient, party, at_seq, end_state, envelopes, damaged)
    if folded.stopped:
        raise CommandFailed(f"replay stopped after event {total}: {folded.stopped}")


def _tell(
    chosen: list[Step],
    events: list[AnyEvent],
    seat: str | None,
    omniscient: bool,
    party: int | None,
    at_seq: int | None,
    end_state: GameState,
    envelopes: list[Any],
    damaged: bool = False,
) -> None:
    out = console()
    voids = voided_by(events)
    header_party = 0
    if seat is not None:
        out.print(Text(f"As seen from {seat}'s seat.", style="italic"))
    for step in chosen:
        if step.party and step.party != header_party:
            header_party = step.party
            out.print(party_header(step.after if step.after.party == step.party else step.before, step.party))
        if isinstance(step.event, EventVoided):
            voided = events[step.event.voids - 1]
            sentence = taken_back(step.event, voided, step.after, seat, omniscient)
        else:
            sentence = describe(step.event, step.before, step.after, viewer=seat, omniscient=omniscient)
        out.print(story_line(step, sentence, voids.get(step.seq)))
    out.print()
    sv = view(end_state, seat, omniscient=omniscient)
    if party is not None:
        print_table(view_table(sv, title=f"The table after party {party} (event {chosen[-1].seq})"))
    elif damaged:
        last = chosen[-1].seq
        print_table(view_table(sv, title=f"The table after event {last}, the last that can be read"))
        return
    elif at_seq is not None and not end_state.is_over:
        print_table(view_table(sv, title=f"The table after event {at_seq}"))
    else:
        print_table(standings(compute_score(end_state)))
    fp = fingerprint_of(envelopes[chosen[-1].seq - 1])
    if fp and party is None:
        label = "Fingerprint" if at_seq is None else f"Fingerprint at event {at_seq}"
        out.print(f"{label}: {fp}")


def _write_html(
    out_path: Path,
    envelopes: list[Any],
    seat: str | None,
    replace: bool,
    analyse: bool = False,
    fingerprint_label: str = "Fingerprint of the log",
    cut: str | None = None,
) -> None:
    try:
        from service.replay_page import render_html
    except ImportError:
        raise CommandFailed("--html is not available in this build (the replay page is missing)") from None
    dicts = [e.to_dict() for e in envelopes]
    analysis = None
    if analyse:
        from cli.analyse import DEFAULT_JOBS, analyse_with_progress
        from service.analysis import DEFAULT_TOP, Settings, page_analysis

        settings = Settings()  # `we analyse` at its defaults
        analysis = page_analysis(analyse_with_progress(dicts, settings, DEFAULT_JOBS), settings, DEFAULT_TOP)
    page = render_html(
        dicts,
        viewer=seat,
        fingerprint=fingerprint_of(envelopes[-1]) if envelopes else None,
        analysis=analysis,
        fingerprint_label=fingerprint_label,
        cut=cut,
    )
    # Written beside the target (under a name of its own) and renamed, so a failure never
    # leaves half a page behind.
    partial = temporary_beside(out_path)
    try:
        partial.write_text(page, encoding="utf-8")
        put_in_place(partial, out_path, replace)
    finally:
        partial.unlink(missing_ok=True)
    error_console().print(f"Wrote {out_path}")
