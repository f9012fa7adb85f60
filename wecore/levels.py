"""Every bot a seat can be given, by the name the commands, the API and the lobby use.

The registry sits above the bots it names: the search bot (wecore.search) is built on the
greedy one (wecore.bots), so neither of their modules can hold the list of both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from wecore.bots import Bot, GreedyBot, RandomBot


def _search_bot() -> Bot:
    # The search bot's module is loaded when one is seated, not by every command that names
    # the bots (a simulation of random bots never needs it).
    from wecore.search import SearchBot

    return SearchBot()


BOTS: Mapping[str, Callable[[], Bot]] = {"random": RandomBot, "greedy": GreedyBot, "ismcts": _search_bot}


def rollout_bot(policy: str) -> Bot:
    """The bot `we analyse` plays the rollouts with: the one named, the search bot on a small
    budget (ROLLOUT_ITERATIONS)."""
    if policy != "ismcts":
        return BOTS[policy]()
    from wecore.search import ROLLOUT_ITERATIONS, SearchBot

    return SearchBot(ROLLOUT_ITERATIONS)
