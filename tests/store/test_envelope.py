"""Envelope, sealing, canonical form, timestamps and game ids."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from freezegun import freeze_time

from eventstore.canonical import canonical_bytes, event_hash
from eventstore.envelope import (
    GAME_ID_RE,
    Envelope,
    at_ok,
    make_game_id,
    seal,
    utc_now,
    valid_at,
    valid_game_id,
)

from .helpers import ref_canonical, ref_hash

GOOD_AT = [
    "2026-11-26T20:14:03Z",
    "2026-11-26T20:14:03.5Z",
    "2026-11-26T20:14:03.123456789Z",
    "2024-02-29T00:00:00Z",  # leap year
    "2000-02-29T23:59:59Z",  # divisible by 400
    "2016-12-31T23:59:60Z",  # leap second
    "0001-01-01T00:00:00Z",
]
BAD_AT = [
    "2026-11-26T20:14:03z",  # lower-case z
    "2026-11-26t20:14:03Z",
    "2026-11-26 20:14:03Z",
    "2026-11-26T20:14:03+00:00",
    "2026-11-26T20:14:03",
    "2026-11-26T20:14Z",
    "2026-11-26T20:14:03.Z",
    "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-11-00T00:00:00Z",
    "2026-11-31T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",  # divisible by 100, not 400
    "2026-11-26T24:00:00Z",
    "2026-11-26T23:60:00Z",
    "2026-11-26T20:14:60Z",  # a leap second only at 23:59
    "2026-11-26T20:14:61Z",
    "２０２６-11-26T20:14:03Z",  # full-width digits
    "2026-11-26T20:14:03Z\n",
    "20261126T201403Z",
    "",
]


@pytest.mark.parametrize("at", GOOD_AT)
def test_valid_at_accepts(at: str) -> None:
    assert valid_at(at)


@pytest.mark.parametrize("at", BAD_AT)
def test_valid_at_rejects(at: str) -> None:
    assert not valid_at(at)


def test_valid_at_cache_does_not_let_bad_seconds_through() -> None:
    # The fast path remembers good minutes; what follows them must still be judged.
    assert valid_at("2026-11-26T20:14:03Z")
    from eventstore.envelope import at_ok

    assert at_ok("2026-11-26T20:14:59Z")
    for bad in ("2026-11-26T20:14:60Z", "2026-11-26T20:14:5Z", "2026-11-26T20:14:03Zjunk",
                "2026-11-26T20:14:3xZ"):  # fmt: skip
        assert not at_ok(bad), bad


# Fractional seconds, right and wrong, in a minute the fast path has seen: at_ok must judge each
# exactly as valid_at does.
FRACTIONS = [
    ("2026-11-26T20:14:03.123456Z", True),
    ("2026-11-26T20:14:03.000000Z", True),
    ("2026-11-26T20:14:59.999999Z", True),
    ("2026-11-26T20:14:00.1Z", True),
    ("2026-11-26T20:14:03.123456789Z", True),
    ("2026-11-26T20:14:03.Z", False),
    ("2026-11-26T20:14:03.12x456Z", False),
    ("2026-11-26T20:14:03.１23456Z", False),  # a full-width digit
    ("2026-11-26T20:14:03.١٢٣Z", False),  # Arabic-Indic digits
    ("2026-11-26T20:14:03.²Z", False),  # a digit to str.isdigit, not to \d with re.ASCII
    ("2026-11-26T20:14:60.000000Z", False),  # a leap second only at 23:59
    ("2026-11-26T20:14:61.5Z", False),
    ("2026-11-26T20:14:6a.123456Z", False),
    ("2026-11-26T20:14:03.123456z", False),
    ("2026-11-26T20:14:03.123456", False),
    ("2026-11-26T20:14:03.123456ZZ", False),
    ("2026-11-26T20:14:03.123456Z\n", False),
    ("2026-11-26T20:14:03..123Z", False),
    ("2026-11-26T20:14:03.+123Z", False),
    ("2026-11-26T20:14:03.1_2Z", False),
    ("2026-11-26T20:14:03. 123Z", False),
    ("2026-11-26T20:14:03,123456Z", False),
    ("2026-11-26T20:14:03.", False),
    ("2026-11-26T20:14:0.5Z", False),
]


@pytest.mark.parametrize(("at", "good"), FRACTIONS)
def test_the_fast_path_judges_fractions_as_valid_at_does(at: str, good: bool) -> None:
    assert valid_at("2026-11-26T20:14:09Z")  # the minute is now one the fast path knows
    assert valid_at(at) is good
    assert at_ok(at) is good


def test_a_leap_second_with_a_fraction_is_left_to_valid_at() -> None:
    assert valid_at("2016-12-31T23:59:59Z")
    assert at_ok("2016-12-31T23:59:60.5Z") and valid_at("2016-12-31T23:59:60.5Z")


def test_valid_at_rejects_non_strings() -> None:
    assert not valid_at(20261126)
    assert not valid_at(None)


@pytest.mark.parametrize("game_id", ["a", "thanksgiving-2026", "0-0", "-", "x" * 64])
def test_valid_game_ids(game_id: str) -> None:
    assert valid_game_id(game_id)
    assert GAME_ID_RE.match(game_id)


@pytest.mark.parametrize("game_id", ["", "x" * 65, "Game", "a_b", "a b", "zoë", "abc\n", "a.b", 5, None])
def test_invalid_game_ids(game_id: object) -> None:
    assert not valid_game_id(game_id)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Thanksgiving 2026", "thanksgiving-2026"),
        ("  Zoë's Party!! ", "zoe-s-party"),
        ("Crème brûlée night", "creme-brulee-night"),
        ("李", "game-2026-11-26-201403"),
        ("!!!", "game-2026-11-26-201403"),
        (None, "game-2026-11-26-201403"),
        ("", "game-2026-11-26-201403"),
    ],
)
def test_make_game_id(title: str | None, expected: str) -> None:
    assert make_game_id(title, datetime(2026, 11, 26, 20, 14, 3, tzinfo=UTC)) == expected


def test_make_game_id_long_title() -> None:
    gid = make_game_id("a" * 63 + " b and more words", datetime(2026, 1, 1, tzinfo=UTC))
    assert valid_game_id(gid) and len(gid) <= 64 and not gid.endswith("-")
    assert gid == "a" * 63


def test_utc_now_is_utc_with_microseconds() -> None:
    with freeze_time("2026-11-26 20:14:03.987654"):
        assert utc_now() == "2026-11-26T20:14:03.987654Z"
    with freeze_time("2026-11-26 20:14:03"):
        assert utc_now() == "2026-11-26T20:14:03.000000Z"  # always six digits
    with freeze_time(datetime(2026, 11, 26, 21, 14, 3).astimezone()):
        assert valid_at(utc_now()) and at_ok(utc_now())


def test_seal_hash_is_the_spec_hash() -> None:
    env = seal("g", 1, "2026-11-26T20:14:03Z", "game_started", {"players": ["Zoë"]}, None)
    assert env.hash == ref_hash(env.to_dict())
    body = {k: v for k, v in env.to_dict().items() if k != "hash"}
    assert canonical_bytes(body) == ref_canonical(body)
    assert event_hash(body) == env.hash


def test_seal_copies_data_as_a_reader_would_see_it() -> None:
    data = {"cards": ("R7", "B2"), "nested": {"b": 1, "a": [1, 2]}}
    env = seal("g", 1, "2026-11-26T20:14:03Z", "t", data, None)
    data["nested"]["b"] = 99  # the caller's dict changing later cannot break the hash
    assert env.data == {"cards": ["R7", "B2"], "nested": {"b": 1, "a": [1, 2]}}
    assert env.hash == ref_hash(env.to_dict())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("Bad", 1, "2026-11-26T20:14:03Z", "t", {}, None), "game id"),
        (("g", 0, "2026-11-26T20:14:03Z", "t", {}, None), "seq"),
        (("g", True, "2026-11-26T20:14:03Z", "t", {}, None), "seq"),
        (("g", 1, "2026-11-26 20:14:03", "t", {}, None), "at"),
        (("g", 1, "2026-11-26T20:14:03Z", "", {}, None), "type"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", [], None), "dict"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", {}, "sha256:00"), "prev"),
        (("g", 2, "2026-11-26T20:14:03Z", "t", {}, None), "prev"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", {"x": 0.5}, None), "float"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", {"x": [{"y": 1e3}]}, None), "float"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", {"x": 2**70}, None), "JSON"),
        (("g", 1, "2026-11-26T20:14:03Z", "t", {1: "non-string key"}, None), "JSON"),
    ],
)
def test_seal_refuses_what_a_reader_would_flag(args: tuple, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        seal(*args)


def test_to_line_is_compact_in_envelope_order() -> None:
    env = seal("g", 1, "2026-11-26T20:14:03Z", "note", {"z": 1, "a": "李"}, None)
    line = env.to_line()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line == (
        b'{"v":1,"game":"g","seq":1,"at":"2026-11-26T20:14:03Z","type":"note",'
        b'"data":{"z":1,"a":"' + "李".encode() + b'"},"prev":null,"hash":"' + env.hash.encode() + b'"}\n'
    )
    assert list(env.to_dict()) == ["v", "game", "seq", "at", "type", "data", "prev", "hash"]


def test_envelope_is_immutable() -> None:
    env = seal("g", 1, "2026-11-26T20:14:03Z", "note", {}, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        env.seq = 2  # type: ignore[misc]
    assert isinstance(env, Envelope)


def _nested(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"n": 2**63}, "outside the signed 64-bit range"),
        ({"n": -(2**63) - 1}, "64-bit range"),
        ({"deep": _nested(63)}, "nested more than 64"),
        ({"text": "a" * (1 << 20)}, "over the format's limit"),
    ],
)
def test_seal_refuses_what_readers_would_flag_as_beyond_the_limits(data: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        seal("g", 1, "2026-11-26T20:14:03Z", "note", data, None)


def test_seal_accepts_the_limits_themselves() -> None:
    seal("g", 1, "2026-11-26T20:14:03Z", "note", {"n": 2**63 - 1, "m": -(2**63)}, None)
    seal("g", 1, "2026-11-26T20:14:03Z", "note", {"d": _nested(62)}, None)  # 64 levels in all
