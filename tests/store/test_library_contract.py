"""The library contract: what every game library (SQLite, PostgreSQL) does with whole games.

Listing and summaries, search, imports (a file, many files in a batch, envelopes, lines just
verified), export and batches are written once (eventstore.sql_library) over each backend's
SQL: this suite runs against each, as test_contract does for one game's log. What only one
backend has (SQLite's layout and locking, PostgreSQL's notifications) is tested beside it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from eventstore.envelope import Envelope, seal
from eventstore.errors import (
    ConcurrencyError,
    GameNotFoundError,
    ImportConflictError,
    LogExistsError,
    LogIntegrityError,
)
from eventstore.integrity import verify_log
from eventstore.jsonl import JsonlLog
from eventstore.libraries import LibraryRef
from eventstore.postgres import Library as PgLibrary
from eventstore.sql_library import SqlLibrary
from eventstore.sqlite import Library

from .helpers import FIRST, FROZEN_AT, VECTORS, edit, events, split_lines

pytestmark = pytest.mark.usefixtures("frozen")
VECTOR_FILES = ["one-party.jsonl", "four-players-dealt.jsonl"]
# Another connection to the same library, closed by the caller.
Reopen = Callable[[], SqlLibrary[Any]]


def open_library(place: LibraryRef) -> SqlLibrary[Any]:
    return PgLibrary(place) if isinstance(place, str) else Library(place)


@pytest.fixture(params=["sqlite", "postgres"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> LibraryRef:
    """Where the library is: a SQLite file, or a PostgreSQL database of the test's own."""
    if request.param == "sqlite":
        return tmp_path / "lib" / "games.db"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def library(place: LibraryRef) -> Iterator[SqlLibrary[Any]]:
    lib = open_library(place)
    yield lib
    lib.close()


@pytest.fixture
def reopen(place: LibraryRef) -> Reopen:
    return lambda: open_library(place)


def stored_events(library: SqlLibrary[Any]) -> int:
    """Every event row of every game, as the library reads them back."""
    return sum(1 for game in library.games() for _ in library.log(game["id"]).rows())


def test_games_and_summaries(library: SqlLibrary[Any]) -> None:
    log = library.log("zoe")
    log.create(FIRST, "zoe")
    log.append(events(3), expected_seq=1, at="2026-11-26T21:00:00Z")
    library.log("bare").create(("game_started", {}), "bare", at="2026-11-27T10:00:00Z")
    listed = {g["id"]: g for g in library.games()}
    assert listed["zoe"] == {
        "id": "zoe", "title": "Zoë's party", "players": ["Zoë", "李", "Ann"],
        "started_at": FROZEN_AT, "last_at": "2026-11-26T21:00:00Z", "events": 4,
        "head_hash": log.head()[1], "complete": False, "winner": None, "damaged": False,
    }  # fmt: skip
    assert listed["bare"]["title"] is None and listed["bare"]["players"] is None
    library.set_summary("zoe", complete=True, winner="李")
    zoe = next(g for g in library.games() if g["id"] == "zoe")
    assert zoe["complete"] is True and zoe["winner"] == "李"
    with pytest.raises(GameNotFoundError, match="'nope'"):
        library.set_summary("nope", complete=False, winner=None)
    assert library.has_game("zoe") and not library.has_game("nope")


def test_log_of_other_game_id_refused(library: SqlLibrary[Any]) -> None:
    with pytest.raises(ValueError, match="'a'"):
        library.log("a").create(FIRST, "b")


def test_two_connections_see_each_others_appends(library: SqlLibrary[Any], reopen: Reopen) -> None:
    library.log("g").create(FIRST, "g")
    other = reopen()
    other.log("g").append(events(1), expected_seq=1)
    with pytest.raises(ConcurrencyError):
        library.log("g").append(events(1), expected_seq=1)
    assert library.log("g").head()[0] == 2
    other.close()


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_import_export_round_trip(library: SqlLibrary[Any], tmp_path: Path, name: str) -> None:
    source = verify_log(VECTORS / name)
    result = library.import_log(VECTORS / name)
    assert (result.status, result.events_added, result.events) == ("imported", source.events, source.events)
    assert result.fingerprint == source.fingerprint
    game = result.game_id
    assert library.log(game).verify().fingerprint == source.fingerprint

    out = tmp_path / "out.jsonl"
    assert library.export(game, out) == source.events
    exported = verify_log(out)
    assert exported.ok and exported.fingerprint == source.fingerprint
    original = [json.loads(line) for line in split_lines((VECTORS / name).read_bytes())]
    again = [json.loads(line) for line in split_lines(out.read_bytes())]
    assert again == original  # the same envelopes: values, hashes, all of it
    assert list(again[0]) == ["v", "game", "seq", "at", "type", "data", "prev", "hash"]
    assert list(JsonlLog(out).read()) == list(library.log(game).read())


def test_export_refuses_to_overwrite_and_needs_a_game(library: SqlLibrary[Any], tmp_path: Path) -> None:
    library.import_log(VECTORS / "one-party.jsonl")
    out = tmp_path / "out.jsonl"
    out.write_text("mine")
    with pytest.raises(LogExistsError):
        library.export("vector-one", out)
    assert out.read_text() == "mine"
    with pytest.raises(GameNotFoundError):
        library.export("nope", tmp_path / "other.jsonl")
    assert not (tmp_path / "other.jsonl").exists()


def test_import_twice_is_a_no_op(library: SqlLibrary[Any]) -> None:
    first = library.import_log(VECTORS / "one-party.jsonl")
    again = library.import_log(VECTORS / "one-party.jsonl")
    assert (again.status, again.events_added) == ("unchanged", 0)
    assert again.fingerprint == first.fingerprint
    assert "nothing to import" in again.message
    assert stored_events(library) == 13


def test_import_prefix_and_extension(library: SqlLibrary[Any], tmp_path: Path) -> None:
    lines = split_lines((VECTORS / "four-players-dealt.jsonl").read_bytes())
    prefix, longer = tmp_path / "prefix.jsonl", tmp_path / "longer.jsonl"
    prefix.write_bytes(b"".join(lines[:30]))
    longer.write_bytes(b"".join(lines[:60]))

    assert library.import_log(prefix).status == "imported"
    extended = library.import_log(longer)
    assert (extended.status, extended.events_added, extended.events) == ("extended", 30, 60)
    assert library.import_log(prefix).status == "unchanged"  # a prefix of what is stored
    full = library.import_log(VECTORS / "four-players-dealt.jsonl")
    assert (full.status, full.events_added) == ("extended", 27)
    log = library.log(full.game_id)
    assert log.verify().fingerprint == verify_log(VECTORS / "four-players-dealt.jsonl").fingerprint
    game = next(g for g in library.games() if g["id"] == full.game_id)
    assert game["events"] == 87 and game["head_hash"] == log.head()[1]


def test_an_extension_keeps_the_summary_given_else_claims_nothing(
    library: SqlLibrary[Any], tmp_path: Path
) -> None:
    """The summary of a game's first 30 events is not kept for its 60: the store judges no
    game, so an import that gives no summary leaves the row claiming nothing."""
    lines = split_lines((VECTORS / "four-players-dealt.jsonl").read_bytes())
    half, more = tmp_path / "half.jsonl", tmp_path / "more.jsonl"
    half.write_bytes(b"".join(lines[:30]))
    more.write_bytes(b"".join(lines[:60]))
    game_id = library.import_log(half).game_id
    library.set_summary(game_id, complete=True, winner="Ann")  # say, by a writer of its own

    def summary() -> tuple[bool, str | None, int]:
        row = library.summary_of(game_id)
        assert row is not None
        return row["complete"], row["winner"], row["events"]

    assert library.import_log(half).status == "unchanged"
    assert summary() == (True, "Ann", 30)  # nothing added: the row as it was
    assert library.import_log(more).status == "extended"
    assert summary() == (False, None, 60)
    whole = [json.loads(line) for line in lines]
    assert library.import_verified(whole, "whole", (True, "Ann, Ben")).status == "extended"
    assert summary() == (True, "Ann, Ben", 87)


def write_other_game(path: Path, game_id: str, n: int, start: int = 0) -> None:
    log = JsonlLog(path)
    log.create(FIRST, game_id)
    log.append(events(n - 1, start=start), expected_seq=1)


@pytest.mark.parametrize(("stored", "incoming"), [(5, 5), (5, 8), (8, 5)])
def test_import_conflict(library: SqlLibrary[Any], tmp_path: Path, stored: int, incoming: int) -> None:
    write_other_game(tmp_path / "a.jsonl", "same-id", stored)
    write_other_game(tmp_path / "b.jsonl", "same-id", incoming, start=100)  # different content
    library.import_log(tmp_path / "a.jsonl")
    before = library.log("same-id").verify()
    with pytest.raises(ImportConflictError, match="same-id") as err:
        library.import_log(tmp_path / "b.jsonl")
    assert "b.jsonl" in str(err.value)
    assert library.log("same-id").verify() == before


TAMPERED = {
    "edited": (lambda ls: [*ls[:4], edit(ls[4], data={"party": 9}), *ls[5:]], 5),
    "torn": (lambda ls: [*ls[:-1], ls[-1][:-1]], 13),
    "blank": (lambda ls: [*ls[:2], b"\n", *ls[2:]], 3),
    "unknown field": (lambda ls: [ls[0], edit(ls[1], rehash=True, x=1), *ls[2:]], 2),
    "bool seq": (lambda ls: [ls[0], edit(ls[1], rehash=True, seq=True), *ls[2:]], 2),
    "wrong v": (lambda ls: [*ls[:6], edit(ls[6], rehash=True, v=2), *ls[7:]], 7),
    "deleted": (lambda ls: ls[:7] + ls[8:], 8),
}


@pytest.mark.parametrize("kind", TAMPERED)
def test_import_refuses_a_tampered_log(library: SqlLibrary[Any], tmp_path: Path, kind: str) -> None:
    how, line = TAMPERED[kind]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(how(split_lines((VECTORS / "one-party.jsonl").read_bytes()))))
    with pytest.raises(LogIntegrityError, match=rf"bad\.jsonl: line {line}:") as err:
        library.import_log(bad)
    assert err.value.problems[0].line == line
    assert not library.has_game("vector-one")
    assert library.games() == []


def test_import_refuses_empty_and_missing(library: SqlLibrary[Any], tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    with pytest.raises(LogIntegrityError, match="empty"):
        library.import_log(tmp_path / "empty.jsonl")
    with pytest.raises(GameNotFoundError):
        library.import_log(tmp_path / "missing.jsonl")


def test_import_logs_one_by_one_in_shared_transactions(library: SqlLibrary[Any], tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes((VECTORS / "one-party.jsonl").read_bytes()[:-1])  # torn
    write_other_game(tmp_path / "c.jsonl", "c", 4)
    results = library.import_logs(
        [VECTORS / "one-party.jsonl", bad, tmp_path / "c.jsonl", VECTORS / "one-party.jsonl"]
    )
    assert [getattr(r, "status", type(r).__name__) for r in results] == [
        "imported", "LogIntegrityError", "imported", "unchanged"
    ]  # fmt: skip
    assert {g["id"] for g in library.games()} == {"vector-one", "c"}
    assert library.log("vector-one").verify().ok and library.log("c").verify().events == 4


def sealed_game(game_id: str, n: int) -> list[Envelope]:
    prev, sealed = None, []
    for seq, (type_, data) in enumerate([FIRST, *events(n - 1)], start=1):
        env = seal(game_id, seq, f"2026-01-01T00:00:{seq:02d}Z", type_, data, prev)
        sealed.append(env)
        prev = env.hash
    return sealed


def test_import_envelopes(library: SqlLibrary[Any]) -> None:
    sealed = sealed_game("sim-1", 6)
    result = library.import_envelopes(sealed)
    assert (result.status, result.events) == ("imported", 6)
    assert list(library.log("sim-1").read()) == sealed
    (game,) = library.games()  # the games row tells the head, as after appends
    assert (game["events"], game["last_at"], game["head_hash"]) == (6, sealed[-1].at, sealed[-1].hash)
    gap = sealed_game("sim-2", 6)
    del gap[2]
    with pytest.raises(LogIntegrityError, match="envelopes: line 3:"):
        library.import_envelopes(gap)
    assert not library.has_game("sim-2")


def test_batch_left_by_an_exception_rolls_back(library: SqlLibrary[Any]) -> None:
    with pytest.raises(KeyboardInterrupt), library.batch():
        library.log("a").create(FIRST, "a")
        raise KeyboardInterrupt
    assert not library.has_game("a")
    library.log("a").create(FIRST, "a")  # the library is usable again


def test_a_game_unknown_to_the_library(library: SqlLibrary[Any]) -> None:
    assert library.summary_of("nope") is None
    assert not library.has_game("nope") and not library.log("nope").exists()
    assert library.log("nope").head() == (0, None, None)
    with pytest.raises(GameNotFoundError, match="'nope'"):
        library.log("nope").append(events(1), expected_seq=1)
    with pytest.raises(GameNotFoundError, match="'nope'"):
        list(library.log("nope").rows())


def test_search_needs_every_word_in_a_title_a_name_or_a_note(library: SqlLibrary[Any]) -> None:
    log = library.log("zoe")
    log.create(FIRST, "zoe")
    library.log("other").create(
        ("game_started", {"title": "Office party"}), "other", at="2026-12-01T18:00:00Z"
    )
    assert [g["id"] for g in library.search("party")] == ["zoe", "other"]  # oldest first
    assert [g["id"] for g in library.search("PARTY ann")] == ["zoe"]  # a player's name, any case
    assert library.search("fruitcake") == []
    log.append([("note", {"text": "the fruitcake came back"})], expected_seq=1)
    (found,) = library.search("fruitcake party")
    assert found == library.summary_of("zoe")
    assert library.search("") == library.search("  ,. ") == []  # no words: nothing asked


def test_a_batch_is_seen_by_others_once_it_commits(library: SqlLibrary[Any], reopen: Reopen) -> None:
    other = reopen()
    try:
        with library.batch():
            library.log("a").create(FIRST, "a")
            with library.batch():  # nested: the same batch
                library.import_log(VECTORS / "one-party.jsonl")
            with pytest.raises(ConcurrencyError):  # a failed write undoes itself only
                library.log("a").append(events(2), expected_seq=5)
            library.log("a").append(events(2), expected_seq=1)
            assert library.log("a").head()[0] == 3  # visible inside the batch
            assert not other.has_game("a") and not other.has_game("vector-one")
        assert other.log("a").head()[0] == 3 and other.log("vector-one").verify().ok
    finally:
        other.close()


@pytest.mark.parametrize("in_batch", [False, True])
def test_import_verified_new_extended_and_unchanged(library: SqlLibrary[Any], in_batch: bool) -> None:
    """Lines just verified: a new game takes the backend's quickest path (PostgreSQL's only
    inside a batch), one the library has takes the general path; the same results either way."""
    lines = [json.loads(line) for line in split_lines((VECTORS / "four-players-dealt.jsonl").read_bytes())]
    with library.batch() if in_batch else nullcontext():
        new = library.import_verified(lines[:30], "half", (False, None))
        more = library.import_verified(lines, "whole", (True, "Ann"))
        same = library.import_verified(lines[:30], "half")
        with pytest.raises(ImportConflictError):
            library.import_verified([lines[0], {**lines[1], "hash": lines[2]["hash"]}], "odd")
    assert (new.status, new.events_added, new.message) == (
        "imported",
        30,
        f"half: imported game {new.game_id!r} (30 events)",
    )
    assert (more.status, more.events_added, more.events) == ("extended", 57, 87)
    assert (same.status, same.events) == ("unchanged", 87)
    assert (
        library.log(new.game_id).verify().fingerprint
        == verify_log(VECTORS / "four-players-dealt.jsonl").fingerprint
    )
    row = library.summary_of(new.game_id)
    assert row is not None and (row["complete"], row["winner"], row["events"]) == (True, "Ann", 87)


@pytest.mark.parametrize("in_batch", [False, True])
def test_ranks_are_kept_in_the_import_s_own_write(library: SqlLibrary[Any], in_batch: bool) -> None:
    """A finished game's places go in with its events (the quickest path, the general path
    for an extension); a finished game without them, or with fewer events than it has, is
    listed for the catch-up until keep_ranks ranks it."""
    lines = [json.loads(line) for line in split_lines((VECTORS / "four-players-dealt.jsonl").read_bytes())]
    other = [json.loads(line) for line in split_lines((VECTORS / "one-party.jsonl").read_bytes())]
    places = [(0, "Ann", 40, 1), (1, "Ben", 30, 2), (2, "Cy", 30, 2), (3, "Di", 10, 4)]
    assert library.ranks() == [] and library.unranked() == []
    with library.batch() if in_batch else nullcontext():
        half = library.import_verified(lines[:30], "half", (False, None))
        assert library.import_verified(lines, "whole", (True, "Ann"), ranks=places).status == "extended"
        unranked = library.import_verified(other, "other", (True, "Ann"))
    game, started = half.game_id, lines[0]["at"]
    assert library.ranks() == [(game, started, *place) for place in places]
    assert library.unranked() == [unranked.game_id]
    library.keep_ranks(unranked.game_id, unranked.events, [(0, "Ann", 5, 1), (1, "Ben", 5, 1)])
    assert library.unranked() == []
    assert len(library.ranks()) == 6
    library.set_summary(game, complete=True, winner="Ann")
    library.keep_ranks(game, 86, places[:2])  # ranks older than the game's events: stale
    assert library.unranked() == [game]


def test_a_new_game_s_ranks_on_the_quickest_path(library: SqlLibrary[Any]) -> None:
    lines = [json.loads(line) for line in split_lines((VECTORS / "four-players-dealt.jsonl").read_bytes())]
    places = [(0, "Ann", 40, 1), (1, "Ben", 30, 2)]
    with library.batch():
        new = library.import_verified(lines, "whole", (True, "Ann"), ranks=places)
    assert new.status == "imported"
    assert library.ranks() == [(new.game_id, lines[0]["at"], *place) for place in places]
    assert library.unranked() == []


def written_otherwise(name: str, tmp_path: Path) -> Path:
    """A vector as another writer writes it: spaces after `:` and `,`, the envelope's keys in
    reverse order, the payload's unsorted, non-ASCII escaped. The same hashes."""
    path = tmp_path / f"spaced-{name}"
    with path.open("w", encoding="utf-8") as out:
        for line in split_lines((VECTORS / name).read_bytes()):
            obj = json.loads(line)
            obj["data"] = dict(reversed(list(obj["data"].items())))
            out.write(json.dumps(dict(reversed(list(obj.items()))), separators=(", ", ": ")) + "\n")
    return path


def import_as(how: str, library: SqlLibrary[Any], path: Path, tmp_path: Path) -> None:
    """`path` into the library by one of the ways a log gets there."""
    from eventstore.as_written import lines_as_written

    data = path.read_bytes()
    lines = split_lines(data)
    if how == "file":
        assert library.import_log(path).status == "imported"
    elif how == "extended file":  # half of it, then the whole: the tail's lines are kept too
        half = tmp_path / "half.jsonl"
        half.write_bytes(b"".join(lines[: len(lines) // 2]))
        assert library.import_log(half).status == "imported"
        assert library.import_log(path).status == "extended"
    else:  # what `we import` does: lines just verified, in a batch or not
        parsed = [json.loads(line) for line in lines]
        with library.batch() if how == "verified in a batch" else nullcontext():
            result = library.import_verified(parsed, path.name, (True, None), lines_as_written(path))
        assert result.status == "imported"


@pytest.mark.parametrize("how", ["file", "extended file", "verified", "verified in a batch"])
@pytest.mark.parametrize("otherwise", [False, True], ids=["as-we-write", "spaces-and-key-order"])
def test_export_gives_back_the_imported_file_byte_for_byte(
    library: SqlLibrary[Any], tmp_path: Path, how: str, otherwise: bool
) -> None:
    name = "four-players-dealt.jsonl"
    path = written_otherwise(name, tmp_path) if otherwise else VECTORS / name
    import_as(how, library, path, tmp_path)
    game = json.loads(split_lines(path.read_bytes())[0])["game"]
    out = tmp_path / "out.jsonl"
    library.export(game, out)
    assert out.read_bytes() == path.read_bytes()
    assert library.log(game).verify().fingerprint == verify_log(path).fingerprint


def test_a_kept_line_edited_by_hand_is_not_exported(library: SqlLibrary[Any], tmp_path: Path) -> None:
    """The rows are the truth: a kept line that no longer reads as its row (its format version
    edited in it alone) is written as the row is, and the export still verifies."""
    path = written_otherwise("one-party.jsonl", tmp_path)
    library.import_log(path)
    game = json.loads(split_lines(path.read_bytes())[0])["game"]
    library.conn.execute("""UPDATE event_lines SET line = replace(line, '"v": 1', '"v": 2')""")
    out = tmp_path / "out.jsonl"
    library.export(game, out)
    assert out.read_bytes() != path.read_bytes() and b'"v": 2' not in out.read_bytes()
    exported = verify_log(out)
    assert exported.ok and exported.fingerprint == verify_log(path).fingerprint
    rows = [json.loads(line) for line in split_lines(out.read_bytes())]
    assert rows == [json.loads(line) for line in split_lines(path.read_bytes())]


def test_a_library_from_before_kept_lines_is_read_as_it_is_and_upgraded_by_a_writer(
    place: LibraryRef, tmp_path: Path
) -> None:
    """A library of the layout before `event_lines` (SQLite schema 3, PostgreSQL schema 2):
    a command that only reads exports its rows as before; the first that writes adds the table,
    and what is imported from then on comes back byte for byte."""
    path = written_otherwise("one-party.jsonl", tmp_path)
    game = json.loads(split_lines(path.read_bytes())[0])["game"]
    library = open_library(place)
    library.import_log(VECTORS / "four-players-dealt.jsonl")
    library.conn.execute("DROP TABLE event_lines")
    if isinstance(place, str):
        library.conn.execute("UPDATE settings SET value = '2' WHERE name = 'schema'")
    else:
        library.conn.execute("UPDATE we_library SET schema = 3")
        library.conn.execute("PRAGMA user_version = 3")
    library.close()

    reader = PgLibrary(place, read_only=True) if isinstance(place, str) else Library(place, read_only=True)
    out = tmp_path / "before.jsonl"
    reader.export("vector-two", out)
    reader.close()
    assert verify_log(out).fingerprint == verify_log(VECTORS / "four-players-dealt.jsonl").fingerprint

    writer = open_library(place)
    writer.import_log(path)
    writer.export(game, tmp_path / "after.jsonl")
    writer.close()
    assert (tmp_path / "after.jsonl").read_bytes() == path.read_bytes()
