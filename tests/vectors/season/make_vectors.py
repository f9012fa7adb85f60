"""Writes the season-format test vectors here, byte for byte the same every run:

    python tests/vectors/season/make_vectors.py

`season.jsonl` seals two of the sample games of replays/, copied into games/ here (by their
paths from this folder: a ledger names only files inside its own folder);
`season-edited.jsonl` is the same ledger with one score changed by hand and nothing re-hashed;
`season-forged.jsonl` the same change (and the win given to Ben) with the chain re-hashed, so
its chain is clean and only the games themselves show that its line 3 is not their result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from eventstore.envelope import seal_chain  # noqa: E402
from service.reading import GameSource, read_game  # noqa: E402
from service.season import read_ledger, source_of  # noqa: E402
from wecore.scoring import score  # noqa: E402
from wecore.season import SealedGame, game_sealed, season_started, standings  # noqa: E402

GAMES = ("game-night-3p.jsonl", "tie-5p.jsonl")
SEASON_ID = "vector-season"
TIMES = ("2026-12-01T09:00:00Z", "2026-12-06T01:00:00Z", "2027-01-01T02:00:00Z")


def sealed(name: str, ledger: Path) -> SealedGame:
    path = HERE / "games" / name
    source = GameSource(label=name, path=path)
    report = read_game(source, keep_lines=True)
    board = score(report.state)
    return SealedGame(
        game=report.game or "",
        hash=report.lines[-1]["hash"],
        title=report.state.title,
        players=report.state.players,
        scores=tuple(e.total for e in board.players),
        winners=board.winners,
        events=report.events,
        started_at=report.lines[0]["at"],
        source=source_of(source, ledger),
        line=0,
    )


def main() -> None:
    ledger = HERE / "season.jsonl"
    payloads = [season_started("Vector club 2026"), *(game_sealed(sealed(n, ledger)) for n in GAMES)]
    envelopes = seal_chain(
        SEASON_ID, [(at, kind, data) for at, (kind, data) in zip(TIMES, payloads, strict=True)]
    )
    ledger.write_bytes(b"".join(e.to_line() for e in envelopes))
    lines = ledger.read_bytes().splitlines(keepends=True)
    edited = lines[2].replace(b'"scores":[16,19,19,', b'"scores":[16,29,19,', 1)
    assert edited != lines[2]
    (HERE / "season-edited.jsonl").write_bytes(b"".join([lines[0], lines[1], edited]))
    forged_payloads = [dict(kind_data[1]) for kind_data in payloads]
    forged_payloads[2] = {**forged_payloads[2], "scores": [16, 29, 19, 18, 16], "winners": ["Ben"]}
    assert payloads[2][1]["scores"] == [16, 19, 19, 18, 16]
    forged = seal_chain(
        SEASON_ID,
        [(at, kind, data) for at, (kind, _), data in zip(TIMES, payloads, forged_payloads, strict=True)],
    )
    (HERE / "season-forged.jsonl").write_bytes(b"".join(e.to_line() for e in forged))
    reading = read_ledger(ledger)
    expected = {
        "season.jsonl": {
            "ok": True,
            "events": reading.events,
            "fingerprint": reading.fingerprint,
            "last_hash": envelopes[-1].hash,
            "games": [g.game for g in reading.season.games],
            "standings": [
                {"player": s.player, "games": s.games, "wins": s.wins, "mean_score": s.mean_score}
                for s in standings(reading.season.games)
            ],
        },
        "season-edited.jsonl": {"ok": False, "events": 3, "broken_at": 3, "fingerprint": None},
        "season-forged.jsonl": {
            "ok": False,
            "events": 3,
            "chain_ok": True,
            "fingerprint": forged[-1].hash[7:19],
            "last_hash": forged[-1].hash,
            "problems": [{"line": 3, "game": "new-years-eve-2026", "fields": ["scores", "winners"]}],
        },
    }
    (HERE / "expected.json").write_text(
        json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
