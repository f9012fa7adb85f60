"""The spec's test vectors: the integrity verdicts, counts and fingerprints in expected.json,
and the worked canonical form and hash in vectors/README.md."""

from __future__ import annotations

import hashlib
import json
import re

import orjson
import pytest

from eventstore.canonical import canonical_bytes, event_hash
from eventstore.errors import LogIntegrityError
from eventstore.integrity import iter_log, verify_log
from eventstore.jsonl import JsonlLog

from .helpers import VECTORS

EXPECTED = json.loads((VECTORS / "expected.json").read_text(encoding="utf-8"))
README = (VECTORS / "README.md").read_text(encoding="utf-8")


def sound_to_the_store(want: dict) -> bool:
    """The store judges the envelopes and the chain, not the rules: a vector whose first wrong
    line breaks a rule is a sound log to it."""
    return want["ok"] or want["kind"] != "integrity"


def worked_example() -> tuple[bytes, str]:
    block = re.search(r"```\n(\{.*?\})\n```", README, re.S)
    digest = re.search(r"SHA-256 is `([0-9a-f]{64})`", README)
    assert block and digest, "vectors/README.md no longer has its worked example"
    return block.group(1).encode(), digest.group(1)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_vector_verdict(name: str) -> None:
    want = EXPECTED[name]
    result = verify_log(VECTORS / name)
    assert result.ok is sound_to_the_store(want)
    if "events" in want:
        assert result.events == want["events"]
    if "fingerprint" in want:
        assert result.fingerprint == want["fingerprint"]
    if not sound_to_the_store(want):
        first = result.problems[0]
        assert first.line == want["first_wrong_line"]
        assert first.kind == want["kind"]
    else:
        assert result.problems == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_vector_through_iter_log_and_jsonl(name: str) -> None:
    want = EXPECTED[name]
    lines = list(iter_log(VECTORS / name))
    bad = [ll for ll in lines if ll.problems]
    if sound_to_the_store(want):
        assert not bad
        assert list(JsonlLog(VECTORS / name).read()) == [ll.envelope for ll in lines]
        assert [ll.envelope.seq for ll in lines] == list(range(1, len(lines) + 1))  # type: ignore[union-attr]
    else:
        assert bad[0].line == want["first_wrong_line"]
        # Only the hash is wrong: the line stays foldable so the rules engine can judge it too.
        assert bad[0].envelope is not None
        with pytest.raises(LogIntegrityError, match=f"line {want['first_wrong_line']}:"):
            list(JsonlLog(VECTORS / name).read())


def test_edited_vector_breaks_exactly_one_line() -> None:
    result = verify_log(VECTORS / "four-players-edited.jsonl")
    assert [(p.line, p.kind) for p in result.problems] == [(20, "integrity")]
    assert "hash" in result.problems[0].message
    # Nothing was re-hashed, so the stored hashes are those of the original: only verification
    # shows the edit, and so the broken chain proves no fingerprint.
    assert result.stored_fingerprint == EXPECTED["four-players-dealt.jsonl"]["fingerprint"]
    assert result.fingerprint is None and result.broken_at == 20


def test_worked_canonical_form() -> None:
    canonical, digest = worked_example()
    line1 = orjson.loads((VECTORS / "one-party.jsonl").read_bytes().split(b"\n")[0])
    body = {k: v for k, v in line1.items() if k != "hash"}
    assert canonical_bytes(body) == canonical
    assert hashlib.sha256(canonical).hexdigest() == digest
    assert event_hash(body) == f"sha256:{digest}" == line1["hash"]
    assert "Zoë".encode() in canonical  # UTF-8, not \u00eb
