"""Complete bot games from a seed, as `we simulate` plays them.

Reproducible to the byte: game i of seed S is `wecore.bots.play_payloads(f"{S}-{i}", ...)`, and its
`at` timestamps are not the clock but SIM_EPOCH + (i - 1) hours + seq seconds. The same command
therefore writes the same files on every machine, on any day.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventstore.envelope import Envelope, seal_chain
from wecore.bots import play_payloads
from wecore.dealing import DEFAULT_NAMES
from wecore.errors import RulesetError
from wecore.levels import BOTS
from wecore.rulesets import make_ruleset
from wecore.state import GameState
from wecore.stats import GameRecord, Tally, record_of

# Simulated games happen on Christmas Eve 2011, the year the game came out; game i starts
# i - 1 hours later, and its event with seq n is stamped n seconds after that start.
SIM_EPOCH = int(datetime(2011, 12, 24, 18, 0, 0, tzinfo=UTC).timestamp())


def seed_slug(seed: str) -> str:
    """The seed as it can stand in a game id: lower case, runs of anything else become '-'."""
    return re.sub(r"[^a-z0-9]+", "-", seed.lower()).strip("-")


def sim_game_id(seed: str, index: int) -> str:
    return f"sim-{seed_slug(seed)}-{index}"


def game_seed(seed: str, index: int) -> str:
    return f"{seed}-{index}"


def _at(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


# "MM:SSZ" for every second of an hour, made once.
_MINUTES_SECONDS = [f"{seq // 60:02d}:{seq % 60:02d}Z" for seq in range(3600)]


def _ats(start: int, count: int) -> list[str]:
    """`_at` of start + 1 ... start + count. A game starts on the hour, so within its first hour
    only the minutes and seconds change: formatted without a strftime per event."""
    hour = _at(start)[:14]  # "YYYY-MM-DDTHH:"
    first_hour = [hour + tail for tail in _MINUTES_SECONDS[1 : min(count, 3599) + 1]]
    return first_hour + [_at(start + seq) for seq in range(len(first_hour) + 1, count + 1)]


def sealed_game(game_id: str, index: int, payloads: Sequence[tuple[str, dict[str, Any]]]) -> list[Envelope]:
    """The envelopes of a simulated game, with their deterministic timestamps."""
    start = SIM_EPOCH + (index - 1) * 3600
    ats = _ats(start, len(payloads))
    return seal_chain(game_id, ((at, kind, data) for at, (kind, data) in zip(ats, payloads, strict=True)))


BOT_NAMES = tuple(sorted(BOTS))


def house_rules_refusal(options: Mapping[str, Any], players: int) -> str | None:
    """Why these house rules cannot be played by this many players, or None."""
    try:
        make_ruleset(options=options, player_count=players)
    except RulesetError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class SimulatedGame:
    index: int  # 1 to the number of games
    game_id: str
    envelopes: list[Envelope]
    state: GameState  # the game over

    @property
    def record(self) -> GameRecord:
        """The game as the statistics count it (`we simulate`'s summary and --report)."""
        return record_of(self.state, self.game_id)


def simulate_games(
    seed: str, players: int, count: int, bots: Sequence[str], options: Mapping[str, Any] | None = None
) -> Iterator[SimulatedGame]:
    """Games 1 to `count` of `seed`, played by the bots named, seated in turn (BOT_NAMES)."""
    names = DEFAULT_NAMES[:players]
    seated = [BOTS[bots[seat % len(bots)]]() for seat in range(players)]
    for index in range(1, count + 1):
        game_id = sim_game_id(seed, index)
        title = f"Simulated game {index} from seed {seed}"[:200]
        payloads, state = play_payloads(
            game_seed(seed, index), players, seated, players=names, options=options, title=title
        )
        yield SimulatedGame(index, game_id, sealed_game(game_id, index, payloads), state)


@dataclass(frozen=True)
class BotFigures:
    """One bot's results over the games simulated: the seats it had, their wins and mean score."""

    bot: str
    seats: int
    wins: float
    mean_score: float


def bot_figures(tally: Tally, seat_bots: Sequence[str]) -> list[BotFigures]:
    """Each bot of `seat_bots` (the bot at each listed seat), in the order first seated."""
    seats = tally.listed_seats()
    figures = []
    for bot in sorted(set(seat_bots), key=seat_bots.index):
        its = [seat for seat in seats if seat_bots[seat.key - 1] == bot]
        games = sum(seat.games for seat in its)
        figures.append(
            BotFigures(
                bot,
                len(its),
                sum(seat.wins for seat in its),
                sum(seat.points for seat in its) / max(1, games),
            )
        )
    return figures
