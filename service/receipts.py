"""Receipts, written once for every face: what a seat's phone is given to sign at the end of a
served game, what the server keeps of what it posts back, and the check of a receipt against a
log (`we audit --receipt`, `we season add` and `verify`).

The format and its signature are eventstore.receipts'. Here a receipt meets a game: its game
id, its player (one of the game's), its checkpoint (the log's line at its event count must
have its hash) and its score (that player's at that line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eventstore.canonical import fingerprint
from eventstore.errors import StoreError
from eventstore.receipts import (
    Receipt,
    ReceiptError,
    keep_receipt_file,
    parse_receipt,
    receipt_bytes,
    receipt_from_data,
    receipts_beside,
)
from wecore.errors import shown

if TYPE_CHECKING:
    from service.live import LiveGame
    from service.reading import GameSource, ReadGame
    from wecore.state import GameState


def _score_of(state: GameState, player: str) -> int:
    from wecore.scoring import score

    return next(entry.total for entry in score(state).players if entry.player == player)


def receipt_for(game: LiveGame, player: str) -> Receipt:
    """The receipt a seat's phone is given to sign: the game as it stands now, which must be
    over (ReceiptError otherwise). Unsigned: the phone signs it."""
    with game.lock:
        state, head = game.state, game.head
        if game.game is None or not head or not state.is_over:
            raise ReceiptError("the game is not over yet: a receipt is made when it ends")
        first, last = game.envelopes[0], game.envelopes[head - 1]
        at = first.get("at")
        date = at[:10] if isinstance(at, str) and len(at) >= 10 else None
        return Receipt(
            game.game, state.title, date, player, _score_of(state, player), head, last["hash"], None, None
        )


def disagreement(game: LiveGame, receipt: Receipt) -> str | None:
    """What in the served game disagrees with `receipt`'s checkpoint, or None."""
    with game.lock:
        if receipt.events > game.head:
            return f"the log has {game.head} events, and this receipt saw {receipt.events}"
        if game.envelopes[receipt.events - 1]["hash"] != receipt.hash:
            return f"the log's event {receipt.events} is not the one this receipt saw"
        state = game.state_at(receipt.events)
    if not state.is_over:
        return f"the game was not over at event {receipt.events}"
    if receipt.player not in state.players:
        return f"{shown(receipt.player)} is no player of this game"
    if _score_of(state, receipt.player) != receipt.score:
        return f"{shown(receipt.player)} did not score {receipt.score} at event {receipt.events}"
    return None


def accepted_receipt(game: LiveGame, player: str, data: object) -> Receipt:
    """A receipt a seat's phone posted, checked before it is kept: of this game, this seat,
    signed, its signature holding, its checkpoint the served log's. ReceiptError otherwise."""
    receipt = receipt_from_data(data, "the receipt")
    if receipt.game != game.game:
        raise ReceiptError(f"this receipt is for game {shown(receipt.game)}, not {shown(game.game)}")
    if receipt.player != player:
        whose = shown(receipt.player)
        raise ReceiptError(f"this receipt is for {whose}, not for this seat ({shown(player)})")
    if not receipt.signed:
        raise ReceiptError("an unsigned receipt proves nothing to keep: it stays on the phone")
    if not receipt.signature_holds():
        raise ReceiptError("the receipt's signature does not hold for its key")
    wrong = disagreement(game, receipt)
    if wrong is not None:
        raise ReceiptError(wrong)
    return receipt


def keep_receipt(game: LiveGame, receipt: Receipt, library: Any | None) -> None:
    """Keep a checked receipt beside its game: in the receipts folder beside a log file, or in
    the library's receipts table (`library`: a connection to it). A later checkpoint replaces
    an earlier one; an earlier one posted again changes nothing."""
    seat = game.state.players.index(receipt.player) + 1
    if library is not None:
        before = [r for r in kept_in_library(library, receipt.game) if r.player == receipt.player]
    else:
        beside = receipts_beside(game.path)
        before = [r for _, r in beside if isinstance(r, Receipt) and r.player == receipt.player]
    if before and (before[0].events > receipt.events or before[0] == receipt):
        return  # an older checkpoint, or this very receipt again (a page reloaded)
    if library is not None:
        library.keep_receipt(receipt.game, receipt.player, receipt_bytes(receipt).decode())
    else:
        keep_receipt_file(game.path, seat, receipt)


def kept_in_library(library: Any, game_id: str) -> list[Receipt]:
    """The receipts a library keeps for a game (one that is not a receipt any more is left out:
    the library's own table, damaged)."""
    found = []
    for text in library.receipts_of(game_id):
        try:
            found.append(parse_receipt(text.encode(), f"a receipt of {game_id}"))
        except ReceiptError:
            continue
    return found


# --- a receipt held against a log ----------------------------------------------------------


@dataclass(frozen=True)
class ReceiptVerdict:
    receipt: Receipt
    label: str  # the receipt's file, or where it was kept
    holds: bool
    message: str

    def as_dict(self) -> dict[str, Any]:
        r = self.receipt
        return {
            "receipt": self.label,
            "game": r.game,
            "player": r.player,
            "key": r.key_fingerprint,
            "events": r.events,
            "holds": self.holds,
            "message": self.message,
        }


def line_hashes(source: GameSource, read: ReadGame) -> tuple[str | None, list[str], int | None, GameState]:
    """A log's game id, the hash of each line its chain proves (up to its first break), the
    line the chain broke at, and the state folded."""
    report = read(source, keep_lines=True)
    hashes = [line["hash"] for line in report.lines]
    return report.game, hashes, report.broken_at, report.state


def verdict(receipt: Receipt, label: str, game_id: str | None, hashes: Sequence[str]) -> ReceiptVerdict:
    """Whether the log with `hashes` (its lines' hashes, as its chain proves them) is the one
    the receipt's player saw end: signature, game, and the hash at the receipt's count."""
    who = receipt.who()
    if not receipt.signed:
        return ReceiptVerdict(receipt, label, False, f"{who} proves nothing: it is unsigned")
    if not receipt.signature_holds():
        return ReceiptVerdict(receipt, label, False, f"{who}: the signature does not hold for its key")
    if receipt.game != game_id:
        return ReceiptVerdict(
            receipt, label, False, f"{who} is for game {shown(receipt.game)}, not {shown(game_id)}"
        )
    count = receipt.events
    if count > len(hashes):
        return ReceiptVerdict(
            receipt,
            label,
            False,
            f"{who} disagrees at event {count}: the log proves only {len(hashes)} events,"
            f" and {receipt.player}'s phone saw {count} end (fingerprint {receipt.fingerprint})",
        )
    if hashes[count - 1] != receipt.hash:
        return ReceiptVerdict(
            receipt,
            label,
            False,
            f"{who} disagrees at event {count}: the log's line {count} has fingerprint"
            f" {fingerprint(hashes[count - 1])}, {receipt.player}'s phone saw {receipt.fingerprint}",
        )
    return ReceiptVerdict(
        receipt,
        label,
        True,
        f"{who} holds: line {count} is the one {receipt.player}'s phone saw end"
        f" (fingerprint {receipt.fingerprint}, score {receipt.score})",
    )


def receipts_for_source(source: GameSource, game_id: str | None, library: Any | None) -> list[Receipt]:
    """The signed receipts kept for a game: beside its file, or in its library (`library`:
    a connection). Damaged or unsigned ones are not sealed."""
    found: list[Receipt] = []
    if source.path is not None:
        found = [r for _, r in receipts_beside(Path(source.path)) if isinstance(r, Receipt)]
    elif library is not None and game_id is not None:
        try:
            found = kept_in_library(library, game_id)
        except StoreError:
            found = []
    return [r for r in found if r.signed and r.game == game_id]
