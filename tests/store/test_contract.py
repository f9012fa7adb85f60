"""One contract for every backend: JsonlLog, Library.log and MemoryLog (and any GameLog) behave the same."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from eventstore.errors import (
    ConcurrencyError,
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    TornTailError,
)
from eventstore.persistence import GameLibrary, GameLog, SealingLog, StoredGameLog
from eventstore.sqlite import Library

from .conftest import Backend
from .helpers import FIRST, FROZEN_AT, ROOT, Lines, edit, events, ref_canonical, ref_hash

pytestmark = pytest.mark.usefixtures("frozen")


def six_events(backend: Backend, game_id: str = "party") -> Any:
    log = backend.new_log(game_id)
    log.create(FIRST, game_id)
    log.append(events(2), expected_seq=1)
    log.append(events(3, start=2), expected_seq=3)
    return log


def stored_lines(backend: Backend, log: Any) -> Lines:
    got: Lines = []
    backend.tamper(log, lambda lines: got.extend(lines) or lines)
    return got


# --- the interface ---------------------------------------------------------------------------


def test_every_backend_is_a_game_log_sealed_by_the_one_base(backend: Backend) -> None:
    log = backend.new_log("typed")
    assert isinstance(log, GameLog)
    assert isinstance(log, SealingLog)


def test_the_library_is_a_game_library(tmp_path: Any) -> None:
    with Library(tmp_path / "games.db") as library:
        assert isinstance(library, GameLibrary)
        assert isinstance(library.log("typed"), StoredGameLog)


def test_only_the_base_seals_envelopes() -> None:
    # A backend that sealed events itself would be a second copy of the chain's rules.
    sealing = sorted(
        path.name
        for path in (ROOT / "eventstore").glob("*.py")
        if "seal(" in path.read_text(encoding="utf-8") and path.name not in ("envelope.py", "persistence.py")
    )
    assert sealing == []


# --- writing and reading back --------------------------------------------------------------


def test_round_trip(backend: Backend) -> None:
    log = backend.new_log("round-trip")
    first = log.create(FIRST, "round-trip")
    written = [first, *log.append(events(3), expected_seq=1)]
    written += log.append(events(2, start=3), expected_seq=4)

    assert [e.seq for e in written] == [1, 2, 3, 4, 5, 6]
    assert list(log.read()) == written
    assert log.head() == (6, written[-1].hash, "round-trip")
    result = log.verify()
    assert result.ok and result.problems == []
    assert result.events == 6
    assert result.fingerprint == written[-1].hash[7:19]
    assert result.head_hash == written[-1].hash
    for e in written:
        assert e.at == FROZEN_AT and e.v == 1 and e.game == "round-trip"


def test_chain_links_and_hashes(backend: Backend) -> None:
    log = six_events(backend)
    envelopes = list(log.read())
    assert envelopes[0].prev is None
    for before, after in itertools.pairwise(envelopes):
        assert after.prev == before.hash
    for e in envelopes:
        assert e.hash == ref_hash(e.to_dict())


def test_head_of_a_log_not_yet_created(backend: Backend) -> None:
    log = backend.new_log("nothing-yet")
    assert log.head() == (0, None, None)
    with pytest.raises(GameNotFoundError):
        log.append(events(1), expected_seq=0)
    with pytest.raises(GameNotFoundError):
        log.verify()
    with pytest.raises(GameNotFoundError):
        list(log.read())


def test_create_refuses_an_existing_log(backend: Backend) -> None:
    log = six_events(backend, "taken")
    with pytest.raises(LogExistsError):
        log.create(FIRST, "taken")
    assert log.verify().events == 6


def test_create_many_is_the_same_log_as_create_then_append(backend: Backend) -> None:
    """A set-up stored at once (`we record`, `we serve`) is line for line a created log."""
    at = "2026-11-26T19:00:00Z"
    made = backend.new_log("at-once")
    written = made.create_many([FIRST, *events(2)], "at-once", at=at)
    assert [e.seq for e in written] == [1, 2, 3]
    step = backend.new_log("in-steps")
    step.create(FIRST, "in-steps", at=at)
    step.append(events(2), expected_seq=1, at=at)
    assert [e.hash for e in made.read()] == [e.hash for e in written]
    assert made.verify().ok and made.verify().events == 3
    assert [(e.type, e.data, e.at) for e in made.read()] == [(e.type, e.data, e.at) for e in step.read()]
    with pytest.raises(LogExistsError):
        made.create_many([FIRST], "at-once")
    assert made.verify().events == 3


def test_stale_expected_seq_writes_nothing(backend: Backend) -> None:
    log = six_events(backend)
    before = stored_lines(backend, log)
    for stale in (5, 1, 0, 7):
        with pytest.raises(ConcurrencyError) as err:
            log.append(events(2, start=10), expected_seq=stale)
        assert err.value.expected == stale and err.value.actual == 6
        assert f"expected the last event to be seq {stale}" in str(err.value)
        assert "seq 6" in str(err.value)
    assert stored_lines(backend, log) == before
    assert log.head()[0] == 6


def test_refused_event_writes_nothing(backend: Backend) -> None:
    log = six_events(backend)
    before = stored_lines(backend, log)
    with pytest.raises(ValueError, match="float"):
        log.append([("note", {"text": "fine"}), ("note", {"score": 1.5})], expected_seq=6)
    assert stored_lines(backend, log) == before


def test_append_nothing(backend: Backend) -> None:
    log = six_events(backend)
    assert log.append([], expected_seq=6) == []
    assert log.head()[0] == 6
    with pytest.raises(ConcurrencyError):
        log.append([], expected_seq=4)


def test_append_at_explicit_time(backend: Backend) -> None:
    log = six_events(backend)
    (e,) = log.append(events(1), expected_seq=6, at="2026-12-24T18:00:00.250Z")
    assert e.at == "2026-12-24T18:00:00.250Z"
    assert list(log.read())[-1] == e
    with pytest.raises(ValueError):
        log.append(events(1), expected_seq=7, at="2026-12-24 18:00:00")


def test_a_library_keeps_the_summary_each_append_gives(backend: Backend) -> None:
    """The writer computes the summary (the store judges no game) and the library keeps it in
    the same write as the events; an append without one leaves the row claiming nothing, so a
    summary never outlives the events it was made for. A file or memory keeps none."""
    log = six_events(backend)
    (e,) = log.append(events(1), expected_seq=6, summary=(True, "Ann"))
    assert list(log.read())[-1] == e  # the events are the same, with a summary or without
    library = getattr(backend, "library", None)
    if library is None:
        return

    def summary() -> tuple[bool, str | None, int]:
        row = library.summary_of("party")
        return row["complete"], row["winner"], row["events"]

    assert summary() == (True, "Ann", 7)
    log.append(events(1), expected_seq=7, summary=(True, "Ann, Ben"))
    assert summary() == (True, "Ann, Ben", 8)
    log.append(events(1), expected_seq=8, summary=(False, None))  # an undo that opens the game
    assert summary() == (False, None, 9)
    log.append(events(1), expected_seq=9, summary=(True, "Ben"))
    with pytest.raises(ConcurrencyError):  # nothing written, the summary included
        log.append(events(1), expected_seq=9, summary=(False, None))
    assert summary() == (True, "Ben", 10)
    log.append(events(1), expected_seq=10)  # said nothing: claims nothing
    assert summary() == (False, None, 11)


def test_unicode_names(backend: Backend) -> None:
    log = backend.new_log("unicode")
    names = ["Zoë", "李", "Ann"]
    log.create(("game_started", {"players": names, "title": "Zoë und 李"}), "unicode")
    log.append([("gift_opened", {"party": 1, "player": "李", "card": "R7"})], expected_seq=1)
    envelopes = list(log.read())
    assert envelopes[0].data["players"] == names
    assert envelopes[1].data["player"] == "李"
    # Hashed as UTF-8, not \u-escaped: the spec's canonical form.
    body = {k: v for k, v in envelopes[1].to_dict().items() if k != "hash"}
    assert "李".encode() in ref_canonical(body)
    assert envelopes[1].hash == ref_hash(envelopes[1].to_dict())
    assert log.verify().ok


def test_many_games_side_by_side(backend: Backend) -> None:
    logs = {f"game-{i}": backend.new_log(f"game-{i}") for i in range(12)}
    for game_id, log in logs.items():
        log.create(FIRST, game_id)
    for round_ in range(3):
        for i, log in enumerate(logs.values()):
            log.append(events(i % 3 + 1, start=100 * round_), expected_seq=log.head()[0])
    for i, (game_id, log) in enumerate(logs.items()):
        envelopes = list(log.read())
        assert {e.game for e in envelopes} == {game_id}
        assert len(envelopes) == 1 + 3 * (i % 3 + 1)
        assert log.verify().ok
    fingerprints = {log.verify().fingerprint for log in logs.values()}
    assert len(fingerprints) == len(logs)


# --- tampering -------------------------------------------------------------------------------


def other_game_line(backend: Backend, game_id: str, line: int) -> bytes:
    other = six_events(backend, game_id)
    return stored_lines(backend, other)[line - 1]


def _swap(lines: Lines, a: int, b: int) -> Lines:
    lines = list(lines)
    lines[a - 1], lines[b - 1] = lines[b - 1], lines[a - 1]
    return lines


def _replace(lines: Lines, n: int, new: bytes) -> Lines:
    return [*lines[: n - 1], new, *lines[n:]]


def _edited_value(lines: Lines) -> Lines:
    obj = json.loads(lines[2])
    obj["data"]["text"] = "event X"
    return _replace(lines, 3, json.dumps(obj, ensure_ascii=False).encode() + b"\n")


# (how, expected first wrong line, words expected in its first message)
TAMPERING: dict[str, tuple[Callable[[Backend, Lines], Lines], int, str]] = {
    "edited value": (lambda b, ls: _edited_value(ls), 3, "hash"),
    "reordered lines": (lambda b, ls: _swap(ls, 3, 4), 3, "seq"),
    "deleted line": (lambda b, ls: ls[:2] + ls[3:], 3, "seq"),
    "spliced from another game": (
        lambda b, ls: _replace(ls, 4, other_game_line(b, "elsewhere", 4)), 4, "game"
    ),
    "spliced from a game with the same id": (
        lambda b, ls: _replace(ls, 4, _other_same_id(b)), 4, "prev"
    ),
    "unknown envelope field": (
        lambda b, ls: _replace(ls, 2, edit(ls[1], rehash=True, extra=1)), 2, "unknown"
    ),
    "blank line": (lambda b, ls: [*ls[:2], b"\n", *ls[2:]], 3, "blank"),
    "whitespace-only line": (lambda b, ls: [*ls[:4], b"  \r\n", *ls[4:]], 5, "blank"),
    "torn tail": (lambda b, ls: [*ls[:5], ls[5][:40]], 6, "torn"),
    "bad at": (
        lambda b, ls: _replace(ls, 5, edit(ls[4], rehash=True, at="2026-11-26 20:14:03Z")), 5,
        "RFC 3339",
    ),
    "at not UTC": (
        lambda b, ls: _replace(ls, 2, edit(ls[1], rehash=True, at="2026-11-26T20:14:03+01:00")),
        2, "RFC 3339",
    ),
    "at impossible date": (
        lambda b, ls: _replace(ls, 6, edit(ls[5], rehash=True, at="2026-02-29T20:14:03Z")), 6,
        "RFC 3339",
    ),
    "bool seq": (lambda b, ls: _replace(ls, 2, edit(ls[1], rehash=True, seq=True)), 2, "`seq`"),
    "float seq": (lambda b, ls: _replace(ls, 2, edit(ls[1], rehash=True, seq=2.0)), 2, "`seq`"),
    "wrong v": (lambda b, ls: _replace(ls, 3, edit(ls[2], rehash=True, v=2)), 3, "`v`"),
    "prev on line 1": (
        lambda b, ls: _replace(ls, 1, edit(ls[0], rehash=True, prev="sha256:" + "0" * 64)), 1,
        "prev",
    ),
    "rehashed edit breaks the next link": (
        lambda b, ls: _replace(ls, 4, edit(ls[3], rehash=True, type="gift_opened")), 5, "prev"
    ),
}  # fmt: skip

# Rows have no `seq` of their own beyond the position and always this game's id, so there the
# same tampering shows as a broken chain or hash instead.
LIBRARY_WORDS = {"reordered lines": "prev", "deleted line": "prev",
                 "spliced from another game": "hash"}  # fmt: skip


def _other_same_id(backend: Backend) -> bytes:
    # Another copy of the game "party" with different content, made in its own backend.
    from .conftest import MemoryBackend

    other = MemoryBackend().new_log("party")
    other.create(FIRST, "party")
    other.append(events(5, start=50), expected_seq=1)
    return other.lines()[3]


@pytest.mark.parametrize("kind", TAMPERING)
def test_tampering_detected_at_the_right_line(backend: Backend, kind: str) -> None:
    how, line, words = TAMPERING[kind]
    log = six_events(backend)
    backend.tamper(log, lambda lines: how(backend, lines))

    result = log.verify()
    assert not result.ok
    first = result.problems[0]
    assert (first.line, first.kind) == (line, "integrity"), result.problems
    if backend.name == "library":
        words = LIBRARY_WORDS.get(kind, words)
    messages = " | ".join(p.message for p in result.problems if p.line == line)
    assert words in messages

    read: list[Any] = []
    with pytest.raises(LogIntegrityError) as err:
        read.extend(log.read())
    assert len(read) == line - 1  # everything before the bad line was good and was given
    assert err.value.problems[0].line == line
    assert f"line {line}:" in str(err.value)


def test_torn_tail_blocks_appends(backend: Backend) -> None:
    log = six_events(backend)
    backend.tamper(log, lambda lines: [*lines, b'{"v":1,"game":"par'])
    with pytest.raises(TornTailError, match="we repair"):
        log.append(events(1), expected_seq=6)
    with pytest.raises(TornTailError):
        log.head()


def test_damaged_tail_blocks_appends(backend: Backend) -> None:
    log = six_events(backend)
    backend.tamper(log, lambda lines: _replace(lines, 6, edit(lines[5], type="edited")))
    with pytest.raises(LogIntegrityError) as err:
        log.append(events(1), expected_seq=6)
    assert err.value.problems[0].line == 6
    assert len(log.verify().problems) == 1  # nothing was appended after the damage


def test_tampering_elsewhere_does_not_block_appends(backend: Backend) -> None:
    # Appending checks only the tail (it must not re-read a long game); audit finds the rest.
    log = six_events(backend)
    backend.tamper(log, _edited_value)
    log.append(events(1), expected_seq=6)
    assert [p.line for p in log.verify().problems] == [3]
