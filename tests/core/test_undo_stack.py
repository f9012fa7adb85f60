"""The undo stack as the state exposes it: which events are still in effect."""

from wecore.bots import play_game
from wecore.events import EventVoided, Note
from wecore.reducer import fold


def test_seqs_in_effect_leave_out_game_started_notes_voids_and_voided_events() -> None:
    events, _ = play_game(11, 3)
    head = events[:6]  # game_started, lists, attics, three brings
    log = [
        *head,
        Note(text="tea"),
        EventVoided(voids=6, reason="wrong card"),
        EventVoided(voids=5, reason="x"),
    ]
    state = fold(log)
    # Seq 1 is game_started (never undoable), 7 a note, 8 and 9 voids taking back 6 and then 5.
    assert state.seqs_in_effect() == [2, 3, 4]
    assert state.latest_in_effect == 4


def test_every_event_but_game_started_is_in_effect_in_a_plain_game() -> None:
    events, final = play_game(3, 4)
    assert final.seqs_in_effect() == list(range(2, len(events) + 1))
