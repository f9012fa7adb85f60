"""Adversarial logs judged from a PostgreSQL library exactly as from their files.

- Every valid round-trip case imports with `we import --db URL`, is audited by id from the
  library with the same verdict, scores and fingerprint as its file, and exports back to the
  same events.
- Every case, valid or not, whose lines a row can hold as they are (each line an envelope with
  exactly its fields, string fields, seq increasing) is stored row for row behind the store's
  back, as someone editing the tables would, and judged from there: the same problems, at the
  same lines, as its file.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from typing import Any

import orjson
from advcases import all_cases
from test_adv_library import ROUND_TRIP, audit, we, write

from cli.opening import read_game
from eventstore.postgres import Library as PgLibrary
from service.reading import GameSource

ENVELOPE_KEYS = ["v", "game", "seq", "at", "type", "data", "prev", "hash"]


def test_round_trip_through_postgresql(pg_url: str, tmp_path: pathlib.Path) -> None:
    paths = write(tmp_path / "in", ROUND_TRIP)
    imported = we("import", tmp_path / "in", "--db", pg_url)
    assert imported.returncode == 0, imported.stderr
    from_files = {r["source"]: r for r in audit(*paths)}
    out = we("audit", "--json", "--db", pg_url, *(case.game for case in ROUND_TRIP))
    from_library = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(from_library) == len(ROUND_TRIP)
    for case, path, result in zip(ROUND_TRIP, paths, from_library, strict=True):
        original = from_files[str(path)]
        for key in ("ok", "fingerprint", "events", "complete", "scores", "winners", "problems"):
            assert result.get(key) == original.get(key), (case.name, key)
    target = tmp_path / "one.jsonl"
    case = ROUND_TRIP[0]
    assert we("export", case.game, "-o", target, "--db", pg_url).returncode == 0
    assert [json.loads(x) for x in target.read_text(encoding="utf-8").splitlines()] == case.envs


def _rows(content: bytes) -> list[dict[str, Any]] | None:
    """The envelopes a case's lines stand for, if rows can hold every line as it is."""
    objs = []
    for line in content.split(b"\n")[:-1] if content.endswith(b"\n") else [None]:
        if line is None or b"\\u0000" in line:
            return None
        if line != line.strip() or line.startswith(b"\xef\xbb\xbf"):
            return None
        try:
            obj = json.loads(line, object_pairs_hook=_no_duplicates, parse_constant=_not_json)
            orjson.dumps(obj)  # numbers a row can hold
        except (ValueError, TypeError, orjson.JSONEncodeError):
            return None
        if not isinstance(obj, dict) or list(obj) != ENVELOPE_KEYS:
            return None
        if obj["v"] != 1 or type(obj["v"]) is not int or type(obj["seq"]) is not int:
            return None
        if not all(isinstance(obj[k], str) for k in ("game", "at", "type", "hash")):
            return None
        if obj["prev"] is not None and not isinstance(obj["prev"], str):
            return None
        objs.append(obj)
    if not objs or any(o["game"] != objs[0]["game"] for o in objs):
        return None
    seqs = [o["seq"] for o in objs]
    if any(b <= a for a, b in itertools.pairwise(seqs)) or seqs[0] <= -(2**63) or seqs[-1] >= 2**63:
        return None
    return objs


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON, and a row would hold null instead")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("a duplicate key, which a row cannot keep")
    return dict(pairs)


def _store_rows(library: PgLibrary, objs: list[dict[str, Any]]) -> None:
    """These envelopes as the rows of the library's one game (in place of the last case's)."""
    conn = library.conn
    with conn.transaction():
        conn.execute("DELETE FROM events")
        conn.execute("DELETE FROM games")
        first, last = objs[0], objs[-1]
        (key,) = conn.execute(
            "INSERT INTO games (id, started_at, last_at, events, head_hash) VALUES (%s, %s, %s, %s, %s)"
            " RETURNING key",
            (first["game"], first["at"], last["at"], last["seq"], last["hash"]),
        ).fetchone()
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO events (game, seq, type, data, at, prev, hash)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [
                    (key, o["seq"], o["type"], orjson.dumps(o["data"], option=orjson.OPT_SORT_KEYS).decode(),
                     o["at"], o["prev"], o["hash"])
                    for o in objs
                ],
            )  # fmt: skip


def _verdict(report: Any) -> tuple[Any, ...]:
    problems = [(p.line, p.kind, p.message) for p in report.problems]
    return (report.ok, report.events, report.fingerprint, report.complete, problems)


def test_every_storable_case_is_judged_as_its_file(pg_url: str, tmp_path: pathlib.Path) -> None:
    cases = [(case, objs) for case in all_cases() if (objs := _rows(case.content)) is not None]
    broken = [case for case, _ in cases if not case.ok]
    assert len(cases) >= 400 and len(broken) >= 300, (len(cases), len(broken))
    differ = []
    with PgLibrary(pg_url) as library:
        for i, (case, objs) in enumerate(cases):
            path = tmp_path / f"{i}.jsonl"
            path.write_bytes(case.content)
            _store_rows(library, objs)
            game = objs[0]["game"]
            from_file = _verdict(read_game(GameSource(label=str(path), path=path)))
            from_library = _verdict(read_game(GameSource(label=game, db_path=pg_url, game_id=game)))
            if from_file != from_library:
                differ.append(f"{case.name}: file {from_file[4][:1]} library {from_library[4][:1]}")
    assert not differ, "\n".join(differ[:20])
