"""A receipt: what one player's phone saw at the end of a game, signed with the phone's key
(docs/season-format.md, "Receipts").

A receipt names a game, a player and that player's final score, and a **checkpoint**: the
number of events the log had when the phone last looked at the finished game, and the full
hash of that event. A phone signs the canonical form of those five facts (the **claim**) with
an Ed25519 key it made itself; a log rewritten afterwards, even with a valid new chain, no
longer has that hash at that line, and the signature cannot be moved to the new one. The
signature is checked with the `cryptography` library, never by hand.

Only the format and its checks are here (no game rules): whether the player and score are the
game's is the service's to say. A receipt is small: a file over MAX_RECEIPT_BYTES is refused
before it is parsed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from eventstore.canonical import canonical_bytes, fingerprint, valid_hash

RECEIPT_FORMAT = 1
# The biggest receipt read: a title and a name of a few hundred characters each fit many times.
MAX_RECEIPT_BYTES = 4096
_GAME_ID = re.compile(r"[a-z0-9-]{1,64}\Z")
_KEY = re.compile(r"[0-9a-f]{64}\Z")
_SIGNATURE = re.compile(r"[0-9a-f]{128}\Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
FIELDS = (
    "we_receipt",
    "game",
    "title",
    "date",
    "player",
    "score",
    "events",
    "hash",
    "fingerprint",
    "key",
    "signature",
)
# A player's name or a title longer than this is no receipt of ours.
_LONGEST_TEXT = 200


class ReceiptError(ValueError):
    """Why some bytes are not a receipt, in one line naming where they came from."""


@dataclass(frozen=True)
class Receipt:
    game: str
    title: str | None
    date: str | None  # the day the game started (its first event's `at`), YYYY-MM-DD
    player: str
    score: int
    events: int  # the checkpoint: how many events the log had ...
    hash: str  # ... and the full hash of the last of them
    key: str | None  # the phone's Ed25519 public key, 64 hex digits; None: unsigned
    signature: str | None  # over claim_bytes(), 128 hex digits; None: unsigned

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.hash) or ""

    @property
    def signed(self) -> bool:
        return self.key is not None and self.signature is not None

    @property
    def key_fingerprint(self) -> str | None:
        return key_fingerprint(self.key) if self.key is not None else None

    def claim(self) -> dict[str, Any]:
        return claim_of(self.game, self.player, self.score, self.events, self.hash)

    def as_data(self) -> dict[str, Any]:
        """The receipt as a file holds it (and as a phone posts it)."""
        return {
            "we_receipt": RECEIPT_FORMAT,
            "game": self.game,
            "title": self.title,
            "date": self.date,
            "player": self.player,
            "score": self.score,
            "events": self.events,
            "hash": self.hash,
            "fingerprint": self.fingerprint,
            "key": self.key,
            "signature": self.signature,
        }

    def signature_holds(self) -> bool:
        """Whether `signature` is `key`'s over the claim (False for an unsigned receipt)."""
        if self.key is None or self.signature is None:
            return False
        return signature_holds(self.key, self.signature, claim_bytes(self.claim()))

    def who(self) -> str:
        """The receipt by its player and its key's fingerprint: what a verdict names."""
        if self.key is None:
            return f"{self.player}'s unsigned receipt"
        return f"{self.player}'s receipt (key {self.key_fingerprint})"


def claim_of(game: str, player: str, score: int, events: int, hash: str) -> dict[str, Any]:
    """The facts a phone signs (its "canonical checkpoint")."""
    return {
        "we_receipt": RECEIPT_FORMAT,
        "game": game,
        "player": player,
        "score": score,
        "events": events,
        "hash": hash,
    }


def claim_bytes(claim: dict[str, Any]) -> bytes:
    """The bytes signed: the claim in the log format's canonical JSON (keys sorted, compact,
    UTF-8), which a browser's JSON.stringify gives for the same keys in sorted order."""
    return canonical_bytes(claim)


def key_fingerprint(key: str) -> str:
    """A public key as a player is shown it: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(bytes.fromhex(key)).hexdigest()[:12]


def signature_holds(key: str, signature: str, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(bytes.fromhex(signature), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def receipt_from_data(data: object, where: str) -> Receipt:
    """A receipt from parsed JSON, every field checked; ReceiptError naming `where` and the field."""
    if type(data) is not dict:
        raise ReceiptError(f"{where}: not a receipt (a JSON object is expected)")
    if data.get("we_receipt") != RECEIPT_FORMAT:
        raise ReceiptError(f'{where}: not a receipt of format {RECEIPT_FORMAT} (no "we_receipt": 1)')
    if set(data) != set(FIELDS):
        missing, unknown = sorted(set(FIELDS) - set(data)), sorted(set(data) - set(FIELDS))
        said = f"missing {', '.join(missing)}" if missing else f"unknown field {', '.join(unknown)}"
        raise ReceiptError(f"{where}: not a receipt: {said}")

    def wrong(field: str, what: str) -> ReceiptError:
        return ReceiptError(f"{where}: receipt field {field} must be {what}")

    game, player, score, events, hash_ = (data[f] for f in ("game", "player", "score", "events", "hash"))
    if type(game) is not str or _GAME_ID.match(game) is None:
        raise wrong("game", "a game id (1-64 of a-z 0-9 -)")
    if type(player) is not str or not player or len(player) > _LONGEST_TEXT:
        raise wrong("player", "a player's name")
    if type(score) is not int:
        raise wrong("score", "a whole number")
    if type(events) is not int or events < 1:
        raise wrong("events", "a positive whole number")
    if not valid_hash(hash_):
        raise wrong("hash", "sha256: and 64 hex digits")
    if data["fingerprint"] != fingerprint(hash_):
        raise wrong("fingerprint", "the first 12 hex digits of its hash")
    title, date = data["title"], data["date"]
    if title is not None and (type(title) is not str or len(title) > _LONGEST_TEXT):
        raise wrong("title", "a title or null")
    if date is not None and (type(date) is not str or _DATE.match(date) is None):
        raise wrong("date", "YYYY-MM-DD or null")
    key, signature = data["key"], data["signature"]
    if (key is None) != (signature is None):
        raise ReceiptError(f"{where}: a receipt has a key and a signature, or neither")
    if key is not None and (type(key) is not str or _KEY.match(key) is None):
        raise wrong("key", "an Ed25519 public key, 64 lower-case hex digits")
    if signature is not None and (type(signature) is not str or _SIGNATURE.match(signature) is None):
        raise wrong("signature", "an Ed25519 signature, 128 lower-case hex digits")
    return Receipt(game, title, date, player, score, events, hash_, key, signature)


def parse_receipt(raw: bytes, where: str) -> Receipt:
    if len(raw) > MAX_RECEIPT_BYTES:
        raise ReceiptError(f"{where}: over {MAX_RECEIPT_BYTES} bytes, so not a receipt")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ReceiptError(f"{where}: not a receipt (not JSON)") from None
    return receipt_from_data(data, where)


def read_receipt_file(path: Path) -> Receipt:
    """A receipt file, read no further than MAX_RECEIPT_BYTES + 1 (a huge file is refused
    without being read whole)."""
    import os

    from eventstore.logfile import regular_file

    where = str(path)
    try:
        fd = regular_file(
            path,
            os.O_RDONLY,
            lambda exc: ReceiptError(f"{where}: cannot read: {exc.strerror or exc}"),
            lambda kind: ReceiptError(f"{where}: {kind}, not a receipt file"),
        )
        with os.fdopen(fd, "rb") as file:
            raw = file.read(MAX_RECEIPT_BYTES + 1)
    except FileNotFoundError:
        raise ReceiptError(f"{where}: no such file") from None
    except OSError as exc:
        raise ReceiptError(f"{where}: cannot read: {exc.strerror or exc}") from None
    return parse_receipt(raw, where)


def receipt_bytes(receipt: Receipt) -> bytes:
    """A receipt as a file: indented JSON, one field a line, in the format's order."""
    return orjson.dumps(receipt.as_data(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


# --- kept beside a game's log (`we serve GAMES_DIR`) -------------------------------------


def receipts_folder(log_path: Path) -> Path:
    """Where the receipts of the game logged at `log_path` are kept: `NAME.receipts/` beside
    `NAME.jsonl` (not a log, so `we audit DIR` and `we import DIR` pass over it)."""
    return log_path.with_name(log_path.stem + ".receipts")


def keep_receipt_file(log_path: Path, seat: int, receipt: Receipt) -> Path:
    """One seat's receipt (seat 1, 2, ... as listed) into the game's receipts folder, replacing
    the one before all at once (a temporary file renamed over it, fsynced)."""
    import os
    import tempfile

    folder = receipts_folder(log_path)
    folder.mkdir(exist_ok=True)
    target = folder / f"seat-{seat}.json"
    # A name of its own: two posts of one seat at once each rename a whole file, never half of one.
    handle, name = tempfile.mkstemp(prefix=f".seat-{seat}.", suffix=".new", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(receipt_bytes(receipt))
            file.flush()
            os.fsync(file.fileno())
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return target


def receipts_beside(log_path: Path) -> list[tuple[Path, Receipt | ReceiptError]]:
    """Every receipt kept for the game at `log_path`, in seat order, or why a file is none."""
    folder = receipts_folder(log_path)
    if not folder.is_dir():
        return []
    found: list[tuple[Path, Receipt | ReceiptError]] = []
    for path in sorted(folder.glob("seat-*.json"), key=lambda p: (len(p.name), p.name)):
        try:
            found.append((path, read_receipt_file(path)))
        except ReceiptError as exc:
            found.append((path, exc))
    return found
