"""`we audit`: the command that audits games (files, folders, library ids) and prints the verdicts.

Each game is audited by service.audit, in worker processes with --jobs; this module only
expands the arguments, gathers the verdicts in argument order and prints them, as text or as
JSON lines.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import click
import orjson

from cli.batch import collector_settled_for_a_batch, logs_in_directory, worker_count
from cli.exits import EXIT_INVALID, EXIT_USAGE, CommandFailed
from cli.opening import game_source, open_library, path_mode, read_game
from cli.params import FILE_NAME, db_option, jobs_option
from cli.terminal import echo, json_bytes_safe, one_line
from eventstore.errors import SeasonLedgerError, StoreError
from service.audit import AuditResult
from service.audit import audit_one as audit_game
from service.reading import GameSource
from wecore.errors import clipped, shown
from wecore.scoring import NotCounted, Scoreboard

if TYPE_CHECKING:
    from cli.render import StdoutShape
    from eventstore.receipts import Receipt


@dataclass(frozen=True)
class Claim:
    player: str  # as typed; matched to a player like the recorder does (any case, unique prefix)
    score: int
    text: str

    @classmethod
    def parse(cls, text: str) -> Claim:
        name, sep, number = text.rpartition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"{shown(text)}: write PLAYER=SCORE, e.g. Ben=25", param_hint="--claim")
        try:
            value = int(number.strip())
        except ValueError:
            raise click.BadParameter(
                f"{shown(text)}: the score must be a whole number, e.g. Ben=25", param_hint="--claim"
            ) from None
        return cls(name, value, text)


def audit_one(source: GameSource, claims: Sequence[Claim] = ()) -> AuditResult:
    return audit_game(source, claims, read_game, _summary_of)


def _summary_of(source: GameSource) -> dict[str, Any] | None:
    """What the library caches about a game (its games row), which the audit holds against
    the game's events."""
    return open_library(source.db_path).summary_of(source.game_id)  # type: ignore[arg-type]


# --- arguments ----------------------------------------------------------------------


def expand_arguments(arguments: Iterable[str], db_path: Path | None) -> list[GameSource]:
    """Files as they are, every *.jsonl in a directory (sorted), then library game ids."""
    sources: list[GameSource] = []
    for text in arguments:
        mode = path_mode(text)
        if mode is not None and stat.S_ISDIR(mode):
            logs = logs_in_directory(Path(text))
            if not logs:
                raise CommandFailed(f"{text}: no *.jsonl logs in this directory")
            sources.extend(GameSource(label=str(p), path=p) for p in logs)
        else:
            sources.append(game_source(text, db_path, mode))
    return sources


# What the command needs of each game: ok, clean (exit status), and what it prints (the JSON
# line, the text report, or the result to print the report of). A worker hands back only
# this, and renders what it prints itself (the JSON line, or the report as stdout would show
# it), so the parent process only writes: rich lays out a report's table in about ten times
# the time the game's audit takes, and the workers share that.
Outcome = tuple[bool, bool, Any]

# How a task hands back what is printed: JSON, as a result (printed by the caller), or text
# rendered for a stdout of that shape.
ShownAs: TypeAlias = 'Literal["json", "result"] | StdoutShape'


class Unreadable(str):
    """What a task hands back for a game it could not read at all: the one-line error."""


class Skipped(str):
    """What a task hands back for a season ledger among the games: the one line that says so."""


class Report(str):
    """What a task hands back for the text report: the game's report, rendered."""


def _audit_task(task: tuple[GameSource, tuple[Claim, ...], ShownAs, bool]) -> Outcome:
    source, claims, shown_as, tables = task
    try:
        result = audit_one(source, claims)
    except SeasonLedgerError as exc:
        return True, True, Skipped(str(exc))
    except (StoreError, CommandFailed) as exc:
        # One unreadable file (no permission, a FIFO, vanished) must not stop the others.
        message = exc.format_message() if isinstance(exc, CommandFailed) else str(exc)
        return False, False, Unreadable(message)
    except OSError as exc:
        return False, False, Unreadable(f"{source.label}: cannot read: {exc.strerror or exc}")
    if shown_as == "json":
        return result.ok, result.clean, _json_line(result)
    if shown_as == "result":
        return result.ok, result.clean, result
    from cli.render import rendered_like_stdout  # rich, only for the text report

    printed = rendered_like_stdout(shown_as, lambda: print_text(result, tables))  # type: ignore[arg-type]
    return result.ok, result.clean, Report(printed)


def run_audits(
    sources: Sequence[GameSource],
    claims: Sequence[Claim],
    jobs: int,
    as_json: bool = False,
    tables: bool = True,
) -> Iterator[Outcome]:
    """Outcomes in argument order; with jobs > 1 the games are checked by a process pool, whose
    workers hand back reports rendered (text or JSON, each game's with its score table or as
    its one line: `tables`) rather than results."""
    workers = worker_count(jobs, len(sources))
    if workers <= 1:
        for source in sources:
            yield _audit_task((source, tuple(claims), "json" if as_json else "result", tables))
        return
    if as_json:
        shown_as: ShownAs = "json"
    else:
        from cli.render import stdout_shape

        shown_as = stdout_shape()
    tasks = [(source, tuple(claims), shown_as, tables) for source in sources]
    from cli.batch import worker_pool

    chunk = max(1, min(64, len(sources) // (workers * 4)))
    with worker_pool(workers) as pool:
        yield from pool.map(_audit_task, tasks, chunksize=chunk)


# --- printing -----------------------------------------------------------------------


def print_text(result: AuditResult, tables: bool = True) -> None:
    """A game's report: with `tables`, as a single game's audit prints it (verdict, details,
    every problem, the score table, the winners, the claims); without, one line for the game
    (what a person reads down a folder's audit), then only what needs them: warnings, the first
    problem, the claims."""
    if not tables:
        print_line(result)
        return

    from cli.render import console, print_table
    from wecore.narrate import winners_line

    out = console()
    out.print(_verdict(result))
    out.print("  " + _details(result))
    _print_warnings(result)
    for problem in result.problems:
        out.print(_problem_line(problem))
    if result.problems_omitted:
        listed = len(result.problems)
        out.print(f"  and {result.problems_omitted:,} more (only the first {listed} are listed)")
    board = result.board
    if board is not None and board.players:
        if not result.ok:
            title = f"Scores as the log stands up to line {result.folded_to} (untrusted: the log failed)"
        elif result.complete:
            title = "Final scores"
        else:
            title = "Scores so far"
        print_table(scores_table(board, title))
        if result.ok:
            out.print(one_line(winners_line(board)))
    _print_claims(result)


def print_line(result: AuditResult) -> None:
    """One game of many: its verdict, file, fingerprint, lines and outcome on one line."""
    from cli.render import console
    from wecore.narrate import winners_line

    line = _verdict(result)
    line.append(f"  {_details(result)}")
    board = result.board
    if result.ok and result.complete and board is not None and board.players:
        line.append(f"; {one_line(winners_line(board))}")
    out = console()
    out.print(line)
    _print_warnings(result)
    if result.problems:
        out.print(_problem_line(result.problems[0]))
        more = len(result.problems) - 1 + result.problems_omitted
        if more:
            out.print(f"  and {more:,} more: `we audit {one_line(result.source)}` lists them")
    _print_claims(result)


def _verdict(result: AuditResult) -> Any:
    from rich.text import Text

    head = Text()
    head.append("OK" if result.ok else "FAILED", style="bold green" if result.ok else "bold red")
    head.append(f"  {result.source}")
    if result.game is not None and result.game != result.source:
        head.append(f"  (game {clipped(result.game)})")
    return head


def _details(result: AuditResult) -> str:
    lines = f"{result.events} line{'s' if result.events != 1 else ''}"
    details = f"fingerprint {result.fingerprint_text}, {lines}"
    if result.ok:
        return details + (", complete" if result.complete else f", not over: {result.status}")
    count = len(result.problems) + result.problems_omitted
    return details + f", {count:,} problem{'s' if count != 1 else ''}"


def _problem_line(problem: Any) -> Any:
    from rich.text import Text

    line = Text(f"  line {problem.line}: ")
    line.append(problem.kind, style="bold red")
    line.append(f": {problem.message}")
    return line


def _print_warnings(result: AuditResult) -> None:
    from rich.text import Text

    from cli.render import console

    for warning in result.warnings:
        line = Text("  ")
        line.append("warning", style="bold yellow")
        line.append(f": {one_line(warning)}")
        console().print(line)


def _print_claims(result: AuditResult) -> None:
    from rich.text import Text

    from cli.render import console

    for claim in result.claims:
        verdict = Text("  claim ")
        verdict.append(f"{one_line(claim.player)}={claim.claimed} ")
        verdict.append("holds" if claim.holds else "fails", style="bold green" if claim.holds else "bold red")
        verdict.append(": ")
        verdict.append_text(_story(claim.explanation))
        console().print(verdict)


def scores_table(board: Scoreboard, title: str) -> Any:
    """Each player's score, what counts per list colour and what did not: narrow enough for
    80 columns in most games."""
    from rich.table import Table
    from rich.text import Text

    from cli.render import card_text, cards_text, colour_text

    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False, box=None)
    table.add_column("player", style="bold")
    table.add_column("score", justify="right")
    table.add_column("counts")
    table.add_column("does not count")
    for entry in board.players:
        name = one_line(entry.player) + (" *" if board.complete and entry.player in board.winners else "")
        counts = Text(" + ").join(
            Text.assemble(colour_text(colour), " ", card_text(card)) for colour, card in entry.counted.items()
        )
        lower = [u.card for u in entry.unused if u.why is NotCounted.LOWER]
        off = [u.card for u in entry.unused if u.why is not NotCounted.LOWER]
        rest = Text()
        if lower:
            rest.append_text(cards_text(lower))
            rest.append(" (lower)")
        if off:
            if lower:
                rest.append("; ")
            rest.append_text(cards_text(off))
            rest.append(" (not on the list)")
        table.add_row(name, str(entry.total), counts, rest if rest else Text("-", style="dim"))
    return table


def _story(sentence: str) -> Any:
    from cli.render import story_text

    return story_text(sentence)


def _binary_writer() -> Callable[[bytes], object]:
    """Write JSON lines as bytes: orjson makes bytes, and stdout's buffer takes them as they are."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        return buffer.write  # type: ignore[no-any-return]
    return lambda line: out.write(line.decode())


def _json_line(result: AuditResult) -> bytes:
    line = result.to_json()
    try:
        return json_bytes_safe(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
    except TypeError:
        # A file name that is not UTF-8 reaches us with surrogates, which JSON cannot carry.
        line["source"] = os.fsencode(line["source"]).decode("utf-8", "replace")
        return json_bytes_safe(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))


@click.command()
@click.argument("games", nargs=-1, required=True, metavar="GAME...", type=FILE_NAME)
@click.option(
    "--claim",
    "claims",
    multiple=True,
    metavar="PLAYER=SCORE",
    help="Check a claimed final score (repeatable); a failed claim is explained card by card.",
)
@click.option(
    "--receipt",
    "receipt_files",
    multiple=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A player's receipt (saved from their phone, repeatable): proves the log is the one that"
    " player saw end, or names the event count where it disagrees.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, one per line.")
@click.option(
    "--tables",
    is_flag=True,
    help="Print each game's score table, as for a single game, when auditing many "
    "(by default many games print one line each).",
)
@jobs_option(
    "Check games at once in this many worker processes; the output, in argument order, is the "
    "same with any count, and with workers as wide as the terminal was when the audit began"
)
@db_option
def audit(
    games: tuple[str, ...],
    claims: tuple[str, ...],
    receipt_files: tuple[Path, ...],
    as_json: bool,
    tables: bool,
    jobs: int,
    db_path: Path | None,
) -> None:
    """Prove each GAME untampered, check every event against the rules, explain every score.

    A GAME is a .jsonl log, a directory (every *.jsonl in it, in name order) or a game id in
    the library. For each game: OK or FAILED, the fingerprint, every problem with its line and
    kind (integrity: the file or hash chain is broken; schema: an event is malformed; rules:
    well-formed but not allowed at that point), and the scores card by card. Only the first
    100 problems of a game are listed; the rest are counted.

    A game can be OK and not over yet (still being played): its standings so far are shown.

    Many games print one line each (OK or FAILED, the file, the fingerprint, the lines, the
    outcome), then its warnings, its first problem and the claims, and a summary at the end;
    --tables prints each game's whole report, score table included, as one game alone does.

    --claim PLAYER=SCORE is checked against every game audited; a claim on a game that is
    invalid, unfinished, or has no such player does not hold.

    A fingerprint is proven only by an unbroken hash chain: when the chain breaks, the audit
    says so instead of repeating what the last line claims.

    --json prints one object per game per line: game, source, ok, events, fingerprint (null
    unless proven), stored_fingerprint (what the last line claims, proven or not),
    complete, problems [{seq, kind, message}] in line order (the first 100), problems_omitted
    (how many more there are), claims [{player, claimed, actual,
    holds, explanation}], and -- only when the game is ok and complete -- scores {player:
    score} and winners (seat order; only the tie_broken winner when there is one).

    --receipt FILE holds a player's receipt against the game it names (which must be among the
    GAMEs): its signature, and the log's line at the receipt's event count, which must have the
    hash that player's phone saw end (events after it, a tie-break or a note, do not matter).
    Each receipt gets a line (with --json, one object: receipt, game, player, key, events,
    holds, message); one that disagrees names its player, key and event count.

    Exit status: 0 when every game is clean and every claim and receipt holds, 1 otherwise; 2
    for a receipt that is no receipt, or is for a game not audited.
    """
    parsed = [Claim.parse(text) for text in claims]
    receipts = _read_receipts(receipt_files)
    sources = expand_arguments(games, db_path)
    logs = _logs_of_receipts(receipts, sources)
    clean = True
    audited = failed = skipped = 0
    write = _binary_writer() if as_json else None
    with collector_settled_for_a_batch():
        whole = tables or len(sources) == 1
        for ok, clean_game, shown in run_audits(sources, parsed, jobs, as_json, whole):
            audited += 1
            if not ok:
                failed += 1
            clean = clean and clean_game
            if isinstance(shown, Skipped):
                # A served folder keeps its season ledger beside its games: no failure there.
                audited -= 1
                skipped += 1
                sys.stdout.flush()
                if len(sources) == 1:
                    echo(f"we: error: {one_line(str(shown))}", err=True)
                else:
                    echo(f"we: {one_line(str(shown))}; skipped", err=True)
            elif isinstance(shown, Unreadable):
                sys.stdout.flush()
                echo(f"we: error: {one_line(str(shown))}", err=True)
            elif write is not None:
                write(shown)
            elif isinstance(shown, Report):
                sys.stdout.write(shown)
            else:
                print_text(shown, whole)
    if write is None and audited > 1:
        from cli.render import console

        console().print(f"{audited} games audited: {audited - failed} OK, {failed} FAILED.")
    sys.stdout.flush()
    if receipts:
        clean = _check_receipts(receipts, logs, as_json) and clean
    if not clean or not audited:
        # A ledger alone is no game to audit: `we season verify` proves it.
        raise click.exceptions.Exit(EXIT_INVALID)


class ReceiptRefused(CommandFailed):
    """A --receipt that is no receipt, or not of a game audited: bad input, exit 2."""

    exit_code = EXIT_USAGE


def _read_receipts(files: Sequence[Path]) -> list[tuple[Path, Receipt]]:
    """Every --receipt FILE read and checked as a receipt before any game is audited: a file
    that is none is refused in one line (exit 2), and nothing is audited."""
    if not files:
        return []  # an audit with no receipt does not load their module
    from eventstore.receipts import ReceiptError, read_receipt_file

    read: list[tuple[Path, Receipt]] = []
    for path in files:
        try:
            read.append((path, read_receipt_file(path)))
        except ReceiptError as exc:
            raise ReceiptRefused(str(exc)) from None
    return read


def _logs_of_receipts(
    receipts: Sequence[tuple[Path, Receipt]], sources: Sequence[GameSource]
) -> dict[str, list[str]]:
    """The line hashes of each audited game a receipt names, by game id, read before anything is
    printed: a receipt for a game not among them (one from another evening) is refused (exit 2)."""
    if not receipts:
        return {}
    from service.receipts import line_hashes

    logs: dict[str, list[str]] = {}
    for source in sources:
        try:
            game_id, hashes, _, _ = line_hashes(source, read_game)
        except (StoreError, OSError):
            continue
        if game_id is not None:
            logs.setdefault(game_id, hashes)
    for path, receipt in receipts:
        if receipt.game not in logs:
            audited = ", ".join(repr(g) for g in logs) or "none"
            raise ReceiptRefused(
                f"{path}: this receipt is for game {shown(receipt.game)}, which is not among the games"
                f" audited ({audited}); refused"
            )
    return logs


def _check_receipts(
    receipts: Sequence[tuple[Path, Receipt]], logs: dict[str, list[str]], as_json: bool
) -> bool:
    """Each receipt held against the audited game with its id; True when every one holds."""
    from service.receipts import verdict

    all_hold = True
    for path, receipt in receipts:
        judged = verdict(receipt, str(path), receipt.game, logs[receipt.game])
        all_hold = all_hold and judged.holds
        if as_json:
            line = orjson.dumps(judged.as_dict(), option=orjson.OPT_APPEND_NEWLINE)
            _binary_writer()(json_bytes_safe(line))
        else:
            mark = "receipt holds" if judged.holds else "receipt FAILED"
            echo(f"{mark}  {one_line(str(path))}: {one_line(judged.message)}")
    return all_hold
