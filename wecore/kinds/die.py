"""A chance rule, "the Yankee pass": at each party's end its starter rolls a die; on a 6 every
kept gift of the party passes one seat to the left (docs/rules.md, `party_die`).

The whole rule is here: the kind, its refusal, its effect on the state, its story and its
phase's words. (The core's modules are imported when a roll is made or told, not at import:
they import this package.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wecore.kinds.base import PARTY, PLAYER, Field, Holding, Kind, Phase, Shape
from wecore.names import not_a_player

if TYPE_CHECKING:
    from wecore.events import DieRolled
    from wecore.state import GameState

PASSING_FACE = 6  # the face on which every kept gift passes left


def passed_left(holding: Holding) -> Holding:
    """Each seat's gift after a pass to the left (clockwise): seat i's goes to seat i + 1."""
    return (holding[-1], *holding[:-1])


def refusal(state: GameState, player: str, value: int) -> str | None:
    """Why `player` may not roll `value` now: the die's house rule is not played, the party is
    not over yet (or the game is), `player` is not the party's starter, or no face is `value`."""
    from wecore.rules import not_now, not_played

    ruleset = state.ruleset
    if ruleset is not None and not ruleset.party_die:
        return not_played(KIND)
    if player not in state.seat_of:
        return not_a_player(player, state.players)
    if state.phase is not KIND.phase:
        if state.phase in (Phase.PLAYING, Phase.BRINGING):
            return (
                f"party {state.party} is not over: its starter rolls the die once its last gift is open"
                " (and any swap after it is made)"
            )
        return not_now(state, "roll the die")
    starter = state.starter_name
    if player != starter:
        return f"only party {state.party}'s starter, {starter}, may roll the die now, not {player}"
    if value not in KIND.outcomes:
        return f"a die has faces {KIND.outcomes[0]} to {KIND.outcomes[-1]}, not {value}"
    return None


def roll_die(state: GameState, party: int, player: str, value: int) -> GameState:
    """`die_rolled` from its fields: the party's starter rolls `value`; on the passing face every
    gift of the party passes one seat left; then the party ends."""
    from wecore.errors import RuleViolation
    from wecore.reducer import after_closing_step, check_party

    refused = refusal(state, player, value)
    if refused is not None:
        raise RuleViolation(refused)
    check_party(state, party)
    holding = passed_left(state.holding) if value == PASSING_FACE else state.holding
    return after_closing_step(state, KIND, holding)


def telling(
    event: DieRolled, before: GameState, after: GameState, viewer: str | None, omniscient: bool
) -> str:
    ending = "the game is over" if after.phase is Phase.OVER else f"party {before.party} ends"
    kept_now = tuple(cards[-1] if cards else None for cards in after.kept)
    if after.phase is Phase.ROLLING or kept_now == before.holding:
        return f"{event.player} rolls a {event.value}: nothing passes; {ending}."
    passed = ", ".join(f"{name} now keeps {cards[-1]}" for name, cards in after.kept_by.items())
    return (
        f"{event.player} rolls a {event.value}: every gift kept in party {before.party}"
        f" passes one seat left ({passed}); {ending}."
    )


def gist(event: DieRolled, viewer: str | None, omniscient: bool) -> str:
    return f"{event.player}'s roll of {event.value}"


KIND = Kind(
    "die_rolled",
    (PARTY, PLAYER, Field("value", "value", Shape.INT)),
    move="roll",
    phase=Phase.ROLLING,
    option="party_die",
    style="roll",
    named="die",
    awaited="party {party} is waiting for its starter {starter} to roll the die",
    called="the pass on a 6 after party {party}",
    closes_party=True,
    typed="roll N",
    typed_help="the starter rolls the die at a party's end: N is the face (party_die)",
    outcomes=(1, 2, 3, 4, 5, 6),
    passes_gifts=lambda holding, value: passed_left(holding) if value == PASSING_FACE else holding,
    decision_title="Roll of the die",
    decision=(
        "party {party} is over; {starter}, who started it, rolls the die"
        " (on a 6 every gift kept passes one seat left)"
    ),
    next_step="{starter}, who started party {party}, rolls the die (on a 6 every gift passes left)",
    acting_label="To roll the die",
    acting_badge="rolls",
    typed_choice="`roll N` (the face rolled)",
    typed_hint="rolls the die: `roll N` (the face rolled)",
    typed_prompt="rolls (roll N)",
    effect=roll_die,
    telling=telling,
    gist=gist,
    chance_refusal=refusal,
    drawn_label="Roll the die",
    recorded_label="Record a roll of {outcome}",
    drawn_by_server=(
        "a seat rolls without a value: the server draws the face (only the host's key records one)"
    ),
)
