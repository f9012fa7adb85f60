"""The game library's use cases, written once for every face: a log audited, then imported
(`we import`, the recorder at the end of a game, `we simulate --db`), and the figures over the
library's games (`we stats`, its --fairness, --by evening and --versus).

Whether a game is valid, over and won is decided by folding it with wecore, exactly as
`we audit` does; the library only stores logs. Reading a game goes through a `read` the
caller passes (service.reading.read_game over the caller's library connection), so that a
command reading a thousand games connects once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eventstore.errors import LibraryBusyError, SeasonLedgerError, StoreError, WritesLostError
from service.reading import GameReport, GameSource, ReadGame

if TYPE_CHECKING:
    from pathlib import Path

    from eventstore.libraries import LibraryRef
    from eventstore.persistence import GameLibrary
    from service.ratings import Rating
    from wecore.clock import ThinkTime
    from wecore.state import GameState
    from wecore.stats import Evening, GameRecord, Tally, Versus

# What became of a log: kept in the library (the first three), or not, and why.
IMPORTED, EXTENDED, UNCHANGED = "imported", "extended", "unchanged"
REFUSED, UNREADABLE, NOT_IMPORTED = "refused", "unreadable", "not imported"
# A season ledger among the logs (a served folder keeps one beside its games): no game, and no
# failure of the import either.
SKIPPED = "skipped"


@dataclass(frozen=True)
class ImportOutcome:
    """A log audited and imported, or not: `status` one of the seven above; `text` what was
    done ("imported game 'x' ...") or why not (the log's first problem, the store's error)."""

    status: str
    text: str
    game_id: str | None = None
    fingerprint: str | None = None

    @property
    def in_library(self) -> bool:
        return self.status in (IMPORTED, EXTENDED, UNCHANGED)


def audited_for_import(source: GameSource, read: ReadGame) -> GameReport | ImportOutcome:
    """The log read once and audited, keeping the lines it verified for the import; or why it
    cannot be imported: unreadable (no permission, a FIFO, vanished) or refused (its first
    problem). WritesLostError passes: every game after it would go the same way."""
    label = source.label
    try:
        report = read(source, keep_lines=True)
    except WritesLostError:
        raise
    except SeasonLedgerError as exc:
        return ImportOutcome(SKIPPED, str(exc))
    except StoreError as exc:
        return ImportOutcome(UNREADABLE, str(exc))
    except OSError as exc:
        return ImportOutcome(UNREADABLE, f"{label}: cannot read: {exc.strerror or exc}")
    if report.problems:
        return ImportOutcome(REFUSED, report.first_problem(label, audit=f"we audit {label}"))
    return report


@dataclass(frozen=True)
class VerifiedLog:
    """What an import needs of a log that passed its audit: the lines it verified, parsed, and
    the game's summary (complete, winner). Small enough to hand from a worker process to the
    one that writes the library (no state, no envelopes)."""

    lines: list[dict[str, Any]]
    summary: tuple[bool, str | None]
    # The lines as the file wrote them where that is not their rows' form (eventstore.as_written):
    # the library keeps them, so that `we export` gives the file back byte for byte.
    written: dict[int, str] = field(default_factory=dict)
    # A finished game's places (seat, player, score, rank), kept with it for the ratings.
    ranks: list[tuple[int, str, int, int]] = field(default_factory=list)


def ranks_of(state: GameState) -> list[tuple[int, str, int, int]]:
    """A finished game's places, seat by seat (none before its end): wecore.stats's
    finishing_ranks over its final scores, a recorded tie_broken deciding the top."""
    from wecore.scoring import score
    from wecore.stats import finishing_ranks

    if not state.is_over:
        return []
    board = score(state)
    scores = [entry.total for entry in board.players]
    won = set(board.winners)
    winners = {seat for seat, name in enumerate(state.players) if name in won}
    ranks = finishing_ranks(scores, winners)
    return [(seat, name, scores[seat], ranks[seat]) for seat, name in enumerate(state.players)]


def verified_for_import(source: GameSource, read: ReadGame) -> VerifiedLog | ImportOutcome:
    """audited_for_import, keeping only what import_verified_log needs: what a worker of
    `we import --jobs` does for each log, while one process writes the library."""
    from wecore.scoring import library_summary

    audited = audited_for_import(source, read)
    if isinstance(audited, ImportOutcome):
        return audited
    written: dict[int, str] = {}
    if source.path is not None:
        from eventstore.as_written import lines_as_written

        if (beyond := _beyond_its_seal(source.path, audited)) is not None:
            return ImportOutcome(REFUSED, f"{source.label}: {beyond}")

        try:
            written = lines_as_written(source.path)
        except OSError as exc:  # gone or changed since the audit read it
            return ImportOutcome(UNREADABLE, f"{source.label}: cannot read: {exc.strerror or exc}")
    return VerifiedLog(audited.lines, library_summary(audited.state), written, ranks_of(audited.state))


def _beyond_its_seal(path: Path, report: GameReport) -> str | None:
    """Why a log is not imported when its seal's mark (service.season) says a ledger sealed
    fewer of its events: what was added after the seal would extend a sealed game."""
    from service.season import read_seal_mark

    mark = read_seal_mark(path)
    if mark is None or mark.get("game") != report.game:
        return None
    sealed = mark.get("events")
    if type(sealed) is int and report.events <= sealed:
        return None
    return (
        f"game {report.game!r} is sealed into the season ledger {mark.get('ledger', '(unreadable mark)')}"
        f" at {sealed} events and its log now holds {report.events}: not imported, a sealed game is"
        " never extended (`we season put-back LEDGER LOG` puts it back, keeping what it cuts)"
    )


def import_verified_log(library: GameLibrary, verified: VerifiedLog, label: str) -> ImportOutcome:
    """A log that passed the audit, as verified_for_import keeps it, into `library`."""
    try:
        result = library.import_verified(
            verified.lines, label, verified.summary, verified.written, verified.ranks
        )
    except WritesLostError:
        raise  # what was not committed is gone, and every game after it would go the same way
    except LibraryBusyError as exc:  # other writers kept the lock: this game is not in it
        return ImportOutcome(NOT_IMPORTED, f"{label}: not imported: {exc}")
    except StoreError as exc:  # a different game under the same id, or a file that changed
        return ImportOutcome(REFUSED, str(exc))
    text = result.message
    if result.status != UNCHANGED:
        text = f"{text}, fingerprint {result.fingerprint}"
    return ImportOutcome(result.status, text, result.game_id, result.fingerprint)


def import_file(
    db: LibraryRef, path: Path, read: ReadGame, on_upgrade: Callable[[str], None] | None = None
) -> ImportOutcome:
    """A log file audited, then imported into the library at `db`, as `we import` would put it
    there: the recorder's end of a game. The library is opened only for a log that passed (a
    refused one creates no library); one that cannot be opened or written is NOT_IMPORTED."""
    from eventstore.libraries import connect

    source = GameSource(label=str(path), path=path)
    verified = verified_for_import(source, read)
    if isinstance(verified, ImportOutcome):
        return verified
    try:
        with connect(db, on_upgrade=on_upgrade) as library:
            outcome = import_verified_log(library, verified, source.label)
            if outcome.status in (IMPORTED, EXTENDED):
                with suppress(StoreError):  # the game is in; the ratings wait for the next import
                    refresh_ratings(library, db, read)
            return outcome
    except (StoreError, OSError) as exc:
        return ImportOutcome(NOT_IMPORTED, str(exc))


def store_played(library: GameLibrary, game_id: str, envelopes: Iterable[Any], state: GameState) -> None:
    """A game played here (by bots) into the library: one transaction for its events (the
    same game again is a no-op), then its summary. Its events were made by the engine, so it
    is not audited again."""
    from wecore.scoring import library_summary

    library.import_envelopes(envelopes, label=game_id)
    complete, winner = library_summary(state)
    library.set_summary(game_id, complete=complete, winner=winner)


# --- the figures over the library ---------------------------------------------------------


def evening_of(at: str | None) -> str | None:
    """The evening a game was played: the date of its first event's `at` (UTC) where `we`
    runs, since an evening at the table is a local one (a game at 00:30 belongs to the night
    before only by the clock, which is the reading kept)."""
    from datetime import datetime

    if not at:
        return None
    try:
        return datetime.fromisoformat(at).astimezone().date().isoformat()
    except ValueError:
        return at[:10] or None


@dataclass
class LibraryFigures:
    """Every game of a library, folded: the finished, valid ones tallied and kept as records
    (oldest first); the others named."""

    tally: Tally
    records: list[GameRecord] = field(default_factory=list)
    think: dict[str, ThinkTime] = field(default_factory=dict)  # per player, over the counted games
    unfinished: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)

    @property
    def counted(self) -> int:
        return self.tally.games


def library_figures(games: Iterable[dict[str, Any]], db: Any, read: ReadGame) -> LibraryFigures:
    """Fold every game of `games` (the library's games rows; `db` where it is, for reading
    each through `read`); only valid, finished games count."""
    from service.clock import times_of_lines
    from wecore.clock import think_time_totals
    from wecore.stats import Tally, record_of

    figures = LibraryFigures(Tally())
    for row in games:
        game_id, started_at = row["id"], row["started_at"]
        if game_id is None:
            continue
        try:
            report = read(GameSource(label=game_id, db_path=db, game_id=game_id), keep_lines=True)
        except WritesLostError:
            raise
        except StoreError:
            # Its rows cannot even be read (a damaged games row): not counted, like a game
            # failing the audit, which says why.
            figures.invalid.append(game_id)
            continue
        if report.problems:
            figures.invalid.append(game_id)
        elif not report.complete:
            figures.unfinished.append(game_id)
        else:
            game = report.game or report.source
            record = record_of(report.state, game, started_at, evening_of(started_at))
            figures.tally.add(record)
            figures.records.append(record)
            think = times_of_lines(report.lines).think
            figures.think = think_time_totals([figures.think, think])
    return figures


def evenings_of(records: Iterable[GameRecord]) -> list[Evening]:
    """`we stats --by evening`: the games grouped by the evening they were played, oldest first."""
    from wecore.stats import evenings

    return evenings(records)


def longest_streaks_of(records: Iterable[GameRecord]) -> dict[str, int]:
    """Each player's longest run of games won (a shared win counts), the longest first."""
    from wecore.stats import longest_streaks

    return longest_streaks(records)


def library_ratings(figures: LibraryFigures) -> list[Rating]:
    """`we stats --ratings`: openskill's Plackett-Luce ratings over the library's finished games."""
    from service.ratings import rated_record, ratings

    return ratings(rated_record(record) for record in figures.records)


def write_ratings(library: GameLibrary, table: Iterable[Rating]) -> None:
    """The library's ratings table, replaced by `table` (for Datasette and SQL)."""
    library.replace_ratings((r.player, r.games, r.mu, r.sigma, r.ordinal) for r in table)


def catch_up_ranks(library: GameLibrary, db: Any, read: ReadGame) -> None:
    """The ranks of the finished games no import ranked (a library from before the ranks, a
    game finished by `we serve --db`, a tie_broken appended since): each folded once, here.
    A game that fails its audit gets no ranks, as `we stats` does not count it."""
    for game_id in library.unranked():
        try:
            report = read(GameSource(label=game_id, db_path=db, game_id=game_id), keep_lines=False)
        except WritesLostError:
            raise
        except StoreError:
            continue
        if not report.problems and report.complete:
            library.keep_ranks(game_id, report.events, ranks_of(report.state))


def ranked_ratings(library: GameLibrary) -> list[Rating]:
    """openskill's ratings over the library's ranks (no game folded): the same numbers as
    library_ratings over the same finished games."""
    from service.ratings import ratings_of_places

    games: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for game_id, started_at, _seat, player, _score, rank in library.ranks():
        games.setdefault((started_at or "", game_id), []).append((player, rank))
    # Sorted here, not by the database's collation: the order service.ratings.played_order gives.
    return ratings_of_places(games[key] for key in sorted(games))


def refresh_ratings(library: GameLibrary, db: Any, read: ReadGame) -> None:
    """After an import: the ratings table recomputed from the library's ranks, which each
    import keeps in its own write (games without any are ranked first, once)."""
    catch_up_ranks(library, db, read)
    write_ratings(library, ranked_ratings(library))


class NoSuchPlayer(ValueError):
    """A name no finished game has a player called (`name`, as given)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class SamePlayer(ValueError):
    """Two names for one player (names match as the logs match them: NFC, any case)."""


def head_to_head(records: Sequence[GameRecord], first: str, second: str) -> Versus:
    """`we stats --versus A B`: the games both played, wins each, who finished ahead, the mean
    score difference. NoSuchPlayer for the first name no finished game has; SamePlayer when
    both name one player."""
    from wecore.stats import display_names, same_name, versus

    known = display_names(records)
    for name in (first, second):
        if same_name(name) not in known:
            raise NoSuchPlayer(name)
    if same_name(first) == same_name(second):
        raise SamePlayer(first)
    return versus(records, first, second)
