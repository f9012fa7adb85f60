"""The bots a served table seats are `we simulate`'s, but for the search bot's time limit
(docs/decisions.md, "A served search bot stops searching after 0.4 s")."""

from __future__ import annotations

import time

from service.bots import SEARCH_SECONDS, served_bot
from wecore.levels import BOTS
from wecore.search import DEFAULT_ITERATIONS, SearchBot, TimeLimit


def test_a_served_search_bot_has_its_playouts_and_a_wall_clock_limit() -> None:
    bot = served_bot("ismcts")
    assert isinstance(bot, SearchBot)
    assert bot.iterations == DEFAULT_ITERATIONS
    assert bot.time_limit == TimeLimit(time.monotonic, SEARCH_SECONDS)
    assert SEARCH_SECONDS < 2  # the spec's time for a bot's move


def test_the_other_served_bots_are_simulates_and_simulate_has_no_limit() -> None:
    for name, make in BOTS.items():
        simulated = make()
        assert getattr(simulated, "time_limit", None) is None
        if name != "ismcts":
            assert type(served_bot(name)) is type(simulated)
