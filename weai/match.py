"""One game of White Elephant as the game-AI frameworks see it: a sequence of chance outcomes
and numbered actions, played by wecore's rules and kept as the log's (type, data) payloads.

Chance deals the gift lists (one list of the engine's deck per seat), then the attics card by
card, and turns over the card of a gift brought unseen when it is opened (tables without dealt
attics); every chance move of the rules (`wecore.moves.chance_outcomes`, a house rule's die) is
a chance node too, its outcomes numbered in the order the core lists them. Gifts are brought one
seat at a time, in seat order: a bring is face down, so nobody learns more than at a table where
all bring at once. A face-down gift is opened by its place (the order the gifts were brought in,
which everyone sees), never by its card.

Actions are numbered from the kinds of move (`wecore.kinds.MOVE_TYPE_NAMES`), a block each in
their declared order, sized by what a player chooses in it (`_choices`; a chance move has none):

    bring   a card of one's attic (by card order), or a gift unseen (no attics dealt)
    open    a face-down gift by its place (from 0, in the order brought), or one brought unseen
    steal   the gift a seat holds, by that seat
    swap    keep, or take the gift a seat holds (a final swap, or a swap after an open)

which today is 0-49 bring a card, 50 bring unseen, 51-57 open a place, 58 open a gift brought
unseen, 59-65 steal from a seat, 66 keep, 67-73 swap with a seat (NUM_ACTIONS: 74).

Every house rule is a game parameter (`HOUSE_RULE_PARAMETERS`, from the registry of
`wecore.rulesets`): a flag is false when not played, a number 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from wecore.cards import ALL_CARDS, CARD_ORDER
from wecore.dealing import DEFAULT_NAMES, GIFT_LIST_DECK
from wecore.events import parse_event
from wecore.fastpath import fast_fold
from wecore.kinds import CHOSEN_MOVE_NAMES, MOVE_KINDS, ChosenMoveType, MoveType
from wecore.moves import Bring, Move, Open, Steal, Swap, chance_outcomes, is_chance, legal_moves, move_event
from wecore.reducer import evolve
from wecore.rulesets import HOUSE_RULES, MAX_PLAYERS, RULESET_2011, Shape, make_ruleset
from wecore.scoring import score
from wecore.state import INITIAL_STATE, Phase
from wecore.views import redact_log, view

CHANCE = -1
TERMINAL = -4


def _choices(move: ChosenMoveType) -> int:
    """How many actions a kind of move has: what its player chooses among."""
    match move:
        case "bring":
            return len(ALL_CARDS) + 1  # a card of the attic, or a gift unseen
        case "open":
            return MAX_PLAYERS + 1  # a face-down gift by its place, or one brought unseen
        case "steal":
            return MAX_PLAYERS  # the seat whose gift is taken
        case "swap":
            return 1 + MAX_PLAYERS  # keep, or the seat swapped with
        case _:
            assert_never(move)


@dataclass(frozen=True)
class ActionBlock:
    """The actions of one kind of move: `size` numbers from `first`."""

    move: ChosenMoveType
    first: int
    size: int


def _blocks() -> dict[MoveType, ActionBlock]:
    """A block per kind of move a player chooses, in the kinds' order (chance has none: its
    outcomes are a chance node's, nobody's action)."""
    blocks: dict[MoveType, ActionBlock] = {}
    first = 0
    for move in CHOSEN_MOVE_NAMES:
        blocks[move] = ActionBlock(move, first, _choices(move))
        first += blocks[move].size
    return blocks


ACTION_BLOCKS = _blocks()
NUM_ACTIONS = sum(block.size for block in ACTION_BLOCKS.values())
MAX_CHANCE_OUTCOMES = max(len(ALL_CARDS), len(GIFT_LIST_DECK), *(len(kind.outcomes) for kind in MOVE_KINDS))

# Every house rule as a game parameter, with its value when not played.
HOUSE_RULE_PARAMETERS: Mapping[str, int | bool] = {
    rule.name: False if rule.shape is Shape.FLAG else 0 for rule in HOUSE_RULES
}


def house_rules(players: int, **parameters: int | bool) -> dict[str, object]:
    """The `options` of game_started for the frameworks' house-rule parameters (0 and false:
    not played; a number of cards per player stands for this player count's)."""
    unknown = sorted(set(parameters) - set(HOUSE_RULE_PARAMETERS))
    if unknown:
        raise ValueError(
            f"no house rule called {', '.join(unknown)} (they are {', '.join(HOUSE_RULE_PARAMETERS)})"
        )
    options: dict[str, object] = {}
    for rule in HOUSE_RULES:
        value = parameters.get(rule.name)
        if value:
            options[rule.name] = rule.option_from_flag(value, players)
    return options


def max_game_length(players: int, options: Mapping[str, object], deal_attics: bool = True) -> int:
    """An upper bound on the chance outcomes and actions of a game: the deal, then per party a
    bring by each, its opens (one per player) and steals (each locks its gift until the next
    open, so at most one per gift held between two opens), a chance outcome per open of a gift
    brought unseen, and each house rule's move: once per open (a swap after it) or once at the
    party's end (a final swap, a roll)."""
    parties = make_ruleset(RULESET_2011, dict(options), players).attic_size(players)
    deal = players + (players * parties if deal_attics else 0)
    per_party = players + players + players * players + (0 if deal_attics else players)
    for kind in MOVE_KINDS:
        if kind.option is not None and options.get(kind.option):
            per_party += 1 if kind.closes_party else players
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
        if self.in_deal() or self.opening is not None or chance_outcomes(self.state):
            return CHANCE
        if self.state.phase is Phase.OVER:
            return TERMINAL
        # Every phase's moves are one player's, but the bringing's: seat by seat, in seat order.
        player = legal_moves(self.state)[0].player
        assert player is not None  # a legal move always names its player
        return self.state.seat_of[player]

    # --- chance -------------------------------------------------------------------------
    def chance_outcomes(self) -> list[tuple[int, float]]:
        if len(self.lists_dealt) < len(self.names):
            left = [i for i in range(len(GIFT_LIST_DECK)) if i not in self.lists_dealt]
        elif self.in_deal():
            dealt = set(self.cards_dealt)
            left = [i for i, card in enumerate(ALL_CARDS) if card not in dealt]
        elif self.opening is not None:  # a gift brought unseen turns out to be any card not yet met
            left = [i for i, card in enumerate(ALL_CARDS) if card not in self.state.seen]
        else:  # a chance move of the rules: its outcomes, in the order the core lists them
            return [(outcome, chance) for outcome, (_, chance) in enumerate(chance_outcomes(self.state))]
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
        if self.in_deal():
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
        if self.opening is not None:
            player, self.opening = self.opening, None
            data = {"party": self.state.party, "player": player, "card": ALL_CARDS[outcome]}
            self._record("gift_opened", data)
            return
        self._record(*move_event(self.state, chance_outcomes(self.state)[outcome][0]))

    def chance_name(self, outcome: int) -> str:
        """A chance outcome in words, at this chance node."""
        if not (self.in_deal() or self.opening is not None):
            outcomes = chance_outcomes(self.state)
            if 0 <= outcome < len(outcomes):
                kind, data = move_event(self.state, outcomes[outcome][0])
                return f"chance: {kind} {data}"
        return f"chance {outcome}"

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
        """The action number of a legal move now (of the player to act)."""
        return ACTION_BLOCKS[move.TYPE].first + self._choice_of(move)

    def _choice_of(self, move: Move) -> int:
        state = self.state
        if is_chance(move):
            raise ValueError("chance is nobody's action: its outcomes are a chance node's")
        match move:
            case Bring():
                return len(ALL_CARDS) if move.card is None else CARD_ORDER[move.card]
            case Open():
                return MAX_PLAYERS if move.card is None else state.face_down.index(move.card)
            case Steal():
                return state.seat_of[move.from_player]
            case Swap():
                return 0 if move.with_player is None else 1 + state.seat_of[move.with_player]
            case _:
                assert_never(move)

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
        if isinstance(move, Open) and move.card is None:
            self.opening = self.names[self.current()]  # chance says which card it turns out to be
            return
        # The event the move makes in this phase, as its kind declares it (a swap is a final
        # swap or a swap after an open by the phase it is made in).
        self._record(*move_event(self.state, move))

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
            return self.chance_name(action)
        block = next((b for b in ACTION_BLOCKS.values() if b.first <= action < b.first + b.size), None)
        if block is None:
            return f"action {action}"
        return _named(block.move, action - block.first)

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


def _named(move: ChosenMoveType, choice: int) -> str:
    """An action in words, from its kind of move and its place in that kind's block."""
    match move:
        case "bring":
            return "bring a gift unseen" if choice == len(ALL_CARDS) else f"bring {ALL_CARDS[choice]}"
        case "open":
            return (
                "open a gift brought unseen" if choice == MAX_PLAYERS else f"open face-down gift {choice + 1}"
            )
        case "steal":
            return f"steal from {DEFAULT_NAMES[choice]}"
        case "swap":
            return "keep" if choice == 0 else f"swap with {DEFAULT_NAMES[choice - 1]}"
        case _:
            assert_never(move)
