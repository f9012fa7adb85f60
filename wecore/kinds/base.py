"""What every kind of event is declared with: the phases, the closed sets of event and move
types, a payload's fields and their JSON shapes, and `Kind` itself. Each kind is declared in its
own module of this package and gathered, in order, by the registry (`wecore.kinds`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from wecore.state import GameState

# Each seat's gift of the party, as the move's outcome leaves them (None: no gift held).
Holding = tuple[str | None, ...]

# A kind's behaviour, held by the kind where its own module writes it (every kind of move: its
# one file). Its effect: the state after an event of the kind, from the payload's fields in order
# (RuleViolation when the rules refuse it). Its story: one sentence for an event (the event, the
# state before and after, the viewer, whether told to all), and a short phrase (the event, the
# viewer, whether told to all). Events are typed Any here: their models load pydantic, which
# this package must not.
Effect = Callable[..., "GameState"]
Telling = Callable[[Any, "GameState", "GameState", str | None, bool], str]
Gist = Callable[[Any, str | None, bool], str]
# Why a chance move's roller may not report this outcome now (None: allowed).
ChanceRefusal = Callable[["GameState", str, int], str | None]


class Phase(StrEnum):
    """Where a game stands; each phase's moves are the kinds declared with it (KINDS)."""

    NOT_STARTED = "not started"
    SETTING_UP = "setting up"
    BRINGING = "bringing"
    PLAYING = "playing"
    KEEP_OR_SWAP = "keep or swap"  # a house rule's: a gift was just opened; its opener decides
    FINAL_SWAP = "final swap"  # a house rule's: the party's gifts are all open; its starter decides
    ROLLING = "rolling"  # a chance rule's party end: its starter rolls the die
    OVER = "over"


EventType = Literal[
    "game_started",
    "gift_lists_dealt",
    "attics_dealt",
    "gift_brought",
    "gift_opened",
    "gift_stolen",
    "swap_after_open",
    "final_swap",
    "die_rolled",
    "event_voided",
    "tie_broken",
    "note",
]
EVENT_TYPE_NAMES: tuple[EventType, ...] = get_args(EventType)

# "swap" is a decision to keep the gift held or exchange it with another player's; which event
# records it depends on the phase it is made in (see KINDS).
# The moves a player chooses among, and the moves nobody chooses (chance: a kind with outcomes;
# the registry checks that each kind's move is in the right one).
ChosenMoveType = Literal["bring", "open", "steal", "swap"]
ChanceMoveType = Literal["roll"]
MoveType = Literal[ChosenMoveType, ChanceMoveType]
MOVE_TYPE_NAMES: tuple[MoveType, ...] = get_args(MoveType)
CHOSEN_MOVE_NAMES: tuple[ChosenMoveType, ...] = get_args(ChosenMoveType)


class Shape(StrEnum):
    """The JSON shape of a payload field."""

    PARTY = "party"  # an int: the party the event belongs to
    INT = "int"
    TEXT = "text"
    NAME = "name"  # a player's name, in NFC
    NAME_OR_NULL = "name or null"
    CARD = "card"  # a card in notation ("R7", any case in the log; canonical once read)
    CARD_OR_NULL = "card or null"
    # Set-up payloads, each read by its own code.
    NAMES = "names"
    OPTIONS = "options"
    TEXT_OR_ABSENT = "text, or absent"
    LISTS = "colour names by player"
    ATTICS = "cards by player"

    @property
    def nullable(self) -> bool:
        return self in (Shape.NAME_OR_NULL, Shape.CARD_OR_NULL)


@dataclass(frozen=True, slots=True)
class Field:
    key: str  # in the log
    attr: str  # on the event model and the move ("from" is `from_player`)
    shape: Shape


@dataclass(frozen=True, slots=True)
class Kind:
    """One event type: what it records and how its payload is laid out.

    A kind's nullable fields are null together or set together (a keep: `with` and `takes`
    both null), which the model and the fast path both hold it to.
    """

    type: EventType
    fields: tuple[Field, ...]
    move: MoveType | None = None  # the move this event records; None: not a player's move
    phase: Phase | None = None  # the phase that move is made in
    option: str | None = None  # the house rule without which it is refused
    style: str = ""  # how the replay page's timeline marks it (a CSS class)
    # What a card's history (wecore.claims) calls an exchange of this kind; {party} is its party.
    called: str = ""
    when: str = ""  # for a move shared by several kinds: when this one is made, in words
    # A step of a party's end: made by its starter once the last gift is open (and its keep or
    # swap made), in the order the registry declares them, each while its house rule is on.
    closes_party: bool = False
    # A move nobody chooses (a die): its outcomes, equally likely (legal_moves lists them, and
    # wecore.moves.chance_outcomes gives each its chance); () for a move a player chooses.
    outcomes: tuple[int, ...] = ()
    # A chance move's effect on the party's gifts, given its outcome (a die's pass on a 6).
    passes_gifts: Callable[[Holding, int], Holding] | None = None
    # What the game waits for in this kind's phase, in words ({party}, {starter}, {mover}):
    # why nobody can do anything else now (wecore.rules.not_now).
    awaited: str = ""
    # What a move of this kind is, in words ("a final swap"), for a refusal naming it.
    named: str = ""
    # How the recorder types a move of a kind it reads generically (a chance move: `roll N`),
    # and its help line; "" for the printed moves and swaps, whose words the recorder spells out.
    typed: str = ""
    typed_help: str = ""
    # A decision's phase, in words for the turn (wecore.turns): its title ("Final swap") and who
    # decides and why ({party}, {starter}, {mover}); "" for a kind whose phase is no decision.
    decision_title: str = ""
    decision: str = ""
    # A decision's refusal of anyone but the one deciding ({party}, {starter}, {mover}, {player}),
    # and whether a gift locked (just stolen or swapped) may not be taken by it.
    only_decider: str = ""
    respects_locks: bool = False
    # A step of a party's end, as the move before it tells what comes next ({party}, {starter}).
    next_step: str = ""
    # How its phase is worded where someone acts in it (wecore.turns.worded's `acting`): the
    # page's label before who acts ("To swap or keep") and their seat's badge ("may swap"); the
    # recorder's choice after the decision ("`swap PLAYER`, or `keep`"), its hint after a
    # refusal, following the actor's name ("can keep their gift (`keep`)"), and its prompt,
    # following it too ("may swap (swap NAME / keep)"). Required of every kind with a decision.
    acting_label: str = ""
    acting_badge: str = ""
    typed_choice: str = ""
    typed_hint: str = ""
    typed_prompt: str = ""
    # The behaviour its own module writes (required of every kind of move, by the registry);
    # None: a kind that records no move, whose behaviour the core holds (the reducer,
    # wecore.narrate), each checked at import to cover every kind.
    effect: Effect | None = None
    telling: Telling | None = None
    gist: Gist | None = None
    chance_refusal: ChanceRefusal | None = None
    # How the API's body names this kind's card another way: the key of a face-down gift's place
    # on the table (from 1, as the key's view shows them) standing for the card; "" for none.
    by_place: str = ""
    # A chance move's words on a page's button: made with its outcome drawn by the server ("Roll
    # the die"), and made with the one the host records ("Record a roll of {outcome}").
    drawn_label: str = ""
    recorded_label: str = ""
    # Why a seat's key may not give a chance move's outcome (the API's 403): the server draws it.
    drawn_by_server: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(f.key for f in self.fields)

    @property
    def attrs(self) -> tuple[str, ...]:
        return tuple(f.attr for f in self.fields)


PARTY = Field("party", "party", Shape.PARTY)
PLAYER = Field("player", "player", Shape.NAME)
# The payload of every kind of "swap": a decision to keep (both null) or exchange.
EXCHANGE = (
    PARTY,
    PLAYER,
    Field("with", "with_player", Shape.NAME_OR_NULL),
    Field("takes", "takes", Shape.CARD_OR_NULL),
)
