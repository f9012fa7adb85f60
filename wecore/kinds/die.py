"""A chance rule, "the Yankee pass": at each party's end its starter rolls a die; on a 6 every
kept gift of the party passes one seat to the left (docs/rules.md, `party_die`)."""

from __future__ import annotations

from wecore.kinds.base import PARTY, PLAYER, Field, Holding, Kind, Phase, Shape

PASSING_FACE = 6  # the face on which every kept gift passes left

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
)


def passed_left(holding: Holding) -> Holding:
    """Each seat's gift after a pass to the left (clockwise): seat i's goes to seat i + 1."""
    return (holding[-1], *holding[:-1])
