"""A library game audited while it is played on (`we serve --db` appends as `we audit --db`
reads): the games row's summary is held against the events only when it describes the events
that were read, so a move made during the audit is never reported as tampering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eventstore.sqlite import Library
from service.audit import audit_one
from service.reading import GameReport, GameSource, read_game

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _library_with_a_game(tmp_path: Path) -> tuple[Library, GameSource]:
    library = Library(tmp_path / "games.db")
    result = library.import_log(VECTORS / "one-party.jsonl")
    source = GameSource(label=result.game_id, db_path=library.path, game_id=result.game_id)
    return library, source


def _read(library: Library, source: GameSource, **kwargs: Any) -> GameReport:
    return read_game(source, library_rows=lambda s: library.log(s.game_id).rows(), **kwargs)  # type: ignore[arg-type]


def test_a_note_appended_while_the_events_are_read_is_not_a_summary_mismatch(tmp_path: Path) -> None:
    library, source = _library_with_a_game(tmp_path)
    log = library.log(source.game_id)  # type: ignore[arg-type]
    row = library.summary_of(source.game_id)  # type: ignore[arg-type]
    assert row is not None

    def read_then_play_on(source: GameSource, keep_envelopes: bool = False) -> GameReport:
        report = _read(library, source, keep_envelopes=keep_envelopes)
        # Another writer, between the audit's read of the events and its read of the row.
        log.append([("note", {"text": "a move made during the audit"})], expected_seq=report.events,
                   summary=(row["complete"], row["winner"]))  # fmt: skip
        return report

    result = audit_one(source, read=read_then_play_on, summary_of=lambda s: library.summary_of(s.game_id))  # type: ignore[arg-type]
    assert result.ok, [str(p) for p in result.problems]


def test_a_row_edited_by_hand_is_still_caught(tmp_path: Path) -> None:
    library, source = _library_with_a_game(tmp_path)
    library.conn.execute("UPDATE games SET winner = 'Nobody' WHERE id = ?", (source.game_id,))
    result = audit_one(
        source,
        read=lambda s, keep_envelopes=False: _read(library, s, keep_envelopes=keep_envelopes),
        summary_of=lambda s: library.summary_of(s.game_id),  # type: ignore[arg-type]
    )
    assert not result.ok
    assert any("the library's summary says the winner is Nobody" in p.message for p in result.problems)
