"""The table at a glance, for the recorder's bottom toolbar: what can be opened or stolen now,
what is locked or frozen, and the scores so far. Every answer comes from wecore (legal moves,
turn sentences, scoreboard); nothing is judged here. (What Tab offers is in cli.record_grammar.)"""

from __future__ import annotations

from cli.record_grammar import next_up
from wecore.cards import sort_key
from wecore.moves import Steal, legal_moves
from wecore.rules import brought_with_first_open
from wecore.state import GameState, Phase
from wecore.turns import status_line, turn
from wecore.views import face_down_known, face_down_places


def table_at_a_glance(state: GameState, viewer: str | None = None) -> str:
    """The toolbar: party and whose turn, what can be opened or stolen, what is locked or
    frozen, and the scores so far; as `viewer`'s seat sees it (None: every card)."""
    first = status_line(turn(state))
    if state.phase in (Phase.PLAYING, Phase.BRINGING):
        first = f"Party {state.party}/{state.attic_size}: {next_up(turn(state))}"
    opening_brings = bool(brought_with_first_open(state))
    if state.phase is Phase.PLAYING or opening_brings:
        moves = legal_moves(state) if state.phase is Phase.PLAYING else []
        down: list[str] = list(state.face_down)
        if viewer is not None:
            # Gifts the seat has not seen go by their place, as `open gift N` takes them.
            known = face_down_known(state, viewer)
            down = [
                card if card in known else f"gift {place}"
                for place, card in enumerate(face_down_places(state, viewer), start=1)
                if card is not None
            ]
        unseen = state.unseen_face_down or opening_brings
        can_open = " ".join(down) + (" or " if down and unseen else "") + ("an unseen gift" if unseen else "")
        steals = [f"{m.card} ({m.from_player})" for m in moves if isinstance(m, Steal)]
        first += f"  Open: {can_open or 'nothing'}  Steal: {', '.join(steals) or 'nothing'}"
    second = []
    if state.phase is Phase.PLAYING:
        held_by = {card: name for name, card in state.holdings.items()}
        for label, cards in (("Locked", state.locked), ("Frozen", state.frozen)):
            if cards:
                second.append(
                    f"{label}: "
                    + ", ".join(f"{c} ({held_by.get(c, '?')})" for c in sorted(cards, key=sort_key))
                )
    if state.lists is not None:
        totals = state.scoreboard.totals
        second.append("Scores: " + ", ".join(f"{name} {totals.get(name, 0)}" for name in state.players))
    return first + ("\n" + "  ".join(second) if second else "")
