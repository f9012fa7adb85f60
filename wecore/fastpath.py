"""The fast path: payloads folded by the rule functions without building an event model.

Most of an archive is brings, opens and steals written exactly as a good writer writes them.
For those, checking the shape by hand and calling the rule directly skips building a model.
Each test accepts only payloads the pydantic model certainly accepts unchanged (exact keys,
exact JSON types, a card in notation, a name already in NFC) and returns None for anything
else, which then takes the model's path, where a schema problem is worded. Every log read is
folded this way (`conformance`), and the bots fold their own games this way;
`tests/core/test_fast_path.py` holds every event type's fast check to its model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from unicodedata import is_normalized as _is_normalized

from wecore.cards import CARD_SPELLINGS, Colour
from wecore.kinds import KINDS, Kind, Shape
from wecore.kinds.bring import bring_gift
from wecore.kinds.open import open_gift
from wecore.kinds.steal import steal_gift
from wecore.reducer import RULES, deal_attics, deal_lists, start_game
from wecore.rulesets import option_shape_error
from wecore.state import GameState


def _fast_brought(state: GameState, data: dict[str, Any]) -> GameState | None:
    if len(data) == 3:
        try:
            party, player, card = data["party"], data["player"], data["card"]
        except KeyError:
            return None
        if type(party) is int and type(player) is str and (player.isascii() or _is_normalized("NFC", player)):
            if card is None:
                return bring_gift(state, party, player, None)
            if type(card) is str:
                card = _CANONICAL.get(card)
                if card is not None:
                    return bring_gift(state, party, player, card)
    return None


def _fast_opened(state: GameState, data: dict[str, Any]) -> GameState | None:
    if len(data) == 3:
        try:
            party, player, card = data["party"], data["player"], data["card"]
        except KeyError:
            return None
        if (
            type(party) is int
            and type(player) is str
            and type(card) is str
            and (player.isascii() or _is_normalized("NFC", player))
        ):
            card = _CANONICAL.get(card)
            if card is not None:
                return open_gift(state, party, player, card)
    return None


def _fast_stolen(state: GameState, data: dict[str, Any]) -> GameState | None:
    if len(data) != 4:
        return None
    try:
        party, player, owner, card = data["party"], data["player"], data["from"], data["card"]
    except KeyError:
        return None
    if (
        type(party) is int
        and type(player) is str
        and type(owner) is str
        and type(card) is str
        and (player.isascii() or _is_normalized("NFC", player))
        and (owner.isascii() or _is_normalized("NFC", owner))
    ):
        card = _CANONICAL.get(card)
        if card is not None:
            return steal_gift(state, party, player, owner, card)
    return None


_STARTED_REQUIRED = frozenset({"players", "dealer", "ruleset", "options"})
_STARTED_FIELDS = _STARTED_REQUIRED | {"title"}
_COLOUR_NAMES = frozenset(colour.value for colour in Colour)


def _fast_started(state: GameState, data: dict[str, Any]) -> GameState | None:
    keys = data.keys()
    if not _STARTED_REQUIRED <= keys <= _STARTED_FIELDS:
        return None
    players, dealer, ruleset, options = data["players"], data["dealer"], data["ruleset"], data["options"]
    title = data.get("title")
    if (
        type(players) is not list
        or type(dealer) is not str
        or not (dealer.isascii() or _is_normalized("NFC", dealer))
        or type(ruleset) is not str
        or type(options) is not dict
        or ("title" in keys and type(title) is not str)
    ):
        return None
    for name in players:
        if type(name) is not str or not (name.isascii() or _is_normalized("NFC", name)):
            return None
    for key, value in options.items():
        if option_shape_error(key, value) is not None:
            return None
    return start_game(state, tuple(players), dealer, ruleset, options, title)


def _fast_lists(state: GameState, data: dict[str, Any]) -> GameState | None:
    lists = data.get("lists")
    if len(data) != 1 or type(lists) is not dict:
        return None
    for name, colours in lists.items():
        if not (name.isascii() or _is_normalized("NFC", name)) or type(colours) is not list:
            return None
        for colour in colours:
            if type(colour) is not str or colour not in _COLOUR_NAMES:
                return None
    return deal_lists(state, lists)


def _fast_attics(state: GameState, data: dict[str, Any]) -> GameState | None:
    attics = data.get("attics")
    if len(data) != 1 or type(attics) is not dict:
        return None
    canonical: dict[str, list[str]] = {}
    for name, cards in attics.items():
        if not (name.isascii() or _is_normalized("NFC", name)) or type(cards) is not list:
            return None
        hand = []
        for card in cards:
            card = _CANONICAL.get(card) if type(card) is str else None
            if card is None:
                return None
            hand.append(card)
        canonical[name] = hand
    return deal_attics(state, canonical)


def fast_fold(state: GameState, event_type: str, data: dict[str, Any]) -> GameState | None:
    """The state after a payload in the form a good writer writes it, folded by the rule
    functions without an event model; None for any other form (the model path must judge it).
    RuleViolation as evolve would raise it."""
    fast = fast_paths(state).get(event_type)
    return None if fast is None else fast(state, data)


def fast_paths(state: GameState) -> Mapping[str, FastFold]:
    """The fast folds by event type that apply in `state` (`fast_fold` without the call, for a
    folder that keeps the mapping while it stays the same: it changes only at game_started)."""
    # Before game_started only the model path knows to say "a log must begin with game_started".
    return _FAST_PATHS if state.players else _BEFORE_START


_ABSENT: Any = object()
_CANONICAL = CARD_SPELLINGS
FastFold = Callable[[GameState, dict[str, Any]], "GameState | None"]


def _plain_value(shape: Shape, value: Any) -> Any:
    """`value` as the model would hold it, when it certainly accepts it unchanged for `shape`
    (a card in canonical notation); _ABSENT otherwise."""
    if value is None:
        return None if shape.nullable else _ABSENT
    kind = type(value)
    if shape is Shape.PARTY or shape is Shape.INT:
        return value if kind is int else _ABSENT
    if shape is Shape.TEXT:
        return value if kind is str else _ABSENT
    if shape is Shape.NAME or shape is Shape.NAME_OR_NULL:
        return value if kind is str and (value.isascii() or _is_normalized("NFC", value)) else _ABSENT
    if shape is Shape.CARD or shape is Shape.CARD_OR_NULL:
        card = _CANONICAL.get(value) if kind is str else None
        return _ABSENT if card is None else card
    return _ABSENT  # the set-up shapes: their own fast folds, or the model


def _declared_fast_fold(kind: Kind) -> FastFold:
    """The fast fold of a kind read off its declared fields: every field present, of its JSON
    type exactly, and the nullable ones null together or set together, as the model holds them."""
    rule, fields = RULES[kind.type], tuple((f.key, f.shape) for f in kind.fields)
    nullable = sum(shape.nullable for _, shape in fields)

    def fast(state: GameState, data: dict[str, Any]) -> GameState | None:
        if len(data) != len(fields):
            return None
        values = []
        for key, shape in fields:
            value = _plain_value(shape, data.get(key, _ABSENT))
            if value is _ABSENT:
                return None
            values.append(value)
        if nullable > 1 and values.count(None) not in (0, nullable):
            return None
        return rule(state, *values)

    return fast


# Hand-written for the set-up payloads (shapes no field check reads) and for the events that are
# most of an archive (a call per field is measurable there); every other kind's is declared.
_WRITTEN: Mapping[str, FastFold] = {
    "game_started": _fast_started,
    "gift_lists_dealt": _fast_lists,
    "attics_dealt": _fast_attics,
    "gift_brought": _fast_brought,
    "gift_opened": _fast_opened,
    "gift_stolen": _fast_stolen,
}
_FAST_PATHS: Mapping[str, FastFold] = {
    kind.type: _WRITTEN.get(kind.type) or _declared_fast_fold(kind) for kind in KINDS.values()
}
_BEFORE_START: Mapping[str, FastFold] = {"game_started": _fast_started}
