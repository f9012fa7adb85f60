"""The audit's fast path must judge every payload exactly as the model path does.

GameChecker skips pydantic for payloads of a shape it can vouch for. These tests feed the same
payloads, good and mutated, through the checker and through parse_event + evolve, and compare
the resulting state, or the kind and wording of the problem.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from wecore.bots import GreedyBot, RandomBot, play_game
from wecore.conformance import RULES, SCHEMA, GameChecker
from wecore.errors import EventSchemaError, RuleViolation
from wecore.events import EVENT_TYPES, parse_event
from wecore.fastpath import _FAST_PATHS
from wecore.reducer import evolve
from wecore.rulesets import HOUSE_RULES
from wecore.state import INITIAL_STATE


def _model_path(payloads: list[tuple[str, Any]]) -> tuple[Any, tuple[int, str, str] | None]:
    state = INITIAL_STATE
    for line, (event_type, data) in enumerate(payloads, start=1):
        try:
            event = parse_event(event_type, data)
        except EventSchemaError as exc:
            return state, (line, SCHEMA, str(exc))
        try:
            state = evolve(state, event)
        except RuleViolation as exc:
            return state, (line, RULES, f"{event.TYPE}: {exc}")
    return state, None


def _checker_path(payloads: list[tuple[str, Any]]) -> tuple[Any, tuple[int, str, str] | None]:
    checker = GameChecker()
    for line, (event_type, data) in enumerate(payloads, start=1):
        if not checker.feed(line, event_type, data):
            break
    problem = checker.problem
    return checker.state, None if problem is None else (problem.line, problem.kind, problem.message)


MUTATIONS = [
    lambda d: {**d, "party": True},
    lambda d: {**d, "party": str(d.get("party"))},
    lambda d: {**d, "party": d.get("party", 1) + 1},
    lambda d: {**d, "card": (d.get("card") or "r7").lower()},
    lambda d: {**d, "card": "P11"},
    lambda d: {**d, "card": 7},
    lambda d: {**d, "card": None},
    lambda d: {**d, "extra": 1},
    lambda d: {k: v for k, v in d.items() if k != "card"},
    lambda d: {k: v for k, v in d.items() if k != "player"},
    lambda d: {**d, "player": "Zoe\u0308"},
    lambda d: {**d, "player": str(d.get("player", "")).upper()},
    lambda d: {**d, "from": "Nobody"} if "from" in d else {**d, "from": "Ann"},
    lambda d: {**d, "from_player": d.get("from")},
    lambda d: {**d, "voids": 1} if "voids" in d else d,
    lambda d: {**d, "with": None} if "with" in d else d,
    lambda d: {**d, "takes": None} if "takes" in d else d,
    lambda d: {**d, "takes": "b10"} if "takes" in d else d,
    lambda d: {**d, "with": "Nobody"} if "with" in d else d,
    lambda d: {k: v for k, v in d.items() if k != "with"},
    lambda d: {**d, "with_player": d.get("with")} if "with" in d else d,
    lambda d: {**d, "text": 5} if "text" in d else d,
]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(3, 7),
    greedy=st.booleans(),
    position=st.floats(0.05, 1.0),
    mutation=st.sampled_from(range(len(MUTATIONS))),
    rules=st.fixed_dictionaries({}, optional={r.name: st.sampled_from(r.samples) for r in HOUSE_RULES}),
)
def test_fast_path_agrees_with_models(
    seed: int, players: int, greedy: bool, position: float, mutation: int, rules: dict
) -> None:
    events, _ = play_game(seed, players, GreedyBot() if greedy else RandomBot(), options=rules)
    payloads = [(e.TYPE, e.payload()) for e in events]
    assert _checker_path(payloads) == _model_path(payloads)
    at = max(3, int(len(payloads) * position) - 1)
    event_type, data = payloads[at]
    mutated = [*payloads[:at], (event_type, MUTATIONS[mutation](dict(data))), *payloads[at + 1 :]]
    assert _checker_path(mutated) == _model_path(mutated)


def test_fast_path_covers_notes_and_voids() -> None:
    events, _ = play_game(7, 3)
    payloads = [(e.TYPE, e.payload()) for e in events[:8]]
    payloads += [("note", {"text": "cocoa"}), ("event_voided", {"voids": 8, "reason": "typo"})]
    payloads += [("event_voided", {"voids": 8, "reason": "again"})]  # 8 is no longer in effect
    checker_state, checker_problem = _checker_path(payloads)
    model_state, model_problem = _model_path(payloads)
    assert checker_problem == model_problem
    assert checker_problem is not None and checker_problem[0] == 11 and checker_problem[1] == RULES
    assert checker_state == model_state


def test_a_log_must_begin_with_game_started_on_either_path() -> None:
    for first in [("note", {"text": "hello"}), ("gift_brought", {"party": 1, "player": "Ann", "card": None})]:
        payloads = [first]
        assert _checker_path(payloads) == _model_path(payloads)
        assert _checker_path(payloads)[1] == (
            1,
            RULES,
            f"{first[0]}: a log must begin with game_started, not {first[0]}",
        )


# Every registry option at values of every JSON shape, some out of bounds: a rule declared in the
# registry has its shape check held to the model's here.
OPTION_VALUES = [True, False, 1, 0, -1, "2", 2.0, None, [], {"3": True}, {"3": 0}, {"9": 2}, {"3": 2}]
REGISTRY_MUTATIONS = [
    (0, lambda d, name=rule.name, value=value: {**d, "options": {name: value}})
    for rule in HOUSE_RULES
    for value in OPTION_VALUES
]

SETUP_MUTATIONS = [
    *REGISTRY_MUTATIONS,
    (0, lambda d: {**d, "players": "Ann,Ben,Cat"}),
    (0, lambda d: {**d, "players": [*d["players"][:2], 3]}),
    (0, lambda d: {**d, "players": ["Zoe\u0308", *d["players"][1:]], "dealer": d["players"][1]}),
    (0, lambda d: {**d, "dealer": 0}),
    (0, lambda d: {**d, "dealer": "Nobody"}),
    (0, lambda d: {**d, "ruleset": None}),
    (0, lambda d: {**d, "ruleset": "house"}),
    (0, lambda d: {**d, "options": {"house": 1}}),
    (0, lambda d: {**d, "options": {"max_steals_per_gift": True}}),
    (0, lambda d: {**d, "options": {"max_steals_per_gift": 0}}),
    (0, lambda d: {**d, "options": {"attic_sizes": {"3": "2"}}}),
    (0, lambda d: {**d, "options": {"attic_sizes": {"9": 2}}}),
    (0, lambda d: {**d, "options": []}),
    (0, lambda d: {**d, "title": None}),
    (0, lambda d: {**d, "title": 5}),
    (0, lambda d: {**d, "title": "x" * 201}),
    (0, lambda d: {**d, "extra": 1}),
    (0, lambda d: {k: v for k, v in d.items() if k != "options"}),
    (1, lambda d: {"lists": {**d["lists"], next(iter(d["lists"])): ["RED", "orange", "blue"]}}),
    (1, lambda d: {"lists": {**d["lists"], next(iter(d["lists"])): ["red", "orange"]}}),
    (1, lambda d: {"lists": {**d["lists"], next(iter(d["lists"])): "red"}}),
    (1, lambda d: {"lists": {**d["lists"], next(iter(d["lists"])): [["red"], "orange", "blue"]}}),
    (1, lambda d: {"lists": dict(list(d["lists"].items())[1:])}),
    (1, lambda d: {**d, "extra": 1}),
    (2, lambda d: {"attics": {k: [c.lower() for c in v] for k, v in d["attics"].items()}}),
    (2, lambda d: {"attics": {k: ["P11", *v[1:]] for k, v in d["attics"].items()}}),
    (2, lambda d: {"attics": {k: [7, *v[1:]] for k, v in d["attics"].items()}}),
    (2, lambda d: {"attics": {k: v[1:] for k, v in d["attics"].items()}}),
    (2, lambda d: {"attics": []}),
]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(3, 7),
    mutation=st.sampled_from(range(len(SETUP_MUTATIONS))),
)
def test_fast_path_agrees_with_models_on_set_up_events(seed: int, players: int, mutation: int) -> None:
    events, _ = play_game(seed, players)
    payloads = [(e.TYPE, e.payload()) for e in events]
    index, mutate = SETUP_MUTATIONS[mutation]
    event_type, data = payloads[index]
    mutated = [*payloads[:index], (event_type, mutate(dict(data))), *payloads[index + 1 :]]
    assert _checker_path(mutated) == _model_path(mutated)


def test_fast_path_agrees_on_tie_breaks() -> None:
    for seed in range(400):
        events, final = play_game(seed, 4, options={"attic_sizes": {"4": 1}})
        if 1 < len(final.scoreboard.winners) < 4:
            break
    payloads = [(e.TYPE, e.payload()) for e in events]
    leader, other = final.scoreboard.winners[0], final.scoreboard.winners[1]
    loser = next(p for p in final.players if p not in final.scoreboard.winners)
    for tie in [
        {"winner": leader, "reason": "speech"},
        {"winner": loser, "reason": "speech"},
        {"winner": 3, "reason": "speech"},
        {"winner": leader},
        {"winner": leader, "reason": "speech", "extra": 1},
    ]:
        log = [*payloads, ("tie_broken", tie), ("tie_broken", {"winner": other, "reason": "again"})]
        assert _checker_path(log) == _model_path(log)


def test_every_event_type_has_a_fast_path() -> None:
    # A new event type gets its fast check, and the mutations above and below reach it.
    assert set(_FAST_PATHS) == set(EVENT_TYPES)


def _field_mutations(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every field removed, each set to each JSON type, and one field too many."""
    out = [{**data, "extra": 1}]
    for name in data:
        out.append({k: v for k, v in data.items() if k != name})
        for value in (None, True, 0, -1, 1.5, "", "R7", "r7", "Ann", "Zoe\u0308", [], {}):
            out.append({**data, name: value})
    return out


def test_fast_path_agrees_with_models_field_by_field_on_every_event_type() -> None:
    """For every event type as a bot game writes it (under every house rule of the registry),
    each field mutated every way: the fast path and the model path judge it alike."""
    options = {rule.name: rule.samples[0] for rule in HOUSE_RULES if rule.name != "attic_sizes"}
    events, final = play_game(11, 3, RandomBot(), options={**options, "attic_sizes": {"3": 2}})
    payloads = [(e.TYPE, e.payload()) for e in events]
    payloads += [("note", {"text": "cocoa"}), ("event_voided", {"voids": len(payloads), "reason": "x"})]
    payloads += [("tie_broken", {"winner": final.players[0], "reason": "speech"})]
    seen: set[str] = set()
    for at, (event_type, data) in enumerate(payloads):
        if event_type in seen:
            continue
        seen.add(event_type)
        for mutated_data in _field_mutations(data):
            mutated = [*payloads[:at], (event_type, mutated_data)]
            assert _checker_path(mutated) == _model_path(mutated), (event_type, mutated_data)
    assert seen == set(EVENT_TYPES)
