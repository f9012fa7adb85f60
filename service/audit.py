"""The audit of one game: its verdict, standings and the claims about its scores, as plain data.

The game is read once (service.reading); a library game's cached summary is held against its
events, and only a failed claim reads the game again, to tell where the cards went. Used by
`we audit` (one per game, in worker processes) and by the service's audit endpoint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from eventstore.problems import Problem, ProblemCode, ProblemKind
from service.reading import GameReport, GameSource, ReadGame, read_game
from wecore.scoring import Scoreboard, score

if TYPE_CHECKING:
    from wecore.claims import CardHistory, ClaimResult


class ScoreClaim(Protocol):
    """A player's claimed score (`we audit --claim Ben=25`)."""

    @property
    def player(self) -> str: ...

    @property
    def score(self) -> int: ...


@dataclass
class AuditResult:
    """Everything printed about one game: plain data, so a worker process can send it back."""

    source: str
    game: str | None
    events: int
    fingerprint: str | None  # proven by a clean chain, else None
    problems: list[Problem]
    complete: bool
    status: str  # "over", or where the game stands ("party 3/9: Ann to move")
    board: Scoreboard | None  # standings as folded; None before the gift lists are dealt
    folded_to: int  # the last line the fold took in
    claims: list[ClaimResult] = field(default_factory=list)
    problems_omitted: int = 0  # problems beyond those listed, counted only
    stored_fingerprint: str | None = None  # what the last line claims, proven or not
    broken_at: int | None = None  # the first line failing integrity
    warnings: list[str] = field(default_factory=list)  # said, but not failing the game

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def fingerprint_text(self) -> str:
        """The fingerprint as people are told it: never the claimed value of a broken chain."""
        if self.fingerprint is not None:
            return self.fingerprint
        if self.broken_at is not None:
            return f"not proven: the chain breaks at line {self.broken_at}"
        return "-"

    @property
    def clean(self) -> bool:
        """What the exit status asks: the game is clean and every claim about it holds."""
        return self.ok and all(c.holds for c in self.claims)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "source": self.source,
            "ok": self.ok,
            "events": self.events,
            "fingerprint": self.fingerprint,
            "stored_fingerprint": self.stored_fingerprint,
            "complete": self.complete,
            "problems": [{"seq": p.line, "kind": p.kind, "message": p.message} for p in self.problems],
            "problems_omitted": self.problems_omitted,
            "warnings": list(self.warnings),
        }
        # Final scores only for a clean, complete game: anything else would be a verdict on a
        # game that did not end, or on a log that cannot be trusted.
        if self.ok and self.complete and self.board is not None:
            out["scores"] = {p.player: p.total for p in self.board.players}
            out["winners"] = list(self.board.winners)
        out["claims"] = [c.to_json() for c in self.claims]
        return out


# --- auditing one game --------------------------------------------------------------


# A library game's cached summary (its games row, as GameLibrary.summary_of gives it).
SummaryOf = Callable[[GameSource], "dict[str, Any] | None"]


def audit_one(
    source: GameSource,
    claims: Sequence[ScoreClaim] = (),
    read: ReadGame = read_game,
    summary_of: SummaryOf | None = None,
) -> AuditResult:
    """`read` reads the game (the CLI's reads library games through its connection);
    `summary_of` gives a library game's cached summary, held against what its events say."""
    # The summary is read before the events and again after: a game played on meanwhile (`we
    # serve --db` appends as the audit reads) changes its row, and then the row describes other
    # events than the ones read, so it is not held against them. Unchanged, it describes them.
    library_game = summary_of is not None and source.game_id is not None
    summary_before = summary_of(source) if library_game else None  # type: ignore[misc]
    report = read(source, keep_envelopes=False)
    state = report.state
    board = score(state) if state.lists is not None else None
    if state.is_over:
        status = "over"
    else:
        from wecore.turns import status_line, turn

        status = status_line(turn(state))
    result = AuditResult(
        source=report.source,
        game=report.game,
        # An empty file is reported at line 1, but it has no lines.
        events=0 if any(p.code is ProblemCode.EMPTY_LOG for p in report.problems) else report.events,
        fingerprint=report.fingerprint,
        stored_fingerprint=report.stored_fingerprint,
        broken_at=report.broken_at,
        problems=report.problems,
        complete=report.complete,
        status=status,
        board=board,
        folded_to=state.seq,  # every folded event counts one, and folding starts at line 1
        problems_omitted=report.problems_omitted,
    )
    from wecore.names import name_warnings

    # Names a person cannot read as they are (a bidi control, a character that draws nothing)
    # or tell apart are valid in a log (names compare code point for code point), but a writer
    # would refuse them: said, not failed.
    result.warnings.extend(name_warnings(state.players))
    if library_game and summary_before is not None and not result.problems:
        row = summary_of(source)  # type: ignore[misc]
        if row == summary_before:
            at = max(report.events, 1)
            mismatches = summary_mismatches(row, report, board)
            result.problems.extend(Problem(at, ProblemKind.INTEGRITY, message) for message in mismatches)
    if claims:
        from wecore.claims import check_claim, explain_difference

        first = result.problems[0] if result.problems else None
        failed_at = None if first is None else (first.line, first.kind)
        history: CardHistory | None = None
        for claim in claims:
            outcome = check_claim(state, board, claim.player, claim.score, failed_at)
            if outcome is None:  # it needs the story of the cards: read the game again, once
                if history is None:
                    history = _card_history(source, read)
                outcome = explain_difference(state, board, claim.player, claim.score, history)  # type: ignore[arg-type]
            result.claims.append(outcome)
    return result


def summary_mismatches(row: dict[str, Any], report: GameReport, board: Scoreboard | None = None) -> list[str]:
    """Where a library's cached summary of a game (its games row) says something its events do
    not: tampering or damage, in the library's words. A game not summarised (no winner, not
    complete: a game not over, or one appended to through the store's API without a summary)
    claims nothing, so is not held against it; every other value is kept by the store on each
    write and must match."""
    from eventstore.canonical import fingerprint
    from wecore.scoring import library_summary

    state = report.state
    complete, winner = library_summary(state, board)
    said = "the library's summary says"
    out: list[str] = []
    if row.get("damaged"):
        out.append("the library's row of this game is damaged (values that are not what we writes)")
    if row["winner"] is not None and row["winner"] != winner:
        events_say = f"the events say {winner}" if winner else "the events say the game is not over"
        out.append(f"{said} the winner is {row['winner']}; {events_say}")
    if row["complete"] and not complete:
        out.append(f"{said} the game is over; the events say it is not")
    if row["events"] is not None and row["events"] != report.events:
        out.append(f"{said} the game has {row['events']} events; it has {report.events}")
    if row["head_hash"] is not None and fingerprint(row["head_hash"]) != report.stored_fingerprint:
        out.append(
            f"{said} the newest event's fingerprint is {fingerprint(row['head_hash'])};"
            f" the events end in {report.stored_fingerprint}"
        )
    # Names compare code point for code point, as the events' readers compare them.
    players = list(state.players)
    if row["players"] is not None and players and row["players"] != players:
        out.append(f"{said} the players are {', '.join(row['players'])}; the events say {', '.join(players)}")
    if row["title"] is not None and row["title"] != state.title and _nfc(row["title"]) != _nfc(state.title):
        out.append(f"{said} the title is {row['title']!r}; the events say {state.title!r}")
    return out


def _nfc(text: str | None) -> str | None:
    import unicodedata

    return None if text is None else unicodedata.normalize("NFC", text)


def _card_history(source: GameSource, read: ReadGame) -> CardHistory:
    """The story of the cards, for explaining a failed claim: the game read a second time."""
    from wecore.claims import CardHistory
    from wecore.events import parse_event

    # The rules engine keeps the undo stack; read the events still in effect off it.
    report = read(source, keep_envelopes=True)
    by_seq = {envelope.seq: envelope for envelope in report.envelopes}
    return CardHistory.of(
        (parse_event(by_seq[seq].type, by_seq[seq].data) for seq in report.state.seqs_in_effect()),
        report.state.players,
    )
