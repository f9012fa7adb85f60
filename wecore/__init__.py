"""The functional core of `we`: cards, rules, events, state, scoring, views and bots.

No I/O, no clock, and no randomness but a seeded one passed in. Names load on first use
(PEP 562), so `import wecore.cards` does not pay for pydantic.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "ALL_CARDS": "wecore.cards",
    "AddNote": "wecore.decider",
    "BOTS": "wecore.bots",
    "BreakTie": "wecore.decider",
    "Bring": "wecore.moves",
    "CardNotationError": "wecore.errors",
    "Colour": "wecore.cards",
    "ColourError": "wecore.errors",
    "Command": "wecore.decider",
    "DealAttics": "wecore.decider",
    "DealLists": "wecore.decider",
    "EVENT_TYPES": "wecore.events",
    "Event": "wecore.events",
    "EventSchemaError": "wecore.errors",
    "FoldResult": "wecore.conformance",
    "GIFT_LIST_DECK": "wecore.dealing",
    "GameChecker": "wecore.conformance",
    "GameState": "wecore.state",
    "GreedyBot": "wecore.bots",
    "HOUSE_RULES": "wecore.rulesets",
    "INITIAL_STATE": "wecore.state",
    "Move": "wecore.moves",
    "Open": "wecore.moves",
    "PERSON_OF": "wecore.cards",
    "Phase": "wecore.state",
    "PlayerScore": "wecore.scoring",
    "RandomBot": "wecore.bots",
    "RuleProblem": "wecore.conformance",
    "RuleViolation": "wecore.errors",
    "Ruleset": "wecore.rulesets",
    "RulesetError": "wecore.errors",
    "Scoreboard": "wecore.scoring",
    "SeatView": "wecore.views",
    "StartGame": "wecore.decider",
    "Steal": "wecore.moves",
    "Swap": "wecore.moves",
    "Undo": "wecore.decider",
    "UnknownPlayerError": "wecore.errors",
    "WeError": "wecore.errors",
    "check_events": "wecore.conformance",
    "deal": "wecore.dealing",
    "decide": "wecore.decider",
    "event_payload": "wecore.events",
    "evolve": "wecore.reducer",
    "fold": "wecore.reducer",
    "initial_state": "wecore.state",
    "legal_moves": "wecore.moves",
    "make_ruleset": "wecore.rulesets",
    "parse_card": "wecore.cards",
    "parse_colour": "wecore.cards",
    "parse_event": "wecore.events",
    "parse_gift_list": "wecore.cards",
    "play_game": "wecore.bots",
    "resolve_player": "wecore.decider",
    "score": "wecore.scoring",
    "view": "wecore.views",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'wecore' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
