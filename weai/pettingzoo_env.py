"""White Elephant as a PettingZoo AEC environment, with action masks:

    from weai.pettingzoo_env import env
    table = env(players=4, deal_attics=False)
    table.reset(seed=7)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, info = table.last()
        mask = observation["action_mask"]
        ...

Agents are the seats' names (Ann, Ben, ...). Actions are weai.match's numbers; an action not in
the mask is refused (ValueError). The observation is the agent's seat view
(wecore.views.view) as numbers (weai.encoding); `infos[agent]["view"]` is the view itself.
House rules are keyword arguments by their names (weai.match's HOUSE_RULE_PARAMETERS). Chance
(the deal, a gift brought unseen turning over, a house rule's die) is drawn from the seed given
to `reset`.
The reward, at the end, is each seat's share of the win.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from weai.encoding import tensor_size, view_values
from weai.match import CHANCE, NUM_ACTIONS, Match, house_rules
from wecore.rng import SeededRandom


class WhiteElephantEnv(AECEnv):  # type: ignore[misc]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "white_elephant_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        deal_attics: bool = True,
        render_mode: str | None = None,
        **house_rule_parameters: int | bool,
    ) -> None:
        super().__init__()
        self.options = house_rules(players, **house_rule_parameters)
        self.deal_attics = deal_attics
        self.render_mode = render_mode
        self.match = Match(players, self.options, deal_attics)
        self.possible_agents = list(self.match.names)
        self.agents = self.possible_agents[:]
        size = tensor_size(players)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=(size,), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self._chance = SeededRandom(0)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            entropy = np.random.SeedSequence().entropy
            assert isinstance(entropy, int)  # drawn from the system when none is given
            seed = entropy % 2**63
        self._chance = SeededRandom(f"white-elephant/{seed}")
        for space in (*self.observation_spaces.values(), *self.action_spaces.values()):
            space.seed(seed)
        self.match = Match(len(self.possible_agents), self.options, self.deal_attics)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._play_chance()
        self.agent_selection = self.possible_agents[self.match.current()]
        self._describe()

    def _play_chance(self) -> None:
        while self.match.current() == CHANCE:
            outcomes = self.match.chance_outcomes()
            self.match.apply(outcomes[self._chance.randbelow(len(outcomes))][0])

    def _describe(self) -> None:
        for seat, agent in enumerate(self.possible_agents):
            if agent in self.infos:
                self.infos[agent] = {"view": self.match.seat_view(seat)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        observation = np.array(view_values(self.match.seat_view(seat), self.possible_agents), np.float32)
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if self.match.current() == seat:
            mask[self.match.legal_actions()] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or int(action) not in self.match.legal_actions():
            raise ValueError(f"{agent} cannot play action {action} now (see the action mask)")
        self._cumulative_rewards[agent] = 0.0
        self.match.apply(int(action))
        self._play_chance()
        if self.match.is_over():
            self.rewards = dict(zip(self.possible_agents, self.match.returns(), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[0]
        else:
            self.agent_selection = self.possible_agents[self.match.current()]
        self._describe()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{kind} {data}" for kind, data in self.match.payloads)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (order enforced, bounds checked)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(WhiteElephantEnv(**kwargs)))


raw_env = WhiteElephantEnv
