"""The functional core of `we`: cards, rules, events, state, scoring, views and bots.

No I/O, no clock, and no randomness but a seeded one passed in.
"""

from wecore.audit import FoldResult, GameChecker, RuleProblem, check_events
from wecore.bots import BOTS, GreedyBot, RandomBot, play_game
from wecore.cards import ALL_CARDS, PERSON_OF, Colour, parse_card, parse_colour, parse_gift_list
from wecore.dealing import GIFT_LIST_DECK, deal
from wecore.decider import (
    AddNote,
    BreakTie,
    Bring,
    Command,
    DealAttics,
    DealLists,
    Move,
    Open,
    StartGame,
    Steal,
    Undo,
    decide,
    legal_moves,
    resolve_player,
)
from wecore.errors import (
    CardNotationError,
    ColourError,
    EventSchemaError,
    RulesetError,
    RuleViolation,
    UnknownPlayerError,
    WeError,
)
from wecore.events import EVENT_TYPES, Event, event_payload, parse_event
from wecore.reducer import evolve, fold
from wecore.rulesets import Ruleset, make_ruleset
from wecore.scoring import PlayerScore, Scoreboard, score
from wecore.state import INITIAL_STATE, GameState, Phase, initial_state
from wecore.views import SeatView, view

__all__ = [
    "ALL_CARDS",
    "BOTS",
    "EVENT_TYPES",
    "GIFT_LIST_DECK",
    "INITIAL_STATE",
    "PERSON_OF",
    "AddNote",
    "BreakTie",
    "Bring",
    "CardNotationError",
    "Colour",
    "ColourError",
    "Command",
    "DealAttics",
    "DealLists",
    "Event",
    "EventSchemaError",
    "FoldResult",
    "GameChecker",
    "GameState",
    "GreedyBot",
    "Move",
    "Open",
    "Phase",
    "PlayerScore",
    "RandomBot",
    "RuleProblem",
    "RuleViolation",
    "Ruleset",
    "RulesetError",
    "Scoreboard",
    "SeatView",
    "StartGame",
    "Steal",
    "Undo",
    "UnknownPlayerError",
    "WeError",
    "check_events",
    "deal",
    "decide",
    "event_payload",
    "evolve",
    "fold",
    "initial_state",
    "legal_moves",
    "make_ruleset",
    "parse_card",
    "parse_colour",
    "parse_event",
    "parse_gift_list",
    "play_game",
    "resolve_player",
    "score",
    "view",
]
