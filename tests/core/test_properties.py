"""Properties of whole games, over many random and greedy bot games for 3 to 7 players.

Seeds are drawn by hypothesis; each example plays several complete games. Across this file
a few thousand games are played and checked event by event. The house rules come from the
registry (`wecore.rulesets.HOUSE_RULES`): a rule declared there is played here the same day.
"""

from __future__ import annotations

import itertools
import json

import pytest
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
from wecore.errors import EventSchemaError
from wecore.events import EventVoided
from wecore.kinds import CLOSING, DECIDING, IN_PLAY, KIND_OF_MOVE, KINDS, MOVE_KINDS, Kind, Shape
from wecore.moves import move_event
from wecore.rulesets import HOUSE_RULES

BOTS = {"random": RandomBot(), "greedy": GreedyBot()}
COUNTS = (3, 4, 5, 6, 7)
seeds = st.integers(min_value=0, max_value=2**32)
# Any mix of the registry's house rules, each at one of its sample values (absent: printed rules).
house_rules = st.none() | st.fixed_dictionaries(
    {}, optional={rule.name: st.sampled_from(rule.samples) for rule in HOUSE_RULES}
)


def every_combination() -> list[dict]:
    """Every subset of the registry's house rules, each rule at its first and then at its last
    sample value (a cap of 1 and a cap of 3 are different games)."""
    combos: list[dict] = []
    for size in range(len(HOUSE_RULES) + 1):
        for rules in itertools.combinations(HOUSE_RULES, size):
            for pick in (0, -1):
                combo = {rule.name: rule.samples[pick] for rule in rules}
                if combo not in combos:
                    combos.append(combo)
    return combos


# The kinds of move, their payloads and the phases they are made in are all read off the
# declaration (wecore.kinds): a kind declared there is played and tried here the same day.
MOVE_EVENTS = frozenset(kind.type for kind in MOVE_KINDS)
# The decisions to keep or swap, each under its house rule.
DECISION_KINDS = tuple(kind for kind in MOVE_KINDS if kind.phase in DECIDING)
CARD_SHAPES = (Shape.CARD, Shape.CARD_OR_NULL)
# The one set-up event that names every card of the game.
KIND_OF_DEAL = next(kind.type for kind in KINDS.values() if any(f.shape is Shape.ATTICS for f in kind.fields))


def budget(examples: int) -> settings:
    """`examples` hypothesis examples, no per-example deadline (a game takes milliseconds)."""
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def move_payload(state, move):
    """The (type, data) a legal move stands for, as its kind declares it."""
    return move_event(state, move)


def key(payload) -> str:
    """A (type, data) pair as canonical text, for sets."""
    return json.dumps(payload, sort_keys=True)


def card_values(event, kind: Kind) -> list[str]:
    """The cards an event names, read off its kind's declared fields."""
    values = [getattr(event, field.attr) for field in kind.fields if field.shape in CARD_SHAPES]
    return [card for card in values if card is not None]


def check_game(events, final, count: int) -> None:
    """Every property a finished bot game must have, checked event by event. What a move is
    (its phase, its house rule, the cards it names, the decision a phase awaits) is read off the
    declarations in wecore.kinds, so a kind declared there is checked here the same day."""
    state = INITIAL_STATE
    dealt: set[str] = set()
    moves_in_party = opens_in_party = steals_in_a_row = 0
    # Per decision kind: how often the game entered its phase this party, and how often it was made.
    awaited: dict[str, int] = {}
    decided: dict[str, int] = {}
    bound = count * (count + 1) // 2
    for seq, event in enumerate(events, start=1):
        ruleset = state.ruleset
        kind = KINDS[event.TYPE]
        if event.TYPE in MOVE_EVENTS:
            moves = legal_moves(state)
            assert moves, "a player to move always has a legal move"
            assert event_payload(event) in [move_payload(state, m) for m in moves]
            assert state.phase is kind.phase, f"{event.TYPE} is made in its declared phase only"
            assert kind.option is None or getattr(ruleset, kind.option), f"{event.TYPE} needs {kind.option}"
            if state.phase is not Phase.BRINGING:
                assert state.to_move is not None
                assert all(m.player == state.player_to_move for m in moves)
                assert event.player == state.player_to_move
            if state.phase is Phase.PLAYING:
                assert state.holding[state.to_move] is None, "the player to move never holds a gift"
        after = evolve(state, event)
        # Voiding the latest event gives back the state before it; re-applying it, the state after.
        if seq > 1:
            assert after.latest_in_effect == seq
            voided = evolve(after, EventVoided(voids=seq, reason="property"))
            assert voided == state
            assert evolve(voided, event) == after
        if event.TYPE == KIND_OF_DEAL:
            dealt = {card for cards in event.attics.values() for card in cards}
        if kind.phase is Phase.PLAYING:
            moves_in_party += 1
            opened = kind.move == "open"
            opens_in_party += opened
            steals_in_a_row = 0 if opened else steals_in_a_row + 1
            cap = ruleset.max_steals_between_opens
            assert cap is None or steals_in_a_row <= cap, "no more steals in a row than the house rule"
            assert moves_in_party <= bound
        if kind.phase in DECIDING:
            decided[event.TYPE] = decided.get(event.TYPE, 0) + 1
        if after.phase in DECIDING and after.phase is not state.phase:
            waiting_for = KIND_OF_MOVE["swap", after.phase].type
            awaited[waiting_for] = awaited.get(waiting_for, 0) + 1
        if state.phase in IN_PLAY and after.phase not in IN_PLAY:  # a party just ended
            assert opens_in_party == count
            assert decided == awaited, "every decision a phase awaited was made, once"
            for decision in DECISION_KINDS:
                played = getattr(ruleset, decision.option)
                assert (decided.get(decision.type, 0) > 0) == played, decision.type
            moves_in_party = opens_in_party = steals_in_a_row = 0
            awaited, decided = {}, {}
        for card in card_values(event, kind):
            assert card in dealt, "nothing appears from nowhere"
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
        card for e in events if e.TYPE == KIND_OF_DEAL for cards in e.attics.values() for card in cards
    )
    assert sorted(card for cards in final.kept for card in cards) == dealt
    assert all(len(cards) == final.party_count for cards in final.kept)
    assert all(attic == frozenset() for attic in final.attics)
    per_party: dict[int, list[Kind]] = {}
    for event in events:
        if event.TYPE in MOVE_EVENTS and KINDS[event.TYPE].phase is not Phase.BRINGING:
            per_party.setdefault(event.party, []).append(KINDS[event.TYPE])
    assert sorted(per_party) == list(range(1, final.party_count + 1))
    for kinds in per_party.values():
        plays = [k for k in kinds if k.phase is Phase.PLAYING]
        assert len(plays) <= count * (count + 1) // 2
        assert sum(k.move == "open" for k in plays) == count
        assert plays[0].move == "open"
        for decision in DECISION_KINDS:
            made = decision in kinds
            assert made == getattr(final.ruleset, decision.option), decision.type
        for step in CLOSING:  # each step of a party's end, once, while its house rule is on
            assert kinds.count(step) == int(bool(getattr(final.ruleset, step.option))), step.type
        # A party ends on its last open, or on the last decision or step of its end after it.
        assert kinds[-1].move == "open" or kinds[-1].phase in DECIDING or kinds[-1] in CLOSING


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
    """Every event a player might try at a point, for every kind of move declared, built from
    its declared fields and reused through the game.

    A kind naming one player and a card (a bring, an open) is tried by everyone with every card
    (and null, where the field may be null). A kind naming a second player (a steal, a swap) is
    tried by everyone with everyone (and nobody, where that may be null: a keep), for the card the
    other holds, or else a card they kept, or some card; and by the player to move, for every
    face-down and every kept gift. Out of the phase a kind is made in, it is tried by everyone
    with one card only (the rules refuse it whatever the card)."""

    def __init__(self, players):
        self.players = players
        self.cache: dict[tuple, object] = {}

    def of(self, state):
        for kind in MOVE_KINDS:
            for values in self._values(kind, state):
                key = (kind.type, state.party, *values)
                event = self.cache.get(key, self)
                if event is self:
                    try:
                        data = dict(zip(kind.keys, (state.party, *values), strict=True))
                        event = parse_event(kind.type, data)
                    except EventSchemaError:
                        event = None  # e.g. a swap naming a player but no card: not an event
                    self.cache[key] = event
                if event is not None:
                    yield event

    def _values(self, kind: Kind, state):
        shapes = [field.shape for field in kind.fields]
        nullable = any(shape.nullable for shape in shapes)
        full = kind.phase is state.phase
        if kind.outcomes and shapes == [Shape.PARTY, Shape.NAME, Shape.INT]:  # a chance move
            faces = (
                [min(kind.outcomes) - 1, *kind.outcomes, max(kind.outcomes) + 1]
                if full
                else [kind.outcomes[0]]
            )
            for player in self.players:
                for face in faces:
                    yield (player, face)
            return
        if shapes[:2] != [Shape.PARTY, Shape.NAME] or shapes[-1] not in (Shape.CARD, Shape.CARD_OR_NULL):
            raise NotImplementedError(f"{kind.type}: a new shape of move, for Candidates to learn")
        if len(shapes) == 3:  # (party, player, card)
            cards = [*ALL_CARDS, None] if nullable else list(ALL_CARDS)
            if not full:
                cards = [None] if nullable else [state.face_down[0] if state.face_down else "R1"]
            for player in self.players:
                for card in cards:
                    yield (player, card)
            return
        if len(shapes) != 4 or shapes[2] not in (Shape.NAME, Shape.NAME_OR_NULL):
            raise NotImplementedError(f"{kind.type}: a new shape of move, for Candidates to learn")
        others = [*self.players, None] if nullable else list(self.players)
        for player in self.players:
            for other in others:
                yield (player, other, None if other is None else self._near(state, other))
        if not full:
            return
        mover = state.player_to_move or self.players[0]
        for other in self.players:
            for card in state.face_down:
                yield (mover, other, card)
        for keeper, kept in state.kept_by.items():
            for card in kept:
                yield (mover, keeper, card)

    @staticmethod
    def _near(state, other):
        """The card another player holds, or else one they kept, or else some card."""
        seat = state.seat(other)
        return state.holding[seat] or (state.kept[seat][-1] if state.kept[seat] else "R1")


def check_every_candidate(events) -> int:
    """At every point, the legal moves are accepted and every other candidate is refused."""
    state = INITIAL_STATE
    candidates = None
    checked = 0
    for event in events:
        if event.TYPE in MOVE_EVENTS:
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
            tries = list(candidates.of(state))
            accepted = set()
            for attempt in tries:
                try:
                    evolve(state, attempt)
                except RuleViolation:
                    continue
                accepted.add(key(event_payload(attempt)))
            assert accepted == legal, (
                f"the reducer and legal_moves disagree under {state.ruleset.options()}:"
                f" accepted only {sorted(accepted - legal)}, listed only {sorted(legal - accepted)}"
            )
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


@pytest.mark.parametrize(
    "rules", every_combination(), ids=lambda rules: json.dumps(rules, separators=(",", ":"))
)
def test_one_path_cannot_enforce_a_house_rule_alone(rules):
    """THE test of "each rule in one place": under every combination of the registry's house
    rules, in random bot games, every move legal_moves lists is accepted by the reducer and
    every move the reducer accepts (over all candidate brings, opens, steals and swaps) is listed.
    A rule enforced by the reducer but not by move generation (or the reverse) fails here."""
    for count in COUNTS:
        events, _ = play_game(f"one-path-{count}", count, RandomBot(), options=rules)
        assert check_every_candidate(events) > 0
