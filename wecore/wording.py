"""Words a player reads, written once for every face (the recorder, the pages, the commands)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """'1 game', '2 games', '0 games' (`plural`: when it is not the noun and an s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
