"""One reading of whose turn it is (wecore.turns), worded for each place that tells it."""

from __future__ import annotations

from wecore.bots import play_game
from wecore.moves import Open, legal_moves
from wecore.reducer import evolve
from wecore.state import INITIAL_STATE, Phase
from wecore.turns import moves_hint, next_up, prompt, status_line, table_heading, turn, turn_of_view
from wecore.views import view

from .games import game_one_winner


def states_of_bot_games():
    for seed in range(6):
        events, _ = play_game(seed, 3 + seed % 3)
        state = INITIAL_STATE
        for event in events:
            state = evolve(state, event)
            yield state


def test_every_sentence_names_the_player_legal_moves_belong_to() -> None:
    seen_phases = set()
    for state in states_of_bot_games():
        t = turn(state)
        seen_phases.add(t.phase)
        assert turn_of_view(view(state)) == t  # a seat's view reads the same turn
        if t.phase is Phase.PLAYING:
            movers = {m.player for m in legal_moves(state) if isinstance(m, Open)}
            assert movers == {t.to_move}
            for sentence in (status_line(t), table_heading(t), next_up(t), prompt(t), moves_hint(state)):
                assert str(t.to_move) in sentence
        elif t.phase is Phase.BRINGING:
            waiting = {m.player for m in legal_moves(state)}
            assert waiting == set(t.waiting)
            assert t.waiting_text in status_line(t) and t.waiting_text in table_heading(t)
    assert {Phase.BRINGING, Phase.PLAYING, Phase.OVER} <= seen_phases


def test_the_wording_of_each_place() -> None:
    table = game_one_winner()
    t = turn(table.state)
    assert t.phase is Phase.OVER
    assert (status_line(t), table_heading(t), next_up(t), prompt(t)) == (
        "The game is over.",
        "The game is over.",
        "The game is over.",
        "game over> ",
    )
