"""The table as one seat, or a spectator, may see it, and the log as that seat may read it.

A seat sees its own attic and the gift it brought; other attics and face-down gifts it
did not bring are only counts. Opened, held and kept cards are public. `sees_private` is that
rule; the view of the table, the narration and the redacted log all ask it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wecore.cards import sort_key
from wecore.moves import Move, Open
from wecore.state import GameState

SPECTATOR = None


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


def view(state: GameState, viewer: str | None = SPECTATOR, omniscient: bool = False) -> SeatView:
    """What `viewer` can know (a spectator when None); `omniscient` shows everything."""
    attics: dict[str, list[str] | int] | None = None
    if state.attics is not None:
        attics = {
            name: sorted(cards, key=sort_key) if sees_private(name, viewer, omniscient) else len(cards)
            for name, cards in zip(state.players, state.attics, strict=True)
        }
    known = face_down_known(state, viewer, omniscient)
    board = state.scoreboard
    return SeatView(
        viewer=viewer,
        phase=state.phase.value,
        party=state.party,
        parties=state.attic_size,
        players=state.players,
        dealer=state.dealer,
        starter=state.starter_name,
        to_move=state.player_to_move,
        gift_lists={name: [c.value for c in colours] for name, colours in state.gift_lists.items()},
        attics=attics,
        face_down_known=known,
        face_down_hidden=state.face_down_count - len(known),
        waiting_to_bring=list(state.waiting_to_bring),
        holding=state.holdings,
        locked=sorted(state.locked, key=sort_key),
        frozen=sorted(state.frozen, key=sort_key),
        kept={name: list(cards) for name, cards in state.kept_by.items()},
        scores=board.totals,
        complete=state.is_over,
        winners=list(board.winners) if state.is_over else None,
        tie_broken_by=state.tie_broken_by,
    )


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
