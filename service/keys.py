"""The service's keys: one host key in a file, and table and seat keys derived from it.

A table or seat key is HMAC-SHA256(host key, role, game, seat), so the service stores nothing
per game and a new host key (delete the file) revokes every link handed out. Presented keys are
found through a dict keyed by their SHA-256 (a lookup that reveals nothing of the key) and then
compared with `hmac.compare_digest`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

HOST = "host"
TABLE = "table"
SEAT = "seat"


@dataclass(frozen=True)
class Role:
    kind: str  # host, table or seat
    game: str | None = None  # None for the host
    seat: str | None = None  # the player, for a seat key

    @property
    def cache_key(self) -> str:
        return self.kind if self.kind != SEAT else f"seat:{self.seat}"


HOST_ROLE = Role(HOST)


def read_or_create_host_key(games_dir: Path) -> str:
    """GAMES_DIR/.we/host-key (one line, the key), made with mode 0600 when missing."""
    folder = games_dir / ".we"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / "host-key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = _read_key_file(path)
        if len(key) < 22:  # fewer than 128 bits of base64
            raise ValueError(f"{path}: the host key is too short (at least 22 characters)") from None
        return key
    key = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(key + "\n")
        out.flush()
        os.fsync(out.fileno())
    return key


def _read_key_file(path: Path) -> str:
    """The key in an existing host-key file: a regular file of one short line. A FIFO (which
    would wait for a writer) or a huge file is refused rather than read."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError("not a regular file, so not a host key")
        text = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        return text.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ValueError("not a host key (not UTF-8 text)") from None


def derive(host_key: str, kind: str, game: str, seat: str | None = None) -> str:
    message = "\0".join((kind, game, seat or "")).encode("utf-8")
    digest = hmac.new(host_key.encode("utf-8"), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def _index(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


class KeyRing:
    """Every key of the service, and the role each one grants."""

    def __init__(self, host_key: str) -> None:
        self.host_key = host_key
        self._roles: dict[bytes, tuple[str, Role]] = {_index(host_key): (host_key, HOST_ROLE)}
        self._lock = threading.Lock()

    def table_key(self, game: str) -> str:
        return derive(self.host_key, TABLE, game)

    def seat_key(self, game: str, seat: str) -> str:
        return derive(self.host_key, SEAT, game, seat)

    def add_game(self, game: str, players: tuple[str, ...]) -> None:
        with self._lock:
            key = self.table_key(game)
            self._roles[_index(key)] = (key, Role(TABLE, game))
            for player in players:
                key = self.seat_key(game, player)
                self._roles[_index(key)] = (key, Role(SEAT, game, player))

    def role_of(self, presented: str | None) -> Role | None:
        """The role a presented key grants, or None when it is no key of this service."""
        if not presented:
            return None
        found = self._roles.get(_index(presented))
        if found is None:
            return None
        key, role = found
        if not hmac.compare_digest(key.encode("utf-8"), presented.encode("utf-8", "surrogatepass")):
            return None
        return role
