"""Ratings over many games: each player's skill as openskill's Plackett-Luce model
(Weng and Lin's Bayesian approximation) estimates it, game after game.

The games are taken in the order they were played (their first event's `at`, then their id),
each ranked by wecore.stats.finishing_ranks; every player starts at the model's prior
(mu 25, sigma 25/3) and the model's defaults are used throughout, so anyone with openskill can
compute the same numbers from the same results. The ordinal is openskill's conservative
estimate, mu - 3 sigma: what a club sorts its ladder by.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wecore.stats import finishing_ranks, same_name

if TYPE_CHECKING:
    from wecore.season import SealedGame
    from wecore.stats import GameRecord

MODEL = "openskill PlackettLuce"


@dataclass(frozen=True)
class RatedGame:
    """A finished game as the ratings need it: who played, their final scores, who won."""

    game: str
    started_at: str | None
    players: Sequence[str]  # seat order
    scores: Sequence[int]  # by seat
    winners: Sequence[int]  # the seats sharing the win; one when a tie_broken event settled it


@dataclass(frozen=True)
class Rating:
    player: str  # as first written, in the order the games were played
    games: int
    mu: float
    sigma: float
    ordinal: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "games": self.games,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
        }


def played_order(games: Iterable[RatedGame]) -> list[RatedGame]:
    return sorted(games, key=lambda g: (g.started_at or "", g.game))


def ratings(games: Iterable[RatedGame]) -> list[Rating]:
    """Every player's rating after `games` (any order: they are rated as played), the highest
    ordinal first (then by name, for equal ones)."""
    return ratings_of_places(
        list(zip(game.players, finishing_ranks(game.scores, set(game.winners)), strict=True))
        for game in played_order(games)
    )


def ratings_of_places(games: Iterable[Sequence[tuple[str, int]]]) -> list[Rating]:
    """`ratings` over games already in the order played, each as its seats' (player, rank)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, Any] = {}
    names: dict[str, str] = {}
    played: dict[str, int] = {}
    for places in games:
        keys = [same_name(name) for name, _ in places]
        for key, (name, _) in zip(keys, places, strict=True):
            if key not in current:
                names[key] = name
                current[key] = model.rating()
        ranks = [rank for _, rank in places]
        teams = model.rate([[current[key]] for key in keys], ranks=[float(rank) for rank in ranks])
        for key, team in zip(keys, teams, strict=True):
            current[key] = team[0]
            played[key] = played.get(key, 0) + 1
    table = [
        Rating(names[key], played[key], rating.mu, rating.sigma, rating.ordinal())
        for key, rating in current.items()
    ]
    table.sort(key=lambda r: (-r.ordinal, same_name(r.player)))
    return table


def rated_record(record: GameRecord) -> RatedGame:
    """A game of a library, as `we stats` folds it."""
    return RatedGame(record.game, record.started_at, record.players, record.scores, record.winners)


def rated_sealed(sealed: SealedGame) -> RatedGame:
    """A game of a season, as its ledger sealed it (winners by name)."""
    won = {same_name(name) for name in sealed.winners}
    seats = tuple(seat for seat, name in enumerate(sealed.players) if same_name(name) in won)
    return RatedGame(sealed.game, sealed.started_at, sealed.players, sealed.scores, seats)


def ratings_json(table: Sequence[Rating], games: int) -> dict[str, Any]:
    return {"model": MODEL, "games": games, "ratings": [rating.as_dict() for rating in table]}
