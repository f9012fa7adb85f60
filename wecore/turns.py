"""Whose turn it is, and every way the table is told so.

`turn` reads it off a state (or `turn_of_view` off a seat's view) once; each sentence below
words that one reading for its place: the audit's status, the replay's table, the recorder's
"Ann to move.", its hint after a refused move, and its prompt. A new phase or a new kind of
turn is added to `Turn` and worded here, so no command can tell the table something else.

The recorder's sentences name its commands (`open CARD`): they are the table language of
`we record`, kept here so that everything showing a live game says the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from wecore.moves import Steal, Swap, legal_moves
from wecore.rules import gift_refusal, no_steal_reason
from wecore.state import GameState, Phase
from wecore.views import SeatView


@dataclass(frozen=True, slots=True)
class Turn:
    phase: Phase
    party: int
    parties: int
    to_move: str | None  # while a party is played: who opens or steals next
    starter: str | None  # who opens the party's first gift
    waiting: tuple[str, ...]  # while bringing: who has not brought a gift yet
    # While bringing: the attics were dealt, so every bring is typed; otherwise gifts not
    # recorded go down unseen with the party's first open.
    brings_recorded: bool

    @property
    def waiting_text(self) -> str:
        return ", ".join(self.waiting)


def turn(state: GameState) -> Turn:
    return Turn(
        state.phase,
        state.party,
        state.attic_size,
        state.player_to_move,
        state.starter_name,
        state.waiting_to_bring if state.phase is Phase.BRINGING else (),
        state.attics is not None,
    )


def turn_of_view(sv: SeatView) -> Turn:
    """The turn as a seat's view shows it (what a replay has at hand)."""
    return Turn(
        Phase(sv.phase),
        sv.party,
        sv.parties,
        sv.to_move,
        sv.starter,
        tuple(sv.waiting_to_bring),
        sv.attics is not None,
    )


# How the start of a party reads on every face (the recorder's next line, the TV, the phones):
# while the party's gifts that were not brought go down unseen at its first open, and while
# the dealt attics' gifts are still to be brought (each bring is a move then).
FIRST_OPEN = "{starter} opens first; the gifts not brought yet go down unseen ({waiting})"
STILL_TO_BRING = "Gifts still to bring: {waiting}"


def _first_open(t: Turn) -> str:
    return FIRST_OPEN.format(starter=t.starter, waiting=t.waiting_text)


# The recorder allows the gift lists to be undone before the first gift is brought: until they
# are given again the game is setting up, and the table is told how to give them.
LISTS_AGAIN = "Give the gift lists again: `lists Ann=RGY,Bob=BGO,...` (one NAME=COLOURS per player)."


def _worded(
    t: Turn, playing: str, first_open: str, bringing: str, over: str, otherwise: str, swapping: str
) -> str:
    """The one sentence of a place's wording that fits the turn: while a party is played; while
    gifts go down unseen until the starter opens; while seen gifts are still to be brought;
    once the game is over; before it is under way; and (starter_final_swap) while a party's
    starter may swap."""
    if t.phase is Phase.PLAYING:
        return playing
    if t.phase is Phase.FINAL_SWAP:
        return swapping
    if t.phase is Phase.BRINGING:
        return bringing if t.brings_recorded else first_open
    return over if t.phase is Phase.OVER else otherwise


def _not_under_way(t: Turn) -> str:
    return "Setting up: the gift lists are not dealt yet." if t.phase is Phase.SETTING_UP else "No game yet."


def status_line(t: Turn) -> str:
    """Where the game stands, in one sentence (`we audit`): "Party 3/9: Ann to move."."""
    waiting = f"Party {t.party}/{t.parties}: waiting for gifts from {t.waiting_text}."
    return _worded(
        t,
        playing=f"Party {t.party}/{t.parties}: {t.to_move} to move.",
        first_open=f"Party {t.party}/{t.parties}: {_first_open(t)}.",
        bringing=waiting,
        over="The game is over.",
        otherwise=_not_under_way(t),
        swapping=f"Party {t.party}/{t.parties}: every gift is open; {t.starter}, who started, may swap.",
    )


def table_heading(t: Turn) -> str:
    """The line above a replay's table: "Party 2 of 3: Cat to move."."""
    party = f"Party {t.party} of {t.parties}: "
    return _worded(
        t,
        playing=f"Party {t.party} of {t.parties}: {t.to_move} to move.",
        first_open=party + _first_open(t) + ".",
        bringing=party + STILL_TO_BRING.format(waiting=t.waiting_text) + ".",
        over="The game is over.",
        otherwise=_not_under_way(t),
        swapping=(
            f"Party {t.party} of {t.parties}: every gift is open; {t.starter}, who started,"
            " may swap gifts with anyone, or keep."
        ),
    )


def next_up(t: Turn) -> str:
    """What the recorder tells the table after a move or an undo: "Cat to move."."""
    return _worded(
        t,
        playing=f"{t.to_move} to move.",
        first_open=_first_open(t) + ".",
        bringing=STILL_TO_BRING.format(waiting=t.waiting_text) + " (`bring PLAYER CARD`).",
        over="The game is over.",
        otherwise=LISTS_AGAIN if t.phase is Phase.SETTING_UP else "",
        swapping=f"{t.starter} started this party and may swap: `swap PLAYER`, or `keep`.",
    )


def moves_hint(state: GameState, refused: str = "") -> str:
    """What can be done instead, after a refused move, in table language (leaving out a reason
    the refusal, `refused`, already gave)."""
    t = turn(state)
    can = ""
    if t.phase is Phase.PLAYING:
        steals = [m for m in legal_moves(state) if isinstance(m, Steal)]
        can = "open a gift (`open CARD`)"
        if steals:
            can += " or steal " + ", ".join(f"{m.card} from {m.from_player}" for m in steals)
        else:
            why = _why_nothing_to_steal(state, refused)
            can += "; nothing can be stolen now" + (f" ({why})" if why else "")
    elif t.phase is Phase.FINAL_SWAP:
        swaps = [m for m in legal_moves(state) if isinstance(m, Swap) and m.with_player is not None]
        can = "keep their gift (`keep`)"
        if swaps:
            can += " or swap it for " + ", ".join(f"{m.takes} ({m.with_player})" for m in swaps)
    return _worded(
        t,
        playing=f"{t.to_move} can {can}.",
        first_open=f"{t.starter} opens first: `open CARD`.",
        bringing=f"Still to bring: {t.waiting_text} (`bring PLAYER CARD`).",
        over="The game is over: `tie`, `undo`, `note`, `status` and `quit` still work.",
        otherwise=LISTS_AGAIN if t.phase is Phase.SETTING_UP else "",
        swapping=f"{t.starter} can {can}.",
    )


def _why_nothing_to_steal(state: GameState, refused: str) -> str:
    """The rule's reasons (`rules.gift_refusal`), gift by gift, or once when one reason stops
    every steal; without what the refusal already said."""
    reasons = {card: gift_refusal(state, card, holder) or "" for holder, card in state.holdings.items()}
    distinct = set(reasons.values())
    if len(distinct) == 1 and no_steal_reason(state) is not None:
        # One reason for the whole table (not a gift's own lock or freeze): said once. A gift's
        # own reason names the gift, whether one gift is held or several.
        reason = distinct.pop()
        return "" if reason in refused else reason
    return "; ".join(f"{card}: {reason}" for card, reason in reasons.items() if reason not in refused)


def prompt(t: Turn) -> str:
    """The recorder's prompt: "party 2 · Cat> "."""
    return _worded(
        t,
        playing=f"party {t.party} \u00b7 {t.to_move}> ",
        first_open=f"party {t.party} \u00b7 {t.starter}> ",
        bringing=f"party {t.party} \u00b7 bring ({t.waiting_text})> ",
        over="game over> ",
        otherwise="gift lists> " if t.phase is Phase.SETTING_UP else "game over> ",
        swapping=f"party {t.party} \u00b7 {t.starter} may swap (swap NAME / keep)> ",
    )
