"""Plays games of the search bot against three greedy bots with the `wecore` of one source tree.

Not imported by the benchmark: `compare.py` runs this file's source as `python -c SOURCE REQUEST`
with its working directory and PYTHONPATH set to the tree under test (this checkout, or an
older commit's), so the very same game loop plays with either tree's code, and prints one line
of JSON. It asks of `wecore` only what every tree since the ladder has offered:
`wecore.bots.play_payloads`, `GreedyBot`, `wecore.search.SearchBot(iterations=)`,
`wecore.dealing.deal_payloads` and `wecore.conformance.check_events`; an older tree whose API
differs is adapted here, never edited.

REQUEST is JSON: {"first": F, "last": L, "iterations": N}: games F to L (exclusive) of the
ladder's first match-up, each dealt from the seed "ladder/ismcts-v-greedy/GAME" with the search
bot at seat GAME % 4, as `ladder.play_chunk` seats it. For each game the answer holds the seat's
win credit (a k-way tie counts 1/k), whether the audit's checker refused a move, the CPU and
wall time of each searched move (more than one choice), and SHA-256 digests of: the deal events
of the game as played, the game as played, and an all-greedy game from the same seed (the game
loop and the field, byte for byte).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from typing import Any

SEED = "ladder/ismcts-v-greedy/{game}"
PLAYERS = 4


def _digest(payloads: Any) -> str:
    text = json.dumps(payloads, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


class _Timed:
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name
        self.cpu: list[float] = []
        self.wall: list[float] = []

    def choose(self, state: Any, moves: Any, rng: Any) -> Any:
        started, cpu_started = time.perf_counter(), time.process_time()
        move = self.bot.choose(state, moves, rng)
        if len(moves) > 1:
            self.wall.append(time.perf_counter() - started)
            self.cpu.append(time.process_time() - cpu_started)
        return move


def play(first: int, last: int, iterations: int) -> dict[str, Any]:
    import wecore
    from wecore.bots import GreedyBot, play_payloads
    from wecore.conformance import check_events
    from wecore.dealing import DEFAULT_NAMES, deal_payloads
    from wecore.search import DEFAULT_ITERATIONS, SearchBot

    names = tuple(DEFAULT_NAMES[:PLAYERS])
    games = []
    for game in range(first, last):
        seed = SEED.format(game=game)
        seat = game % PLAYERS
        dealt = len(list(deal_payloads(seed, names)))
        timed = _Timed(SearchBot(iterations=iterations))
        bots: list[Any] = [GreedyBot() for _ in range(PLAYERS)]
        bots[seat] = timed
        payloads, state = play_payloads(seed, PLAYERS, bots)
        checked = check_events((n, kind, data) for n, (kind, data) in enumerate(payloads, start=1))
        winners = state.winners or ()
        field, _ = play_payloads(seed, PLAYERS, [GreedyBot() for _ in range(PLAYERS)])
        games.append(
            {
                "game": game,
                "seat": seat,
                "win": 1 / len(winners) if state.players[seat] in winners else 0.0,
                "problem": checked.problem is not None or not state.is_over,
                "deal": _digest(payloads[:dealt]),
                "played": _digest(payloads),
                "field": _digest(field),
                "cpu": timed.cpu,
                "wall": timed.wall,
            }
        )
    return {"wecore": wecore.__file__, "default_iterations": DEFAULT_ITERATIONS, "games": games}


if __name__ == "__main__":
    request = json.loads(sys.argv[1])
    print(json.dumps(play(request["first"], request["last"], request["iterations"])))
