"""The table's undo (service.play.plan_undo) over a log written by the real writers: the unseen
brings written with an open go with it, a bring a player made in an append of its own stays,
however close in time the two appends came (`at` has microseconds)."""

from __future__ import annotations

from pathlib import Path

from freezegun import freeze_time

from eventstore.jsonl import JsonlLog
from service.play import commit, decide_move, plan_undo, set_up_events, start_game
from wecore.events import event_payload, parse_event
from wecore.moves import Bring, Open
from wecore.reducer import fold

LISTS = {
    "Ann": ["red", "green", "yellow"],
    "Ben": ["blue", "green", "orange"],
    "Cat": ["red", "blue", "orange"],
}


def _read(path: Path) -> tuple[list, list[str]]:
    envelopes = list(JsonlLog(path).read())
    return [parse_event(e.type, e.data) for e in envelopes], [e.at for e in envelopes]


def test_a_bring_in_the_same_second_as_the_open_is_not_undone_with_it(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with freeze_time("2026-11-26 20:14:03.100000") as clock:
        start_game(path, "g", set_up_events(["Ann", "Ben", "Cat"], "Cat", LISTS))
        log = JsonlLog(path)
        events, _ = _read(path)
        # Ben brings his gift from his phone: an append of its own ...
        clock.move_to("2026-11-26 20:14:03.400000")
        ben = decide_move(fold(events), Bring(player="Ben", card=None))
        commit(log, ben, expect=len(events))
        events, _ = _read(path)
        # ... and in the same second the recorder writes Ann's open, with the unseen brings of
        # Ann and Cat (nobody typed those) in the same append.
        clock.move_to("2026-11-26 20:14:03.900000")
        opened = decide_move(fold(events), Open(card="R7", player="Ann"))
        assert [type(e).__name__ for e in opened] == ["GiftBrought", "GiftBrought", "GiftOpened"]
        commit(log, opened, expect=len(events))

    events, written_at = _read(path)
    plan = plan_undo(fold(events), events, written_at)
    # The open, then the two brings written with it; Ben's bring (event 3) stays.
    assert [v.voids for v in plan.voids] == [6, 5, 4]
    assert plan.seq == 6 and plan.brings == 2
    assert written_at[2] == "2026-11-26T20:14:03.400000Z"  # Ben's bring
    assert set(written_at[3:]) == {"2026-11-26T20:14:03.900000Z"}  # the open's one append


def test_whole_second_at_of_an_old_log_keeps_the_old_rule(tmp_path: Path) -> None:
    """A log written before `at` had microseconds cannot tell a bring in the open's second from
    one written with it: it goes with the open (docs/decisions.md, "Undo and unseen brings")."""
    path = tmp_path / "old.jsonl"
    with freeze_time("2026-11-26 20:14:03"):
        start_game(path, "old", set_up_events(["Ann", "Ben", "Cat"], "Cat", LISTS))
        log = JsonlLog(path)
        events, _ = _read(path)
        old = "2026-11-26T20:14:03Z"
        ben = decide_move(fold(events), Bring(player="Ben", card=None))
        log.append([event_payload(e) for e in ben], expected_seq=2, at=old)
        events, _ = _read(path)
        opened = decide_move(fold(events), Open(card="R7", player="Ann"))
        log.append([event_payload(e) for e in opened], expected_seq=3, at=old)
    events, written_at = _read(path)
    plan = plan_undo(fold(events), events, written_at)
    assert [v.voids for v in plan.voids] == [6, 5, 4, 3]
