"""Rendering for people: cards in their colours on a terminal, plain text otherwise.

rich decides colour: none when NO_COLOR is set or output is not a terminal.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import rich.text
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from cli.terminal import one_line, terminal_safe
from wecore.cards import CARD_COLOUR, PERSON_OF, Colour
from wecore.scoring import PlayerScore, Scoreboard

CARD_STYLES: dict[Colour, str] = {
    Colour.RED: "bold red",
    Colour.ORANGE: "bold dark_orange",
    Colour.YELLOW: "bold yellow",
    Colour.GREEN: "bold green",
    Colour.BLUE: "bold blue",
}


def _plain_requested() -> bool:
    # https://no-color.org: NO_COLOR set and not empty. rich alone would drop only the colours
    # and keep bold, dim and strike-through; the spec asks for plain text.
    return bool(os.environ.get("NO_COLOR"))


# rich drops BEL, BS, VT, FF and CR from every Text it builds (rich.text calls
# rich.control.strip_control_codes), so a name "B\rB\x07" would be shown as "BB": another
# name, with nothing to tell. Every Text is made terminal_safe as it is built instead, so these
# are shown as escapes like any other control, and tables are laid out for the escapes' width.
rich.text.strip_control_codes = terminal_safe  # type: ignore[attr-defined,assignment]  # on purpose


class _Console(Console):
    def __init__(self, **options: Any) -> None:
        # No markup and no emoji codes, ever: a str printed or put in a table is shown as it
        # stands. A player named "[/]" would otherwise end the command with rich's MarkupError
        # (a traceback), and "[red]Ann" or ":smile:" be shown as something else.
        super().__init__(**{"markup": False, "emoji": False, **options})

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # What reaches the terminal is terminal_safe once more after layout, before styles
        # become escape codes (our own colours stay; a log's ESC, CR or U+202E is shown as an
        # escape), for any text that did not come through a Text (see above).
        # Control segments (cursor moves of a progress display) are rich's own and pass.
        return super()._render_buffer(
            segment if segment.control else Segment(terminal_safe(segment.text), segment.style)
            for segment in buffer
        )

    def on_broken_pipe(self) -> None:
        # rich would exit 1 ("invalid game"); `we replay X | head` is no failure of ours, and
        # cli.exits.run knows how to end quietly on a broken pipe.
        raise BrokenPipeError


def console() -> Console:
    """The console for stdout; while `rendered_like_stdout` runs, the one it renders into."""
    return _rendering_into[-1] if _rendering_into else _stdout_console()


@cache
def _stdout_console() -> Console:
    return _Console(highlight=False, soft_wrap=True, **({"color_system": None} if _plain_requested() else {}))


_rendering_into: list[Console] = []

# What another process needs to render as stdout's console would: whether it is a terminal,
# its width and its colours (see stdout_shape).
StdoutShape = tuple[bool, int, "str | None"]


def stdout_shape() -> StdoutShape:
    out = _stdout_console()
    return out.is_terminal, out.width, out.color_system


def rendered_like_stdout(shape: StdoutShape, render: Callable[[], object]) -> str:
    """What `render` would print on a stdout of `shape`, as text (escape codes included): a
    worker of a command renders its part this way, and the command writes it. The console is
    given the terminal's width and colours outright, as nothing here is one."""
    is_terminal, width, colours = shape
    rendered = io.StringIO()
    into = _Console(
        file=rendered,
        force_terminal=is_terminal,
        width=width,
        color_system=colours,
        highlight=False,
        soft_wrap=True,
    )
    _rendering_into.append(into)
    try:
        render()
    finally:
        _rendering_into.pop()
    return rendered.getvalue()


@cache
def error_console() -> Console:
    plain = {"color_system": None} if _plain_requested() else {}
    return _Console(stderr=True, highlight=False, soft_wrap=True, **plain)


def print_table(renderable: RenderableType) -> None:
    """A table on stdout: fitted to a terminal; piped, as wide as its content, never wrapped
    at 80 columns (so each row stays one line for grep and friends)."""
    out = console()
    if out.is_terminal:
        out.print(renderable)
        return
    # Laid out once, as wide as it needs: a table that does not expand is as wide as its
    # content on any console wider than that (measuring it first cost a quarter of its time).
    _Console(highlight=False, soft_wrap=True, width=_AS_WIDE_AS_IT_NEEDS, file=out.file).print(renderable)


_AS_WIDE_AS_IT_NEEDS = 10_000


def card_text(card: str | None) -> Text:
    if card is None:
        return Text("-", style="dim")
    return Text(card, style=CARD_STYLES[CARD_COLOUR[card]])


def cards_text(cards: tuple[str, ...] | list[str], empty: str = "-") -> Text:
    if not cards:
        return Text(empty, style="dim")
    return Text(" ").join(card_text(c) for c in cards)


_CARD_IN_TEXT = re.compile(r"\b[ROYGB](?:10|[1-9])\b")


def story_text(sentence: str, style: str = "") -> Text:
    """A sentence of plain text with every card in it (R7, B10) in its colour. One line: a
    newline in it (a note's, or a title or name a log holds) is shown as `\\n`, so one event
    never looks like several."""
    text = Text(one_line(sentence), style=style)
    for match in _CARD_IN_TEXT.finditer(text.plain):  # where the cards are once escaped
        text.stylize(CARD_STYLES[CARD_COLOUR[match.group(0)]], match.start(), match.end())
    return text


def colour_text(colour: Colour, with_person: bool = False) -> Text:
    label = f"{colour.value} ({PERSON_OF[colour]})" if with_person else colour.value
    return Text(label, style=CARD_STYLES[colour])


def explanation_line(entry: PlayerScore, with_party: bool = False) -> Text:
    """'Ann: red R8 + yellow Y10 + blue - = 18' with colours; with_party adds where each counted
    card was kept: 'red R8 (party 2)'."""
    # A player keeps one gift per party, in party order.
    party_of = {card: number for number, card in enumerate(entry.kept, start=1)}
    text = Text(f"{one_line(entry.player)}: ")
    for index, (colour, card) in enumerate(entry.counted.items()):
        if index:
            text.append(" + ")
        text.append_text(colour_text(colour))
        text.append(" ")
        text.append_text(card_text(card))
        if with_party and card is not None:
            text.append(f" (party {party_of[card]})", style="dim")
    text.append(f" = {entry.total}")
    return text


def standings_table(board: Scoreboard, explain: bool = False, title: str | None = None) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("score", justify="right")
    if explain:
        table.add_column("counted (per list colour)")
        table.add_column("did not count")
    for rank, entry in board.ranks():
        name = Text(one_line(entry.player))
        if entry.player in board.winners and board.complete:
            name.append(" (winner)", style="bold")
        row: list[Text | str] = [str(rank), name, str(entry.total)]
        if explain:
            counted = Text(", ").join(
                Text.assemble(colour_text(colour), " ", card_text(card))
                for colour, card in entry.counted.items()
            )
            unused = Text("; ").join(Text.assemble(card_text(u.card), f" ({u.reason})") for u in entry.unused)
            row += [counted, unused if entry.unused else Text("-", style="dim")]
        table.add_row(*row)
    return table


def ratings_table(table: Iterable[Any], title: str) -> None:
    """service.ratings' Rating rows as a table: the ladder, highest ordinal first."""
    rich_table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (
        ("player", "left"),
        ("games", "right"),
        ("mu", "right"),
        ("sigma", "right"),
        ("ordinal", "right"),
    ):
        rich_table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for rating in table:
        rich_table.add_row(
            one_line(rating.player),
            str(rating.games),
            f"{rating.mu:.2f}",
            f"{rating.sigma:.2f}",
            f"{rating.ordinal:.2f}",
        )
    print_table(rich_table)
