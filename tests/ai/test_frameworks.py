"""`we` as an OpenSpiel game and a PettingZoo environment (the `ai` extra): the frameworks' own
conformance tests on our game, observations that are exactly a seat's view, and games played
through either written as logs that `we audit` passes, under every house rule, the die's chance
included. Without the extra these skip, saying so; on CI (CI=true) they fail instead, as the
PostgreSQL tests do: CI never skips."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def _framework(module: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        why = f"the `ai` extra ({package}) is not installed"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI must run the ai extra's tests, but {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)


pyspiel = _framework("pyspiel", "open-spiel")
pettingzoo_test = _framework("pettingzoo.test", "pettingzoo")

import weai.openspiel_game  # noqa: E402  (registers python_white_elephant)
from weai.log import write_log  # noqa: E402
from weai.match import CHANCE, HOUSE_RULE_PARAMETERS, Match, house_rules  # noqa: E402
from weai.pettingzoo_env import env  # noqa: E402
from wecore.moves import chance_outcomes  # noqa: E402
from wecore.rng import SeededRandom  # noqa: E402
from wecore.rulesets import HOUSE_RULES  # noqa: E402
from wecore.views import view  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"players": 3, "starter_final_swap": True, "max_steals_between_opens": 1},
    {"players": 5, "max_steals_per_gift": 2},
    {"players": 3, "deal_attics": False},  # gifts brought unseen: chance turns each one over
    {"players": 4, "party_die": True},  # chance rolls the die at each party's end
    {"players": 4, "keep_or_swap_on_open": True},
    {  # every house rule at once
        "players": 4,
        "attic_sizes": 3,
        "max_steals_per_gift": 2,
        "max_steals_between_opens": 1,
        "starter_final_swap": True,
        "keep_or_swap_on_open": True,
        "party_die": True,
    },
)


def audit(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", "audit", str(path)], capture_output=True, text=True, cwd=ROOT
    )


@pytest.mark.parametrize("params", SETTINGS)
def test_openspiel_random_sim_test_with_serialisation(params: dict[str, Any]) -> None:
    game = pyspiel.load_game(weai.openspiel_game.SHORT_NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _random_openspiel_game(params: dict[str, Any], seed: str) -> Any:
    game = pyspiel.load_game(weai.openspiel_game.SHORT_NAME, params)
    state = game.new_initial_state()
    rng = SeededRandom(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randbelow(len(outcomes))][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return game, state


def test_the_openspiel_observation_is_exactly_the_seats_view() -> None:
    game = pyspiel.load_game(weai.openspiel_game.SHORT_NAME, {"players": 4})
    state = game.new_initial_state()
    rng = SeededRandom("observe")
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randbelow(len(outcomes))][0])
            continue
        match: Match = state.match
        for seat, name in enumerate(match.names):
            shown = json.loads(state.observation_string(seat))
            assert shown == json.loads(json.dumps(view(match.state, name).to_dict()))
            # the information state is the seat's log: others' attics and gifts are null there
            log = json.loads(state.information_state_string(seat))
            for line in log:
                if line["type"] == "attics_dealt":
                    assert all(
                        card is None
                        for other, cards in line["data"]["attics"].items()
                        if other != name
                        for card in cards
                    )
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100


@pytest.mark.parametrize("params", SETTINGS)
def test_a_game_played_through_openspiel_passes_we_audit(params: dict[str, Any], tmp_path: Path) -> None:
    _, state = _random_openspiel_game(params, f"audit/{params}")
    path = write_log(state.match, tmp_path / "spiel.jsonl", "openspiel-game")
    result = audit(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sum(state.returns()) == pytest.approx(1.0)


def test_pettingzoo_api_test() -> None:
    pettingzoo_test.api_test(env(), num_cycles=400)
    pettingzoo_test.api_test(env(players=3, starter_final_swap=True, deal_attics=False), num_cycles=400)
    pettingzoo_test.api_test(env(players=4, party_die=True), num_cycles=400)
    pettingzoo_test.api_test(env(players=4, keep_or_swap_on_open=True), num_cycles=400)


def test_every_house_rule_is_a_parameter_of_both_frameworks() -> None:
    assert set(HOUSE_RULE_PARAMETERS) == {rule.name for rule in HOUSE_RULES}
    spec = pyspiel.load_game(weai.openspiel_game.SHORT_NAME).get_parameters()
    assert set(HOUSE_RULE_PARAMETERS) <= set(spec)
    for rule in HOUSE_RULES:
        value = rule.samples[0]
        parameter = value if not isinstance(value, dict) else value["4"]
        game = pyspiel.load_game(weai.openspiel_game.SHORT_NAME, {"players": 4, rule.name: parameter})
        assert game.options == {rule.name: rule.option_from_flag(parameter, 4)}
        table = env(players=4, **{rule.name: parameter})
        assert table.unwrapped.options == game.options
    with pytest.raises(ValueError, match="no house rule called party_dice"):
        house_rules(4, party_dice=True)


def test_the_die_is_a_chance_node_each_face_one_in_six_and_a_swap_after_an_open_is_recorded_so() -> None:
    match = Match(4, house_rules(4, party_die=True, keep_or_swap_on_open=True))
    rng = SeededRandom("die")
    rolls = 0
    while not match.is_over():
        if match.current() != CHANCE:
            match.apply(rng.choice(match.legal_actions()))
            continue
        outcomes = match.chance_outcomes()
        if chance_outcomes(match.state):
            rolls += 1
            assert outcomes == [(face, 1 / 6) for face in range(6)]
            assert match.legal_actions() == []
        match.apply(outcomes[rng.randbelow(len(outcomes))][0])
    kinds = [kind for kind, _ in match.payloads]
    assert rolls == kinds.count("die_rolled") == match.attic_size
    swaps = kinds.count("swap_after_open")
    assert swaps == kinds.count("gift_opened") and "final_swap" not in kinds


def test_pettingzoo_seed_test() -> None:
    pettingzoo_test.seed_test(lambda: env(players=4, max_steals_between_opens=1), num_cycles=400)


def test_the_pettingzoo_env_masks_illegal_actions_and_refuses_them(tmp_path: Path) -> None:
    table = env(players=4)
    table.reset(seed=11)
    rng = SeededRandom("pz")
    refused = 0
    for agent in table.agent_iter():
        observation, _, termination, truncation, info = table.last()
        if termination or truncation:
            table.step(None)
            continue
        mask = observation["action_mask"]
        legal = [int(a) for a in mask.nonzero()[0]]
        assert legal == table.unwrapped.match.legal_actions()
        assert info["view"]["viewer"] == agent
        illegal = next(a for a in range(len(mask)) if not mask[a])
        with pytest.raises(ValueError, match="cannot play action"):
            table.unwrapped.step(illegal)
        refused += 1
        table.step(rng.choice(legal))
    match = table.unwrapped.match
    assert match.is_over() and refused > 20
    result = audit(write_log(match, tmp_path / "pz.jsonl", "pettingzoo-game"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_chance_of_a_gift_brought_unseen_is_any_card_not_yet_met() -> None:
    match = Match(3, deal_attics=False)
    rng = SeededRandom("unseen")
    chance_opens = 0
    while not match.is_over():
        if match.current() == CHANCE:
            outcomes = match.chance_outcomes()
            if match.opening is not None:
                chance_opens += 1
                assert len(outcomes) == 50 - len(match.state.seen)
            match.apply(outcomes[rng.randbelow(len(outcomes))][0])
        else:
            match.apply(rng.choice(match.legal_actions()))
    assert chance_opens == 3 * match.attic_size
