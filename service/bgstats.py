"""Plays for BG Stats: the link that creates a play in the app, and the play file it imports.

The scores and winners are `we score`'s (wecore.scoring), a tie-break's winner alone as winner.
`sourcePlayId` is the game id and its fingerprint, so importing one game twice is recognised
as the same play, and a different log under the same id is not.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import orjson

from wecore.reducer import first_starter
from wecore.scoring import Scoreboard, score
from wecore.state import GameState
from wecore.stats import same_name

CREATE_PLAY_URL = "https://app.bgstatsapp.com/createPlay.html"
SOURCE_NAME = "we"
GAME_NAME = "White Elephant"
SOURCE_GAME_ID = "white-elephant-2011"
# One namespace for every uuid we make, so a game, player or play gets the same uuid each export.
_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://we.invalid/bgstats")
ABOUT = (
    "This is a Play file that can be read by Board Game Stats. If you see this text, try to use"
    " a share, export or open-in function to open it with Board Game Stats."
)


@dataclass(frozen=True)
class Play:
    """A finished game as BG Stats sees a play."""

    game: str
    fingerprint: str
    state: GameState
    board: Scoreboard
    started_at: str  # the first event's `at`
    ended_at: str  # the last event's `at`

    @property
    def source_play_id(self) -> str:
        return f"{self.game}:{self.fingerprint}"


def play_of(game: str, fingerprint: str, state: GameState, started_at: str, ended_at: str) -> Play:
    if not state.is_over:
        raise ValueError(f"{game} is not over yet: only a finished game is a play")
    return Play(game, fingerprint, state, score(state), started_at, ended_at)


def play_from_report(report: Any) -> Play:
    """The play of a game read with its lines kept (service.reading.read_game keep_lines)."""
    lines = report.lines
    return play_of(report.game, report.fingerprint, report.state, lines[0]["at"], lines[-1]["at"])


def _utc(at: str) -> datetime:
    # A log's `at` may be a leap second (23:59:60), which datetime has no room for: it is held
    # at 23:59:59, the last time of that day BG Stats can write.
    if at[17:19] == "60":
        at = f"{at[:17]}59{at[19:]}"
    return datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC)


def play_date(at: str) -> str:
    """An RFC 3339 `at` as BG Stats writes a date: UTC, yyyy-MM-dd HH:mm:ss."""
    return _utc(at).strftime("%Y-%m-%d %H:%M:%S")


def duration_min(play: Play) -> int:
    seconds = (_utc(play.ended_at) - _utc(play.started_at)).total_seconds()
    return max(0, round(seconds / 60))


def ranks(board: Scoreboard) -> list[int]:
    """By seat: 1 for the winners, then by score (players level share a rank, "1224")."""
    winners = set(board.winners)
    keys = [(entry.player in winners, entry.total) for entry in board.players]
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def _comments(play: Play) -> str:
    title = f"{play.state.title} \u2014 " if play.state.title else ""
    tie = (
        f" Tie broken: {play.board.tie_broken_by} ({play.board.tie_reason})."
        if play.board.tie_broken_by
        else ""
    )
    return f"{title}recorded with we: game {play.game}, fingerprint {play.fingerprint}.{tie}"


def _player_id(name: str) -> str:
    return f"we:{same_name(name)}"


def link_data(play: Play, location: str | None = None) -> dict[str, Any]:
    """The JSON the createPlay link carries."""
    board, state = play.board, play.state
    starter = first_starter(state.players, state.dealer)  # type: ignore[arg-type]
    data: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play.source_play_id,
        "playDate": play_date(play.started_at),
        "durationMin": duration_min(play),
    }
    if location:
        data["location"] = location
    data["comments"] = _comments(play)
    # No bggId: White Elephant (2011)'s BoardGameGeek id is not confirmed (docs/decisions.md).
    data["game"] = {"name": GAME_NAME, "sourceGameId": SOURCE_GAME_ID, "highestWins": True, "noPoints": False}
    data["players"] = [
        {
            "name": entry.player,
            "score": entry.total,
            "winner": entry.player in board.winners,
            "startPlayer": seat == starter,
            "rank": rank,
            "sourcePlayerId": _player_id(entry.player),
        }
        for seat, (entry, rank) in enumerate(zip(board.players, ranks(board), strict=True))
    ]
    return data


def link(play: Play, location: str | None = None) -> str:
    """https://app.bgstatsapp.com/createPlay.html?data=<URL-encoded JSON>"""
    encoded = orjson.dumps(link_data(play, location)).decode()
    return f"{CREATE_PLAY_URL}?data={quote(encoded, safe='')}"


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


def play_file(plays: Iterable[Play], location: str | None = None, now: str | None = None) -> dict[str, Any]:
    """A .bgsplay file holding every play: games, players, locations, plays with playerScores."""
    modified = play_date(now) if now else datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    players: dict[str, dict[str, Any]] = {}
    locations: list[dict[str, Any]] = []
    if location:
        locations.append(
            {"id": 1, "uuid": _uuid("location", location), "name": location, "modificationDate": modified}
        )
    game = {
        "id": 1,
        "uuid": _uuid("game", SOURCE_GAME_ID),
        "name": GAME_NAME,
        "sourceGameId": SOURCE_GAME_ID,
        "modificationDate": modified,
        "cooperative": False,
        "highestWins": True,
        "noPoints": False,
        "usesTeams": False,
    }
    out_plays: list[dict[str, Any]] = []
    for play in plays:
        board, state = play.board, play.state
        starter = first_starter(state.players, state.dealer)  # type: ignore[arg-type]
        scores = []
        for seat, (entry, rank) in enumerate(zip(board.players, ranks(board), strict=True)):
            key = same_name(entry.player)
            if key not in players:
                players[key] = {
                    "id": len(players) + 1,
                    "uuid": _uuid("player", key),
                    "name": entry.player,
                    "isAnonymous": False,
                    "sourcePlayerId": _player_id(entry.player),
                    "modificationDate": modified,
                }
            scores.append(
                {
                    "playerRefId": players[key]["id"],
                    "score": str(entry.total),
                    "winner": entry.player in board.winners,
                    "rank": rank,
                    "seatOrder": seat + 1,
                    "startPlayer": seat == starter,
                    "newPlayer": False,
                }
            )
        entry_play: dict[str, Any] = {
            "uuid": _uuid("play", play.source_play_id),
            "sourceName": SOURCE_NAME,
            "sourcePlayId": play.source_play_id,
            "gameRefId": 1,
            "playDate": play_date(play.started_at),
            "entryDate": play_date(play.ended_at),
            "modificationDate": modified,
            "durationMin": duration_min(play),
            "ignored": False,
            "manualWinner": False,
            "rounds": 0,
            "comments": _comments(play),
            "playerScores": scores,
        }
        if locations:
            entry_play["locationRefId"] = 1
        out_plays.append(entry_play)
    return {
        "about": ABOUT,
        "games": [game],
        "players": list(players.values()),
        "locations": locations,
        "plays": out_plays,
    }


def served_play(game: Any) -> dict[str, Any]:
    """What a served game's end shows (a service.live.LiveGame, as it holds the game now): the
    link, and its QR code for the TV (inline SVG). ValueError if it is not a finished game
    whose log is whole."""
    import segno

    with game.lock:
        state, envelopes, head, stopped = game.state, list(game.envelopes), game.head, game.stopped
        fp = game.fingerprint(head) if head else None
    if stopped is not None:
        raise ValueError(stopped)
    if not state.is_over or not envelopes or fp is None:
        raise ValueError("the game is not over yet, so it is no play to log")
    url = link(play_of(game.game, fp, state, envelopes[0]["at"], envelopes[-1]["at"]))
    # A viewBox and no fixed size: the page sizes the code (large on a TV, read across a room);
    # with a fixed size a larger box only clipped or padded the drawing.
    qr = segno.make(url, error="l").svg_inline(border=2, omitsize=True, title="Log this play in BG Stats")
    return {"bgstats": url, "qr_svg": str(qr)}
