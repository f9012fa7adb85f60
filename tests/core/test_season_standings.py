"""A season's standings count wins as `we stats` does: one win a game, shared by an unbroken tie."""

from wecore.season import SealedGame, standings
from wecore.stats import Tally


def _sealed(
    players: tuple[str, ...], scores: tuple[int, ...], winners: tuple[str, ...], line: int
) -> SealedGame:
    return SealedGame(
        game=f"g{line}",
        hash="sha256:" + "0" * 64,
        title=None,
        players=players,
        scores=scores,
        winners=winners,
        events=10,
        started_at=None,
        source={"file": f"g{line}.jsonl"},
        line=line,
    )


def test_an_unbroken_tie_shares_its_one_win_as_the_library_tally_does() -> None:
    games = [
        _sealed(("Ann", "Ben", "Cat"), (20, 20, 5), ("Ann", "Ben"), 2),  # a tie nobody broke
        _sealed(("Ann", "Ben", "Cat"), (9, 12, 30), ("Cat",), 3),
        _sealed(("ann", "Ben", "Cat"), (25, 3, 4), ("ann",), 4),  # the same Ann, spelled otherwise
    ]
    table = {s.player: (s.games, s.wins) for s in standings(games)}
    assert table == {"Ann": (3, 1.5), "Ben": (3, 0.5), "Cat": (3, 1.0)}
    assert sum(wins for _, wins in table.values()) == len(games)

    tally = Tally()
    for game in games:
        seats = [i for i, p in enumerate(game.players) if p in game.winners]
        tally.add_result(game.players, game.scores, seats)
    assert {r.key: r.wins for r in tally.standings()} == {"Ann": 1.5, "Ben": 0.5, "Cat": 1.0}
    assert [s.player for s in standings(games)] == ["Ann", "Cat", "Ben"]
