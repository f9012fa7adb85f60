"""The table as one seat, or a spectator, may see it, the log as that seat may read it, and
the moves that seat may be offered.

A seat sees its own attic and the gift it brought; other attics and face-down gifts it
did not bring are only counts. Opened, held and kept cards are public. `sees_private` is that
rule; the view of the table, the narration, the redacted log and the seat's moves all ask it.
The cards a seat knows the place of (`cards_known_to`) are all a bot at that seat reads of them.

A seat's moves never name a card it has not seen: it opens a face-down gift it cannot see by
its place on the table (`"gift": N`, `face_down_places`), and a card it names that it has not
seen gets one answer whatever the card (`hidden_card_refusal`), so no answer is an oracle.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from wecore.cards import CARD_ORDER, COLOUR_NAME, Colour
from wecore.moves import Move, Open, chance_outcomes, legal_moves, move_object
from wecore.rules import brought_with_first_open
from wecore.scoring import Scoreboard
from wecore.state import GameState, Phase

SPECTATOR = None
_ORDER = CARD_ORDER.__getitem__  # sort_key, without a Python call per card


@dataclass(frozen=True)
class SeatView:
    viewer: str | None  # None: a spectator
    phase: str
    party: int
    parties: int
    players: tuple[str, ...]
    dealer: str | None
    starter: str | None
    to_move: str | None
    gift_lists: dict[str, list[str]]
    attics: dict[str, list[str] | int] | None  # cards for the viewer, counts for others
    face_down_known: list[str]  # face-down gifts this viewer knows (their own bring)
    face_down_hidden: int
    waiting_to_bring: list[str]
    holding: dict[str, str]
    locked: list[str]
    frozen: list[str]
    kept: dict[str, list[str]]
    scores: dict[str, int]
    complete: bool
    winners: list[str] | None
    tie_broken_by: str | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def sees_private(owner: str, viewer: str | None, omniscient: bool = False) -> bool:
    """May `viewer` (None: a spectator) see what only `owner` knows: their attic, the card of
    the gift they brought? Yes for the owner, and for an omniscient reader."""
    return omniscient or (viewer is not None and viewer == owner)


def face_down_known(state: GameState, viewer: str | None, omniscient: bool = False) -> list[str]:
    """The face-down gifts of this party whose card `viewer` knows: their own bring (all of
    them for an omniscient reader; none for a spectator)."""
    if omniscient:
        return list(state.face_down)
    seat = None if viewer is None else state.seat_of[viewer]
    if seat is not None and state.brought_cards and state.brought_cards[seat] in state.face_down:
        return [state.brought_cards[seat]]  # type: ignore[list-item]
    return []


def cards_known_to(state: GameState, seat: int) -> set[str]:
    """The cards whose place `seat` knows: every gift opened (kept in an earlier party, held face
    up in this one), what is left of its own attic and its gift still face down. For all the seat
    can tell, any other card lies in another attic, under another face-down gift or out of the
    game: what a bot at the seat may reason over, never where those cards really are."""
    known: set[str] = set()
    for cards in state.kept:
        known.update(cards)
    known.update(card for card in state.holding if card is not None)
    if state.attics is not None:
        known.update(state.attics[seat])
    known.update(face_down_known(state, state.players[seat]))
    return known


def view(
    state: GameState,
    viewer: str | None = SPECTATOR,
    omniscient: bool = False,
    board: Scoreboard | None = None,
) -> SeatView:
    """What `viewer` can know (a spectator when None); `omniscient` shows everything. `board`:
    the state's scoreboard, where the caller has it already (it is the same for every viewer)."""
    players = state.players
    viewer, attics, known, hidden = _private(state, viewer, omniscient)
    if board is None:
        board = state.scoreboard
    is_over = state.is_over
    locked, frozen = state.locked, state.frozen
    # Every served move views its state for its answer and for each kind of key: the fields
    # go straight into the view's __dict__ (in SeatView's order: to_dict's), where a frozen
    # dataclass's __init__ would set each one through object.__setattr__.
    return _seat_view(
        {
            "viewer": viewer,
            "phase": _PHASE_VALUE[state.phase],
            "party": state.party,
            "parties": state.attic_size,
            "players": players,
            "dealer": state.dealer,
            "starter": state.starter_name,
            "to_move": state.player_to_move,
            "gift_lists": {}
            if state.lists is None
            else dict(zip(players, map(list, _list_names(state.lists)), strict=True)),
            "attics": attics,
            "face_down_known": known,
            "face_down_hidden": hidden,
            "waiting_to_bring": list(state.waiting_to_bring),
            "holding": state.holdings,
            "locked": sorted(locked, key=_ORDER) if locked else [],
            "frozen": sorted(frozen, key=_ORDER) if frozen else [],
            "kept": dict(zip(players, map(list, state.kept), strict=True)),
            "scores": board.totals,
            "complete": is_over,
            "winners": list(board.winners) if is_over else None,
            "tie_broken_by": state.tie_broken_by,
        }
    )


def view_as(other: SeatView, state: GameState, viewer: str | None, omniscient: bool = False) -> SeatView:
    """`view(state, viewer, omniscient)`, made from `other`, another viewer's view of the same
    `state`: only what `_private` works out differs between viewers; the rest is shared."""
    values = dict(other.__dict__)
    values["viewer"], values["attics"], values["face_down_known"], values["face_down_hidden"] = _private(
        state, viewer, omniscient
    )
    return _seat_view(values)


def _private(
    state: GameState, viewer: str | None, omniscient: bool
) -> tuple[str | None, dict[str, list[str] | int] | None, list[str], int]:
    """The parts of a view that depend on who looks: the viewer, the attics (the cards of those
    the viewer may see, a count of the others), the face-down gifts known and those not."""
    attics: dict[str, list[str] | int] | None = None
    if state.attics is not None:
        attics = {
            name: sorted(cards, key=_ORDER) if sees_private(name, viewer, omniscient) else len(cards)
            for name, cards in zip(state.players, state.attics, strict=True)
        }
    known = face_down_known(state, viewer, omniscient)
    return viewer, attics, known, state.face_down_count - len(known)


_SEAT_VIEW_FIELDS = tuple(f.name for f in fields(SeatView))
_PHASE_VALUE: dict[Phase, str] = {phase: phase.value for phase in Phase}  # an enum's .value is a call


def _seat_view(values: dict[str, Any]) -> SeatView:
    """A SeatView whose fields are `values` (SeatView's fields, in order; taken over)."""
    if __debug__ and tuple(values) != _SEAT_VIEW_FIELDS:
        raise TypeError(f"a SeatView's fields are {_SEAT_VIEW_FIELDS}, not {tuple(values)}")
    made = object.__new__(SeatView)
    object.__setattr__(made, "__dict__", values)
    return made


@functools.lru_cache(maxsize=256)
def _list_names(lists: tuple[tuple[Colour, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """Each seat's gift list in words (a game's lists are dealt once: worked out once)."""
    return tuple([tuple([COLOUR_NAME[c] for c in colours]) for colours in lists])


# Envelope fields that would give hidden cards away: with only ~50 cards to try, a line's hash
# tells the card it covers, and every later hash chains to it.
_CHAIN_FIELDS = ("prev", "hash")


def seat_data(event_type: object, data: object, viewer: str | None) -> object:
    """An event's `data` as `viewer` (None: a spectator, such as a screen for the whole table)
    may read it: other players' attic cards and the cards of gifts they brought are null. An
    attic keeps its length (the count is public)."""
    if not isinstance(data, dict):
        return data
    if event_type == "attics_dealt":
        attics = data.get("attics", {})
        return {
            **data,
            "attics": {
                name: cards if sees_private(name, viewer) else [None] * len(cards)
                for name, cards in attics.items()
            },
        }
    if event_type == "gift_brought" and not sees_private(data.get("player"), viewer):  # type: ignore[arg-type]
        return {**data, "card": None}
    return data


def redact_log(envelopes: list[dict[str, Any]], viewer: str | None) -> list[dict[str, Any]]:
    """The log (parsed lines) as `viewer` (None: a spectator) may read it: `seat_data` of every event, and no
    `prev` or `hash` (see _CHAIN_FIELDS), so it no longer verifies, by design."""
    redacted = []
    for envelope in envelopes:
        line = {k: v for k, v in envelope.items() if k not in _CHAIN_FIELDS}
        if "data" in envelope:
            line["data"] = seat_data(envelope.get("type"), envelope["data"], viewer)
        redacted.append(line)
    return redacted


# --- the moves a seat may see --------------------------------------------------------------

BRING_UNSEEN = (
    "without dealt attics a gift is brought face down from a seat, whatever the card: send"
    ' "card": null (the card is told when the gift is opened)'
)
OPEN_BY_PLACE = (
    "a face-down gift you have not seen is opened by its place on the table, whatever the card:"
    ' send "gift": N (N counting the face-down gifts from 1, as the table shows them)'
)


def face_down_places(state: GameState, viewer: str | None, omniscient: bool = False) -> list[str | None]:
    """This party's face-down gifts in the order the table shows them to `viewer`: the ones it
    knows first, then the others in the order they were brought; each is the card under it
    where the log holds one, None for a gift brought unseen. Gift N of an open by place is
    [N - 1]: the place is public, the card under it is not."""
    known = face_down_known(state, viewer, omniscient)
    others = [card for card in state.face_down if card not in known]
    pending = len(brought_with_first_open(state))
    return [*known, *others, *([None] * (state.unseen_face_down + pending))]


def seat_moves(state: GameState, seat: str) -> list[dict[str, Any]]:
    """Every move `seat` may send now, as move objects, none naming a card it has not seen:
    its own face-down gift by its card, the others whose card the log holds by their place,
    and one `"card": null` open (name the card turned over) where gifts were brought unseen."""
    mine = [m for m in legal_moves(state) if m.player == seat]
    if mine and chance_outcomes(state):
        # A seat rolls; the face is drawn for it (docs/service.md, "The die"): one move, no value.
        return [{"type": mine[0].TYPE, "as": seat}]
    if brought_with_first_open(state) and state.starter_name == seat:
        mine.append(Open(None, seat))
    if not any(isinstance(m, Open) for m in mine):
        return [move_object(m) for m in mine]
    opens: list[dict[str, Any]] = []
    known = face_down_known(state, seat)
    for place, card in enumerate(face_down_places(state, seat), start=1):
        if card is None:
            continue
        if card in known:
            opens.append({"type": "open", "as": seat, "card": card})
        else:
            opens.append({"type": "open", "as": seat, "gift": place})
    if None in face_down_places(state, seat):
        opens.append({"type": "open", "as": seat, "card": None})
    others = [move_object(m) for m in mine if not isinstance(m, Open)]
    return others + opens if state.phase is Phase.BRINGING else opens + others


def seat_move_object(state: GameState, seat: str, move: Move) -> dict[str, Any]:
    """A legal move (a bot's choice, say) as `seat` sends it: an open of a face-down gift the
    seat has not seen goes by its place."""
    shown = move_object(move)
    if isinstance(move, Open) and move.card is not None and move.card not in face_down_known(state, seat):
        places = face_down_places(state, seat)
        if move.card in places:
            return {"type": "open", "as": seat, "gift": places.index(move.card) + 1}
    return shown


def gift_at(state: GameState, viewer: str | None, place: int, omniscient: bool = False) -> str | None:
    """The card under face-down gift `place` (from 1, as the table shows them to `viewer`);
    None when it was brought unseen. ValueError, in the table's words, for no such place."""
    places = face_down_places(state, viewer, omniscient)
    if not places:
        raise ValueError("there is no face-down gift on the table")
    if not 1 <= place <= len(places):
        shown = f"1 to {len(places)}" if len(places) > 1 else "1"
        raise ValueError(f"there is no face-down gift {place}: the table shows {shown}")
    return places[place - 1]


def hidden_card_refusal(state: GameState, seat: str, kind: str, card: str | None) -> str | None:
    """Why a card `seat` names in a bring or an open is refused before the rules are asked, so
    that the answer is one for every card the seat has not seen (None: ask the rules).

    Without dealt attics a seat's bring is unseen, whatever the card. Where the log holds every
    face-down gift's card, a seat opens the ones it has not seen by place: a card it names that
    is not its own face-down gift gets one sentence, whether or not it lies face down."""
    if card is None:
        return None
    if kind == "bring":
        return BRING_UNSEEN if state.attics is None and seat in state.waiting_to_bring else None
    if kind != "open" or state.phase is not Phase.PLAYING or state.player_to_move != seat:
        return None  # not theirs to make: the rules say so, whatever the card
    if card in face_down_known(state, seat) or None in face_down_places(state, seat):
        return None
    return OPEN_BY_PLACE


def moves_told_apart(state: GameState, viewer: str, moves: Sequence[Move]) -> list[Move]:
    """`moves` (all `viewer`'s, as `legal_moves` lists them) as `viewer` can tell them apart: the
    opens of face-down gifts whose card `viewer` does not know (`face_down_known`) are one move,
    `Open(None, viewer)` "open a gift", in the place of the first of them."""
    known = set(face_down_known(state, viewer))
    told: list[Move] = []
    unseen_open = False
    for move in moves:
        if isinstance(move, Open) and move.card not in known:
            if not unseen_open:
                told.append(Open(None, viewer))
                unseen_open = True
            continue
        told.append(move)
    return told


def gifts_not_seen_by(state: GameState, viewer: str) -> list[str]:
    """The face-down gifts of this party whose card is in the log but not known to `viewer`:
    what "open a gift" may turn over for them, besides the gifts brought unseen."""
    known = set(face_down_known(state, viewer))
    return [card for card in state.face_down if card not in known]
