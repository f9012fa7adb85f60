"""White Elephant as an OpenSpiel game. Importing this module registers it with pyspiel:

    import weai.openspiel_game
    game = pyspiel.load_game("python_white_elephant", {"players": 4, "deal_attics": False})

Parameters: `players` (3-7), every house rule by its name in `options` (weai.match's
HOUSE_RULE_PARAMETERS: a flag false, a number 0 when not played), and `deal_attics` (False:
gifts are brought unseen, and chance turns each one's card over when it is opened). Chance deals
the lists and the attics and plays every chance move of the rules, such as a house rule's die
(weai.match says how, and numbers the actions). A player's observation
is exactly their seat's view (wecore.views.view) and their information state the log as their
seat may read it (wecore.views.redact_log), as strings (JSON) and as numbers (weai.encoding).
Returns: each seat's share of the win.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from weai.encoding import tensor_size, view_values
from weai.match import (
    CHANCE,
    HOUSE_RULE_PARAMETERS,
    MAX_CHANCE_OUTCOMES,
    NUM_ACTIONS,
    Match,
    house_rules,
    max_game_length,
)
from wecore.rulesets import MAX_PLAYERS

SHORT_NAME = "python_white_elephant"
DEFAULT_PLAYERS = 4
_PARAMETERS: dict[str, int | bool] = {
    "players": DEFAULT_PLAYERS,
    **HOUSE_RULE_PARAMETERS,
    "deal_attics": True,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="White Elephant (2011), by the we engine",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


class WhiteElephantGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type information
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_PARAMETERS, **(params or {})}
        self.players = int(given["players"])
        self.options = house_rules(self.players, **{name: given[name] for name in HOUSE_RULE_PARAMETERS})
        self.deal_attics = bool(given["deal_attics"])
        Match(self.players, self.options, self.deal_attics)  # refuses bad parameters now, in its words
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=self.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=max_game_length(self.players, self.options, self.deal_attics),
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> WhiteElephantState:
        return WhiteElephantState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if params:
            raise ValueError(f"python_white_elephant's observer takes no parameters, not {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return SeatLogObserver() if perfect_recall else SeatViewObserver(self.players)


class WhiteElephantState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: WhiteElephantGame) -> None:
        super().__init__(game)
        self.match = Match(game.players, game.options, game.deal_attics)

    def current_player(self) -> int:
        seat = self.match.current()
        if seat == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        if seat < 0:
            return int(pyspiel.PlayerId.TERMINAL)
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        return self.match.legal_actions() if player == self.match.current() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.match.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.match.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.match.action_name(player, action)

    def is_terminal(self) -> bool:
        return self.match.is_over()

    def returns(self) -> list[float]:
        return self.match.returns()

    def __str__(self) -> str:
        return "\n".join(json.dumps(payload, sort_keys=True) for payload in self.match.payloads)


class SeatViewObserver:
    """A seat's observation: its view (wecore.views.view), as JSON and as numbers."""

    def __init__(self, players: int) -> None:
        self.tensor = np.zeros(tensor_size(players), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: WhiteElephantState, player: int) -> None:
        seat_view = state.match.seat_view(player)
        self.tensor[:] = view_values(seat_view, state.match.names)

    def string_from(self, state: WhiteElephantState, player: int) -> str:
        return json.dumps(state.match.seat_view(player), sort_keys=True)


class SeatLogObserver:
    """A seat's information state: the log as the seat may read it (wecore.views.redact_log)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: WhiteElephantState, player: int) -> None:
        pass

    def string_from(self, state: WhiteElephantState, player: int) -> str:
        return json.dumps(state.match.seat_log(player), sort_keys=True)


pyspiel.register_game(_GAME_TYPE, WhiteElephantGame)
