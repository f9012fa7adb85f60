"""One reading of whose turn it is (wecore.turns), worded for each place that tells it (the
recorder's sentences are cli.record_grammar's)."""

from __future__ import annotations

from cli.record_grammar import moves_hint, next_up, prompt
from wecore.bots import play_game
from wecore.moves import Open, Swap, legal_moves
from wecore.reducer import evolve
from wecore.rulesets import HOUSE_RULES, Shape
from wecore.state import INITIAL_STATE, Phase
from wecore.turns import status_line, table_heading, turn, turn_of_view
from wecore.views import view

from .games import game_one_winner


def states_of_bot_games():
    # Every yes/no house rule of the registry on, in every other game: a rule that adds a phase
    # is played here the day it is declared.
    flags = {rule.name: True for rule in HOUSE_RULES if rule.shape is Shape.FLAG}
    for seed in range(6):
        rules = {**flags, "max_steals_between_opens": 1} if seed % 2 else None
        events, _ = play_game(seed, 3 + seed % 3, options=rules)
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
        elif t.phase is Phase.FINAL_SWAP:
            assert {m.player for m in legal_moves(state) if isinstance(m, Swap)} == {t.starter}
            for sentence in (status_line(t), table_heading(t), next_up(t), prompt(t), moves_hint(state)):
                assert str(t.starter) in sentence and "swap" in sentence
    # Every phase a game passes through once under way is worded (a new phase must be too).
    assert set(Phase) - {Phase.NOT_STARTED, Phase.SETTING_UP} <= seen_phases


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
