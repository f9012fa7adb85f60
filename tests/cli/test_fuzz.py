"""Fuzzing every command with mutated logs and damaged libraries (hypothesis, bounded).

Whatever the input, `we` must end with an exit status in {0, 1, 2} and at most one-line
errors: never a traceback (weharness.we runs the real entry point in-process and lets any
exception through, which fails the example), never a log rewritten by a reader, and memory
under a bound (a few examples also run as real processes, whose peak memory is measured).

Bounded so that the whole file takes well under a minute: a few hundred examples in all.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peakmem_run import run_measured
from weharness import VECTORS, we

BASES = [
    (VECTORS / "one-party.jsonl").read_bytes(),
    (VECTORS / "four-players-dealt.jsonl").read_bytes(),
]
FUZZ = settings(
    max_examples=int(os.environ.get("WE_FUZZ_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# --- mutations of a log ----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


EDGE_NUMBERS = [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**400, -(10**30)]
FIELDS = ["v", "game", "seq", "at", "type", "data", "prev", "hash", "extra"]


def _lines(log: bytes) -> list[bytes]:
    return log.splitlines(keepends=True)


def _nest(levels: int, opener: str) -> str:
    if opener == "[":
        return "[" * levels + "1" + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


def _envelope(line: bytes) -> dict[str, Any] | None:
    """The line parsed, if it is a JSON object the standard library can read."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


@st.composite
def mutated_logs(draw: st.DrawFn) -> bytes:
    log = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 3))):
        lines = _lines(log)
        kind = draw(
            st.sampled_from(
                [
                    "truncate", "flip", "delete", "duplicate", "swap", "shape", "deep", "huge",
                    "long", "crlf", "blank", "field", "junk",
                ]
            )
        )  # fmt: skip
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "truncate":
            log = log[: draw(st.integers(0, len(log)))]
        elif kind == "flip":
            pos = draw(st.integers(0, len(log) - 1))
            log = log[:pos] + bytes([log[pos] ^ draw(st.integers(1, 255))]) + log[pos + 1 :]
        elif kind == "delete":
            log = b"".join(lines[:i] + lines[i + 1 :])
        elif kind == "duplicate":
            log = b"".join(lines[: i + 1] + lines[i:])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            log = b"".join(lines)
        elif kind == "shape":
            lines[i] = json.dumps(draw(json_values)).encode() + b"\n"
            log = b"".join(lines)
        elif kind == "deep":
            levels = draw(st.sampled_from([63, 64, 65, 200, 254, 255, 1000, 1023, 1024, 1025, 5000]))
            opener = draw(st.sampled_from(["[", "{"]))
            nest = _nest(levels, opener)
            envelope = _envelope(lines[i])
            if envelope is not None and draw(st.booleans()):
                text = json.dumps(envelope).replace('"data": {', '"data": {"x": ' + nest + ", ", 1)
                log = b"".join([*lines[:i], text.encode() + b"\n", *lines[i + 1 :]])
            else:
                log = b"".join([*lines[:i], nest.encode() + b"\n", *lines[i + 1 :]])
        elif kind == "huge":
            number = draw(st.sampled_from(EDGE_NUMBERS))
            text = lines[i].decode("utf-8", "replace")
            field = draw(st.sampled_from(['"seq": ', '"v": ', '"party": ']))
            if field in text:
                head, _, tail = text.partition(field)
                rest = tail.lstrip("-0123456789")
                lines[i] = (head + field + str(number) + rest).encode()
            log = b"".join(lines)
        elif kind == "long":
            size = draw(st.sampled_from([(1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 << 20]))
            filler = draw(st.sampled_from([b"x", b"[", b"1", b"\x00"]))
            lines.insert(i, filler * size + draw(st.sampled_from([b"\n", b"", b"\r\n"])))
            log = b"".join(lines)
        elif kind == "crlf":
            log = log.replace(b"\n", b"\r\n")
        elif kind == "blank":
            lines.insert(i, draw(st.sampled_from([b"\n", b"   \n", b"\r\n", b"\t\n"])))
            log = b"".join(lines)
        elif kind == "field":
            envelope = _envelope(lines[i])
            if envelope is not None:
                key = draw(st.sampled_from(FIELDS))
                if draw(st.booleans()):
                    envelope[key] = draw(json_values)
                else:
                    envelope.pop(key, None)
                lines[i] = json.dumps(envelope).encode() + b"\n"
                log = b"".join(lines)
        elif kind == "junk":
            lines.insert(i, draw(st.binary(max_size=200)) + b"\n")
            log = b"".join(lines)
    return log


def _check(result: Any) -> None:
    said = result.stdout + result.stderr
    assert "Traceback" not in said
    assert result.exit_code in (0, 1, 2), (result.exit_code, said[-1000:])
    errors = [line for line in result.stderr.splitlines() if line.startswith("we: error:")]
    assert all(len(line) < 2000 for line in errors), "an error line echoes too much"


COMMANDS: dict[str, Callable[[Path], list[object]]] = {
    "audit": lambda p: ["audit", p],
    "audit-json": lambda p: ["audit", "--json", "--claim", "Ann=3", p],
    "replay": lambda p: ["replay", p],
    "replay-json": lambda p: ["replay", "--json", "--at", "3", p],
    "replay-html": lambda p: ["replay", p, "--html", p.with_suffix(".html"), "--force"],
    "score": lambda p: ["score", "--explain", p],
    "import": lambda p: ["import", "--db", p.parent / "fuzz.db", p],
    "record": lambda p: ["record", p],
}


@FUZZ
@given(log=mutated_logs(), command=st.sampled_from(sorted(COMMANDS)))
def test_every_reader_survives_mutated_logs(tmp_path: Path, log: bytes, command: str) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(log)
    try:
        result = we(*COMMANDS[command](path), input="status\nquit\n")
        _check(result)
        if command != "record":
            assert path.read_bytes() == log  # readers never rewrite a log
        else:
            # The recorder may only append to a log it accepted.
            assert path.read_bytes().startswith(log) if path.exists() else False
    finally:
        for extra in tmp_path.iterdir():
            if extra.is_dir():
                shutil.rmtree(extra)
            else:
                extra.unlink()


@FUZZ
@given(log=mutated_logs())
def test_repair_cuts_a_torn_tail_or_changes_nothing(tmp_path: Path, log: bytes) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(log)
    try:
        result = we("repair", path)
        _check(result)
        if "removed torn line" in result.stdout:
            assert log.startswith(path.read_bytes()) and path.read_bytes().endswith(b"\n")
            (backup,) = tmp_path.glob("fuzz.jsonl.bak*")
            assert backup.read_bytes() == log  # nothing lost: the whole file is kept aside
        else:
            assert path.read_bytes() == log
    finally:
        for extra in tmp_path.iterdir():
            extra.unlink()


# --- damaged libraries -----------------------------------------------------------------------

COLUMNS = {
    "events": ["type", "data", "at", "prev", "hash"],
    "games": ["id", "title", "players", "started_at", "last_at", "events", "head_hash", "complete", "winner"],
}
sql_values = st.sampled_from(
    ["x'ffff'", "x''", "CAST(x'ff' AS TEXT)", "CAST(x'6fc3' AS TEXT)",
     "'x'", "''", "5", "-1", "1e300", "NULL", "'[1,2'", "'{}'", "'[]'", "'null'",
     "'" + "[" * 300 + "'", "'" + "9" * 30 + "'", "'{\"a\":" + "1" * 25 + "}'"]
)  # fmt: skip


@pytest.fixture(scope="module")
def template_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("fuzz-library") / "lib.db"
    logs = [VECTORS / "one-party.jsonl", VECTORS / "four-players-dealt.jsonl"]
    assert we("import", "--db", db, *logs).exit_code == 0
    # One file, no WAL beside it: a copy is the whole library.
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    return db


WHOLESALE = [
    "DROP VIEW envelopes; DROP TABLE events",
    "DROP TABLE games",
    "DELETE FROM events WHERE id % 4 = 1",
    "UPDATE events SET id = id + 1 WHERE id % 9 = 3",
    "PRAGMA user_version = 7",
    "PRAGMA user_version = 0",
    "ALTER TABLE games DROP COLUMN winner",
    "DROP VIEW envelopes; ALTER TABLE events DROP COLUMN data",
    "UPDATE games SET key = key + 9223372036854775000 WHERE key = 1",
]


@st.composite
def damages(draw: st.DrawFn) -> list[str]:
    statements = []
    for _ in range(draw(st.integers(1, 3))):
        choice = draw(st.integers(0, 9))
        if choice == 0:
            statements.append(draw(st.sampled_from(WHOLESALE)))
            continue
        table = draw(st.sampled_from(sorted(COLUMNS)))
        column = draw(st.sampled_from(COLUMNS[table]))
        key = "id" if table == "events" else "key"
        modulus = draw(st.integers(1, 7))
        statements.append(f"UPDATE {table} SET {column} = {draw(sql_values)} WHERE {key} % {modulus} = 0")
    return statements


LIBRARY_COMMANDS: list[list[str]] = [
    ["audit", "vector-one"],
    ["audit", "--json", "vector-two", "vector-one"],
    ["score", "vector-two"],
    ["replay", "vector-one"],
    ["games"],
    ["stats"],
    ["export", "vector-two", "-o", "OUT", "--force"],
    ["import", str(VECTORS / "one-party.jsonl")],
]


@FUZZ
@given(statements=damages(), command=st.sampled_from(LIBRARY_COMMANDS))
def test_every_command_survives_a_damaged_library(
    tmp_path: Path, template_library: Path, statements: list[str], command: list[str]
) -> None:
    db = tmp_path / "lib.db"
    shutil.copy(template_library, db)
    try:
        conn = sqlite3.connect(db)
        for statement in statements:
            # A constraint may refuse one damage: the others still apply.
            with contextlib.suppress(sqlite3.Error):
                conn.executescript(statement)
        conn.commit()
        conn.close()
        args = [str(tmp_path / "out.jsonl") if a == "OUT" else a for a in command]
        _check(we(*args, "--db", db))
    finally:
        for extra in tmp_path.iterdir():
            extra.unlink()


# --- damaged PostgreSQL libraries ------------------------------------------------------------

PG_COLUMNS = {
    "events": ["type", "data", "at", "prev", "hash"],
    "games": ["id", "title", "players", "started_at", "last_at", "head_hash", "winner"],
}
pg_text_values = st.sampled_from(
    ["'x'", "''", "NULL", "'[1,2'", "'{}'", "'[]'", "'null'", "'5'", "'" + "[" * 300 + "'",
     "'" + "9" * 30 + "'", "'{\"a\":" + "1" * 25 + "}'", "'\u00e9\u0301'"]
)  # fmt: skip
_RETYPE = "DROP VIEW IF EXISTS envelopes; ALTER TABLE {} ALTER COLUMN {} TYPE {}"
PG_WHOLESALE = [
    "DROP TABLE events CASCADE",
    "DROP TABLE games CASCADE",
    "DROP TABLE settings",
    "DROP VIEW envelopes",
    "DELETE FROM events WHERE seq % 4 = 1",
    "UPDATE events SET seq = seq + 100 WHERE seq % 9 = 3",
    "UPDATE events SET seq = -seq WHERE seq % 5 = 1",
    "UPDATE settings SET value = '7' WHERE name = 'schema'",
    "UPDATE settings SET value = 'x' WHERE name = 'schema'",
    "UPDATE games SET events = -1",
    _RETYPE.format("events", "at", "integer USING 5"),
    _RETYPE.format("events", "hash", "bytea USING hash::bytea"),
    _RETYPE.format("events", "seq", "numeric"),
    _RETYPE.format("events", "data", "jsonb USING '[1]'::jsonb"),
    _RETYPE.format("events", "game", "text"),
    _RETYPE.format("games", "players", "jsonb USING '{\"a\": 1}'::jsonb"),
    _RETYPE.format("games", "events", "text USING 'many'"),
    _RETYPE.format("games", "started_at", "timestamptz USING now()"),
    _RETYPE.format("games", "complete", "text USING 'x'"),
    _RETYPE.format("games", "id", "bytea USING id::bytea"),
]


@st.composite
def pg_damages(draw: st.DrawFn) -> list[str]:
    statements = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 3)) == 0:
            statements.append(draw(st.sampled_from(PG_WHOLESALE)))
            continue
        table = draw(st.sampled_from(sorted(PG_COLUMNS)))
        column = draw(st.sampled_from(PG_COLUMNS[table]))
        where = f"{'seq' if table == 'events' else 'key'} % {draw(st.integers(1, 7))} = 0"
        # NOT NULL goes first, or a NULL would be refused.
        statements.append(f"ALTER TABLE {table} ALTER COLUMN {column} DROP NOT NULL")
        statements.append(f"UPDATE {table} SET {column} = {draw(pg_text_values)} WHERE {where}")
    return statements


@pytest.fixture(scope="module")
def pg_fuzz_url(pg_server: str) -> Any:
    """A database of its own for this module's examples: the library laid out by `we import`,
    and a copy of its rows in the schema `template`, from which every example starts again."""
    import psycopg

    name = f"we_fuzz_{os.getpid()}"
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    base, _, query = pg_server.partition("?")
    url = f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
    assert (
        we("import", "--db", url, VECTORS / "one-party.jsonl", VECTORS / "four-players-dealt.jsonl").exit_code
        == 0
    )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA template")
        for table in ("games", "events", "settings"):
            conn.execute(f"CREATE TABLE template.{table} AS TABLE public.{table}")
    yield url
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _fresh_pg_library(url: str) -> None:
    import psycopg

    from eventstore.postgres import Library as PgLibrary

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
    PgLibrary(url).close()  # the layout as `we` makes it
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM settings")
        conn.execute("INSERT INTO games OVERRIDING SYSTEM VALUE SELECT * FROM template.games")
        conn.execute("INSERT INTO events SELECT * FROM template.events")
        conn.execute("INSERT INTO settings SELECT * FROM template.settings")
        conn.execute("SELECT setval(pg_get_serial_sequence('games', 'key'), (SELECT max(key) FROM games))")


@settings(FUZZ, max_examples=max(10, FUZZ.max_examples // 4))
@given(statements=pg_damages(), command=st.sampled_from(LIBRARY_COMMANDS))
def test_every_command_survives_a_damaged_postgresql_library(
    tmp_path: Path, pg_fuzz_url: str, statements: list[str], command: list[str]
) -> None:
    import psycopg

    _fresh_pg_library(pg_fuzz_url)
    with psycopg.connect(pg_fuzz_url, autocommit=True) as conn:
        for statement in statements:
            # A constraint or a dependency may refuse one damage: the others still apply.
            with contextlib.suppress(psycopg.Error):
                conn.execute(statement)
    out = tmp_path / "out.jsonl"
    args = [str(out) if a == "OUT" else a for a in command]
    try:
        _check(we(*args, "--db", pg_fuzz_url))
    finally:
        out.unlink(missing_ok=True)


# --- a few real processes, memory measured ---------------------------------------------------


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(log=mutated_logs(), repeat=st.sampled_from([1, 200, 3000]))
def test_real_processes_stay_small(tmp_path: Path, log: bytes, repeat: int) -> None:
    path = tmp_path / "fuzz.jsonl"
    with open(path, "wb") as f:  # up to ~64 MiB of mutated game, over and over
        for _ in range(min(repeat, (64 << 20) // max(len(log), 1))):
            f.write(log)
    code, peak, err = run_measured("audit", "--json", path)
    path.unlink()
    assert "Traceback" not in err and code in (0, 1), err[-2000:]
    assert peak < 100, f"{peak:.0f} MiB"
