"""`we audit --json` on every adversarial case: the verdict must be the one the spec implies.

All cases are audited by one real `python -m cli.main audit --json` run (fast), then each case
is its own test. Expected verdicts come from advcases.py, written from ../shared/spec only.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest
from advcases import all_cases
from advgen import Case, canonical, hash_of, slug

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"
CASES = all_cases()


def audit_all(paths: list[pathlib.Path]) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "audit", "--json", "-j", "4", *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    results = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(results) == len(paths), out.stderr[-2000:]
    return results


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("adversarial")
    paths = []
    for i, case in enumerate(CASES):
        path = folder / f"{i:04d}-{slug(case.name)[:80]}.jsonl"
        path.write_bytes(case.content)
        paths.append(path)
    results = audit_all(paths)
    by_name = {}
    for case, path, result in zip(CASES, paths, results, strict=True):
        assert result["source"] == str(path)
        by_name[case.name] = result
    return by_name


def summary(result: dict[str, Any]) -> str:
    first = result["problems"][0] if result["problems"] else None
    return (
        f"ok={result['ok']} first={first and (first['seq'], first['kind'], first['message'])} "
        f"events={result['events']} fingerprint={result['fingerprint']} complete={result['complete']}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verdict(case: Case, verdicts: dict[str, dict[str, Any]]) -> None:
    got = verdicts[case.name]
    note = f"{case.name}: spec says {case.why!r}; got {summary(got)}"
    assert got["ok"] is case.ok, note
    if not case.ok:
        assert got["problems"], note
        first = got["problems"][0]
        assert (first["seq"], first["kind"]) == (case.line, case.kind), note
        assert [p["seq"] for p in got["problems"]] == sorted(p["seq"] for p in got["problems"]), note
        assert "scores" not in got and "winners" not in got, note
        reported = {(p["seq"], p["kind"]) for p in got["problems"]}
        for later in case.also:
            assert later in reported, f"{note}; also expected {later} (Integrity is checked for every line)"
        return
    assert got["problems"] == [], note
    assert got["events"] == case.events, note
    assert got["fingerprint"] == case.fingerprint, note
    assert got["complete"] is case.complete, note
    if case.complete:
        assert got["scores"] == case.scores, note
        assert got["winners"] == case.winners, note
    else:
        assert "scores" not in got, note


# --- the generator itself agrees with the spec's vectors ---------------------------------------


def test_generator_hash_matches_vectors() -> None:
    for path in sorted(VECTORS.glob("*.jsonl")):
        if "edited" in path.name:
            continue
        prev = None
        for line in path.read_text(encoding="utf-8").splitlines():
            env = json.loads(line)
            assert env["prev"] == prev
            assert env["hash"] == hash_of(env), path.name
            prev = env["hash"]


def test_generator_canonical_form_of_vector_line_one() -> None:
    env = json.loads((VECTORS / "one-party.jsonl").read_text(encoding="utf-8").splitlines()[0])
    body = {k: v for k, v in env.items() if k != "hash"}
    assert canonical(body).decode() == (
        '{"at":"2026-11-26T19:00:01Z","data":{"dealer":"Cat","options":{"attic_sizes":{"3":1}},'
        '"players":["Zoë","Ben","Cat"],"ruleset":"white-elephant-2011","title":"Test vector one"},'
        '"game":"vector-one","prev":null,"seq":1,"type":"game_started","v":1}'
    )
    assert hashlib.sha256(canonical(body)).hexdigest() == (
        "d4ed431cceec317e398643ed836ebe847e9dead956efed8b72972a87d7fd0156"
    )


def test_every_kind_is_covered() -> None:
    kinds = {c.kind for c in CASES if not c.ok}
    assert kinds == {"integrity", "schema", "rules"}
    assert sum(c.ok and c.complete for c in CASES) >= 20
