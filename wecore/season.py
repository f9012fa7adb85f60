"""A season: the games a club has sealed, folded from the events of its ledger (season-format.md).

Pure: a ledger's events in, the season and its standings out. Reading, chaining and appending
the ledger are the store's (it is a log in the envelope format of a game log); choosing what
to seal and proving it against the games is the service's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wecore.stats import Tally, same_name

SEASON_STARTED = "season_started"
GAME_SEALED = "game_sealed"
SEASON_FORMAT = 1

_GAME_ID = re.compile(r"[a-z0-9-]{1,64}\Z")
_HASH = re.compile(r"sha256:[0-9a-f]{64}\Z")
_STARTED_KEYS = {"name", "format"}
_SEALED_KEYS = {"game", "hash", "title", "players", "scores", "winners", "events", "started_at", "source"}
_SOURCE_KINDS = ("file", "library")
# A game_sealed may carry the receipts of the players' phones (docs/season-format.md, "Receipts").
RECEIPTS = "receipts"
_RECEIPT_KEYS = {"player", "score", "events", "hash", "key", "signature"}
_HEX_KEY = re.compile(r"[0-9a-f]{64}\Z")
_HEX_SIGNATURE = re.compile(r"[0-9a-f]{128}\Z")


@dataclass(frozen=True)
class SealedReceipt:
    """A player's signed receipt as a season seals it: whose, the checkpoint the phone saw end
    (events, hash), the score it saw, the phone's public key and its signature. Checking the
    signature is the service's (a library's, not the core's)."""

    player: str
    score: int
    events: int
    hash: str
    key: str  # Ed25519 public key, 64 hex
    signature: str  # 128 hex

    def as_data(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "score": self.score,
            "events": self.events,
            "hash": self.hash,
            "key": self.key,
            "signature": self.signature,
        }


@dataclass(frozen=True)
class SealedGame:
    """One finished game as the season sealed it: which game, its whole last hash, its result."""

    game: str
    hash: str  # the game log's last hash, "sha256:<64 hex>": it stands for every event
    title: str | None
    players: tuple[str, ...]  # seat order
    scores: tuple[int, ...]  # by seat
    winners: tuple[str, ...]  # seat order; the tie-break's winner alone when a tie was broken
    events: int
    started_at: str | None  # the game's first event's `at`
    source: Mapping[str, str]  # {"file": path relative to the ledger} or {"library": game id}
    line: int  # the ledger line that sealed it
    receipts: tuple[SealedReceipt, ...] = ()  # the players' signed receipts found when sealed

    @property
    def fingerprint(self) -> str:
        return self.hash[len("sha256:") : len("sha256:") + 12]

    def as_data(self) -> dict[str, Any]:
        """The payload of its game_sealed event (`receipts` only when there are some, so a
        ledger without them is byte for byte as before receipts)."""
        data: dict[str, Any] = {
            "game": self.game,
            "hash": self.hash,
            "title": self.title,
            "players": list(self.players),
            "scores": list(self.scores),
            "winners": list(self.winners),
            "events": self.events,
            "started_at": self.started_at,
            "source": dict(self.source),
        }
        if self.receipts:
            data[RECEIPTS] = [r.as_data() for r in self.receipts]
        return data


@dataclass(frozen=True)
class SeasonProblem:
    line: int
    message: str


@dataclass
class Season:
    name: str | None = None
    games: list[SealedGame] = field(default_factory=list)
    problems: list[SeasonProblem] = field(default_factory=list)

    def sealed(self, game_id: str) -> SealedGame | None:
        return next((g for g in self.games if g.game == game_id), None)


def season_started(name: str) -> tuple[str, dict[str, Any]]:
    return SEASON_STARTED, {"name": name, "format": SEASON_FORMAT}


def game_sealed(game: SealedGame) -> tuple[str, dict[str, Any]]:
    return GAME_SEALED, game.as_data()


def fold_season(events: Iterable[tuple[int, str, Mapping[str, Any]]]) -> Season:
    """A season from its ledger's (line, type, data): every line that is not a season event as
    the format says is a problem at its line, and is left out."""
    season = Season()
    for line, kind, data in events:
        if line == 1:
            if kind != SEASON_STARTED:
                season.problems.append(
                    SeasonProblem(line, f"the first event is {kind!r}, not {SEASON_STARTED!r}")
                )
                continue
            wrong = _started_problem(data)
            if wrong:
                season.problems.append(SeasonProblem(line, wrong))
            else:
                season.name = data["name"]
            continue
        if kind != GAME_SEALED:
            season.problems.append(SeasonProblem(line, f"unknown event type {kind!r} in a season"))
            continue
        sealed, wrong = _sealed_game(line, data)
        if sealed is None:
            season.problems.append(SeasonProblem(line, wrong or "not a sealed game"))
            continue
        before = season.sealed(sealed.game)
        if before is not None:
            season.problems.append(
                SeasonProblem(line, f"game {sealed.game!r} is sealed twice (first at line {before.line})")
            )
            continue
        season.games.append(sealed)
    return season


def _started_problem(data: Mapping[str, Any]) -> str | None:
    if set(data) != _STARTED_KEYS:
        return f"season_started holds {sorted(data)}, not {sorted(_STARTED_KEYS)}"
    if type(data["name"]) is not str or not data["name"]:
        return "season_started: name must be a non-empty string"
    if data["format"] != SEASON_FORMAT:
        return f"season_started: format {data['format']!r} is not {SEASON_FORMAT}"
    return None


def _sealed_game(line: int, data: Mapping[str, Any]) -> tuple[SealedGame | None, str | None]:
    if set(data) - {RECEIPTS} != _SEALED_KEYS:
        return None, f"game_sealed holds {sorted(data)}, not {sorted(_SEALED_KEYS)} (and receipts)"
    game, players, scores, winners = data["game"], data["players"], data["scores"], data["winners"]
    if type(game) is not str or _GAME_ID.match(game) is None:
        return None, f"game_sealed: {game!r} is not a game id"
    if type(data["hash"]) is not str or _HASH.match(data["hash"]) is None:
        return None, f"game_sealed {game}: hash {data['hash']!r} is not sha256:<64 hex>"
    if type(players) is not list or not players or not all(type(p) is str and p for p in players):
        return None, f"game_sealed {game}: players must be a list of names"
    if type(scores) is not list or len(scores) != len(players) or not all(type(s) is int for s in scores):
        return None, f"game_sealed {game}: scores must be one integer per player"
    if type(winners) is not list or not winners or not all(w in players for w in winners):
        return None, f"game_sealed {game}: winners must be players of the game"
    if type(data["events"]) is not int or data["events"] < 1:
        return None, f"game_sealed {game}: events must be a positive integer"
    if data["title"] is not None and type(data["title"]) is not str:
        return None, f"game_sealed {game}: title must be a string or null"
    if data["started_at"] is not None and type(data["started_at"]) is not str:
        return None, f"game_sealed {game}: started_at must be a string or null"
    source = data["source"]
    if (
        type(source) is not dict
        or len(source) != 1
        or next(iter(source)) not in _SOURCE_KINDS
        or type(next(iter(source.values()))) is not str
        or not next(iter(source.values()))
    ):
        return None, f'game_sealed {game}: source must be {{"file": PATH}} or {{"library": ID}}'
    receipts, wrong = _sealed_receipts(game, players, data.get(RECEIPTS, []))
    if wrong is not None:
        return None, wrong
    return (
        SealedGame(
            game=game,
            hash=data["hash"],
            title=data["title"],
            players=tuple(players),
            scores=tuple(scores),
            winners=tuple(winners),
            events=data["events"],
            started_at=data["started_at"],
            source=dict(source),
            line=line,
            receipts=receipts,
        ),
        None,
    )


def _sealed_receipts(
    game: str, players: list[str], receipts: Any
) -> tuple[tuple[SealedReceipt, ...], str | None]:
    where = f"game_sealed {game}: receipts"
    if type(receipts) is not list:
        return (), f"{where} must be a list"
    found: list[SealedReceipt] = []
    for number, r in enumerate(receipts, start=1):
        if type(r) is not dict or set(r) != _RECEIPT_KEYS:
            return (), f"{where}: receipt {number} must hold exactly {sorted(_RECEIPT_KEYS)}"
        if type(r["player"]) is not str or r["player"] not in players:
            return (), f"{where}: receipt {number}'s player must be a player of the game"
        if type(r["score"]) is not int or type(r["events"]) is not int or r["events"] < 1:
            return (), f"{where}: receipt {number}'s score and events must be whole numbers (events >= 1)"
        if type(r["hash"]) is not str or _HASH.match(r["hash"]) is None:
            return (), f"{where}: receipt {number}'s hash must be sha256:<64 hex>"
        if type(r["key"]) is not str or _HEX_KEY.match(r["key"]) is None:
            return (), f"{where}: receipt {number}'s key must be 64 lower-case hex digits"
        if type(r["signature"]) is not str or _HEX_SIGNATURE.match(r["signature"]) is None:
            return (), f"{where}: receipt {number}'s signature must be 128 lower-case hex digits"
        if any(other.player == r["player"] for other in found):
            return (), f"{where}: {r['player']!r} has two receipts"
        found.append(SealedReceipt(r["player"], r["score"], r["events"], r["hash"], r["key"], r["signature"]))
    return tuple(found), None


@dataclass(frozen=True)
class Standing:
    player: str  # as first written in the season
    games: int
    wins: float  # a tie nobody broke shares its one win: 1/k to each of the k players in it
    mean_score: float


def standings(games: Iterable[SealedGame]) -> list[Standing]:
    """Per player: games played, wins and mean score, counted by the one tally every report
    reads (wecore.stats.Tally), so a season shares a tie as `we stats` does; names matched as
    the logs match them. Most wins first."""
    tally = Tally()
    for game in games:
        winners = {same_name(w) for w in game.winners}
        seats = [seat for seat, player in enumerate(game.players) if same_name(player) in winners]
        tally.add_result(game.players, game.scores, seats)
    table = [Standing(rate.key, rate.games, rate.wins, rate.mean_score) for rate in tally.by_player.values()]
    table.sort(key=lambda s: (-s.wins, -s.mean_score, same_name(s.player)))
    return table
