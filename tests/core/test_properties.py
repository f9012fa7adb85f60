"""Properties of whole games, over many random and greedy bot games for 3 to 7 players.

Seeds are drawn by hypothesis; each example plays several complete games. Across this file
a few thousand games are played and checked event by event.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wecore import (
    ALL_CARDS,
    INITIAL_STATE,
    GreedyBot,
    Phase,
    RandomBot,
    RuleViolation,
    decide,
    event_payload,
    evolve,
    fold,
    legal_moves,
    parse_event,
    play_game,
)
from wecore.decider import Bring, Open, Steal
from wecore.events import EventVoided, GiftBrought, GiftOpened, GiftStolen

BOTS = {"random": RandomBot(), "greedy": GreedyBot()}
COUNTS = (3, 4, 5, 6, 7)
seeds = st.integers(min_value=0, max_value=2**32)
house_rules = st.sampled_from(
    [
        None,
        {"max_steals_per_gift": 1},
        {"max_steals_per_gift": 2},
        {"attic_sizes": {"3": 3, "4": 2, "5": 2, "6": 3, "7": 1}},
        {"attic_sizes": {"3": 16, "4": 12, "5": 10, "6": 8, "7": 7}, "max_steals_per_gift": 3},
    ]
)


def budget(examples: int) -> settings:
    """`examples` hypothesis examples, no per-example deadline (a game takes milliseconds)."""
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def move_payload(state, move):
    """The (type, data) a legal move stands for."""
    if isinstance(move, Bring):
        return ("gift_brought", {"party": state.party, "player": move.player, "card": move.card})
    if isinstance(move, Open):
        return ("gift_opened", {"party": state.party, "player": move.player, "card": move.card})
    assert isinstance(move, Steal)
    data = {"party": state.party, "player": move.player, "from": move.from_player, "card": move.card}
    return ("gift_stolen", data)


def key(payload) -> str:
    """A (type, data) pair as canonical text, for sets."""
    return json.dumps(payload, sort_keys=True)


def check_game(events, final, count: int) -> None:
    """Every property a finished bot game must have, checked event by event."""
    state = INITIAL_STATE
    dealt: set[str] = set()
    moves_in_party = opens_in_party = 0
    bound = count * (count + 1) // 2
    for seq, event in enumerate(events, start=1):
        if event.TYPE in ("gift_brought", "gift_opened", "gift_stolen"):
            moves = legal_moves(state)
            assert moves, "a player to move always has a legal move"
            assert event_payload(event) in [move_payload(state, m) for m in moves]
            if state.phase is Phase.PLAYING:
                assert state.to_move is not None
                assert state.holding[state.to_move] is None, "the player to move never holds a gift"
                assert all(m.player == state.player_to_move for m in moves)
        after = evolve(state, event)
        # Voiding the latest event gives back the state before it; re-applying it, the state after.
        if seq > 1:
            assert after.latest_in_effect == seq
            voided = evolve(after, EventVoided(voids=seq, reason="property"))
            assert voided == state
            assert evolve(voided, event) == after
        if event.TYPE == "attics_dealt":
            dealt = {card for cards in event.attics.values() for card in cards}
        if event.TYPE in ("gift_opened", "gift_stolen"):
            moves_in_party += 1
            opens_in_party += event.TYPE == "gift_opened"
            assert moves_in_party <= bound
            if after.party != state.party or after.is_over:
                assert opens_in_party == count
                moves_in_party = opens_in_party = 0
        if event.TYPE in ("gift_brought", "gift_opened", "gift_stolen"):
            assert event.card in dealt, "nothing appears from nowhere"
        state = after
    assert state == final
    assert fold(events) == final
    assert final.is_over
    parties = final.party_count
    # Card conservation: each dealt card is, at the end, kept by exactly one player.
    kept = [card for cards in final.kept for card in cards]
    assert sorted(kept) == sorted(dealt)
    assert len(dealt) == count * parties
    assert all(len(cards) == parties for cards in final.kept)
    assert all(attic == frozenset() for attic in final.attics)
    assert all(0 <= total <= 30 for total in final.scores.values())
    assert final.winners


@budget(60)
@given(seed=seeds, rules=house_rules)
def test_every_property_event_by_event(seed, rules):
    for count in COUNTS:
        for bot in BOTS.values():
            events, final = play_game(seed, count, bot, options=rules)
            check_game(events, final, count)


def check_outcome(events, final, count: int) -> None:
    """The cheaper checks, from the log and the final state only."""
    assert final.is_over
    assert fold(events) == final
    dealt = sorted(
        card for e in events if e.TYPE == "attics_dealt" for cards in e.attics.values() for card in cards
    )
    assert sorted(card for cards in final.kept for card in cards) == dealt
    assert all(len(cards) == final.party_count for cards in final.kept)
    assert all(attic == frozenset() for attic in final.attics)
    per_party: dict[int, list[str]] = {}
    for event in events:
        if event.TYPE in ("gift_opened", "gift_stolen"):
            per_party.setdefault(event.party, []).append(event.TYPE)
    assert sorted(per_party) == list(range(1, final.party_count + 1))
    for moves in per_party.values():
        assert len(moves) <= count * (count + 1) // 2
        assert moves.count("gift_opened") == count
        assert moves[0] == "gift_opened"


@budget(400)
@given(seed=seeds, rules=house_rules)
def test_many_random_games_conserve_cards_and_keep_the_bound(seed, rules):
    for count in COUNTS:
        events, final = play_game(seed, count, BOTS["random"], options=rules)
        check_outcome(events, final, count)


@budget(25)
@given(seed=seeds, count=st.sampled_from(COUNTS), bot=st.sampled_from(sorted(BOTS)), rules=house_rules)
def test_same_seed_same_game(seed, count, bot, rules):
    first, final_one = play_game(seed, count, BOTS[bot], options=rules)
    second, final_two = play_game(seed, count, BOTS[bot], options=rules)
    assert [event_payload(e) for e in first] == [event_payload(e) for e in second]
    assert final_one == final_two


class Candidates:
    """Every event a player might try at a point, built once per game and reused."""

    def __init__(self, players):
        self.players = players
        self.cache: dict[tuple, object] = {}

    def _get(self, key, make):
        event = self.cache.get(key)
        if event is None:
            event = self.cache[key] = make()
        return event

    def opens(self, party):
        for player in self.players:
            for card in ALL_CARDS:
                yield self._get(
                    ("o", party, player, card),
                    lambda p=player, c=card: GiftOpened(party=party, player=p, card=c),
                )

    def brings(self, party):
        for player in self.players:
            for card in (*ALL_CARDS, None):
                yield self._get(
                    ("b", party, player, card),
                    lambda p=player, c=card: GiftBrought(party=party, player=p, card=c),
                )

    def steals(self, state):
        """Steals by anyone from anyone: of what the victim holds, or else of a card they kept
        or some card; and by the player to move, of every face-down and every kept gift."""
        party = state.party
        for thief in self.players:
            for victim in self.players:
                seat = state.seat(victim)
                held = state.holding[seat]
                card = held or (state.kept[seat][-1] if state.kept[seat] else "R1")
                yield self._steal(party, thief, victim, card)
        mover = state.player_to_move or self.players[0]
        for victim in self.players:
            for card in state.face_down:
                yield self._steal(party, mover, victim, card)
        for keeper, kept in state.kept_by.items():
            for card in kept:
                yield self._steal(party, mover, keeper, card)

    def _steal(self, party, thief, victim, card):
        return self._get(
            ("s", party, thief, victim, card),
            lambda: GiftStolen(party=party, player=thief, from_player=victim, card=card),
        )


def check_every_candidate(events) -> int:
    """At every point, the legal moves are accepted and every other candidate is refused."""
    state = INITIAL_STATE
    candidates = None
    checked = 0
    for event in events:
        if event.TYPE in ("gift_brought", "gift_opened", "gift_stolen"):
            if candidates is None:
                candidates = Candidates(state.players)
            legal = {key(move_payload(state, m)) for m in legal_moves(state)}
            for move in legal_moves(state):
                decided = decide(state, move)
                assert [key(event_payload(e)) for e in decided] == [key(move_payload(state, move))]
                evolve(state, decided[0])
                # The same move with the wrong party number is refused.
                event_type, data = move_payload(state, move)
                for party in (state.party - 1, state.party + 1):
                    try:
                        evolve(state, parse_event(event_type, {**data, "party": party}))
                    except RuleViolation:
                        continue
                    raise AssertionError(f"accepted party {party} in party {state.party}")
            tries = [*candidates.opens(state.party), *candidates.steals(state)]
            if state.phase is Phase.BRINGING:
                tries += candidates.brings(state.party)
            else:
                tries += [GiftBrought(party=state.party, player=p, card=None) for p in state.players]
            accepted = set()
            for attempt in tries:
                try:
                    evolve(state, attempt)
                except RuleViolation:
                    continue
                accepted.add(key(event_payload(attempt)))
            assert accepted == legal
            checked += len(tries)
        state = evolve(state, event)
    return checked


@budget(4)
@given(seed=seeds, rules=house_rules)
def test_legal_moves_are_exactly_the_moves_the_reducer_accepts(seed, rules):
    for count in COUNTS:
        for bot in BOTS.values():
            events, _ = play_game(seed, count, bot, options=rules)
            assert check_every_candidate(events) > 0
