"""The event types of log format v1, one frozen pydantic model each.

`parse_event(type, data)` turns a payload into a model (EventSchemaError when its
shape is wrong); `event_payload(event)` gives the exact payload dict back.
Shape only: whether an event is allowed at its point in the game is the reducer's job.
The types are declared in `wecore.kinds`; `AnyEvent` is their models, one per type, with
their fields in the declared order (checked at import).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from wecore.cards import parse_card
from wecore.errors import CardNotationError, EventSchemaError, shown
from wecore.kinds import KINDS, EventType, union_refusal
from wecore.rulesets import option_shape_error


def nfc(name: str) -> str:
    """Names are compared after Unicode NFC, so 'Zoë' typed two ways is one person."""
    return unicodedata.normalize("NFC", name)


def _card(text: str) -> str:
    try:
        return parse_card(text)
    except CardNotationError as exc:
        raise ValueError(str(exc)) from None


# A name in a payload is read code point for code point, never normalised (log-format "Names"):
# "Zoë" composed and "Zoë" decomposed are two names, as every reader that follows the format reads
# them. Writers refuse a set of players a person cannot tell apart (wecore.names).
Name = StrictStr
# A key of a payload keyed by player (`lists`, `attics`) is kept exactly as written, never
# normalised: two keys that are one name after NFC would otherwise merge into one, and a deal
# of one player's cards twice would pass for a deal to everyone. The reducer requires each key
# to be a player's name exactly.
PlayerKey = StrictStr
Card = Annotated[StrictStr, AfterValidator(_card)]
ColourName = Literal["red", "orange", "yellow", "green", "blue"]


class Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)
    TYPE: ClassVar[EventType]

    def payload(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


class GameStarted(Event):
    TYPE: ClassVar[EventType] = "game_started"
    players: tuple[Name, ...]
    dealer: Name
    ruleset: StrictStr
    options: dict[StrictStr, Any]
    title: StrictStr | None = None

    @field_validator("options")
    @classmethod
    def _option_shapes(cls, options: dict[str, Any]) -> dict[str, Any]:
        # Unknown options, wrong JSON types and a positive integer given 0 or less are shape errors;
        # what a well-shaped value means for this table (50 cards, counts 3-7) is the ruleset's job.
        for key, value in options.items():
            error = option_shape_error(key, value)
            if error is not None:
                raise ValueError(error)
        return options

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "players": list(self.players),
            "dealer": self.dealer,
            "ruleset": self.ruleset,
            "options": self.options,
        }
        if self.title is not None:
            data["title"] = self.title
        return data


class GiftListsDealt(Event):
    TYPE: ClassVar[EventType] = "gift_lists_dealt"
    lists: dict[PlayerKey, tuple[ColourName, ...]]

    def payload(self) -> dict[str, Any]:
        return {"lists": {name: list(colours) for name, colours in self.lists.items()}}


class AtticsDealt(Event):
    TYPE: ClassVar[EventType] = "attics_dealt"
    attics: dict[PlayerKey, tuple[Card, ...]]

    def payload(self) -> dict[str, Any]:
        return {"attics": {name: list(cards) for name, cards in self.attics.items()}}


class GiftBrought(Event):
    TYPE: ClassVar[EventType] = "gift_brought"
    party: StrictInt
    player: Name
    card: Card | None


class GiftOpened(Event):
    TYPE: ClassVar[EventType] = "gift_opened"
    party: StrictInt
    player: Name
    card: Card


class GiftStolen(Event):
    TYPE: ClassVar[EventType] = "gift_stolen"
    party: StrictInt
    player: Name
    from_player: Name = Field(alias="from")
    card: Card


class Exchange(Event):
    """A decision to keep the gift held (`with` and `takes` null) or to exchange it for `takes`,
    the gift `with` holds: the payload of every kind of "swap" move."""

    party: StrictInt
    player: Name
    with_player: Name | None = Field(alias="with")
    takes: Card | None

    @model_validator(mode="after")
    def _both_or_neither(self) -> Exchange:
        if (self.with_player is None) != (self.takes is None):
            raise ValueError("'with' and 'takes' are both null (the player keeps) or both set")
        return self


class SwapAfterOpen(Exchange):
    """Under its house rule (wecore.kinds.swap_after_open): the opener swaps the gift just
    opened for `takes`, the gift `with` holds, or (both null) keeps it."""

    TYPE: ClassVar[EventType] = "swap_after_open"


class FinalSwap(Exchange):
    """Under its house rule (wecore.kinds.final_swap): the starter swaps with `with`, taking
    `takes`, or (both null) keeps."""

    TYPE: ClassVar[EventType] = "final_swap"


class DieRolled(Event):
    """Under a chance rule: the party's starter rolls the die, `value` its face (1 to 6 is the
    rules' to say; the shape is a JSON integer)."""

    TYPE: ClassVar[EventType] = "die_rolled"
    party: StrictInt
    player: Name
    value: StrictInt


class EventVoided(Event):
    TYPE: ClassVar[EventType] = "event_voided"
    voids: StrictInt
    reason: StrictStr


class TieBroken(Event):
    TYPE: ClassVar[EventType] = "tie_broken"
    winner: Name
    reason: StrictStr


class Note(Event):
    TYPE: ClassVar[EventType] = "note"
    text: StrictStr


AnyEvent = (
    GameStarted
    | GiftListsDealt
    | AtticsDealt
    | GiftBrought
    | GiftOpened
    | GiftStolen
    | SwapAfterOpen
    | FinalSwap
    | DieRolled
    | EventVoided
    | TieBroken
    | Note
)
EVENT_TYPES: dict[str, type[AnyEvent]] = {model.TYPE: model for model in get_args(AnyEvent)}


def _declared_keys(model: type[Event]) -> tuple[str, ...]:
    return tuple(info.alias or name for name, info in model.model_fields.items())


_AnyEvent_refusal = union_refusal("wecore.events: AnyEvent", set(EVENT_TYPES), list(KINDS))
if _AnyEvent_refusal is not None:
    raise ImportError(_AnyEvent_refusal)
_misordered = [
    model.TYPE for model in EVENT_TYPES.values() if _declared_keys(model) != KINDS[model.TYPE].keys
]
if _misordered:
    raise ImportError(
        f"wecore.events: the model of {', '.join(_misordered)} must have its kind's fields in order"
    )


# Field names that differ from their JSON names (`from_player` is written "from").
_PYTHON_ONLY_NAMES: dict[type[Event], tuple[str, ...]] = {
    model: tuple(
        name for name, info in model.model_fields.items() if info.alias is not None and info.alias != name
    )
    for model in EVENT_TYPES.values()
}


def parse_event(event_type: object, data: object) -> AnyEvent:
    """The model for one payload; EventSchemaError says which field is wrong and how."""
    model = EVENT_TYPES.get(event_type) if isinstance(event_type, str) else None
    if model is None:
        raise EventSchemaError(
            f"unknown event type {shown(event_type)}: expected one of {', '.join(EVENT_TYPES)}"
        )
    if not isinstance(data, dict):
        raise EventSchemaError(f"{event_type}: data must be an object")
    if model is GameStarted and "title" in data and data["title"] is None:
        # In the log the title is absent or text; null is a shape error, not "no title".
        raise EventSchemaError("game_started: field 'title': must be text when present")
    for name in _PYTHON_ONLY_NAMES[model]:
        if name in data:
            # populate_by_name is for Python callers; in the log only the alias ("from") is a field.
            raise EventSchemaError(f"{event_type}: unknown field {shown(name)}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise EventSchemaError(f"{event_type}: {_first_error(exc)}") from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"unknown field {shown(where)}"
    if error["type"] == "missing":
        return f"missing field {shown(where)}"
    message = error["msg"].removeprefix("Value error, ")
    return f"field {shown(where)}: {message}" if where else message


def event_payload(event: Event) -> tuple[str, dict[str, Any]]:
    """(type, data) exactly as the log writes them."""
    return event.TYPE, event.payload()
