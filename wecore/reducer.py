"""The rules reducer: `evolve(state, event) -> state`, strict about every rule in rules.md.

An illegal event raises RuleViolation with the rule in a player's words. Voided events
are handled by restoring the state before them, so a folded log is exactly the game as
if they never happened.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from wecore.cards import Colour
from wecore.errors import RulesetError, RuleViolation, shown
from wecore.kinds import CLOSING, EVENT_TYPE_NAMES, KINDS, EventType, Kind, bring, open, steal
from wecore.kinds.bring import bring_gift as bring_gift
from wecore.kinds.open import open_gift as open_gift
from wecore.kinds.steal import steal_gift as steal_gift
from wecore.names import not_a_player
from wecore.rules import (
    decision_refusal,
    not_now,
    swap_refusal,
    turn_refusal,
)
from wecore.rulesets import make_ruleset
from wecore.state import INITIAL_STATE, GameState, PartyCounts, Phase, state_from_fields

if TYPE_CHECKING:
    # Events are dispatched by their TYPE name, so folding raw payloads through the rule
    # functions below (the audit) never has to load pydantic.
    from wecore.events import Event

MAX_NAME_LENGTH = 32
T = TypeVar("T")
MAX_TITLE_LENGTH = 200


def evolve(state: GameState, event: Event) -> GameState:
    """The state after `event`; RuleViolation if the rules do not allow it here."""
    # By the event's class: cheaper than reading its TYPE through pydantic's attribute hook.
    handler = _HANDLER_OF_CLASS.get(type(event))
    if handler is None:
        handler = _handler_of(event)
    if state.phase is NOT_STARTED and handler is not _START:
        raise RuleViolation(f"a log must begin with game_started, not {event.TYPE}")
    return handler(state, event)


def _handler_of(event: Event) -> Handler:
    handler = _HANDLERS.get(getattr(event, "TYPE", None))  # type: ignore[arg-type]
    if handler is None:
        raise RuleViolation(f"no rule handles events of type {type(event).__name__}")
    _HANDLER_OF_CLASS[type(event)] = handler
    return handler


def fold(events: Iterable[Event], state: GameState = INITIAL_STATE) -> GameState:
    for event in events:
        state = evolve(state, event)
    return state


def _in_effect(before: GameState, changes: dict[str, object]) -> GameState:
    """`before` with `changes`, as the newest event in effect, so an undo can restore `before`."""
    values = successor(before)
    values.update(changes)
    return state_from_fields(values)


# The hot rule functions (the printed moves': wecore/kinds/bring.py, open.py, steal.py) do what
# `successor` does, written out in each (a call per event is 1-2% of a fold), write into the copy
# and hand it to `state_from_fields`: one dict copy and one object per event, no intermediate
# dict of changes. This is the inner loop of every replay and audit.


def successor(before: GameState) -> dict[str, Any]:
    """A copy of `before`'s fields for the state after one more event in effect."""
    values = before.__dict__.copy()
    seq = values["seq"] + 1
    values["seq"] = seq
    values["undo"] = (seq, before)
    return values


# Enum members looked up on the class cost an attribute walk each time; these are plain globals.
NOT_STARTED, SETTING_UP, BRINGING, PLAYING, KEEP_OR_SWAP, FINAL_SWAP, OVER = (
    Phase.NOT_STARTED,
    Phase.SETTING_UP,
    Phase.BRINGING,
    Phase.PLAYING,
    Phase.KEEP_OR_SWAP,
    Phase.FINAL_SWAP,
    Phase.OVER,
)

# The phases in which a party is over but for its starter's steps (a final swap, a roll).
CLOSING_PHASES = frozenset(kind.phase for kind in CLOSING)


def player_seat(state: GameState, name: str) -> int:
    """The seat of `name`, who must be a player (RuleViolation otherwise)."""
    seat = state.seat_of.get(name)
    if seat is None:
        raise RuleViolation(not_a_player(name, state.players))
    return seat


def _dealt_seat(state: GameState, key: str, dealt: Sequence[object | None], what: str) -> int:
    """The seat of a key of `lists` or `attics` (a player's name exactly, as every name is
    compared), dealt once."""
    seat = player_seat(state, key)
    if dealt[seat] is not None:
        raise RuleViolation(f"{key!a} is dealt a {what} twice: {shown(state.players[seat])} has one already")
    return seat


def check_decision(
    state: GameState, kind: Kind, party: int, player: str, with_player: str | None, takes: str | None
) -> None:
    """A keep-or-swap decision (`kind`: a final swap or a swap after an open) is due now, from
    `player`, in this party, and names a gift `player` may take (or none, to keep)."""
    refusal = decision_refusal(state, kind)
    if refusal is not None:
        raise RuleViolation(refusal)
    player_seat(state, player)
    check_party(state, party)
    refusal = swap_refusal(state, player, with_player, takes)
    if refusal is not None:
        raise RuleViolation(refusal)


def check_party(state: GameState, party: int) -> None:
    if party != state.party:
        raise RuleViolation(f"wrong party: this is party {state.party}, not party {party}")


# --- set-up ---------------------------------------------------------------------------


def start_game(
    state: GameState,
    players: tuple[str, ...],
    dealer: str,
    ruleset_name: str,
    options: Mapping[str, Any],
    title: str | None,
) -> GameState:
    """`game_started` from its fields."""
    if state.phase is not Phase.NOT_STARTED:
        raise RuleViolation("the game has already started: game_started comes once, first")
    try:
        ruleset = make_ruleset(ruleset_name, options, len(players))
    except RulesetError as exc:
        raise RuleViolation(str(exc)) from None
    seen_names: set[str] = set()
    for name in players:
        if not 1 <= len(name) <= MAX_NAME_LENGTH:
            raise RuleViolation(f"player name {shown(name)} must be 1 to {MAX_NAME_LENGTH} characters")
        if name != name.strip():
            raise RuleViolation(f"player name {shown(name)} has a leading or trailing space")
        folded = name.casefold()
        if folded in seen_names:
            raise RuleViolation(f"two players are called {name!r} (names must differ in more than case)")
        seen_names.add(folded)
    if dealer not in players:
        raise RuleViolation(f"the dealer {shown(dealer)} is not one of the players")
    if title is not None and len(title) > MAX_TITLE_LENGTH:
        raise RuleViolation(f"the title is longer than {MAX_TITLE_LENGTH} characters")
    count = len(players)
    values = state.__dict__.copy()
    values.update(
        phase=SETTING_UP,
        players=players,
        seat_of=MappingProxyType({name: seat for seat, name in enumerate(players)}),
        dealer=dealer,
        title=title,
        ruleset=ruleset,
        attic_size=ruleset.attic_size(count),
        kept=((),) * count,
        **_fresh_party(count),
        seq=state.seq + 1,
        undo=None,  # log-format.md: game_started can never be voided, so it is no undo entry
    )
    return state_from_fields(values)


def deal_lists(state: GameState, gift_lists: Mapping[str, Sequence[str]]) -> GameState:
    """`gift_lists_dealt` from its field: colour names by player."""
    if state.phase is not Phase.SETTING_UP:
        raise RuleViolation("the gift lists have already been dealt")
    lists: list[tuple[Colour, ...] | None] = [None] * len(state.players)
    triples: dict[frozenset[str], str] = {}
    for name, colours in gift_lists.items():
        seat = _dealt_seat(state, name, lists, "gift list")
        triple = frozenset(colours)
        if len(colours) != 3 or len(triple) != 3:
            raise RuleViolation(f"{name}'s gift list must have three different colours")
        if triple in triples:
            raise RuleViolation(f"{triples[triple]} and {name} cannot hold the same gift list")
        triples[triple] = name
        lists[seat] = tuple([_COLOUR_NAMED[c] for c in colours])
    missing = [state.players[seat] for seat, colours in enumerate(lists) if colours is None]
    if missing:
        raise RuleViolation(f"no gift list was dealt to {', '.join(missing)}")
    starter = first_starter(state.players, state.dealer)  # type: ignore[arg-type]
    return _in_effect(state, {"phase": BRINGING, "lists": tuple(lists), "party": 1, "starter": starter})


def first_starter(players: tuple[str, ...], dealer: str) -> int:
    """The seat that starts party 1: the player to the dealer's left."""
    return (players.index(dealer) + 1) % len(players)


# Colour(name) goes through the Enum machinery; a dict lookup is what a fold wants. The payload
# was validated (model or fast path), so every name is a colour's.
_COLOUR_NAMED: dict[str, Colour] = {colour.value: colour for colour in Colour}


def deal_attics(state: GameState, attics_by_player: Mapping[str, Sequence[str]]) -> GameState:
    """`attics_dealt` from its field: canonical cards by player."""
    if state.attics is not None:
        raise RuleViolation("the attics have already been dealt")
    if state.phase is not Phase.BRINGING or state.party != 1 or any(state.brought):
        raise RuleViolation("attics are dealt right after the gift lists, before any gift is brought")
    attics: list[frozenset[str] | None] = [None] * len(state.players)
    dealt: set[str] = set()
    for name, cards in attics_by_player.items():
        seat = _dealt_seat(state, name, attics, "attic")
        if len(cards) != state.attic_size:
            raise RuleViolation(
                f"{name}'s attic has {len(cards)} cards; with {len(state.players)} players"
                f" each attic has {state.attic_size}"
            )
        for card in cards:
            if card in dealt:
                raise RuleViolation(f"{card} is dealt twice")
            dealt.add(card)
        attics[seat] = frozenset(cards)
    missing = [state.players[seat] for seat, cards in enumerate(attics) if cards is None]
    if missing:
        raise RuleViolation(f"no attic was dealt to {', '.join(missing)}")
    return _in_effect(state, {"attics": tuple(attics), "seen": frozenset(dealt)})


# --- a party ------------------------------------------------------------------------


def refuse_mover(state: GameState, player: str, party: int, action: str) -> NoReturn:
    """Refuse a move of a party by `player`, who may not make one now: not a player, the wrong
    party, or not their turn (the printed moves' effects call it once their inlined turn fails)."""
    player_seat(state, player)
    if state.phase is PLAYING:
        check_party(state, party)
    raise RuleViolation(turn_refusal(state, player, action) or not_now(state, action))


def after_open(
    state: GameState,
    values: dict[str, Any],
    holding: tuple[str | None, ...],
    seen: frozenset[str],
    gifts_left: object,
) -> GameState:
    """The state `values` describe once a gift is open and, under the keep-or-swap rule, kept
    or swapped: the next player to move, the starter's final swap, or the party's end. `state`
    is the one before the event; `values` already hold `holding` and `seen`, and `gifts_left`
    is true while a gift is still face down (passed, as this is the fold's inner loop)."""
    if not gifts_left:
        return _close_party(state, values, holding, seen, 0)
    values["to_move"] = _first_without_gift(holding, state.starter)  # type: ignore[arg-type]
    return state_from_fields(values)


def _close_party(
    state: GameState, values: dict[str, Any], holding: tuple[str | None, ...], seen: frozenset[str], step: int
) -> GameState:
    """The state `values` describe once every gift is open and the party's end steps before
    `step` are made: the next step whose house rule is on (its starter's final swap, then the
    roll of the die), or the party's end."""
    ruleset = state.ruleset
    for kind in CLOSING[step:]:
        if getattr(ruleset, kind.option):  # type: ignore[arg-type]
            values["phase"] = kind.phase
            values["to_move"] = state.starter
            return state_from_fields(values)
    return _end_party(state, holding, seen)


NOTHING_LOCKED: frozenset[str] = frozenset()


def _first_without_gift(holding: tuple[str | None, ...], starter: int) -> int | None:
    """The first seat from `starter` on, round the table, that holds no gift."""
    if None not in holding:
        return None
    try:
        return holding.index(None, starter)
    except ValueError:
        return holding.index(None)


def _end_party(state: GameState, holding: tuple[str | None, ...], seen: frozenset[str]) -> GameState:
    """The state after the open that ends a party: every held gift is kept."""
    count = len(holding)
    kept = state.kept
    values = successor(state)
    values.update(_fresh_party(count))
    values["kept"] = tuple([(*kept[seat], holding[seat]) for seat in range(count)])
    values["seen"] = seen
    if state.party >= state.attic_size:
        values["phase"] = OVER
    else:
        values["phase"] = BRINGING
        values["party"] = state.party + 1
        values["starter"] = (state.starter + 1) % count  # type: ignore[operator]
    return state_from_fields(values)


NEW_PARTY_COUNTS = PartyCounts()


@functools.cache
def _fresh_party(count: int) -> dict[str, object]:
    """What every party starts with at a table of `count`: nothing brought, held, locked or
    counted."""
    return {
        "face_down": (),
        "unseen_face_down": 0,
        "holding": (None,) * count,
        "brought": (False,) * count,
        "brought_cards": (None,) * count,
        "locked": NOTHING_LOCKED,
        "frozen": NOTHING_LOCKED,
        "counts": NEW_PARTY_COUNTS,
        "to_move": None,
    }


def after_closing_step(state: GameState, kind: Kind, holding: tuple[str | None, ...]) -> GameState:
    """The state after `kind`, a step of the party's end, left the party's gifts as `holding`."""
    values = successor(state)
    values["holding"] = holding
    return _close_party(state, values, holding, state.seen, CLOSING.index(kind) + 1)


# --- after the game, and at any time ------------------------------------------------


def break_tie(state: GameState, winner: str, reason: str) -> GameState:
    """`tie_broken` from its fields."""
    seat = player_seat(state, winner)
    if state.phase is not Phase.OVER:
        if (state.phase is KEEP_OR_SWAP or state.phase in CLOSING_PHASES) and state.party >= state.attic_size:
            raise RuleViolation(not_now(state, "break a tie"))
        raise RuleViolation("a tie can only be broken after the last party")
    if state.tie_winner is not None:
        raise RuleViolation(f"the tie was already broken in favour of {state.tie_broken_by}")
    from wecore.scoring import tied_leaders

    leaders = tied_leaders(state)
    if len(leaders) < 2:
        raise RuleViolation(f"there is no tie to break: {leaders[0]} has the top score alone")
    if winner not in leaders:
        raise RuleViolation(f"{winner} is not among the tied leaders ({', '.join(leaders)})")
    return _in_effect(state, {"tie_winner": seat, "tie_reason": reason})


def void_event(state: GameState, voids: int, reason: str = "") -> GameState:
    """`event_voided`: back to the state before the latest event in effect, which must be `voids`."""
    if state.undo is None:
        raise RuleViolation("there is no event to void")
    latest, before = state.undo
    if voids != latest:
        raise RuleViolation(f"event {voids} cannot be voided: the latest event still in effect is {latest}")
    return before.replace(seq=state.seq + 1)


def add_note(state: GameState, text: str = "") -> GameState:
    """A note changes nothing but the count of events folded."""
    return state.replace(seq=state.seq + 1)


def set_seat(values: tuple[T, ...], seat: int, value: T) -> tuple[T, ...]:
    changed = list(values)
    changed[seat] = value
    return tuple(changed)


RuleFunction = Callable[..., GameState]
Handler = Callable[[GameState, Any], GameState]


# The rule functions of the kinds that record no move: the set-up, voids, ties and notes. Every
# kind of move carries its own (`effect`), in its own module.
_CORE_RULES: Mapping[EventType, RuleFunction] = MappingProxyType(
    {
        "game_started": start_game,
        "gift_lists_dealt": deal_lists,
        "attics_dealt": deal_attics,
        "event_voided": void_event,
        "tie_broken": break_tie,
        "note": add_note,
    }
)


def rule_of(kind: EventType) -> RuleFunction:
    """The rule function of an event type: the state after an event of that type, from its
    payload's fields in the order `wecore.kinds` declares them (RuleViolation when the rules do
    not allow it). The fast path, the bots and `evolve` all fold through these."""
    effect = KINDS[kind].effect
    return _CORE_RULES[kind] if effect is None else effect


if any((KINDS[kind].effect is None) == (kind not in _CORE_RULES) for kind in EVENT_TYPE_NAMES):
    raise ImportError("wecore.reducer: every kind has one rule function: its own effect, or the core's")

RULES: Mapping[EventType, RuleFunction] = MappingProxyType({kind: rule_of(kind) for kind in EVENT_TYPE_NAMES})


def _model_handler(kind: Kind) -> Handler:
    """Folds an event model of `kind` by its rule function, reading its fields as declared."""
    rule, names = RULES[kind.type], kind.attrs
    # One closure per arity: reading each field by a name held in the closure costs about two
    # thirds of an itemgetter's tuple spread into the call, and this runs once per event folded.
    match names:
        case (a,):
            return lambda state, event: rule(state, event.__dict__[a])
        case (a, b):

            def handler2(state: GameState, event: Any) -> GameState:
                fields = event.__dict__
                return rule(state, fields[a], fields[b])

            return handler2
        case (a, b, c):

            def handler3(state: GameState, event: Any) -> GameState:
                fields = event.__dict__
                return rule(state, fields[a], fields[b], fields[c])

            return handler3
        case (a, b, c, d):

            def handler4(state: GameState, event: Any) -> GameState:
                fields = event.__dict__
                return rule(state, fields[a], fields[b], fields[c], fields[d])

            return handler4
        case _:
            get = operator.itemgetter(*names)
            return lambda state, event: rule(state, *get(event.__dict__))


# The printed moves fold with the core's machinery above: it is bound into their modules once,
# here (they are imported before the core, which imports them), so each event of a fold runs the
# same code as if it were written in this module.
for _printed in (bring, open, steal):
    _printed.take_core()

_HANDLERS: dict[str, Handler] = {kind.type: _model_handler(kind) for kind in KINDS.values()}
_START = _HANDLERS["game_started"]
_HANDLER_OF_CLASS: dict[type, Handler] = {}
