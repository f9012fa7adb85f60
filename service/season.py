"""The season use cases, written once for `we season` and `we serve`: seal finished games into
a ledger, prove a ledger against the games it names, and read its standings.

A ledger is a JSONL log in the envelope format of a game log (season-format.md), written by the
same appender as a game (eventstore.jsonl: flock, one write per line, fsync), so it is only ever
appended to. What its events mean is wecore.season's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from eventstore.canonical import fingerprint
from eventstore.envelope import make_game_id, utc_now
from eventstore.errors import ConcurrencyError, LogExistsError, NotALogError, StoreError
from eventstore.integrity import verify_log
from eventstore.jsonl import JsonlLog
from service.reading import GameReport, GameSource, ReadGame
from wecore.errors import shown
from wecore.scoring import score
from wecore.season import (
    SEASON_STARTED,
    SealedGame,
    SealedReceipt,
    Season,
    Standing,
    fold_season,
    game_sealed,
    season_started,
    standings,
)

if TYPE_CHECKING:
    from eventstore.receipts import Receipt
    from service.ratings import Rating

# The signed receipts kept for a game (its source, its id): beside its file, or in its library.
FindReceipts = Callable[[GameSource, str], "list[Receipt]"]

# Where a sealed game is now: the GameSource to read it from, or None with why it cannot be.
Locate = Callable[[SealedGame], "GameSource | str"]

# The ledger `we serve` seals into, beside the games of its folder (`we audit DIR`, `we import
# DIR` and the served folder pass it over by this name: cli.batch.logs_in_directory).
SEASON_FILE = "season.jsonl"
# A race with another sealer is retried this often before giving up.
_ATTEMPTS = 5
# The seal's mark beside a sealed game's log (GAME.jsonl.seal): what every writer finds, wherever
# the ledger that sealed it is (decisions.md, season-format.md).
SEAL_SUFFIX = ".seal"
# A mark is a few hundred bytes; anything much longer is not one.
_MARK_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Refusal:
    label: str
    reason: str


@dataclass
class AddResult:
    sealed: list[SealedGame] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    season: Season = field(default_factory=Season)
    fingerprint: str | None = None
    created: bool = False
    # Games sealed whose mark could not be written beside their log (a read-only folder): the
    # ledger holds them, but a writer that does not know the ledger would not see the seal.
    unmarked: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LedgerReading:
    """A ledger read and folded: its own integrity problems, its season, its fingerprint."""

    season: Season
    problems: list[tuple[int, str]]  # (line, message): the chain's and the season's
    events: int
    fingerprint: str | None  # proven: None when the chain is broken

    @property
    def standings(self) -> list[Standing]:
        """Games played, wins (a shared win counts for each in it) and mean score per player."""
        return standings(self.season.games)


def read_ledger(path: Path) -> LedgerReading:
    """The ledger's chain proved (eventstore.integrity) and its events folded (wecore.season).

    A file whose line 1 is not a `season_started` (a game log given by mistake, or junk) is no
    ledger at all: that one problem is told at once, rather than one per line of a file that
    may be huge."""
    not_a_ledger = _not_a_ledger(path)
    if not_a_ledger is not None:
        return LedgerReading(Season(), [(1, not_a_ledger)], 0, None)
    result = verify_log(path)
    problems = [(p.line, p.message) for p in result.problems]
    broken = {p.line for p in result.problems}
    log = JsonlLog(path)
    usable = (
        (line.line, line.envelope.type, line.envelope.data)
        for line in log.iter_lines()
        if line.envelope is not None and line.line not in broken
    )
    season = fold_season(usable)
    problems.extend((p.line, p.message) for p in season.problems)
    problems.sort()
    return LedgerReading(season, problems, result.events, result.fingerprint)


def season_ratings(season: Season) -> list[Rating]:
    """`we season show --ratings` and the lobby: openskill's Plackett-Luce ratings over the
    sealed games, in the order they were played (service.ratings)."""
    from service.ratings import rated_sealed, ratings

    return ratings(rated_sealed(game) for game in season.games)


def _not_a_ledger(path: Path) -> str | None:
    """Why the file is no season ledger, judged on its first line alone; None when it may be one
    (an empty or torn first line is left to the integrity checks, which name it)."""
    from eventstore.integrity import verify_tail_line
    from eventstore.limits import LINE_LIMIT
    from eventstore.logfile import open_log

    try:
        with open_log(path, buffering=-1) as log:
            first = log.readline(LINE_LIMIT + 1)
    except FileNotFoundError:
        return None  # verify_log says so
    if len(first) > LINE_LIMIT:
        return f"not a season ledger: no newline in its first {LINE_LIMIT:,} bytes"
    if not first.endswith(b"\n"):
        return None
    envelope, messages = verify_tail_line(first)
    if envelope is None:
        return f"not a season ledger: {messages[0] if messages else 'not an envelope'}"
    if envelope.type != SEASON_STARTED:
        return f"not a season ledger: {envelope.type!r}, not {SEASON_STARTED!r} (a game log?)"
    return None


def season_id(path: Path) -> str:
    """The id a new ledger's envelopes carry: its file name as a game id ("club-2026")."""
    from datetime import UTC, datetime

    return make_game_id(path.stem, datetime.now(UTC))


def source_of(report_source: GameSource, ledger: Path) -> dict[str, str]:
    """How a ledger names a game: a library id, or the file's path from the ledger's folder (so
    a folder of games and its season move together)."""
    if report_source.path is None:
        return {"library": str(report_source.game_id)}
    where = os.path.relpath(os.path.abspath(report_source.path), os.path.abspath(ledger.parent))
    if outside_folder(where) is not None:
        raise ValueError(
            f"it is outside the ledger's folder ({ledger.parent}): a ledger names only games inside it"
        )
    try:
        where.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("its file name is not valid UTF-8, so a ledger cannot name it") from None
    return {"file": Path(where).as_posix()}


def _sealable(
    source: GameSource,
    ledger: Path,
    read: ReadGame,
    season: Season,
    find_receipts: FindReceipts | None = None,
) -> SealedGame | Refusal:
    label = source.label
    try:
        report = read(source, keep_lines=True)
    except NotALogError as exc:
        # What the file is (a ledger, a document), not that it "cannot be read".
        return Refusal(label, str(exc).removeprefix(f"{label}: "))
    except StoreError as exc:
        return Refusal(label, f"cannot be read: {exc}")
    if report.problems:
        first = report.problems[0]
        return Refusal(label, f"fails the audit: line {first.line}: {first.kind}: {first.message}")
    if not report.complete:
        return Refusal(label, "is not over yet: only a finished game can be sealed")
    game_id = report.game or ""
    before = season.sealed(game_id)
    if before is not None and before.line == 0:
        return Refusal(label, f"game {game_id!r} is given twice: sealed once")
    if before is not None:
        return Refusal(
            label,
            f"game {game_id!r} is already sealed"
            f" (ledger line {before.line}, fingerprint {before.fingerprint})",
        )
    try:
        where = source_of(source, ledger)
    except ValueError as exc:
        return Refusal(label, str(exc))
    sealed = _sealed_result(report, game_id, where)
    if find_receipts is None:
        return sealed
    return _with_receipts(sealed, report, find_receipts(source, game_id), label)


def _with_receipts(
    sealed: SealedGame, report: GameReport, receipts: list[Receipt], label: str
) -> SealedGame | Refusal:
    """The game sealed with the players' receipts kept for it, each checked against its log
    first: a receipt that disagrees (a log rewritten since that phone saw it end) refuses the seal."""
    from service.receipts import verdict

    hashes = [line["hash"] for line in report.lines]
    kept: list[SealedReceipt] = []
    for receipt in receipts:
        judged = verdict(receipt, label, sealed.game, hashes)
        if not judged.holds:
            return Refusal(label, f"a player's receipt disagrees with this log: {judged.message}")
        if receipt.player not in sealed.players or any(k.player == receipt.player for k in kept):
            continue
        assert receipt.key is not None and receipt.signature is not None  # verdict holds: signed
        kept.append(
            SealedReceipt(
                receipt.player, receipt.score, receipt.events, receipt.hash, receipt.key, receipt.signature
            )
        )
    return SealedGame(**{**sealed.__dict__, "receipts": tuple(kept)})


def _sealed_result(report: GameReport, game_id: str, where: dict[str, str]) -> SealedGame:
    """What a ledger seals of a finished game that passes the audit (read with keep_lines)."""
    state = report.state
    board = score(state)
    lines = report.lines
    return SealedGame(
        game=game_id,
        hash=lines[-1]["hash"],
        title=state.title,
        players=tuple(state.players),
        scores=tuple(entry.total for entry in board.players),
        winners=tuple(board.winners),
        events=report.events,
        started_at=lines[0]["at"],
        source=where,
        line=0,
    )


# The result a game_sealed line holds besides which game it is: each must be the game's own.
_RESULT_FIELDS = ("title", "players", "scores", "winners", "events", "started_at")


def add_games(
    ledger: Path,
    sources: Iterable[GameSource],
    read: ReadGame,
    name: str | None = None,
    find_receipts: FindReceipts | None = None,
) -> AddResult:
    """Seal every source that is a finished game passing the audit and not sealed yet, in one
    append; the others are refused, each with its reason. A ledger that is not there is started
    (named `name`, else after its file) in the same write as its first games, and not at all
    when every game is refused. A damaged ledger is never appended to (StoreError)."""
    sources = list(sources)
    log = JsonlLog(ledger)
    for _ in range(_ATTEMPTS):
        new = not ledger.exists()
        reading = LedgerReading(Season(name or ledger.stem), [], 0, None) if new else read_ledger(ledger)
        if reading.problems:
            line, message = reading.problems[0]
            raise StoreError(
                f"{ledger}: line {line}: {message}; refusing to seal into it (see `we season verify`)"
            )
        season = reading.season
        result = AddResult(created=new)
        chosen: list[SealedGame] = []
        for source in sources:
            outcome = _sealable(
                source, ledger, read, Season(season.name, season.games + chosen), find_receipts
            )
            if isinstance(outcome, Refusal):
                result.refused.append(outcome)
            else:
                chosen.append(outcome)
        if not chosen and new:
            result.created = False
            return result  # nothing to seal: no ledger is started
        if chosen:
            events = [game_sealed(g) for g in chosen]
            try:
                if new:
                    start = season_started(season.name or ledger.stem)
                    envelopes = log.create_many([start, *events], season_id(ledger), at=utc_now())[1:]
                else:
                    envelopes = log.append(events, reading.events, at=utc_now())
            except (ConcurrencyError, LogExistsError):
                continue  # someone sealed meanwhile: judge again against what they sealed
            result.sealed = [
                SealedGame(**{**g.__dict__, "line": env.seq})
                for g, env in zip(chosen, envelopes, strict=True)
            ]
            libraries = {
                s.game_id: s.db_path for s in sources if s.db_path is not None and s.game_id is not None
            }
            for game in result.sealed:
                try:
                    if "file" in game.source:
                        mark_sealed(ledger.parent / game.source["file"], ledger, game)
                    elif (db := libraries.get(game.source["library"])) is not None:
                        _mark_sealed_in_library(db, ledger, game)
                except (OSError, StoreError) as exc:
                    result.unmarked.append(f"{game.game}: {_os_reason(exc)}")
        final = read_ledger(ledger)
        result.season = final.season
        result.fingerprint = final.fingerprint
        return result
    raise StoreError(f"{ledger}: other sealers kept appending; nothing sealed, try again")


@dataclass(frozen=True)
class Finding:
    """Something verify found wrong: at a ledger line, or with a sealed game."""

    message: str
    line: int | None = None
    game: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "game": self.game, "message": self.message}


@dataclass
class VerifyReport:
    ledger: str
    events: int
    fingerprint: str | None
    games: int
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        return {
            "ledger": self.ledger,
            "ok": self.ok,
            "events": self.events,
            "games": self.games,
            "fingerprint": self.fingerprint,
            "problems": [f.as_dict() for f in self.findings],
        }


def outside_folder(file: str) -> str | None:
    """Why a ledger's `source.file` is not a path inside the ledger's folder (absolute, or
    climbing out with ..), or None. Decided from the text alone: such a path is never opened,
    so a ledger someone sends cannot probe the reader's filesystem."""
    posix, windows = PurePosixPath(file), PureWindowsPath(file)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or file.startswith(("/", "\\")):
        return f"the ledger names the file {shown(file)} by an absolute path"
    if ".." in posix.parts or ".." in windows.parts:
        return f"the ledger names the file {shown(file)} outside its own folder (..)"
    if "\x00" in file:
        return f"the ledger names the file {shown(file)}, which no file is called"
    return None


def locate_file(
    sealed: SealedGame, ledger: Path, elsewhere: Callable[[SealedGame], GameSource | None] | None = None
) -> GameSource | str:
    """A sealed file's source: its path from the ledger's folder, or why it is not there. A
    path outside that folder, by its text or through a symbolic link, is a problem of the
    ledger, and is not opened. A file gone or unopenable may be found `elsewhere` (a library
    holding the same game, renamed or moved there): its last hash then proves it or not."""
    file = sealed.source["file"]
    refusal = outside_folder(file)
    if refusal is not None:
        return f"{refusal}: not opened (a ledger reads game files only inside its folder)"
    path = ledger.parent / file
    try:
        real = path.resolve(strict=True)
        folder = ledger.parent.resolve(strict=True)
    except FileNotFoundError:
        where = f"looked for from the ledger's folder, at {path}"
        why = f"gone: {file} is not there any more ({where})"
    except (OSError, RuntimeError) as exc:  # a name too long, a loop of links, a folder not searchable
        why = f"cannot be read: {shown(file)}: {_os_reason(exc)}"
    else:
        if not real.is_relative_to(folder):
            return (
                f"the ledger names the file {shown(file)}, a link to {shown(str(real))} outside its own"
                " folder: not opened (a ledger reads game files only inside its folder)"
            )
        return GameSource(label=str(path), path=path)
    found = elsewhere(sealed) if elsewhere is not None else None
    return why if found is None else found


def _os_reason(exc: BaseException) -> str:
    """What went wrong with a file, without the file's name (the caller names it, clipped)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def verify_season(ledger: Path, read: ReadGame, locate: Locate, expected: str | None = None) -> VerifyReport:
    """The ledger's own chain and season, then every sealed game against what it names: each
    game gone, swapped (a different last hash: another log, a shorter one) or now failing its
    audit is a finding naming the game; each bad ledger line one naming the line. `expected`: a
    fingerprint noted before, which the ledger must still have."""
    reading = read_ledger(ledger)
    findings = [Finding(message, line=line) for line, message in reading.problems]
    fp = reading.fingerprint
    if expected is not None and fp is not None and fp != expected.lower():
        findings.append(Finding(f"the ledger's fingerprint is {fp}, not {expected} as noted"))
    for sealed in reading.season.games:
        try:
            finding = _game_finding(sealed, read, locate)
        except (OSError, RuntimeError) as exc:  # one game's file is that game's problem, not the season's
            finding = f"cannot be read: {_os_reason(exc)}"
        if finding is not None:
            findings.append(
                Finding(
                    f"game {sealed.game!r} (line {sealed.line}): {finding}",
                    line=sealed.line,
                    game=sealed.game,
                )
            )
        findings.extend(
            Finding(f"game {sealed.game!r} (line {sealed.line}): {said}", line=sealed.line, game=sealed.game)
            for said in _receipt_findings(sealed, read, locate)
        )
    return VerifyReport(str(ledger), reading.events, fp, len(reading.season.games), findings)


def _game_finding(sealed: SealedGame, read: ReadGame, locate: Locate) -> str | None:
    source = locate(sealed)
    if isinstance(source, str):
        return source
    try:
        report = read(source, keep_lines=True)
    except StoreError as exc:
        return f"gone: {exc}"
    except OSError as exc:
        return f"cannot be read: {shown(source.label)}: {_os_reason(exc)}"
    if report.broken_at is not None or report.fingerprint is None:
        first = report.problems[0] if report.problems else None
        what = f"line {first.line}: {first.message}" if first else "its chain is broken"
        return f"its log is damaged ({what}), so it cannot prove fingerprint {sealed.fingerprint}"
    last_hash = report.lines[-1]["hash"] if report.lines else None
    grown = len(report.lines) > sealed.events and report.lines[sealed.events - 1].get("hash") == sealed.hash
    if report.game == sealed.game and last_hash != sealed.hash and grown:
        # Its sealed events are all there, unchanged: events were added after the seal.
        return (
            f"extended: {source.label} now holds {report.events} events, {report.events - sealed.events}"
            f" more than the {sealed.events} sealed (those are unchanged, fingerprint {sealed.fingerprint});"
            " what came after is not in the season: put the log back as it was sealed (`we season"
            " put-back`, which keeps what it cuts), or play the change as a new game"
        )
    if report.game != sealed.game or last_hash != sealed.hash:
        now = f"game {report.game!r}, " if report.game != sealed.game else ""
        return (
            f"swapped: {source.label} now holds {now}{report.events} events, fingerprint"
            f" {fingerprint(last_hash) or report.fingerprint}; sealed: {sealed.events} events, fingerprint"
            f" {sealed.fingerprint}"
        )
    if report.problems:
        first = report.problems[0]
        return f"fails the audit now: line {first.line}: {first.kind}: {first.message}"
    if not report.complete:
        return "is not over, so it is not the finished game sealed"
    # The same game, yet a result the game does not have: the ledger was edited and re-hashed.
    result_now = _sealed_result(report, sealed.game, dict(sealed.source))
    differ = [f for f in _RESULT_FIELDS if _plain(getattr(sealed, f)) != _plain(getattr(result_now, f))]
    if differ:
        said = "; ".join(
            f"{f} sealed {_plain(getattr(sealed, f))!r}, the game has {_plain(getattr(result_now, f))!r}"
            for f in differ
        )
        return f"the ledger's result is not the game's: {said}"
    return None


def _receipt_findings(sealed: SealedGame, read: ReadGame, locate: Locate) -> list[str]:
    """Each sealed receipt whose signature does not hold, or whose checkpoint the game's log
    (as it is now) does not have: named by its player, its key and the event count."""
    if not sealed.receipts:
        return []
    from eventstore.receipts import Receipt
    from service.receipts import verdict

    hashes: list[str] | None = None
    game_id: str | None = None
    source = locate(sealed)
    if not isinstance(source, str):
        try:
            report = read(source, keep_lines=True)
            hashes, game_id = [line["hash"] for line in report.lines], report.game
        except StoreError:
            hashes = None
    found = []
    for r in sealed.receipts:
        receipt = Receipt(
            sealed.game, sealed.title, None, r.player, r.score, r.events, r.hash, r.key, r.signature
        )
        if not receipt.signature_holds():
            found.append(f"{receipt.who()}: the signature does not hold for its key")
        elif hashes is not None:
            judged = verdict(receipt, "", game_id, hashes)
            if not judged.holds:
                found.append(judged.message)
    return found


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple | list) else value


def seal_in_folder(directory: Path, source: GameSource) -> AddResult:
    """`we serve`'s seal: one game of the folder into the folder's SEASON_FILE, named after it."""
    from service.reading import read_game

    return add_games(directory / SEASON_FILE, [source], read_game, name=directory.resolve().name or None)


def folder_season(directory: Path) -> LedgerReading | None:
    """The folder's season as the lobby shows it; None when nothing was sealed yet."""
    ledger = directory / SEASON_FILE
    return read_ledger(ledger) if ledger.is_file() else None


# A folder's ledger read once per change of the file ((size, mtime_ns) -> its reading).
_LEDGERS: dict[Path, tuple[tuple[int, int], LedgerReading]] = {}


def sealed_beside(log_path: Path, game_id: str | None) -> tuple[Path, SealedGame] | None:
    """The entry of the SEASON_FILE beside a game's log that sealed that log (same game id, same
    file), or None: a sealed game's log is final (service.table refuses to add to it)."""
    if game_id is None:
        return None
    ledger = log_path.parent / SEASON_FILE
    try:
        st = ledger.stat()
    except OSError:
        return None
    key = ledger.resolve()
    stamp = (st.st_size, st.st_mtime_ns)
    cached = _LEDGERS.get(key)
    if cached is not None and cached[0] == stamp:
        reading = cached[1]
    else:
        reading = read_ledger(ledger)
        _LEDGERS[key] = (stamp, reading)
    for sealed in reading.season.games:
        where = sealed.source.get("file")
        if sealed.game != game_id or where is None:
            continue
        try:
            if (ledger.parent / where).samefile(log_path):
                return ledger, sealed
        except OSError:
            continue
    return None


def sealed_sentence(path: Path, game_id: str | None) -> str | None:
    """Why nothing may be added to the game's log at `path`, when its folder's season ledger
    sealed it (what `Table` refuses with, and what the pages say)."""
    found = sealed_beside(path, game_id)
    if found is None:
        return marked_sentence(path, game_id)
    ledger, sealed = found
    return (
        f"{sealed.game} is sealed into the season ({ledger.name}, line {sealed.line}, fingerprint"
        f" {sealed.fingerprint}): its log is final, so nothing can be undone or added; to change"
        " the result, play or record the game again as a new game"
    )


# --- the seal's mark beside a game's log ----------------------------------------------------


def seal_mark(log_path: Path) -> Path:
    """Where the mark of a sealed log is: beside it, GAME.jsonl.seal (no `*.jsonl` glob takes it)."""
    return log_path.with_name(log_path.name + SEAL_SUFFIX)


def mark_sealed(log_path: Path, ledger: Path, sealed: SealedGame) -> Path:
    """Leave the seal's mark beside the log: the ledger (by its absolute path), its line, and
    the sealed head. Written whole or not at all (a temporary file renamed over it)."""
    import json

    mark = seal_mark(log_path)
    text = json.dumps(
        {
            "game": sealed.game,
            "ledger": os.path.abspath(ledger),
            "line": sealed.line,
            "events": sealed.events,
            "hash": sealed.hash,
            "fingerprint": sealed.fingerprint,
        },
        ensure_ascii=False,
    )
    temporary = mark.with_name(f".{mark.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as out:
            out.write(text + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, mark)
    finally:
        temporary.unlink(missing_ok=True)
    return mark


def _mark_sealed_in_library(db: Path | str, ledger: Path, sealed: SealedGame) -> None:
    """A library game sealed by id: its seal recorded in the library (`game_seals`), which
    every writer of the library's games asks before adding to one."""
    from eventstore.libraries import connect

    with connect(db) as library:
        library.mark_sealed(
            sealed.game,
            ledger=os.path.abspath(ledger),
            line=sealed.line,
            events=sealed.events,
            head_hash=sealed.hash,
            fingerprint=sealed.fingerprint,
        )


def read_seal_mark(log_path: Path) -> dict[str, Any] | None:
    """The seal's mark beside a log, None when there is none. A mark that cannot be read as
    one is {"unreadable": why}: a writer refuses all the same, and says so."""
    import json

    mark = seal_mark(log_path)
    try:
        with open(mark, "rb") as f:
            raw = f.read(_MARK_LIMIT + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return {"unreadable": _os_reason(exc)}
    try:
        found = json.loads(raw) if len(raw) <= _MARK_LIMIT else None
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("game"), str):
        return {"unreadable": "it is not a seal's mark"}
    return found


def marked_sentence(log_path: Path, game_id: str | None) -> str | None:
    """Why nothing may be added to the game's log at `log_path` by its seal's mark: sealed
    into the ledger it names, wherever that is; None without a mark for this game."""
    if game_id is None:
        return None
    mark = read_seal_mark(log_path)
    if mark is None:
        return None
    name = seal_mark(log_path).name
    if "unreadable" in mark:
        return (
            f"{game_id} has a seal's mark beside its log ({name}) that cannot be read"
            f" ({mark['unreadable']}): its log is treated as final; remove the mark only if no"
            " season sealed this game"
        )
    if mark["game"] != game_id:
        return None  # the mark of another game, once in this file: not this one's seal
    return (
        f"{game_id} is sealed into the season ledger {shown(str(mark.get('ledger')), 200)} (line"
        f" {mark.get('line')}, fingerprint {mark.get('fingerprint')}): its log is final, so"
        " nothing can be undone or added; to change the result, play or record the game again"
        " as a new game"
    )


@dataclass(frozen=True)
class PutBack:
    """A sealed log put back as it was sealed: the lines cut off, and where they are kept."""

    game: str
    cut: int  # lines cut off after the sealed ones (0: it was as sealed)
    kept_in: Path | None  # the side file holding them, byte for byte
    mark: Path | None  # the seal's mark, (re)written beside the log


def put_back(ledger: Path, log_path: Path, read: ReadGame) -> PutBack:
    """A log extended after `ledger` sealed it, cut back to its sealed events: the lines after
    them are kept, byte for byte, in a side file beside it (GAME.jsonl.cut, .cut.1, ...), and
    the seal's mark is written again. ValueError (one sentence) when the ledger did not seal
    this log, or its sealed events are not all there unchanged (then nothing is cut)."""
    from eventstore.jsonl import cut_after

    reading = read_ledger(ledger)
    if reading.problems:
        line, message = reading.problems[0]
        raise ValueError(f"{ledger}: line {line}: {message} (see `we season verify`)")
    try:
        report = read(GameSource(label=str(log_path), path=log_path), keep_lines=False)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    sealed = reading.season.sealed(report.game or "")
    if sealed is None or "file" not in sealed.source:
        raise ValueError(f"{log_path}: the ledger {ledger} sealed no file of game {report.game!r}")
    try:
        same = (ledger.parent / sealed.source["file"]).samefile(log_path)
    except OSError:
        same = False
    if not same:
        raise ValueError(
            f"{log_path}: the ledger {ledger} sealed game {sealed.game!r} as {sealed.source['file']},"
            " not this file"
        )
    cut = cut_after(log_path, sealed.events, sealed.hash)
    mark = mark_sealed(log_path, ledger, sealed)
    return PutBack(sealed.game, cut.lines, cut.kept_in, mark)
