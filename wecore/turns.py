"""Whose turn it is, and every way the table is told so.

`turn` reads it off a state (or `turn_of_view` off a seat's view) once; `worded` picks, for the
phase it stands in, one of the sentences a place has for each phase (exhaustively: a phase
added to `Phase` and not worded fails the type checker); `status_line` (the audit's status) and
`table_heading` (the replay's table) are worded here, and so are the neutral parts of the
recorder's hints: what the player to move can take or swap for. The recorder's own sentences,
which name its commands (`open CARD`), are in `cli.record_grammar`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wecore.kinds import IN_PLAY, MOVE_KINDS, Kind
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


def opening_words(t: Turn) -> str:
    return FIRST_OPEN.format(starter=t.starter, waiting=t.waiting_text)


def bringing_words(t: Turn) -> str:
    return STILL_TO_BRING.format(waiting=t.waiting_text)


def worded(
    t: Turn,
    *,
    playing: str,
    first_open: str,
    bringing: str,
    over: str,
    setting_up: str,
    not_started: str,
    acting: Callable[[Kind], str],
) -> str:
    """The one sentence of a place's wording that fits the turn: while a party is played; while
    gifts go down unseen until the starter opens; while seen gifts are still to be brought;
    once the game is over; while the gift lists are dealt; before the game starts; and in a
    house rule's phase, where one player keeps or swaps, or rolls: `acting` words it from the
    kind awaited (its words, and `decision` for who acts and why), so a phase adds no keyword."""
    phase = t.phase
    kind = _ACTING_IN.get(phase)
    if kind is not None:
        return acting(kind)
    if phase is Phase.PLAYING:
        return playing
    if phase is Phase.BRINGING:
        return bringing if t.brings_recorded else first_open
    if phase is Phase.OVER:
        return over
    if phase is Phase.SETTING_UP:
        return setting_up
    if phase is Phase.NOT_STARTED:
        return not_started
    raise AssertionError(f"no words for the phase {phase}")  # the check at import rules it out


def decision(t: Turn) -> str:
    """Who decides to keep or swap now, and why, in a clause: what a place's `acting` wording
    says; "" in any other phase."""
    return _decision(t)[1]


def decision_title(t: Turn) -> str:
    """The name of the decision awaited now ("Final swap"); "" in any other phase."""
    return _decision(t)[0]


def _decision(t: Turn) -> tuple[str, str]:
    kind = _ACTING_IN.get(t.phase)
    if kind is None:
        return "", ""
    return kind.decision_title, kind.decision.format(party=t.party, starter=t.starter, mover=t.to_move)


# The kind whose move each phase awaits from one player (a keep or swap, a roll), by its phase:
# its title and who acts and why, and how its phase is worded, in its own words.
_ACTING_IN: dict[Phase, Kind] = {kind.phase: kind for kind in MOVE_KINDS if kind.decision and kind.phase}
# The core's own phases, each worded by its keyword of `worded`: every other phase is a kind's.
_CORE_WORDED = (Phase.PLAYING, Phase.BRINGING, Phase.OVER, Phase.SETTING_UP, Phase.NOT_STARTED)
_unworded = [phase.value for phase in Phase if phase not in _CORE_WORDED and phase not in _ACTING_IN]
if _unworded:
    raise ImportError(f"wecore.turns: no kind words the phase {', '.join(_unworded)} (its decision)")


SETTING_UP = "Setting up: the gift lists are not dealt yet."
NO_GAME = "No game yet."


def status_line(t: Turn) -> str:
    """Where the game stands, in one sentence (`we audit`): "Party 3/9: Ann to move."."""
    waiting = f"Party {t.party}/{t.parties}: waiting for gifts from {t.waiting_text}."
    return worded(
        t,
        playing=f"Party {t.party}/{t.parties}: {t.to_move} to move.",
        first_open=f"Party {t.party}/{t.parties}: {opening_words(t)}.",
        bringing=waiting,
        over="The game is over.",
        setting_up=SETTING_UP,
        not_started=NO_GAME,
        acting=lambda kind: f"Party {t.party}/{t.parties}: {decision(t)}.",
    )


def table_heading(t: Turn) -> str:
    """The line above a replay's table: "Party 2 of 3: Cat to move."."""
    party = f"Party {t.party} of {t.parties}: "
    return worded(
        t,
        playing=f"Party {t.party} of {t.parties}: {t.to_move} to move.",
        first_open=party + opening_words(t) + ".",
        bringing=party + bringing_words(t) + ".",
        over="The game is over.",
        setting_up=SETTING_UP,
        not_started=NO_GAME,
        acting=lambda kind: f"Party {t.party} of {t.parties}: {decision(t)}.",
    )


def page_marks(t: Turn) -> dict[str, str | bool]:
    """What the replay page writes beside the table for the turn: its phase line, the line
    naming who is to move and the badge on their seat (empty when nobody is), and whether a
    party is under way (a seat without a gift has "no gift yet")."""
    not_dealt = "The gift lists are not dealt yet"
    phase_text = worded(
        t,
        playing="Playing",
        first_open=f"Party {t.party} starts",
        bringing=f"Bringing gifts: waiting for {t.waiting_text}",
        over="The game is over",
        setting_up=not_dealt,
        not_started=not_dealt,
        acting=lambda kind: f"{decision_title(t)}: {decision(t)}",
    )
    to_move_text = worded(
        t,
        playing=f"To move: {t.to_move}",
        first_open=opening_words(t),
        bringing=bringing_words(t),
        over="",
        setting_up="",
        not_started="",
        acting=lambda kind: f"{kind.acting_label}: {t.to_move}",
    )
    badge = worded(
        t,
        playing="to move",
        first_open="",
        bringing="",
        over="",
        setting_up="",
        not_started="",
        acting=lambda kind: kind.acting_badge,
    )
    return {
        "phase_text": phase_text,
        "to_move_text": to_move_text,
        "turn_badge": badge,
        "under_way": t.phase in IN_PLAY,
    }


def steal_options(state: GameState, refused: str = "") -> str:
    """What the player to move may steal, to follow "can open a gift": " or steal R7 from Ann",
    or why nothing can be stolen (leaving out a reason the refusal, `refused`, already gave)."""
    steals = [m for m in legal_moves(state) if isinstance(m, Steal)]
    if steals:
        return " or steal " + ", ".join(f"{m.card} from {m.from_player}" for m in steals)
    why = _why_nothing_to_steal(state, refused)
    return "; nothing can be stolen now" + (f" ({why})" if why else "")


def swap_options(state: GameState) -> str:
    """What the player deciding may swap for, to follow "can keep their gift": " or swap it for
    R7 (Ann), B2 (Cat)"; nothing when no swap is allowed."""
    swaps = [m for m in legal_moves(state) if isinstance(m, Swap) and m.with_player is not None]
    if not swaps:
        return ""
    return " or swap it for " + ", ".join(f"{m.takes} ({m.with_player})" for m in swaps)


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
