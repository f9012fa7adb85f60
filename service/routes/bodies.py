"""The API's request bodies and query values: their shapes, read here rather than by FastAPI
(which would judge a body before its key), and refused in the table's words."""

from __future__ import annotations

import functools
import keyword
import operator
from typing import TYPE_CHECKING, Annotated, Any, Literal

import orjson
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from starlette.requests import ClientDisconnect

from service.clock import LONGEST_CLOCK
from service.routes.answers import ApiError
from wecore.kinds import MOVE_KINDS, MOVE_TYPE_NAMES, MoveType, kinds_of_move
from wecore.moves import MOVE_CLASSES, Move

BODY_LIMIT = 16 * 1024

_STRICT = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
# The moves the published schema has always listed first, in that order; every other kind's
# move follows them in the registry's order (wecore.kinds).
_FIRST_PUBLISHED: tuple[MoveType, ...] = ("open", "steal", "swap", "bring")
if not set(_FIRST_PUBLISHED) <= set(MOVE_TYPE_NAMES):
    raise ImportError("service.routes.bodies: the first published moves must be kinds' moves")
_PUBLISHED: tuple[MoveType, ...] = tuple(
    dict.fromkeys((*_FIRST_PUBLISHED, *(kind.move for kind in MOVE_KINDS if kind.move is not None)))
)


# The body of each kind of move, made from its class's declared fields (wecore.moves: OBJECT),
# after its "type" and "as"; a kind that names a card by a face-down gift's place (Kind.by_place)
# takes that key too.
_SHAPES: dict[str, Any] = {"text": str, "text or null": str | None, "int or null": int | None}
_PLACE = (Annotated[int, Field(ge=1)] | None, None)


def _move_body(cls: type[Move]) -> type[BaseModel]:
    fields: dict[str, Any] = {
        "type": (Literal[cls.TYPE], ...),
        "as_": (str | None, Field(None, alias="as")),
    }
    for key, _, shape, required in cls.OBJECT:
        name = f"{key}_" if keyword.iskeyword(key) else key
        default = ... if required else None
        fields[name] = (_SHAPES[shape], Field(default, alias=key) if name != key else default)
    fields.update({kind.by_place: _PLACE for kind in kinds_of_move(cls.TYPE) if kind.by_place})
    title = f"{cls.TYPE.capitalize()}Move"
    return create_model(title, __config__=_STRICT, **fields)


_CLASS_OF: dict[str, type[Move]] = {cls.TYPE: cls for cls in MOVE_CLASSES}
# By move type, in the order the API's union lists them.
MOVE_BODIES: dict[str, type[BaseModel]] = {move: _move_body(_CLASS_OF[move]) for move in _PUBLISHED}


class UndoMove(BaseModel):
    model_config = _STRICT
    type: Literal["undo"]
    reason: str | None = None


class NoteMove(BaseModel):
    model_config = _STRICT
    type: Literal["note"]
    text: Annotated[str, Field(min_length=1)]


class TieMove(BaseModel):
    model_config = _STRICT
    type: Literal["tie"]
    winner: str
    reason: str | None = None


# The records a host makes that are no player's move.
RECORD_BODIES: dict[str, type[BaseModel]] = {"undo": UndoMove, "note": NoteMove, "tie": TieMove}

if TYPE_CHECKING:
    MoveObject = Any  # made at import from the kinds' move classes: each body is read by its type
else:
    _BODIES = (*MOVE_BODIES.values(), *RECORD_BODIES.values())
    MoveObject = Annotated[functools.reduce(operator.or_, _BODIES), Field(discriminator="type")]


class MoveRequest(BaseModel):
    model_config = _STRICT
    expect: Annotated[int, Field(ge=0)]
    move: MoveObject


class NewGame(BaseModel):
    model_config = _STRICT
    players: list[str]
    dealer: str
    lists: dict[str, str] | None = None
    deal_attics: bool = False
    options: dict[str, Any] = Field(default_factory=dict)
    title: str | None = None
    # Seats a bot plays: {"Cat": "greedy"}; only with dealt attics.
    bots: dict[str, str] = Field(default_factory=dict)
    # The table clock, seconds a player has for a move (0: none); absent: the server's --clock.
    clock: Annotated[float, Field(ge=0, le=LONGEST_CLOCK)] | None = None


def _body_schema(model: Any, components: dict[str, Any]) -> dict[str, Any]:
    schema = TypeAdapter(model).json_schema(ref_template="#/components/schemas/{model}", by_alias=True)
    components.update(schema.pop("$defs", {}))
    return {"required": True, "content": {"application/json": {"schema": schema}}}


class ReceiptBody(BaseModel):
    """A seat's receipt, signed by its phone (eventstore.receipts; docs/season-format.md)."""

    model_config = _STRICT
    we_receipt: Literal[1]
    game: str
    title: str | None
    date: str | None
    player: str
    score: int
    events: Annotated[int, Field(ge=1)]
    hash: str
    fingerprint: str
    key: str | None
    signature: str | None


# The bodies' schemas, for the routes' `openapi_extra` and the schema's components (service.http):
# FastAPI cannot document a body it does not read.
COMPONENTS: dict[str, Any] = {}
MOVE_BODY = _body_schema(MoveRequest, COMPONENTS)
GAME_BODY = _body_schema(NewGame, COMPONENTS)
RECEIPT_BODY = _body_schema(ReceiptBody, COMPONENTS)


# The largest seq (a signed 64-bit integer, as the log format bounds integers).
_SEQ_MAX = 2**63 - 1
After = Annotated[int, Field(ge=0, le=_SEQ_MAX)]

# What a field must be, by pydantic's error type, in the table's words: pydantic's own messages
# ("Input should be a valid integer") are for programmers, and its wording may change.
_MUST_BE = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "greater_than_equal": "a whole number, 0 or more",
    # A number past a seq's range (after=10**24): said to be out of range, not of a kind.
    "less_than_equal": "a whole number in range (that one is out of range)",
    "int_parsing_size": "a whole number in range (that one is out of range)",
    "string_type": "a string",
    "string_too_short": "a string that is not empty",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "an object",
    "list_type": "a list",
    "literal_error": "one of the values the API names",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _field_name(loc: tuple[Any, ...]) -> str:
    # pydantic puts the union member's name in the path (move.NoteMove.text): not a field.
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and p.endswith("Move")))


def error_sentence(exc: ValidationError) -> str:
    """Why a body is refused: its first error, in the table's words."""
    error = exc.errors()[0]
    where = _field_name(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        return f"unknown field {where!r} in the body"
    if kind == "missing":
        return f"the body is missing the field {where!r}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        return f'the move\'s "type" must be {_TYPES_TOLD}'
    return f"the field {where!r} must be {_MUST_BE.get(kind, 'of another type')}"


_TYPES = [*MOVE_BODIES, *RECORD_BODIES]
_TYPES_TOLD = f"{', '.join(_TYPES[:-1])} or {_TYPES[-1]}"


def parameter_sentence(exc: RequestValidationError) -> str:
    """Why a value FastAPI reads (a query's `after`, a path's part) is refused."""
    error = exc.errors()[0]
    loc = tuple(error.get("loc", ()))
    where = _field_name(loc[1:]) if loc[:1] == ("query",) else _field_name(loc)
    must = _MUST_BE.get(error.get("type", ""), "of another kind")
    return f"{where} must be {must}"


@functools.cache
def adapter(model: Any) -> TypeAdapter[Any]:
    """The validator of a body's model, built once (building one costs more than using it)."""
    return TypeAdapter(model)


async def read_body(request: Request, model: Any) -> Any:
    """The body as `model`: 413 beyond 16 KiB, 422 when it is not a JSON object of that shape."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > BODY_LIMIT:
        raise ApiError(413, f"the body is over {BODY_LIMIT // 1024} KiB")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > BODY_LIMIT:
                raise ApiError(413, f"the body is over {BODY_LIMIT // 1024} KiB")
    except ClientDisconnect:
        # A phone that hangs up mid-body: nobody is left to answer, and nothing to log.
        raise ApiError(400, "the client hung up before the body ended") from None
    try:
        data = orjson.loads(bytes(body))
    except orjson.JSONDecodeError:
        raise ApiError(422, "the body is not JSON") from None
    if not isinstance(data, dict):
        raise ApiError(422, "the body is not a JSON object")
    try:
        return adapter(model).validate_python(data)
    except ValidationError as exc:
        raise ApiError(422, error_sentence(exc)) from None
