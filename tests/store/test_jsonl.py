"""JsonlLog specifics: exclusive create, tail-only head, locking, failed writes, repair."""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from eventstore.errors import (
    GameNotFoundError,
    LogExistsError,
    LogIntegrityError,
    NotALogError,
    NotTheFileReadError,
    StoreError,
    TornTailError,
)
from eventstore.jsonl import JsonlLog, repair

from .helpers import FIRST, edit, events, split_lines

pytestmark = pytest.mark.usefixtures("frozen")


@pytest.fixture
def log(tmp_path: Path) -> JsonlLog:
    log = JsonlLog(tmp_path / "game.jsonl")
    log.create(FIRST, "game")
    log.append(events(4), expected_seq=1)
    return log


def test_create_writes_one_compact_line(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "new.jsonl")
    env = log.create(FIRST, "new")
    assert log.path.read_bytes() == env.to_line()
    assert list(json.loads(log.path.read_bytes())) == [
        "v", "game", "seq", "at", "type", "data", "prev", "hash"
    ]  # fmt: skip


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "there.jsonl"
    path.write_bytes(b"")  # even an empty file is someone's
    with pytest.raises(LogExistsError, match=r"there\.jsonl"):
        JsonlLog(path).create(FIRST, "there")
    assert path.read_bytes() == b""


def test_create_refuses_a_bad_game_id(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="game id"):
        JsonlLog(tmp_path / "x.jsonl").create(FIRST, "Bad Id")
    assert not (tmp_path / "x.jsonl").exists()


def test_appended_lines_are_what_to_line_gives(log: JsonlLog) -> None:
    new = log.append(events(2, start=9), expected_seq=5)
    assert split_lines(log.path.read_bytes())[-2:] == [e.to_line() for e in new]


def test_head_and_append_read_only_the_tail(log: JsonlLog, monkeypatch: pytest.MonkeyPatch) -> None:
    # A long game: appending must not re-read it (the long line within the format's 1 MiB).
    big = "x" * 1_000_000
    seq = log.head()[0]
    log.append([("note", {"text": big})], expected_seq=seq)
    log.append(events(1), expected_seq=seq + 1)
    read = 0
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        nonlocal read
        data = real_pread(fd, n, offset)
        read += len(data)
        return data

    monkeypatch.setattr(os, "pread", counting_pread)
    monkeypatch.setattr(os, "read", None)  # no other way in
    assert log.head()[0] == seq + 2
    log.append(events(1), expected_seq=seq + 2)
    assert read < 200_000


def test_head_of_a_very_long_last_line(log: JsonlLog) -> None:
    seq = log.head()[0]
    (env,) = log.append([("note", {"text": "李" * 100_000})], expected_seq=seq)
    assert log.head() == (seq + 1, env.hash, "game")


def test_empty_file_is_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with pytest.raises(LogIntegrityError, match="empty"):
        JsonlLog(path).head()
    with pytest.raises(LogIntegrityError, match="empty"):
        JsonlLog(path).append(events(1), expected_seq=0)


def test_append_waits_for_the_lock(log: JsonlLog) -> None:
    done = threading.Event()
    fd = os.open(log.path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        worker = threading.Thread(target=lambda: (log.append(events(1), expected_seq=5), done.set()))
        worker.start()
        time.sleep(0.3)
        assert not done.is_set()  # blocked behind our lock
    finally:
        os.close(fd)  # releases the lock
    worker.join(5)
    assert done.is_set()
    assert log.head()[0] == 6


def test_failed_write_leaves_the_file_as_it_was(log: JsonlLog, monkeypatch: pytest.MonkeyPatch) -> None:
    before = log.path.read_bytes()

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StoreError, match="nothing written"):
        log.append(events(3), expected_seq=5)
    monkeypatch.undo()
    assert log.path.read_bytes() == before
    assert log.verify().ok


def test_read_is_lazy_and_missing_files_are_named(tmp_path: Path, log: JsonlLog) -> None:
    it = log.read()
    assert next(it).seq == 1
    missing = JsonlLog(tmp_path / "missing.jsonl")
    with pytest.raises(GameNotFoundError, match=r"missing\.jsonl"):
        missing.read()
    with pytest.raises(GameNotFoundError):
        missing.iter_lines()
    assert [ll.line for ll in log.iter_lines()] == [1, 2, 3, 4, 5]


# --- repair -----------------------------------------------------------------------------------


def test_repair_of_a_good_log_changes_nothing(log: JsonlLog) -> None:
    before = log.path.read_bytes()
    result = repair(log.path)
    assert not result.repaired and result.backup is None and result.head_seq == 5
    assert "not torn" in result.message
    assert log.path.read_bytes() == before
    assert not Path(f"{log.path}.bak").exists()


def test_repair_cuts_exactly_the_torn_tail(log: JsonlLog) -> None:
    good = log.path.read_bytes()
    torn = b'{"v":1,"game":"game","seq":6,"at":"2026-11-'
    with open(log.path, "ab") as f:
        f.write(torn)
    with pytest.raises(TornTailError, match=re.escape(f"we repair {log.path}")):
        log.append(events(1), expected_seq=5)

    result = repair(log.path)
    assert result.repaired and result.bytes_removed == len(torn) and result.head_seq == 5
    assert result.backup == Path(f"{log.path}.bak")
    assert result.backup.read_bytes() == good + torn
    assert log.path.read_bytes() == good
    assert log.verify().ok
    log.append(events(1), expected_seq=5)  # writable again

    with open(log.path, "ab") as f:
        f.write(b"{")
    second = repair(log.path)
    assert second.backup == Path(f"{log.path}.bak.1")  # the first backup is kept
    assert result.backup.read_bytes() == good + torn


def test_repair_refuses_corruption(log: JsonlLog) -> None:
    lines = split_lines(log.path.read_bytes())
    lines[2] = edit(lines[2], data={"changed": 1})
    damaged = b"".join(lines) + b'{"v":1,'
    log.path.write_bytes(damaged)
    with pytest.raises(LogIntegrityError, match="line 3:"):
        repair(log.path)
    assert log.path.read_bytes() == damaged
    assert not Path(f"{log.path}.bak").exists()


def test_repair_of_an_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with pytest.raises(NotALogError, match="empty"):
        repair(path)


def test_repair_when_not_even_line_1_is_complete(tmp_path: Path) -> None:
    # Not a game log (any newline-free file would look like this): nothing is cut.
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b'{"v":1,"game":"cut","seq":1,')
    with pytest.raises(NotALogError, match="no complete line"):
        repair(path)
    assert path.read_bytes() == b'{"v":1,"game":"cut","seq":1,'
    assert not list(tmp_path.glob("*.bak"))


def test_repair_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(GameNotFoundError):
        repair(tmp_path / "nope.jsonl")


def test_create_in_a_missing_directory_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot create"):
        JsonlLog(tmp_path / "no" / "such" / "dir.jsonl").create(FIRST, "g")


def test_failed_create_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StoreError, match="Input/output error"):
        JsonlLog(tmp_path / "g.jsonl").create(FIRST, "g")
    monkeypatch.undo()
    assert not (tmp_path / "g.jsonl").exists()
    JsonlLog(tmp_path / "g.jsonl").create(FIRST, "g")


def test_the_tail_this_process_appended_is_not_judged_again(
    log: JsonlLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eventstore.jsonl as jsonl
    from eventstore.integrity import verify_tail_line

    (written,) = log.append(events(1, start=7), expected_seq=5)
    # What the append remembers of its line is what judging the line gives.
    assert verify_tail_line(written.to_line()) == (written, [])
    judged: list[bytes] = []

    def counting(line: bytes) -> Any:
        judged.append(line)
        return verify_tail_line(line)

    monkeypatch.setattr(jsonl, "verify_tail_line", counting)
    log.append(events(1, start=8), expected_seq=6)
    assert judged == []  # the tail was the line appended above
    # A tail changed since (by hand, another program) is other bytes: judged, and refused.
    lines = split_lines(log.path.read_bytes())
    lines[-1] = edit(lines[-1], data={"text": "changed", "n": 8})
    log.path.write_bytes(b"".join(lines))
    before = log.path.read_bytes()
    with pytest.raises(LogIntegrityError):
        log.append(events(1), expected_seq=7)
    assert len(judged) == 1
    assert log.path.read_bytes() == before


def test_an_append_for_the_file_read_goes_onto_no_other(log: JsonlLog, tmp_path: Path) -> None:
    before = log.path.read_bytes()
    st = os.stat(log.path)
    other = JsonlLog(log.path, only_file=(st.st_dev, st.st_ino + 1))
    with pytest.raises(NotTheFileReadError, match="not the file that was read; nothing was written"):
        other.append(events(1), expected_seq=5)
    assert log.path.read_bytes() == before
    link = tmp_path / "link.jsonl"
    link.symlink_to(log.path)
    through = JsonlLog(link, only_file=(st.st_dev, st.st_ino))
    with pytest.raises(NotTheFileReadError, match="a symbolic link; nothing was written"):
        through.append(events(1), expected_seq=5)
    assert log.path.read_bytes() == before
    JsonlLog(log.path, only_file=(st.st_dev, st.st_ino)).append(events(1), expected_seq=5)
    assert len(log.path.read_bytes().splitlines()) == 6


def test_a_last_line_longer_than_the_first_read_is_still_the_head(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "long.jsonl")
    log.create(FIRST, "game")
    log.append([("note", {"text": "x" * 9000})], expected_seq=1)
    seq, _, game = log.head()
    assert (seq, game) == (2, "game")
    log.append(events(1), expected_seq=2)
    assert log.head()[0] == 3
