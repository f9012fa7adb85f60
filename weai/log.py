"""A game played through OpenSpiel or PettingZoo, written down as a `we` log (docs/log-format.md)."""

from __future__ import annotations

from pathlib import Path

from service.simulate import sealed_game
from weai.match import Match


def write_log(match: Match, path: Path, game_id: str) -> Path:
    """The match's events, chained and stamped as `we simulate` stamps its games, to `path`."""
    path.write_bytes(b"".join(envelope.to_line() for envelope in sealed_game(game_id, 1, match.payloads)))
    return path
