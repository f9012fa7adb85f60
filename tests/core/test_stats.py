"""wecore.stats against known values: Wilson intervals, chi-square p-values, the equal-seats
test, fairness tables with shared ties, evenings, head to head, streaks."""

from __future__ import annotations

import pytest

from wecore.bots import GreedyBot, play_game
from wecore.stats import (
    GameRecord,
    Tally,
    chi_square_p_value,
    evenings,
    fairness,
    longest_streaks,
    record_of,
    regularized_gamma_q,
    seat_verdict,
    standings,
    tally,
    versus,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (0, 10, 0.0, 0.277533),  # the textbook cases (e.g. Newcombe 1998, Table I)
        (5, 10, 0.236593, 0.763407),
        (10, 10, 0.722467, 1.0),
        (81, 263, 0.255289, 0.366210),
        (1, 2, 0.094531, 0.905469),
    ],
)
def test_wilson_interval_known_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        (3.841459, 1, 0.05),  # the 95% critical values of the chi-square table
        (5.991465, 2, 0.05),
        (11.070498, 5, 0.05),
        (6.634897, 1, 0.01),
        (20.0, 10, 0.0292527),
        (100.0, 50, 3.45493e-05),
        (0.5, 3, 0.918891),
        (0.001, 1, 0.974773),
        (0.0, 4, 1.0),
    ],
)
def test_chi_square_p_values(statistic, df, p):
    assert chi_square_p_value(statistic, df) == pytest.approx(p, rel=1e-5)


def test_regularized_gamma_is_exp_for_a_one():
    # Q(1, x) = e^-x, on both sides of the series / continued fraction switch.
    for x in (0.1, 1.5, 2.5, 10.0):
        assert regularized_gamma_q(1.0, x) == pytest.approx(2.718281828459045**-x, rel=1e-12)


def game(
    seat_count, winners, scores=None, starter=0, lists=None, game_id="g", at=None, evening=None, names=None
):
    players = tuple(names or ("Ann", "Ben", "Cat", "Dev", "Eve", "Fay", "Gus")[:seat_count])
    return GameRecord(
        game=game_id,
        players=players,
        first_starter=starter,
        lists=tuple(lists or ("RYG", "RYB", "ROG", "ROB", "OYG", "OYB", "YGB")[:seat_count]),
        scores=tuple(scores or [10] * seat_count),
        winners=tuple(winners),
        started_at=at,
        evening=evening,
    )


def test_fairness_counts_seats_from_the_first_starter_and_shares_ties():
    games = [
        game(3, [1], scores=[5, 9, 1], starter=1),  # Ben starts and wins: seat 1
        game(3, [0, 2], scores=[7, 3, 7], starter=0),  # Ann (seat 1) and Cat (seat 3) tie
    ]
    report = fairness(games).as_dict()
    assert set(report) == {"games", "by_seat", "by_list", "by_players", "equal_seats"}
    assert report["games"] == 2
    seats = {row["seat"]: row for row in report["by_seat"]}
    assert seats[1]["wins"] == 1.5 and seats[1]["win_rate"] == 0.75
    assert seats[2]["wins"] == 0 and seats[3]["wins"] == 0.5
    # seat 1: Ben 9 then Ann 7; seat 2: Cat 1 then Ben 3; seat 3: Ann 5 then Cat 7
    assert (seats[1]["mean_score"], seats[2]["mean_score"], seats[3]["mean_score"]) == (8, 2, 6)
    assert set(seats[1]) == {"seat", "games", "wins", "win_rate", "low", "high", "mean_score"}
    low, high = wilson_interval(1.5, 2)
    assert (seats[1]["low"], seats[1]["high"]) == (round(low, 4), round(high, 4))
    lists = {row["list"]: row for row in report["by_list"]}
    assert lists["RYB"]["wins"] == 1 and lists["RYG"]["wins"] == 0.5 and lists["ROG"]["wins"] == 0.5
    assert [row["list"] for row in report["by_list"]] == ["ROG", "RYG", "RYB"]  # colour order
    (three,) = report["by_players"]
    assert three["players"] == 3 and three["games"] == 2 and three["win_rate"] == 0.3333
    assert three["mean_score"] == pytest.approx((15 + 17) / 2 / 3, abs=1e-4)
    assert set(report["equal_seats"]) == {"test", "statistic", "p_value"}


def test_a_broken_tie_is_a_whole_win():
    record = game(3, [2], scores=[7, 3, 7])
    assert record.seat_wins() == [0.0, 0.0, 1.0]


def test_standings_share_a_tie_as_the_fairness_report_does():
    """One meaning of a shared win: per player, per seat as listed and by the first starter."""
    games = [
        game(3, [1], scores=[5, 9, 1], starter=1),  # Ben wins alone
        game(3, [0, 2], scores=[7, 3, 7], starter=0),  # Ann and Cat share the win
        game(3, [2], scores=[7, 3, 7], names=("ann", "Ben", "Cat")),  # Cat wins the tie-break
    ]
    rows = {row.key: row for row in standings(games)}
    assert set(rows) == {"Ann", "Ben", "Cat"}  # "ann" is Ann, under the spelling first seen
    assert (rows["Cat"].games, rows["Cat"].wins, rows["Cat"].mean_score) == (3, 1.5, 5)
    assert (rows["Ann"].wins, rows["Ben"].wins) == (0.5, 1)
    assert [row.key for row in standings(games)] == ["Cat", "Ben", "Ann"]  # by win rate
    counted = tally(games)
    assert [seat.wins for seat in counted.listed_seats()] == [0.5, 1, 1.5]
    by_table_seat = sum(rate.wins for rate in counted.fairness().by_seat)
    assert sum(row.wins for row in rows.values()) == by_table_seat == counted.games == 3
    # A game known by its result only (a season's sealed game) is counted the same way.
    results = Tally()
    for record in games:
        results.add_result(record.players, record.scores, record.winners)
    assert [(r.key, r.games, r.wins, r.points) for r in results.standings()] == [
        (r.key, r.games, r.wins, r.points) for r in standings(games)
    ]


def test_equal_seats_chi_square_by_hand():
    # 60 games of three: seat 1 wins 30, seat 2 20, seat 3 10; expected 20 each.
    # chi-square = (100 + 0 + 100) / 20 = 10 on 2 degrees of freedom: p = e^-5 = 0.006738.
    games = [game(3, [0])] * 30 + [game(3, [1])] * 20 + [game(3, [2])] * 10
    test = fairness(games).equal_seats
    assert test.test == "chi-square" and test.statistic == 10.0
    assert test.p_value == pytest.approx(0.0067379, rel=1e-4)
    result = fairness(games)
    assert result.verdict().startswith(
        "Seat 1 wins more often than chance allows at 99% (50.0% against 33.3%"
    )


def test_small_counts_use_a_seeded_exact_test():
    games = [game(4, [0])] * 6 + [game(4, [1])] * 2  # expected 2 per seat: too few for chi-square
    test = fairness(games).equal_seats
    assert test.test.startswith("Monte Carlo exact")
    assert test == fairness(games).equal_seats  # seeded: the same p-value every time
    # The exact probability of a table at least this uneven is small but not tiny.
    assert 0.005 < test.p_value < 0.1


def test_equal_seats_verdict_when_consistent():
    games = [game(3, [s % 3]) for s in range(90)]
    result = fairness(games)
    assert result.equal_seats.p_value == pytest.approx(1.0)
    assert result.verdict().startswith("No seat wins more or less often than chance allows")
    assert "equal seats" in seat_verdict(result.equal_seats, result.by_seat)


def test_record_of_a_bot_game():
    _, state = play_game("rec", 4, GreedyBot())
    record = record_of(state, "rec")
    dealer = state.players.index(state.dealer)
    assert record.first_starter == (dealer + 1) % 4
    assert record.scores == tuple(state.scores.values())
    assert {record.players[s] for s in record.winners} == set(state.winners)
    assert all(len(letters) == 3 for letters in record.lists)


def night():
    # Ann wins, Ann wins, Ben wins, (Ann and Ben share), Ann wins; names in varying case.
    return [
        game(3, [0], [9, 5, 1], game_id="g1", at="2026-12-04T19:00:00Z", evening="2026-12-04"),
        game(3, [0], [8, 7, 2], game_id="g2", at="2026-12-04T20:00:00Z", evening="2026-12-04"),
        game(
            3,
            [1],
            [3, 9, 2],
            game_id="g3",
            at="2026-12-05T19:00:00Z",
            evening="2026-12-05",
            names=("ann", "Ben", "Cat"),
        ),
        game(3, [0, 1], [6, 6, 2], game_id="g4", at="2026-12-05T20:00:00Z", evening="2026-12-05"),
        game(
            3,
            [0],
            [9, 1, 1],
            game_id="g5",
            at="2026-12-06T20:00:00Z",
            evening="2026-12-06",
            names=("ANN", "Dev", "Cat"),
        ),
    ]


def test_evenings_group_by_local_date():
    grouped = evenings(night())
    assert [(e.date, [g.game for g in e.games]) for e in grouped] == [
        ("2026-12-04", ["g1", "g2"]),
        ("2026-12-05", ["g3", "g4"]),
        ("2026-12-06", ["g5"]),
    ]
    assert grouped[1].scores_by_player() == {"Ann": [3, 6], "Ben": [9, 6], "Cat": [2, 2]}


def test_longest_streaks_match_names_in_any_case():
    # Ann: won g1, g2, lost g3, shared g4, won g5: longest 2 (g1-g2; g4-g5 is also 2).
    # Ben: g3 and g4 (shared counts): 2. Cat never; Dev played once, lost.
    assert longest_streaks(night()) == {"Ann": 2, "Ben": 2, "Cat": 0, "Dev": 0}


def test_versus_by_hand():
    result = versus(night(), "aNN", "ben")
    assert (result.first, result.second) == ("Ann", "Ben")
    assert [g.game for g in result.games] == ["g1", "g2", "g3", "g4"]  # Ben was not at g5
    assert result.wins == (2.5, 1.5)
    assert result.ahead == (2, 1) and result.level == 1
    # differences 4, 1, -6, 0: mean -0.25
    assert result.mean_difference == -0.25
    assert result.low < -0.25 < result.high
    assert result.streaks == (2, 2)


def test_nfc_names_are_one_player():
    decomposed, composed = "Zoe\u0308", "Zo\u00eb"
    games = [
        game(3, [0], names=(composed, "Ann", "Ben"), game_id="a", at="1"),
        game(3, [0], names=(decomposed, "Ann", "Ben"), game_id="b", at="2"),
    ]
    assert longest_streaks(games)[composed] == 2
    assert len(versus(games, decomposed.upper(), "ann").games) == 2


def test_seats_are_pooled_across_player_counts_from_the_first_starter():
    # 3 games of three won by seat 1 (the starter), 3 games of four won by seat 4 (the dealer):
    # expected wins 3 x 1/3 + 3 x 1/4 for seats 1-3, 3 x 1/4 for seat 4.
    games = [game(3, [1], starter=1)] * 3 + [game(4, [2], starter=3)] * 3
    result = fairness(games)
    seats = {rate.key: rate for rate in result.by_seat}
    assert {k: r.wins for k, r in seats.items()} == {1: 3.0, 2: 0.0, 3: 0.0, 4: 3.0}
    assert seats[1].expected == pytest.approx(1.75) and seats[4].expected == pytest.approx(0.75)
    assert seats[4].games == 3
    assert result.equal_seats.test.startswith("Monte Carlo exact (5000 tables)")
    assert result.equal_seats.p_value < 0.01
    assert set(result.seat_tests) == {3, 4}


def test_the_exact_test_stays_quick_for_a_big_mixed_library():
    # 20,000 games of five and 20 of seven: seats 6 and 7 expect under 5 wins, so the test is
    # exact, with fewer tables (2,000,000 draws at most, 200 tables at least).
    games = [game(5, [k % 5]) for k in range(20_000)] + [game(7, [k % 7]) for k in range(20)]
    test = fairness(games).equal_seats
    assert test.test == "Monte Carlo exact (200 tables)"
    assert test.p_value > 0.5
