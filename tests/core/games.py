"""Small complete games written out by hand, with their outcome worked out by hand.

Seats are (a, b, c) = ("Ann", "Ben", "Cat") unless other names are given; gift lists are
a: red yellow green (RYG), b: red orange blue (ROB), c: orange yellow blue (OYB).
"""

from __future__ import annotations

from collections.abc import Sequence

from .helpers import THREE, Table


def _lists(names: Sequence[str]) -> dict[str, list[str]]:
    a, b, c = names
    return {a: ["red", "yellow", "green"], b: ["red", "orange", "blue"], c: ["orange", "yellow", "blue"]}


def _table(names: Sequence[str], dealer: str, sizes: int, attics: dict | None, options=None) -> Table:
    table = Table()
    table.start(tuple(names), dealer, {"attic_sizes": {"3": sizes}, **(options or {})})
    table.lists(_lists(names))
    if attics is not None:
        table.attics(attics)
    return table


def game_one_winner(names: Sequence[str] = THREE) -> Table:
    """Three parties, attics dealt, dealer c (starters a, b, c).

    Party 1: a opens Y9; b steals Y9; a opens R7; c steals R7; a steals Y9 back from b
    (the open unlocked it); b must open O4.            -> a Y9, b O4, c R7   (6 moves)
    Party 2: b opens R2; c opens B3; a opens G5.       -> a G5, b R2, c B3   (3 moves)
    Party 3: c opens R6; a opens Y2; b steals R6; c steals Y2; a must open O8.
                                                       -> a O8, b R6, c Y2   (5 moves)
    Scores: a (RYG) Y9 + G5 = 14, O8 unused; b (ROB) R6 + O4 = 10, R2 unused (R6 is higher);
    c (OYB) Y2 + B3 = 5, R7 unused. a wins alone.
    """
    a, b, c = names
    t = _table(names, c, 3, {a: ["R7", "B3", "Y2"], b: ["Y9", "G5", "R6"], c: ["O4", "R2", "O8"]})
    t.bring_all({a: "R7", b: "Y9", c: "O4"})
    t.open(a, "Y9")
    t.steal(b, a, "Y9")
    t.open(a, "R7")
    t.steal(c, a, "R7")
    t.steal(a, b, "Y9")
    t.open(b, "O4")
    t.bring_all({c: "R2", a: "B3", b: "G5"})
    t.open(b, "R2")
    t.open(c, "B3")
    t.open(a, "G5")
    t.bring_all({b: "R6", a: "Y2", c: "O8"})
    t.open(c, "R6")
    t.open(a, "Y2")
    t.steal(b, c, "R6")
    t.steal(c, a, "Y2")
    t.open(a, "O8")
    return t


def game_two_way_tie(names: Sequence[str] = THREE) -> Table:
    """Two parties, attics dealt, dealer a (starters b, c).

    Party 1: b opens G8; c opens Y8; a steals G8 from b; b opens R2.  -> a G8, b R2, c Y8
    Party 2: c opens O6; a steals O6; c opens B1; b steals O6 from a; a opens Y1.
                                                                      -> a Y1, b O6, c B1
    Scores: a (RYG) Y1 + G8 = 9; b (ROB) R2 + O6 = 8; c (OYB) Y8 + B1 = 9. a and c tie.
    """
    a, b, c = names
    t = _table(names, a, 2, {a: ["G8", "Y1"], b: ["R2", "O6"], c: ["Y8", "B1"]})
    t.bring_all({a: "G8", b: "R2", c: "Y8"})
    t.open(b, "G8")
    t.open(c, "Y8")
    t.steal(a, b, "G8")
    t.open(b, "R2")
    t.bring_all({a: "Y1", b: "O6", c: "B1"})
    t.open(c, "O6")
    t.steal(a, c, "O6")
    t.open(c, "B1")
    t.steal(b, a, "O6")
    t.open(a, "Y1")
    return t


def game_three_way_tie(names: Sequence[str] = THREE) -> Table:
    """One party, attics dealt, dealer c (starter a).

    a opens B5; b steals B5; a opens Y5; c steals B5 from b; b opens R5.
    -> a Y5 (yellow on RYG: 5), b R5 (red on ROB: 5), c B5 (blue on OYB: 5): all tie at 5.
    """
    a, b, c = names
    t = _table(names, c, 1, {a: ["R5"], b: ["Y5"], c: ["B5"]})
    t.bring_all({a: "R5", b: "Y5", c: "B5"})
    t.open(a, "B5")
    t.steal(b, a, "B5")
    t.open(a, "Y5")
    t.steal(c, b, "B5")
    t.open(b, "R5")
    return t


def game_unseen(names: Sequence[str] = THREE) -> Table:
    """Two parties, no attics (every gift brought unseen), dealer b (starters c, a).

    Party 1: c opens B10; a steals B10; c opens G7; b steals B10 from a; a steals G7 from c;
    c opens R3.                                         -> a G7, b B10, c R3
    Party 2: a opens Y6; b opens O9; c steals Y6; a steals O9 from b; b opens R8.
                                                        -> a O9, b R8, c Y6
    Scores: a (RYG) G7 = 7, O9 unused; b (ROB) R8 + B10 = 18; c (OYB) Y6 = 6, R3 unused.
    """
    a, b, c = names
    t = _table(names, b, 2, None)
    t.bring_all({a: None, b: None, c: None})
    t.open(c, "B10")
    t.steal(a, c, "B10")
    t.open(c, "G7")
    t.steal(b, a, "B10")
    t.steal(a, c, "G7")
    t.open(c, "R3")
    t.bring_all({b: None, c: None, a: None})
    t.open(a, "Y6")
    t.open(b, "O9")
    t.steal(c, a, "Y6")
    t.steal(a, b, "O9")
    t.open(b, "R8")
    return t
