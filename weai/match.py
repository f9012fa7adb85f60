"""One game of White Elephant as the game-AI frameworks see it: a sequence of chance outcomes
and numbered actions, played by wecore's rules and kept as the log's (type, data) payloads.

Chance deals the gift lists (one list of the engine's deck per seat), then the attics card by
card, and turns over the card of a gift brought unseen when it is opened (tables without dealt
attics). Gifts are brought one seat at a time, in seat order: a bring is face down, so nobody
learns more than at a table where all bring at once. A face-down gift is opened by its place
(the order the gifts were brought in, which everyone sees), never by its card.

Actions (NUM_ACTIONS of them):
    0-49    bring the card ALL_CARDS[a] from one's attic
    50      bring a gift unseen (no attics dealt)
    51-57   open the face-down gift at place a - 51 (from 0, in the order brought)
    58      open a gift brought unseen (chance then says which card it is)
    59-65   steal the gift seat a - 59 holds
    66      at a final swap, keep
    67-73   at a final swap, take the gift seat a - 67 holds
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wecore.cards import ALL_CARDS, CARD_ORDER
from wecore.dealing import DEFAULT_NAMES, GIFT_LIST_DECK
from wecore.events import parse_event
from wecore.fastpath import fast_fold
from wecore.moves import Bring, Move, Open, Steal, Swap, legal_moves
from wecore.reducer import evolve
from wecore.rulesets import RULESET_2011, make_ruleset
from wecore.scoring import score
from wecore.state import INITIAL_STATE, Phase
from wecore.views import redact_log, view

MAX_PLAYERS = 7
BRING = 0
BRING_UNSEEN = 50
OPEN = 51
OPEN_UNSEEN = 58
STEAL = 59
KEEP = 66
SWAP = 67
NUM_ACTIONS = SWAP + MAX_PLAYERS
MAX_CHANCE_OUTCOMES = len(ALL_CARDS)
CHANCE = -1
TERMINAL = -4


def house_rules(
    max_steals_per_gift: int = 0, max_steals_between_opens: int = 0, starter_final_swap: bool = False
) -> dict[str, object]:
    """The `options` of game_started for the frameworks' parameters (0 and False: not played)."""
    options: dict[str, object] = {}
    if max_steals_per_gift:
        options["max_steals_per_gift"] = max_steals_per_gift
    if max_steals_between_opens:
        options["max_steals_between_opens"] = max_steals_between_opens
    if starter_final_swap:
        options["starter_final_swap"] = True
    return options


def max_game_length(players: int, options: Mapping[str, object], deal_attics: bool = True) -> int:
    """An upper bound on the chance outcomes and actions of a game: the deal, then per party a
    bring by each, at most N(N+1)/2 opens and steals, a chance outcome per open of a gift
    brought unseen, and a final swap."""
    parties = make_ruleset(RULESET_2011, dict(options), players).attic_size(players)
    deal = players + (players * parties if deal_attics else 0)
    per_party = players + players * (players + 1) // 2 + (0 if deal_attics else players) + 1
    return deal + parties * per_party


class Match:
    """A game in progress, from the start of the deal; `apply` moves it on one step."""

    def __init__(
        self, players: int = 4, options: Mapping[str, object] | None = None, deal_attics: bool = True
    ):
        if not 3 <= players <= MAX_PLAYERS:
            raise ValueError(f"players: White Elephant is played by 3 to 7, not {players}")
        self.names = DEFAULT_NAMES[:players]
        self.options = dict(options or {})
        self.deal_attics = deal_attics
        ruleset = make_ruleset(RULESET_2011, self.options, players)
        self.attic_size = ruleset.attic_size(players)
        started: dict[str, Any] = {
            "players": list(self.names),
            "dealer": self.names[-1],  # so the first seat starts party 1
            "ruleset": RULESET_2011,
            "options": self.options,
        }
        self.payloads: list[tuple[str, dict[str, Any]]] = []
        self.state = INITIAL_STATE
        self._record("game_started", started)
        self.lists_dealt: list[int] = []  # deck indices, by seat
        self.cards_dealt: list[str] = []  # seat by seat, attic_size each
        self.opening: str | None = None  # who opens a gift brought unseen, awaiting its card
        self.steps: list[int] = []  # every chance outcome and action so far

    # --- whose step ---------------------------------------------------------------------
    def in_deal(self) -> bool:
        if len(self.lists_dealt) < len(self.names):
            return True
        return self.deal_attics and len(self.cards_dealt) < len(self.names) * self.attic_size

    def is_over(self) -> bool:
        return self.state.phase is Phase.OVER

    def current(self) -> int:
        """The seat to act; CHANCE or TERMINAL."""
        if self.in_deal() or self.opening is not None:
            return CHANCE
        state = self.state
        if state.phase is Phase.OVER:
            return TERMINAL
        if state.phase is Phase.BRINGING:
            return state.seat_of[state.waiting_to_bring[0]]
        if state.phase is Phase.FINAL_SWAP:
            return state.starter  # type: ignore[return-value]
        return state.to_move  # type: ignore[return-value]

    # --- chance -------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if len(self.lists_dealt) < len(self.names):
            left = [i for i in range(len(GIFT_LIST_DECK)) if i not in self.lists_dealt]
        elif self.opening is None:
            dealt = set(self.cards_dealt)
            left = [i for i, card in enumerate(ALL_CARDS) if card not in dealt]
        else:  # a gift brought unseen turns out to be any card not yet met in the game
            left = [i for i, card in enumerate(ALL_CARDS) if card not in self.state.seen]
        return [(outcome, 1 / len(left)) for outcome in left]

    def _chance(self, outcome: int) -> None:
        if outcome not in {o for o, _ in self.chance_outcomes()}:
            raise ValueError(f"chance outcome {outcome} cannot happen now")
        if len(self.lists_dealt) < len(self.names):
            self.lists_dealt.append(outcome)
            if len(self.lists_dealt) == len(self.names):
                lists = {
                    name: [colour.value for colour in GIFT_LIST_DECK[index]]
                    for name, index in zip(self.names, self.lists_dealt, strict=True)
                }
                self._record("gift_lists_dealt", {"lists": lists})
            return
        if self.opening is None:
            self.cards_dealt.append(ALL_CARDS[outcome])
            if len(self.cards_dealt) == len(self.names) * self.attic_size:
                size = self.attic_size
                attics = {
                    name: sorted(
                        self.cards_dealt[seat * size : (seat + 1) * size], key=CARD_ORDER.__getitem__
                    )
                    for seat, name in enumerate(self.names)
                }
                self._record("attics_dealt", {"attics": attics})
            return
        player, self.opening = self.opening, None
        self._record("gift_opened", {"party": self.state.party, "player": player, "card": ALL_CARDS[outcome]})

    # --- the players' actions -----------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.current() < 0:
            return []
        return sorted(self.action_of(move) for move in self._moves())

    def _moves(self) -> list[Move]:
        seat = self.current()
        name = self.names[seat]
        return [m for m in legal_moves(self.state) if (m.player or name) == name]

    def action_of(self, move: Move) -> int:
        state = self.state
        if isinstance(move, Bring):
            return BRING_UNSEEN if move.card is None else BRING + CARD_ORDER[move.card]
        if isinstance(move, Open):
            return OPEN_UNSEEN if move.card is None else OPEN + state.face_down.index(move.card)
        if isinstance(move, Steal):
            return STEAL + state.seat_of[move.from_player]
        if isinstance(move, Swap):
            return KEEP if move.with_player is None else SWAP + state.seat_of[move.with_player]
        raise TypeError(f"not a move: {move!r}")

    def move_of(self, action: int) -> Move:
        for move in self._moves():
            if self.action_of(move) == action:
                return move
        raise ValueError(f"action {action} is not legal now")

    def apply(self, action: int) -> None:
        if self.current() == CHANCE:
            self._chance(action)
            self.steps.append(action)
            return
        move = self.move_of(action)
        self.steps.append(action)
        state = self.state
        player = self.names[self.current()]
        party = state.party
        match move:
            case Bring():
                self._record("gift_brought", {"party": party, "player": player, "card": move.card})
            case Open(card=None):
                self.opening = player
            case Open():
                self._record("gift_opened", {"party": party, "player": player, "card": move.card})
            case Steal():
                data = {"party": party, "player": player, "from": move.from_player, "card": move.card}
                self._record("gift_stolen", data)
            case Swap():
                data = {"party": party, "player": player, "with": move.with_player, "takes": move.takes}
                self._record("final_swap", data)

    def _record(self, kind: str, data: dict[str, Any]) -> None:
        state = fast_fold(self.state, kind, data)
        if state is None:
            state = evolve(self.state, parse_event(kind, data))
        self.state = state
        self.payloads.append((kind, data))

    # --- what a seat sees, and the result -------------------------------------------------
    def seat_view(self, seat: int) -> dict[str, Any]:
        """wecore.views.view of the seat, as a dict (before the deal is done: nothing yet)."""
        if self.state.phase in (Phase.NOT_STARTED, Phase.SETTING_UP) or self.in_deal():
            return {"viewer": self.names[seat], "phase": "dealing"}
        return view(self.state, self.names[seat]).to_dict()

    def seat_log(self, seat: int) -> list[dict[str, Any]]:
        """The log so far as the seat may read it (wecore.views.redact_log): all it has seen."""
        lines = [{"type": kind, "data": data} for kind, data in self.payloads]
        return redact_log(lines, self.names[seat])

    def returns(self) -> list[float]:
        """Each seat's share of the win once the game is over (a k-way tie: 1/k each)."""
        if not self.is_over():
            return [0.0] * len(self.names)
        winners = score(self.state).winners
        return [1 / len(winners) if name in winners else 0.0 for name in self.names]

    def action_name(self, seat: int, action: int) -> str:
        if seat == CHANCE:
            return f"chance {action}"
        if action < BRING_UNSEEN:
            return f"bring {ALL_CARDS[action]}"
        if action == BRING_UNSEEN:
            return "bring a gift unseen"
        if action < OPEN_UNSEEN:
            return f"open face-down gift {action - OPEN + 1}"
        if action == OPEN_UNSEEN:
            return "open a gift brought unseen"
        if action < KEEP:
            return f"steal from {DEFAULT_NAMES[action - STEAL]}"
        if action == KEEP:
            return "keep"
        return f"swap with {DEFAULT_NAMES[action - SWAP]}"

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        # pyspiel clones a Python game's state by deepcopy; wecore's states are immutable values
        # (which link every earlier one, and hold read-only mappings that cannot be pickled).
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (as pyspiel does to some states) as the game's set-up and its steps.
        return (_replayed, (len(self.names), self.options, self.deal_attics, tuple(self.steps)))

    def copy(self) -> Match:
        """An independent copy (states and payloads are never changed in place, only replaced)."""
        twin = Match.__new__(Match)
        twin.__dict__.update(self.__dict__)
        twin.payloads = list(self.payloads)
        twin.lists_dealt = list(self.lists_dealt)
        twin.cards_dealt = list(self.cards_dealt)
        twin.steps = list(self.steps)
        return twin


def _replayed(players: int, options: dict[str, object], deal_attics: bool, steps: tuple[int, ...]) -> Match:
    match = Match(players, options, deal_attics)
    for step in steps:
        match.apply(step)
    return match
