"""Benchmark of `we` on a reproducible archive of complete bot games.

    python tests/bench/bench.py [--games N] [--out DIR] [--jobs N] [--quick] [--repeat R] [--audit]
    python tests/bench/bench.py --ladder [--ladder-games N] [--iterations N] [--ladder-default-games N]
                                [--jobs N] [--write-docs [PAGE]]
    python tests/bench/bench.py --ladder (--compare-with REV | --compare-tree DIR) [--ladder-games N]
                                [--iterations N] [--jobs N] [--write-docs [PAGE]]

`--ladder` plays only the bots' ladder (tests/bench/ladder.py): strength, not speed; with
`--write-docs` it writes the strength page (tests/bench/strength_page.py), as the speed run
writes the speed page. With `--compare-with REV` (or `--compare-tree DIR`) it plays instead only
the search bot of this checkout and that of an older commit against three greedy bots on the same
deals (tests/bench/compare.py), and `--write-docs` writes that section of the strength page,
keeping the rest of it (as the ladder keeps that section).

Builds (once, cached in --out by game count) an archive of N complete games, player counts 3-7,
half with seen brings (attics dealt) and half with unseen brings (no attics, `gift_brought` with
card null), then measures on it, each as a whole process where the issue asks for one:

- the floor: orjson-parse every line, re-serialise it canonically without `hash`, SHA-256 it;
- `we audit DIR --json`, serial and with --jobs, checking that every game is judged ok (and that
  a handful of tampered logs are judged not ok); and serially on a copy of the archive written
  the way another program writes JSON (`json.dumps` defaults: spaces after ":" and ","),
  beside the floor on the compact files and on the spaced ones;
- decoding (parse_event) and folding (evolve over already decoded events), events per second;
- `we simulate` with the random and greedy bots (and random under the house rules
  max_steals_between_opens 1 and starter_final_swap), complete 5-player games per second;
- `we import` into a fresh SQLite library, beside its peer: the `eventsourcing` library's SQLite
  recorder storing the same events without verifying them (when that library is installed);
  and auditing the games from the library;
- the peak memory of each child process (os.wait4), at N and N/4 games;
- `we --help` start-up time;
- `we analyse` of the sample games replays/tie-5p.jsonl and replays/bots-7p.jsonl at its
  defaults and with --jobs 1 (the same bytes), each beside the floor over 3,000 games of the
  archive, with its rollouts in all and the mean swing_margin over the decisions with a choice;
  and what its time goes to (a profile of the same analysis at 20 rollouts).

Exit status 1 when a command gave a wrong result (an audit verdict on a good or a tampered log, a
simulated log that does not verify, an import that lost games) or a measurement failed; missed
speed targets only print MISS. Commands the CLI does not offer yet are reported "not available".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# --write-docs without a PAGE: the page of the run asked for (the speed page; with --ladder the
# strength page), told apart from a PAGE given by its identity.
DEFAULT_PAGE = Path("default-page")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Bump when the generated games change, so a cached archive of the old kind is rebuilt.
GENERATOR_VERSION = 1
DEFAULT_GAMES = 20_000
QUICK_GAMES = 1_000
DEFAULT_OUT = Path("/tmp/we-bench")
BASE_AT = datetime(2026, 1, 1, tzinfo=UTC)
PLAYER_COUNTS = (3, 4, 5, 6, 7)

# Targets from the issue.
TARGET_AUDIT_RATIO = 2.0  # `we audit` at its defaults, at most this many floors, whole process (issue 25)
TARGET_SERIAL_AUDIT_RATIO = 3.0  # `we audit --jobs 1`, in one process (issue 5)
# `we audit DIR --jobs 1` (text) at most this many times `--json --jobs 1` on the same games (issue 45)
TARGET_TEXT_AUDIT_RATIO = 2.0
TEXT_AUDIT_GAMES = 400
TEXT_AUDIT_ROUNDS = 4
TARGET_LOBBY_S = 1.0  # the host's lobby of LOBBY_GAMES games (issue 46)
LOBBY_GAMES = 1_000
TARGET_FOLD_EPS = 300_000  # folding, events per second
TARGET_SIM_GPS = 1_000  # `we simulate --bot random`, complete 5-player games per second
TARGET_IMPORT_EPS = 100_000  # `we import`, events per second
TARGET_HELP_S = 0.2  # `we --help`, best of 5
TARGET_ANALYSE_FLOORS = 10.0  # `we analyse` of any sample game at the defaults, in floors of 3,000 games
TARGET_ANALYSE_MARGIN = 1.0  # mean swing_margin over the decisions with a choice, points
ANALYSE_FLOOR_GAMES = 3_000
ANALYSE_SAMPLES = ("tie-5p.jsonl", "bots-7p.jsonl")
TARGET_JOBS_EFFICIENCY = 0.75  # "speedup close to N": at least 0.75 N
# "Flat": the peak at N games at most 20 % (plus 8 MB of slack) above the peak at N/4.
FLAT_FACTOR, FLAT_SLACK_KB = 1.20, 8 * 1024


# ---------------------------------------------------------------------------------------------
# The archive


def game_id(i: int) -> str:
    return f"bench-{i:06d}"


def game_shape(i: int) -> tuple[int, bool]:
    """(player count, seen brings) of game i: every count in both halves, every 10 games."""
    return PLAYER_COUNTS[i % len(PLAYER_COUNTS)], i % 2 == 0


def game_payloads(i: int) -> list[tuple[str, dict[str, Any]]]:
    """The (type, data) of every event of game i, seen or unseen as game_shape says."""
    from wecore.bots import play_game
    from wecore.events import event_payload

    players, seen = game_shape(i)
    events, state = play_game(f"bench-{i}", players)
    if not state.is_over:
        raise RuntimeError(f"bot game {i} did not finish")
    payloads = [event_payload(event) for event in events]
    if seen:
        return payloads
    # Unseen brings: no attics, every gift brought face down; the opens keep their cards, which
    # are all different, so each is "a card not seen before" when it is opened.
    unseen: list[tuple[str, dict[str, Any]]] = []
    for event_type, data in payloads:
        if event_type == "attics_dealt":
            continue
        if event_type == "gift_brought":
            data = {**data, "card": None}
        unseen.append((event_type, data))
    return unseen


def seal_game(gid: str, payloads: Sequence[tuple[str, dict[str, Any]]], start: datetime) -> bytes:
    """The log of one game: envelopes chained by hash, `at` one second per event after start."""
    from eventstore.envelope import seal

    lines: list[bytes] = []
    prev: str | None = None
    for seq, (event_type, data) in enumerate(payloads, 1):
        at = (start + timedelta(seconds=seq)).strftime("%Y-%m-%dT%H:%M:%SZ")
        envelope = seal(gid, seq, at, event_type, data, prev)
        prev = envelope.hash
        lines.append(envelope.to_line())
    return b"".join(lines)


def game_log(i: int) -> tuple[bytes, int]:
    """The bytes of game i's log, and its number of events."""
    payloads = game_payloads(i)
    return seal_game(game_id(i), payloads, BASE_AT + timedelta(hours=i)), len(payloads)


def _write_games(args: tuple[str, int, int]) -> tuple[int, int, int]:
    directory, start, stop = args
    events = size = 0
    for i in range(start, stop):
        data, n = game_log(i)
        Path(directory, f"{game_id(i)}.jsonl").write_bytes(data)
        events += n
        size += len(data)
    return stop - start, events, size


@dataclass(frozen=True)
class Archive:
    root: Path  # holds manifest.json and games/
    games: int
    events: int
    bytes: int

    @property
    def games_dir(self) -> Path:
        return self.root / "games"


def _load_manifest(root: Path, games: int) -> Archive | None:
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if manifest.get("generator") != GENERATOR_VERSION or manifest.get("games") != games:
        return None
    return Archive(root, games, manifest["events"], manifest["bytes"])


def build_archive(out: Path, games: int, jobs: int = 1, log: Any = None) -> Archive:
    """The archive of games 0..games-1 in out/archive-<games>, built unless already there.

    Games of a smaller archive are hard-linked from a larger one already built (game i is the
    same file in every archive), so the N/4 archive costs nothing after the N one.
    """
    root = out / f"archive-{games}"
    cached = _load_manifest(root, games)
    if cached is not None:
        return cached
    tmp = out / f"archive-{games}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "games").mkdir(parents=True)
    donor = _bigger_archive(out, games)
    started = time.perf_counter()
    events = size = 0
    if donor is not None:
        for i in range(games):
            name = f"{game_id(i)}.jsonl"
            src, dst = donor.games_dir / name, tmp / "games" / name
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
            with open(dst, "rb") as f:
                events += sum(1 for _ in f)
            size += dst.stat().st_size
    else:
        step = 100
        chunks = [(str(tmp / "games"), s, min(s + step, games)) for s in range(0, games, step)]
        if jobs > 1 and len(chunks) > 1:
            import multiprocessing

            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                done = 0
                for n, e, b in pool.imap_unordered(_write_games, chunks):
                    done, events, size = done + n, events + e, size + b
                    if log is not None and done % 2000 < step:
                        log(f"  generated {done:,}/{games:,} games")
        else:
            for chunk in chunks:
                _, e, b = _write_games(chunk)
                events, size = events + e, size + b
    manifest = {"generator": GENERATOR_VERSION, "games": games, "events": events, "bytes": size}
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    if log is not None:
        how = f"linked from {donor.root.name}" if donor is not None else f"{jobs} process(es)"
        log(
            f"  archive {root}: {games:,} games, {events:,} events, {size / 1e6:.0f} MB "
            f"({how}, {time.perf_counter() - started:.1f} s)"
        )
    return Archive(root, games, events, size)


def _bigger_archive(out: Path, games: int) -> Archive | None:
    if not out.is_dir():
        return None
    for path in sorted(out.glob("archive-*")):
        suffix = path.name.removeprefix("archive-")
        if suffix.isdigit() and int(suffix) > games:
            found = _load_manifest(path, int(suffix))
            if found is not None:
                return found
    return None


def build_spaced(out: Path, archive: Archive) -> Archive:
    """The same games as another program writes them: every line re-written by `json.dumps` with
    its defaults (a space after each ":" and ","; non-ASCII as \\u escapes), in
    out/spaced-<games>, built once. Every line still verifies: the hash covers the canonical form."""
    root = out / f"spaced-{archive.games}"
    cached = _load_manifest(root, archive.games)
    if cached is not None:
        return cached
    games_dir = root / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    size = 0
    for path in _game_files(archive.games_dir):
        text = "".join(json.dumps(json.loads(line)) + "\n" for line in path.read_bytes().splitlines())
        (games_dir / path.name).write_text(text, encoding="utf-8")
        size += len(text.encode())
    manifest = {
        "generator": GENERATOR_VERSION,
        "games": archive.games,
        "events": archive.events,
        "bytes": size,
    }
    (root / "manifest.json").write_text(json.dumps(manifest))
    return Archive(root, archive.games, archive.events, size)


def build_tampered(out: Path, archive: Archive) -> dict[str, str]:
    """A few broken logs the audit must reject: file name -> the kind of problem expected."""
    from eventstore.envelope import seal

    directory = out / "tampered"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    expected: dict[str, str] = {}
    for i in range(min(6, archive.games)):
        lines = (archive.games_dir / f"{game_id(i)}.jsonl").read_bytes().splitlines(keepends=True)
        name = f"{game_id(i)}.jsonl"
        kind = ("integrity", "rules", "torn")[i % 3]
        if kind == "integrity":
            # An opened card changed by hand: the hash no longer matches.
            n = next(k for k, line in enumerate(lines) if b'"gift_opened"' in line)
            obj = json.loads(lines[n])
            card = obj["data"]["card"]
            obj["data"]["card"] = card[0] + ("2" if card[1:] != "2" else "3")
            lines[n] = json.dumps(obj, separators=(",", ":")).encode() + b"\n"
        elif kind == "rules":
            # A correctly sealed open after the game is over: the chain is fine, the rules are not.
            last = json.loads(lines[-1])
            first = json.loads(lines[0])
            envelope = seal(
                last["game"],
                last["seq"] + 1,
                last["at"],
                "gift_opened",
                {"party": 1, "player": first["data"]["players"][0], "card": "R1"},
                last["hash"],
            )
            lines.append(envelope.to_line())
        else:
            lines[-1] = lines[-1].rstrip(b"\n")
        (directory / name).write_bytes(b"".join(lines))
        expected[name] = "rules" if kind == "rules" else "integrity"
    return expected


# ---------------------------------------------------------------------------------------------
# In-process measurements, each run in a child of this script (see main's --worker) so its peak
# memory is its own.

FLOOR_CODE = r"""
import hashlib, os, sys, orjson
loads, dumps, sha256, SORT = orjson.loads, orjson.dumps, hashlib.sha256, orjson.OPT_SORT_KEYS
root = sys.argv[1]
lines = bad = 0
for name in sorted(os.listdir(root)):
    if name.endswith(".jsonl"):
        with open(os.path.join(root, name), "rb") as f:
            for line in f:
                obj = loads(line)
                h = obj.pop("hash")
                if "sha256:" + sha256(dumps(obj, option=SORT)).hexdigest() != h:
                    bad += 1
                lines += 1
print(lines, bad)
"""


def _game_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.endswith(".jsonl"))


def worker_floor(directory: Path) -> dict[str, Any]:
    import orjson

    loads, dumps, sha256, sort = orjson.loads, orjson.dumps, hashlib.sha256, orjson.OPT_SORT_KEYS
    lines = bad = 0
    started, cpu = time.perf_counter(), time.process_time()
    for path in _game_files(directory):
        with open(path, "rb") as f:
            for line in f:
                obj = loads(line)
                h = obj.pop("hash")
                if "sha256:" + sha256(dumps(obj, option=sort)).hexdigest() != h:
                    bad += 1
                lines += 1
    return {
        "events": lines,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "bad": bad,
    }


def worker_fold(directory: Path, chunk: int = 500) -> dict[str, Any]:
    """Decode every event into its model (timed apart), then time only `evolve` over them.

    Games are decoded a chunk at a time so memory stays bounded; only the fold loop is timed.
    """
    import orjson

    from wecore.events import parse_event
    from wecore.reducer import evolve
    from wecore.state import INITIAL_STATE

    files = _game_files(directory)
    events = incomplete = 0
    decode_s = fold_s = fold_cpu = 0.0
    clock, cpu_clock = time.perf_counter, time.process_time
    for start in range(0, len(files), chunk):
        raws = []
        for path in files[start : start + chunk]:
            with open(path, "rb") as f:
                raws.append([orjson.loads(line) for line in f])
        t0 = clock()
        games = [[parse_event(o["type"], o["data"]) for o in raw] for raw in raws]
        t1, c1 = clock(), cpu_clock()
        for game in games:
            state = INITIAL_STATE
            for event in game:
                state = evolve(state, event)
            if not state.is_over:
                incomplete += 1
        t2, c2 = clock(), cpu_clock()
        decode_s += t1 - t0
        fold_s += t2 - t1
        fold_cpu += c2 - c1
        events += sum(len(g) for g in games)
    return {
        "events": events,
        "decode_seconds": decode_s,
        "seconds": fold_s,
        "cpu": fold_cpu,
        "incomplete": incomplete,
    }


def worker_eventsourcing(directory: Path) -> dict[str, Any]:
    """The peer for `we import`: the `eventsourcing` library's SQLite recorder storing the same
    events (each line as the stored state, the game as originator, `seq` as version, the event
    type as topic), one transaction per game, nothing verified. Reading and parsing the files is
    timed too, as `we import` reads them."""
    import tempfile

    import orjson
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

    events = 0
    with tempfile.TemporaryDirectory() as scratch:
        datastore = SQLiteDatastore(str(Path(scratch) / "peer.db"), originator_id_type="text")
        recorder = SQLiteAggregateRecorder(datastore)
        recorder.create_table()
        started, cpu = time.perf_counter(), time.process_time()
        for path in _game_files(directory):
            stored = []
            with open(path, "rb") as f:
                for line in f:
                    obj = orjson.loads(line)
                    stored.append(StoredEvent(obj["game"], obj["seq"], obj["type"], line))
            recorder.insert_events(stored)
            events += len(stored)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"events": events, "seconds": seconds, "cpu": cpu}


WORKERS = {"floor": worker_floor, "fold": worker_fold, "eventsourcing": worker_eventsourcing}


# ---------------------------------------------------------------------------------------------
# Child processes


@dataclass
class ChildRun:
    seconds: float
    cpu: float  # user + system time of the child and the processes it waited for
    maxrss_kb: int  # peak RSS of the child (the largest of it and any process it waited for)
    returncode: int
    stdout: str = ""
    stderr: str = ""


# Each measured command runs under this tiny launcher, which times it and reads its rusage with
# wait4. Why not wait4 from here: a child's ru_maxrss starts at the RSS of the process that
# spawned it (Linux records the old memory's high-water mark at exec), and this script grows to
# ~100 MB over a run, which would mask any flat profile. The launcher (python -S, ~10 MB) sets
# that floor much lower, below any Python program's own peak.
LAUNCHER = r"""
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, ru = os.wait4(pid, 0)
seconds = time.perf_counter() - started
with open(report, "w") as f:
    f.write(f"{seconds} {ru.ru_utime + ru.ru_stime} {ru.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_child(cmd: Sequence[str], *, env: dict[str, str] | None = None, capture: bool = False) -> ChildRun:
    """Run one command from the repo root: its wall time, CPU time and peak RSS (see LAUNCHER)."""
    import tempfile

    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r", suffix=".rusage") as report,
    ):
        proc = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, report.name, *cmd],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out if capture else subprocess.DEVNULL,
            stderr=err,
            check=False,
        )
        fields = report.read().split()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if proc.returncode != 0 or len(fields) != 4:
            raise RuntimeError(f"could not run {cmd[:4]}...: {stderr.strip()[-500:]}")
        return ChildRun(float(fields[0]), float(fields[1]), int(fields[2]), int(fields[3]), stdout, stderr)


def we_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli.main", *args]


def run_worker(kind: str, directory: Path) -> tuple[dict[str, Any], ChildRun]:
    run = run_child(
        [sys.executable, str(Path(__file__).resolve()), "--worker", kind, str(directory)], capture=True
    )
    if run.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1]), run


# ---------------------------------------------------------------------------------------------
# What the CLI offers (it is being written while this runs)


@dataclass
class Cli:
    env: dict[str, str]
    helps: dict[str, str] = field(default_factory=dict)

    def help(self, command: str) -> str | None:
        """The --help text of a subcommand, or None when it does not exist (yet)."""
        if command not in self.helps:
            try:
                run = subprocess.run(
                    we_cmd(command, "--help"),
                    cwd=ROOT,
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=60,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                self.helps[command] = ""
            else:
                self.helps[command] = run.stdout if run.returncode == 0 else ""
        return self.helps[command] or None

    def has(self, command: str, *options: str) -> bool:
        text = self.help(command)
        return text is not None and all(option in text for option in options)


# ---------------------------------------------------------------------------------------------
# Checking the audit's verdicts


@dataclass
class Verdicts:
    ok: dict[str, bool] = field(default_factory=dict)  # game key -> judged ok
    kinds: dict[str, set[str]] = field(default_factory=dict)  # game key -> problem kinds
    complete: dict[str, bool] = field(default_factory=dict)  # game key -> judged complete
    summaries: list[dict[str, Any]] = field(default_factory=list)
    unparsed: int = 0


def _record_key(record: dict[str, Any]) -> str | None:
    for key in ("source", "file", "path", "log"):
        value = record.get(key)
        if isinstance(value, str):
            return Path(value).name.removesuffix(".jsonl")
    for key in ("game", "game_id", "id"):
        value = record.get(key)
        if isinstance(value, str):
            return value
    return None


def _record_ok(record: dict[str, Any]) -> bool | None:
    for key in ("ok", "valid", "passed"):
        if isinstance(record.get(key), bool):
            return record[key]
    verdict = record.get("verdict") or record.get("status") or record.get("result")
    if isinstance(verdict, str):
        return verdict.lower() in ("ok", "valid", "pass", "passed", "good")
    if isinstance(record.get("problems"), list):
        return not record["problems"]
    return None


def parse_audit_json(text: str) -> Verdicts:
    """Per-game verdicts from `we audit --json` output: JSON lines (or one JSON document)."""
    verdicts = Verdicts()
    records: list[Any] = []
    stripped = text.strip()
    try:
        whole = json.loads(stripped) if stripped else None
    except ValueError:
        whole = None
    if whole is not None and not isinstance(whole, dict | list):
        whole = None
    if isinstance(whole, list):
        records = whole
    elif isinstance(whole, dict) and isinstance(whole.get("games"), list):
        records = [*whole["games"], {k: v for k, v in whole.items() if k != "games"}]
    elif whole is not None:
        records = [whole]
    else:
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                verdicts.unparsed += 1
    for record in records:
        if not isinstance(record, dict):
            verdicts.unparsed += 1
            continue
        key, ok = _record_key(record), _record_ok(record)
        if key is None or ok is None:
            verdicts.summaries.append(record)
            continue
        verdicts.ok[key] = ok
        if isinstance(record.get("complete"), bool):
            verdicts.complete[key] = record["complete"]
        kinds = {p.get("kind") for p in record.get("problems") or [] if isinstance(p, dict)}
        verdicts.kinds[key] = {k for k in kinds if isinstance(k, str)}
    return verdicts


def judge(
    verdicts: Verdicts,
    expected_ok: Iterable[str],
    expected_bad: dict[str, str] | None = None,
) -> list[str]:
    """Everything wrong with the verdicts: games missing, valid games failed, broken ones passed."""
    errors: list[str] = []
    want = list(expected_ok)
    missing = [g for g in want if g not in verdicts.ok]
    wrong = [g for g in want if verdicts.ok.get(g) is False]
    unfinished = [g for g in want if verdicts.complete.get(g) is False]
    if missing:
        errors.append(f"{len(missing)} game(s) missing from the audit output, e.g. {missing[:3]}")
    if wrong:
        errors.append(f"{len(wrong)} valid game(s) judged not ok, e.g. {wrong[:3]}")
    if unfinished:
        errors.append(f"{len(unfinished)} complete game(s) judged not over, e.g. {unfinished[:3]}")
    for name, kind in (expected_bad or {}).items():
        key = name.removesuffix(".jsonl")
        if key not in verdicts.ok:
            errors.append(f"tampered {name} missing from the audit output")
        elif verdicts.ok[key]:
            errors.append(f"tampered {name} ({kind}) judged ok")
        elif verdicts.kinds.get(key) and kind not in verdicts.kinds[key]:
            errors.append(f"tampered {name}: expected a {kind} problem, got {sorted(verdicts.kinds[key])}")
    if verdicts.unparsed:
        errors.append(f"{verdicts.unparsed} output line(s) are not JSON objects")
    return errors


def analysis_profile(sample: Path) -> str:
    """Where an analysis spends its time: shares of a profiled run at 20 rollouts (in process)."""
    import cProfile
    import pstats

    from service.analysis import Settings, decision_points_of, value_decisions

    lines = [json.loads(line) for line in sample.read_text().splitlines()]
    profile = cProfile.Profile()
    profile.enable()
    value_decisions(decision_points_of(lines), Settings(policy="greedy", rollouts=20, seed="bench"))
    profile.disable()
    table = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(tt for _, _, tt, _, _ in table.values())

    def cumulative(file_end: str, function: str) -> float:
        return sum(
            ct
            for (f, _, name), (_, _, _, ct, _) in table.items()
            if f.endswith(file_end) and name == function
        )

    bot = cumulative("wecore/bots.py", "choose")
    moves = cumulative("wecore/moves.py", "legal_moves")
    rules = cumulative("wecore/bots.py", "apply_move") + cumulative("wecore/bots.py", "play_and_record")
    draws = sum(tt for (f, _, _), (_, _, tt, _, _) in table.items() if f.endswith("wecore/rng.py"))
    scoring = cumulative("wecore/analysis.py", "_outcome")
    rest = total - bot - moves - rules - scoring
    parts = [
        ("the bots choosing moves (greedy: its expected gain of an unknown gift)", bot),
        ("applying moves through the rules", rules),
        ("listing legal moves", moves),
        ("final scores", scoring),
        ("the rollout loop and the rest", rest),
    ]
    shares = ", ".join(f"{label} {seconds / total:.0%}" for label, seconds in parts)
    return f"{shares} (seeded draws, inside the bots, {draws / total:.0%}; profiled)"


# ---------------------------------------------------------------------------------------------
# The report


@dataclass
class Row:
    name: str
    size: str = ""
    seconds: float | None = None
    cpu: float | None = None
    throughput: str = ""
    ratio: str = ""
    memory: str = ""
    target: str = ""
    verdict: str = ""  # PASS, MISS, "", "not available", "WRONG", "ERROR"


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        # Each figure as soon as it is known, so an interrupted run still tells something.
        cells = [
            row.name,
            row.size,
            f"{row.seconds:.2f} s" if row.seconds is not None else "",
            row.throughput,
            row.ratio,
            row.memory,
            row.verdict,
        ]
        print("  = " + " | ".join(c for c in cells if c), file=sys.stderr, flush=True)
        return row


def machine() -> list[str]:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return [
        f"platform: {platform.platform()}",
        f"cpu:      {cpu}, {os.cpu_count()} logical core(s)"
        + (f", load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""),
        f"python:   {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        "bytecode: cached "
        + ("(under --out/pycache)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "(beside the sources)"),
    ]


def child_env(out: Path) -> dict[str, str]:
    """The environment of the commands measured. Bytecode is cached (under --out when the
    caller's environment forbids writing it beside the sources), as in an installed `we`, whose
    modules pip compiles: otherwise every run would compile every module it imports, and a
    figure would grow with the size of the source rather than with the work done."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if env.pop("PYTHONDONTWRITEBYTECODE", None) is not None and "PYTHONPYCACHEPREFIX" not in env:
        env["PYTHONPYCACHEPREFIX"] = str(out / "pycache")
    return env


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def rate(n: float, seconds: float, unit: str) -> str:
    return f"{n / seconds:,.0f} {unit}/s" if seconds > 0 else "-"


def pass_miss(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def flat(small_kb: int, big_kb: int) -> bool:
    return big_kb <= small_kb * FLAT_FACTOR + FLAT_SLACK_KB


def memory_cell(small: ChildRun | None, big: ChildRun) -> tuple[str, bool | None]:
    if small is None:
        return mb(big.maxrss_kb), None
    return f"{mb(small.maxrss_kb)} -> {mb(big.maxrss_kb)}", flat(small.maxrss_kb, big.maxrss_kb)


def print_report(report: Report, header: list[str]) -> None:
    from speed_page import COLUMNS as columns  # the terminal's table has the docs page's columns

    cells = [
        (
            r.name,
            r.size,
            f"{r.seconds:.2f} s" if r.seconds is not None else "",
            f"{r.cpu:.2f} s" if r.cpu is not None else "",
            r.throughput,
            r.ratio,
            r.memory,
            r.target,
            r.verdict,
        )
        for r in report.rows
    ]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain text
        widths = [max(len(c[i]) for c in [columns, *cells]) for i in range(len(columns))]
        for line in header:
            print(line)
        for row in [columns, *cells]:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    else:
        console = Console(width=max(220, shutil.get_terminal_size().columns))
        table = Table(title="we benchmark", caption="\n".join(header), caption_justify="left")
        for column in columns:
            table.add_column(column, justify="right" if column in ("time", "cpu", "throughput") else "left")
        style = {
            "PASS": "green",
            "MISS": "yellow",
            "WRONG": "bold red",
            "ERROR": "bold red",
            "not available": "dim",
        }
        for row in cells:
            verdict = row[-1]
            mark = f"[{style[verdict]}]{verdict}[/]" if verdict in style else verdict
            table.add_row(*row[:-1], mark)
        console.print(table)
    for note in report.notes:
        print(f"note: {note}")
    for error in report.errors:
        print(f"WRONG: {error}")


# ---------------------------------------------------------------------------------------------
# The measurements


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.load_at_start: tuple[float, float, float] | None = None
        self.out: Path = args.out
        self.jobs: int = args.jobs
        self.repeat: int = args.repeat
        self.report = Report()
        self.tmp = self.out / "tmp"
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir(parents=True)
        env = child_env(self.out)
        env["WE_DB"] = str(self.tmp / "default.db")  # never touch the user's library
        self.cli = Cli(env)
        self.floor: dict[int, ChildRun] = {}  # whole-process floor by archive size
        self.floor_inproc: dict[str, float] = {}

    def log(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def best(self, attempt: Callable[[], ChildRun | None]) -> ChildRun | None:
        """The fastest of --repeat attempts (each checked by `attempt`), with the largest peak RSS.

        None when an attempt fails (attempt has reported why)."""
        runs: list[ChildRun] = []
        for _ in range(self.repeat):
            run = attempt()
            if run is None:
                return None
            runs.append(run)
        fastest = min(runs, key=lambda r: r.seconds)
        return replace(fastest, maxrss_kb=max(r.maxrss_kb for r in runs))

    def paired(
        self, floor_dir: Path, attempt: Callable[[], ChildRun | None]
    ) -> tuple[ChildRun, float] | None:
        """The fastest of --repeat attempts, as `best`, each run right after the floor on
        `floor_dir`, and the median of the rounds' ratios (attempt over that floor). This VM's
        speed drifts by up to 2x within a minute: a floor and a command run back to back meet
        the same machine, and the bests of each, taken minutes apart, need not."""
        runs: list[ChildRun] = []
        ratios: list[float] = []
        for _ in range(self.repeat):
            floor = run_child([sys.executable, "-c", FLOOR_CODE, str(floor_dir)], capture=True)
            run = attempt()
            if run is None or floor.returncode != 0:
                return None
            runs.append(run)
            ratios.append(run.seconds / floor.seconds)
        fastest = min(runs, key=lambda r: r.seconds)
        ratios.sort()
        middle = len(ratios) // 2
        median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
        return replace(fastest, maxrss_kb=max(r.maxrss_kb for r in runs)), median

    def ratio(self, archive: Archive, run: ChildRun) -> str:
        """Wall time over the whole-process floor's, and the same for CPU time."""
        floor = self.floor.get(archive.games)
        if floor is None:
            return ""
        return f"{run.seconds / floor.seconds:.2f}x ({run.cpu / floor.cpu:.2f}x cpu)"

    def run(self) -> int:
        args = self.args
        self.log(f"building archives of {args.games:,} and {args.games // 4:,} games in {self.out}")
        big = build_archive(self.out, args.games, self.jobs, self.log)
        small = build_archive(self.out, max(1, args.games // 4), self.jobs, self.log)
        tampered = build_tampered(self.out, big)
        self.sizes = (small, big)
        self.log(f"archive: {big.games:,} games, {big.events:,} events, {big.bytes / 1e6:.0f} MB")
        # Read every file once, so no measurement pays for a cold page cache and the first one
        # is not penalised.
        for archive in (small, big):
            for path in _game_files(archive.games_dir):
                path.read_bytes()
        self.load_at_start = os.getloadavg() if hasattr(os, "getloadavg") else None
        load_before = self.load_at_start[0] if self.load_at_start is not None else None

        # The CLI is being edited while this runs: a measurement that blows up is reported as an
        # error row, and the others still run.
        sections: list[tuple[str, Callable[[], None]]] = [
            ("we --help", self.measure_help),
            ("floor", self.measure_floor),
            ("we audit", lambda: self.measure_audit(tampered)),
            ("decode and fold", self.measure_fold),
            ("we simulate", self.measure_simulate),
            ("we import", self.measure_import),
            ("the library on PostgreSQL", self.measure_postgres),
            ("we analyse", self.measure_analyse),
            ("the lobby", self.measure_lobby),
        ]
        if args.audit:
            sections = sections[1:3]
        for name, measure in sections:
            try:
                measure()
            except Exception as exc:
                self.report.errors.append(f"{name}: the benchmark failed: {type(exc).__name__}: {exc}")
                self.report.add(Row(name, verdict="ERROR"))

        header = [
            *machine(),
            f"archive:  {big.games:,} games / {big.events:,} events / {big.bytes / 1e6:.0f} MB "
            f"(N/4: {small.games:,} games / {small.events:,} events), in {big.root}",
            f"runs:     best of {self.repeat} (paired: the median over the rounds of the command's time "
            "over a floor's run just before it); "
            f"--jobs {self.jobs}"
            + (f"; load average {load_before:.2f} at the start" if load_before is not None else ""),
        ]
        self.report.notes.append(
            "time is wall-clock (targets are judged on it); cpu is user+system time of the process and "
            "its workers, steadier when the machine is busy; 'vs floor' is wall (and cpu) time over the "
            "whole-process floor's on the same archive"
        )
        print_report(self.report, header)
        if args.write_docs is not None:
            import speed_page as docs_page

            load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
            kept = docs_page.kept_service_section(args.write_docs)
            page = docs_page.speed_page(
                self.report.rows,
                header,
                self.report.notes,
                self.report.errors,
                self.load_at_start,
                load_after,
                args.argv,
            )
            docs_page.write_page(args.write_docs, docs_page.with_service_section(page, kept))
        return 1 if self.report.errors else 0

    # --- start-up
    def measure_help(self) -> None:
        self.log("we --help ...")
        runs = [run_child(we_cmd("--help"), env=self.cli.env, capture=True) for _ in range(5)]
        if any(r.returncode != 0 or "audit" not in r.stdout for r in runs):
            self.report.add(Row("we --help", verdict="not available"))
            return
        best = min(runs, key=lambda r: r.seconds)
        python = min(run_child([sys.executable, "-c", "pass"]).seconds for _ in range(5))
        self.report.add(
            Row(
                "we --help (best of 5)",
                "",
                best.seconds,
                best.cpu,
                f"(python -c pass: {python:.2f} s)",
                "",
                mb(max(r.maxrss_kb for r in runs)),
                f"< {TARGET_HELP_S} s",
                pass_miss(best.seconds < TARGET_HELP_S),
            )
        )

    # --- the floor
    def measure_floor(self) -> None:
        self.log("floor ...")
        small, big = self.sizes
        results = []
        for _ in range(self.repeat):
            result, _run = run_worker("floor", big.games_dir)
            if result["bad"] or result["events"] != big.events:
                self.report.errors.append(f"floor: {result['bad']} hash mismatches in the archive")
            results.append(result)
        result = min(results, key=lambda r: r["seconds"])
        self.floor_inproc = {
            "eps": result["events"] / result["seconds"],
            "cpu_eps": result["events"] / result["cpu"],
        }
        self.report.add(
            Row(
                "floor, in-process (orjson, canonical, sha256)",
                f"{big.events:,} ev",
                result["seconds"],
                result["cpu"],
                rate(result["events"], result["seconds"], "ev"),
                "1.00x",
            )
        )

        def attempt(archive: Archive) -> ChildRun | None:
            run = run_child([sys.executable, "-c", FLOOR_CODE, str(archive.games_dir)], capture=True)
            if run.returncode != 0 or run.stdout.split() != [str(archive.events), "0"]:
                self.report.errors.append(f"floor process failed: {run.stdout} {run.stderr[-500:]}")
                return None
            return run

        for archive in (small, big):
            run = self.best(lambda a=archive: attempt(a))
            if run is None:
                return
            self.floor[archive.games] = run
        run = self.floor[big.games]
        memory, is_flat = memory_cell(self.floor[small.games], run)
        self.report.add(
            Row(
                "floor, whole process (python -c)",
                f"{big.events:,} ev",
                run.seconds,
                run.cpu,
                rate(big.events, run.seconds, "ev"),
                "1.00x",
                memory,
                "memory flat",
                pass_miss(bool(is_flat)),
            )
        )

    # --- we audit DIR
    def audit_attempt(self, label: str, archive: Archive, *extra: str) -> ChildRun | None:
        run = run_child(
            we_cmd("audit", str(archive.games_dir), "--json", *extra), env=self.cli.env, capture=True
        )
        errors = judge(parse_audit_json(run.stdout), [game_id(i) for i in range(archive.games)])
        if run.returncode != 0:
            errors.insert(0, f"exit status {run.returncode}: {run.stderr.strip()[-300:]}")
        for error in errors:
            self.report.errors.append(f"{label} ({archive.games:,} games): {error}")
        return None if errors else run

    def measure_audit(self, tampered: dict[str, str]) -> None:
        small, big = self.sizes
        if not self.cli.has("audit", "--json"):
            self.report.add(Row("we audit DIR --json", verdict="not available"))
            return
        self.log("we audit (tampered logs) ...")
        run = run_child(we_cmd("audit", str(self.out / "tampered"), "--json"), env=self.cli.env, capture=True)
        errors = judge(parse_audit_json(run.stdout), [], tampered)
        if run.returncode == 0:
            errors.append("exit status 0 for a directory of broken logs")
        if run.returncode not in (0, 1):
            errors.append(f"exit status {run.returncode}: {run.stderr.strip()[-300:]}")
        self.report.errors.extend(f"we audit tampered/: {e}" for e in errors)
        self.report.add(
            Row(
                "we audit on tampered logs (verdicts only)",
                f"{len(tampered)} logs",
                verdict="WRONG" if errors else "PASS",
                target="all judged not ok",
            )
        )

        # At its defaults (--jobs 0: a worker per CPU), what a user waits for: issue 25's 2x,
        # judged on the ratio to a floor run just before each attempt (see `paired`).
        self.log("we audit (defaults) ...")
        small_run = self.best(lambda: self.audit_attempt("we audit", small))
        paired = self.paired(big.games_dir, lambda: self.audit_attempt("we audit", big))
        if paired is None or small_run is None:
            self.report.add(Row("we audit DIR --json (defaults)", f"{big.games:,} games", verdict="WRONG"))
        else:
            drun, median = paired
            memory, is_flat = memory_cell(small_run, drun)
            self.report.add(
                Row(
                    f"we audit DIR --json (defaults: --jobs 0, {os.cpu_count()} CPUs)",
                    f"{big.games:,} games",
                    drun.seconds,
                    drun.cpu,
                    rate(big.events, drun.seconds, "ev"),
                    f"{self.ratio(big, drun)}; paired {median:.2f}x",
                    memory + " (largest process)",
                    f"<= {TARGET_AUDIT_RATIO:.0f}x floor (paired), memory flat",
                    pass_miss(median <= TARGET_AUDIT_RATIO and bool(is_flat)),
                )
            )

        # In one process, against the floor's one process: issue 5's 3x.
        self.log("we audit --jobs 1 ...")
        small_run = self.best(lambda: self.audit_attempt("we audit --jobs 1", small, "--jobs", "1"))
        paired = self.paired(
            big.games_dir, lambda: self.audit_attempt("we audit --jobs 1", big, "--jobs", "1")
        )
        if paired is None or small_run is None:
            self.report.add(Row("we audit DIR --json --jobs 1", f"{big.games:,} games", verdict="WRONG"))
        else:
            run, median = paired
            memory, is_flat = memory_cell(small_run, run)
            self.report.add(
                Row(
                    "we audit DIR --json --jobs 1 (one process)",
                    f"{big.games:,} games",
                    run.seconds,
                    run.cpu,
                    rate(big.events, run.seconds, "ev"),
                    f"{self.ratio(big, run)}; paired {median:.2f}x",
                    memory,
                    f"<= {TARGET_SERIAL_AUDIT_RATIO:.0f}x floor (paired), memory flat",
                    pass_miss(median <= TARGET_SERIAL_AUDIT_RATIO and bool(is_flat)),
                )
            )

        self.measure_spaced_audit(big)
        self.measure_text_audit()

        if not self.cli.has("audit", "--jobs"):
            self.report.add(Row("we audit DIR --json --jobs N", verdict="not available"))
            return
        self.log(f"we audit --jobs {self.jobs} ...")
        label = f"we audit --jobs {self.jobs}"
        parallel = {
            a.games: self.best(lambda a=a: self.audit_attempt(label, a, "--jobs", str(self.jobs)))
            for a in (small, big)
        }
        prun = parallel[big.games]
        name = f"we audit DIR --json --jobs {self.jobs}"
        if prun is None or parallel[small.games] is None:
            self.report.add(Row(name, f"{big.games:,} games", verdict="WRONG"))
            return
        memory, _ = memory_cell(parallel[small.games], prun)
        want = TARGET_JOBS_EFFICIENCY * self.jobs
        speedup = run.seconds / prun.seconds if run is not None else 0.0
        self.report.add(
            Row(
                name,
                f"{big.games:,} games",
                prun.seconds,
                prun.cpu,
                f"{rate(big.events, prun.seconds, 'ev')}, {speedup:.2f}x serial",
                self.ratio(big, prun),
                memory + " (largest process)",
                f"speedup >= {want:.1f} ({TARGET_JOBS_EFFICIENCY:.0%} of {self.jobs})",
                pass_miss(speedup >= want),
            )
        )

    # --- decode and fold, in a child of this script
    def measure_fold(self) -> None:
        self.log("decode and fold ...")
        small, big = self.sizes
        _, small_run = run_worker("fold", small.games_dir)
        results = []
        for _ in range(self.repeat):
            result, run = run_worker("fold", big.games_dir)
            if result["incomplete"]:
                self.report.errors.append(f"fold: {result['incomplete']} game(s) did not end")
            results.append((result, run))
        result, run = min(results, key=lambda r: r[0]["seconds"])
        eps = result["events"] / result["seconds"]
        decode_eps = result["events"] / result["decode_seconds"]
        memory, _ = memory_cell(small_run, run)
        self.report.add(
            Row(
                "decode (parse_event, in-process)",
                f"{big.events:,} ev",
                result["decode_seconds"],
                None,
                f"{decode_eps:,.0f} ev/s",
                f"{self.floor_inproc['eps'] / decode_eps:.2f}x",
            )
        )
        self.report.add(
            Row(
                "fold (evolve over decoded events, in-process)",
                f"{big.events:,} ev",
                result["seconds"],
                result["cpu"],
                f"{eps:,.0f} ev/s",
                f"{self.floor_inproc['eps'] / eps:.2f}x "
                f"({self.floor_inproc['cpu_eps'] / (result['events'] / result['cpu']):.2f}x cpu)",
                memory + " (decoded 500 games at a time)",
                f">= {TARGET_FOLD_EPS:,} ev/s",
                pass_miss(eps >= TARGET_FOLD_EPS),
            )
        )

    # --- we simulate
    def measure_simulate(self) -> None:
        if not self.cli.has("simulate", "--out"):
            self.report.add(Row("we simulate", verdict="not available"))
            return
        games = 200 if self.args.quick else 2_000
        house_rules = ("--max-steals-between-opens", "1", "--starter-final-swap")
        for bot, rules in (("random", ()), ("greedy", ()), ("random", house_rules)):
            shown = " ".join((bot, *rules))
            if any(word not in (self.cli.help("simulate") or "") for word in (bot, *rules[::2])):
                self.report.add(Row(f"we simulate --bot {shown}", verdict="not available"))
                continue
            self.log(f"we simulate --bot {shown} ...")
            runs = {
                k: self.best(lambda k=k, bot=bot, rules=rules: self.simulate_attempt(bot, k, rules))
                for k in (max(1, games // 4), games)
            }
            run = runs[games]
            name = f"we simulate -n 5 --bot {shown} --out DIR"
            if run is None:
                self.report.add(Row(name, f"{games:,} games", verdict="WRONG"))
                continue
            memory, _ = memory_cell(runs[max(1, games // 4)], run)
            gps = games / run.seconds
            targeted = bot == "random" and not rules
            target = f">= {TARGET_SIM_GPS:,} games/s" if targeted else ""
            verdict = pass_miss(gps >= TARGET_SIM_GPS) if targeted else ""
            self.report.add(
                Row(
                    name,
                    f"{games:,} games",
                    run.seconds,
                    run.cpu,
                    f"{gps:,.0f} games/s",
                    "",
                    memory,
                    target,
                    verdict,
                )
            )

    def simulate_attempt(self, bot: str, games: int, rules: tuple[str, ...] = ()) -> ChildRun | None:
        directory = self.tmp / f"simulate-{bot}-{games}{'-house' if rules else ''}"
        shutil.rmtree(directory, ignore_errors=True)
        cmd = we_cmd(
            "simulate",
            "--players",
            "5",
            "--games",
            str(games),
            "--seed",
            "bench",
            "--bot",
            bot,
            *rules,
            "--out",
            str(directory),
        )
        run = run_child(cmd, env=self.cli.env, capture=True)
        if run.returncode != 0:
            self.report.errors.append(
                f"we simulate --bot {bot}: exit {run.returncode}: {run.stderr.strip()[-300:]}"
            )
            return None
        problems = self.check_simulated(directory, games)
        self.report.errors.extend(f"we simulate --bot {bot} --games {games}: {p}" for p in problems)
        shutil.rmtree(directory, ignore_errors=True)
        return None if problems else run

    def check_simulated(self, directory: Path, games: int) -> list[str]:
        """The simulated logs exist, verify, and fold to complete 5-player games (a sample)."""
        files = sorted(directory.rglob("*.jsonl")) if directory.is_dir() else []
        if len(files) != games:
            return [f"{len(files)} log(s) written for --games {games}"]
        problems = []
        for path in files[:: max(1, len(files) // 20)]:
            problem = check_log(path, players=5)
            if problem:
                problems.append(f"{path.name}: {problem}")
        return problems

    def measure_text_audit(self) -> None:
        """`we audit DIR --jobs 1` as a person reads it (a line a game and a summary) against
        `--json --jobs 1` on the same TEXT_AUDIT_GAMES games, alternated round by round: drawing
        must not dominate (issue 45)."""
        games = min(TEXT_AUDIT_GAMES, self.sizes[1].games)
        archive = build_archive(self.out, games, self.jobs, self.log)
        self.log(f"we audit --jobs 1, text and --json, {games:,} games ...")
        text_runs: list[ChildRun] = []
        json_runs: list[ChildRun] = []
        ratios: list[float] = []
        for _ in range(max(TEXT_AUDIT_ROUNDS, self.repeat)):
            as_json = self.audit_attempt("we audit --json --jobs 1", archive, "--jobs", "1")
            text = run_child(
                we_cmd("audit", str(archive.games_dir), "--jobs", "1"), env=self.cli.env, capture=True
            )
            lines = text.stdout.splitlines()
            summary = f"{games:,} games audited: {games:,} OK, 0 FAILED."
            if as_json is None or len(lines) != games + 1 or lines[-1] != summary:
                self.report.errors.append(
                    f"we audit DIR --jobs 1 ({games:,} games): {lines[-1:]} {text.stderr[-300:]}"
                )
                self.report.add(Row("we audit DIR --jobs 1 (text)", f"{games:,} games", verdict="WRONG"))
                return
            text_runs.append(text)
            json_runs.append(as_json)
            ratios.append(text.seconds / as_json.seconds)
        ratios.sort()
        middle = len(ratios) // 2
        median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
        fastest = min(text_runs, key=lambda r: r.seconds)
        fastest_json = min(json_runs, key=lambda r: r.seconds)
        self.report.add(
            Row(
                "we audit DIR --jobs 1 (text: a line a game), vs --json --jobs 1 alternated",
                f"{games:,} games",
                fastest.seconds,
                fastest.cpu,
                rate(archive.events, fastest.seconds, "ev"),
                f"{median:.2f}x --json, median of {len(ratios)} rounds; --json {fastest_json.seconds:.2f} s",
                mb(fastest.maxrss_kb),
                f"<= {TARGET_TEXT_AUDIT_RATIO:.0f}x --json",
                pass_miss(median <= TARGET_TEXT_AUDIT_RATIO),
            )
        )

    def measure_lobby(self) -> None:
        """The host's lobby (GET /) of `we serve` on a folder of LOBBY_GAMES games, every other
        one unfinished (its first lines only): the first answer, and the best of --repeat after
        it (issue 46: 300 games once took 52 s)."""
        import bench_service
        import httpx

        from service.pages import LOBBY_PAGE

        games = LOBBY_GAMES
        archive = build_archive(self.out, games, self.jobs, self.log)
        folder = self.out / f"lobby-{games}"
        if not folder.is_dir():
            building = self.out / f"lobby-{games}.tmp"
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir(parents=True)
            for index, path in enumerate(_game_files(archive.games_dir)):
                if index % 2:
                    (building / path.name).write_bytes(b"".join(path.read_bytes().splitlines(True)[:12]))
                else:
                    os.link(path, building / path.name)
            building.rename(folder)
        self.log(f"we serve: the lobby of {games:,} games ...")
        server, url, key = bench_service.start([str(folder)], self.cli.env)
        try:
            times: list[float] = []
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=600) as host:
                for _ in range(1 + self.repeat):
                    started = time.perf_counter()
                    answer = host.get("/")
                    times.append(time.perf_counter() - started)
                    # Every finished game (folded), and the first page of the unfinished ones.
                    shown = answer.text.count('class="game')
                    expected = games // 2 + min(games - games // 2, LOBBY_PAGE)
                    if answer.status_code != 200 or shown != expected:
                        self.report.errors.append(
                            f"the lobby: {answer.status_code}, {shown} games, not {expected}"
                        )
                        self.report.add(
                            Row("we serve: the lobby (GET /)", f"{games:,} games", verdict="WRONG")
                        )
                        return
        finally:
            bench_service.stop(server)
        best = min(times[1:])
        self.report.add(
            Row(
                "we serve: the host's lobby (GET /), half the games unfinished",
                f"{games:,} games",
                best,
                throughput=f"first {times[0]:.2f} s",
                target=f"<= {TARGET_LOBBY_S:.1f} s",
                verdict=pass_miss(best <= TARGET_LOBBY_S),
            )
        )

    def measure_spaced_audit(self, big: Archive) -> None:
        """The audit of the same games written by another program (`json.dumps` defaults), beside
        the floor on the compact files and on the spaced ones."""
        self.log("spaced copy of the archive (json.dumps defaults) ...")
        spaced = build_spaced(self.out, big)
        floor = self.best(
            lambda: run_child([sys.executable, "-c", FLOOR_CODE, str(spaced.games_dir)], capture=True)
        )
        assert floor is not None
        self.report.add(
            Row(
                "floor on the spaced copy",
                f"{spaced.events:,} ev, {spaced.bytes / 1e6:.0f} MB",
                floor.seconds,
                floor.cpu,
                rate(spaced.events, floor.seconds, "ev"),
                f"{floor.seconds / self.floor[big.games].seconds:.2f}x the compact floor",
            )
        )
        for extra, name, target in (
            ((), "we audit DIR --json (defaults), lines written by json.dumps", TARGET_AUDIT_RATIO),
            (
                ("--jobs", "1"),
                "we audit DIR --json --jobs 1, lines written by json.dumps",
                TARGET_SERIAL_AUDIT_RATIO,
            ),
        ):
            self.log(f"we audit {' '.join(extra) or '(defaults)'}, spaced copy ...")
            paired = self.paired(
                big.games_dir, lambda extra=extra: self.audit_attempt("we audit (spaced)", spaced, *extra)
            )
            if paired is None:
                self.report.add(Row(name, f"{big.games:,} games", verdict="WRONG"))
                continue
            run, median = paired
            self.report.add(
                Row(
                    name,
                    f"{big.games:,} games",
                    run.seconds,
                    run.cpu,
                    rate(spaced.events, run.seconds, "ev"),
                    f"{self.ratio(big, run)}; paired {median:.2f}x; "
                    f"{run.seconds / floor.seconds:.2f}x the spaced floor",
                    mb(run.maxrss_kb),
                    f"<= {target:.0f}x floor (paired)",
                    pass_miss(median <= target),
                )
            )

    # --- we analyse
    def measure_analyse(self) -> None:
        if not self.cli.has("analyse", "--rollouts"):
            self.report.add(Row("we analyse", verdict="not available"))
            return
        # The yardstick: the floor over 3,000 games of the archive (built once, cached).
        floor_archive = build_archive(self.out, ANALYSE_FLOOR_GAMES, self.jobs, self.log)
        floor = self.best(
            lambda: run_child([sys.executable, "-c", FLOOR_CODE, str(floor_archive.games_dir)], capture=True)
        )
        assert floor is not None
        self.report.add(
            Row(
                f"floor, whole process, {ANALYSE_FLOOR_GAMES:,} games (the analyse yardstick)",
                f"{floor_archive.events:,} ev",
                floor.seconds,
                floor.cpu,
                rate(floor_archive.events, floor.seconds, "ev"),
                "1.00x",
            )
        )
        for sample_name in ANALYSE_SAMPLES:
            sample = ROOT / "replays" / sample_name
            outputs: dict[str, str] = {}
            for jobs in ("default", "1"):
                self.log(
                    f"we analyse {sample_name} (defaults{'' if jobs == 'default' else ', --jobs 1'}) ..."
                )
                extra = [] if jobs == "default" else ["--jobs", jobs]

                def attempt(
                    jobs: str = jobs,
                    extra: list[str] = extra,
                    sample: Path = sample,
                    outputs: dict[str, str] = outputs,
                ) -> ChildRun | None:
                    run = run_child(we_cmd("analyse", str(sample), "--json", *extra), capture=True)
                    if run.returncode != 0:
                        self.report.errors.append(
                            f"we analyse: exit {run.returncode}: {run.stderr.strip()[-300:]}"
                        )
                        return None
                    outputs[jobs] = run.stdout
                    return run

                run = self.best(attempt)
                name = f"we analyse {sample_name} (defaults" + (")" if jobs == "default" else ", --jobs 1)")
                if run is None:
                    self.report.add(Row(name, verdict="WRONG"))
                    continue
                data = json.loads(outputs[jobs])
                decisions = data["decisions"]
                choices = [d for d in decisions if len(d["alternatives"]) > 1]
                margin = sum(d.get("swing_margin", 0.0) for d in choices) / max(1, len(choices))
                rollouts = sum(
                    a.get("rollouts", data["rollouts"]) for d in decisions for a in d["alternatives"]
                )
                floors = run.seconds / floor.seconds
                if jobs == "default":
                    target = f"<= {TARGET_ANALYSE_FLOORS:.0f}x floor, mean margin <= {TARGET_ANALYSE_MARGIN}"
                    verdict = pass_miss(floors <= TARGET_ANALYSE_FLOORS and margin <= TARGET_ANALYSE_MARGIN)
                else:
                    target, verdict = (
                        "same output as the default",
                        pass_miss(outputs["1"] == outputs["default"]),
                    )
                self.report.add(
                    Row(
                        name,
                        f"{len(decisions)} moves, {len(choices)} with a choice",
                        run.seconds,
                        run.cpu,
                        f"{rollouts:,} rollouts, mean swing_margin {margin:.2f}",
                        f"{floors:.2f}x ({run.cpu / floor.cpu:.2f}x cpu)",
                        mb(run.maxrss_kb),
                        target,
                        verdict,
                    )
                )
        self.report.notes.append(
            "we analyse spends its time in: " + analysis_profile(ROOT / "replays" / ANALYSE_SAMPLES[0])
        )

    # --- we import, and auditing from the library
    def measure_import(self) -> None:
        small, big = self.sizes
        help_text = self.cli.help("import")
        if help_text is None or "--db" not in help_text:
            self.report.add(Row("we import", verdict="not available"))
            self.report.add(Row("we audit from the library", verdict="not available"))
            return
        self.log("we import ...")
        runs: dict[int, ChildRun | None] = {}
        dbs: dict[int, Path] = {}
        for archive in (small, big):
            db = self.tmp / f"games-{archive.games}.db"
            runs[archive.games] = self.best(lambda a=archive, db=db: self.import_attempt(a, db))
            dbs[archive.games] = db
        run = runs[big.games]
        if run is None or runs[small.games] is None:
            self.report.add(Row("we import", f"{big.events:,} ev", verdict="WRONG"))
            return
        self.sqlite_import = run
        memory, is_flat = memory_cell(runs[small.games], run)
        eps = big.events / run.seconds
        how = "a directory" if self.import_batches == 0 else f"{self.import_batches} batches of files"
        self.report.add(
            Row(
                f"we import --db ({how})",
                f"{big.events:,} ev",
                run.seconds,
                run.cpu,
                f"{eps:,.0f} ev/s",
                self.ratio(big, run),
                memory,
                f">= {TARGET_IMPORT_EPS:,} ev/s, memory flat",
                pass_miss(eps >= TARGET_IMPORT_EPS and bool(is_flat)),
            )
        )
        self.measure_import_peer(big, eps)
        self.measure_library_audit(dbs)

    def measure_import_peer(self, big: Archive, eps: float) -> None:
        """The `eventsourcing` library's SQLite recorder storing the same events, unverified."""
        try:
            import eventsourcing  # noqa: F401
        except ImportError:
            missing = "not available: python -m pip install '.[bench]'"
            self.report.add(Row("peer: eventsourcing SQLite recorder", verdict=missing))
            return
        self.log("peer: eventsourcing's SQLite recorder ...")
        results = [run_worker("eventsourcing", big.games_dir)[0] for _ in range(self.repeat)]
        result = min(results, key=lambda r: r["seconds"])
        peer_eps = result["events"] / result["seconds"]
        self.report.add(
            Row(
                "peer: eventsourcing SQLiteAggregateRecorder, same events, no verification",
                f"{result['events']:,} ev",
                result["seconds"],
                result["cpu"],
                f"{peer_eps:,.0f} ev/s; we import {eps / peer_eps:.2f}x its rate",
                "",
                "",
                "we import at least as fast",
                pass_miss(eps >= peer_eps),
            )
        )

    import_batches = 0
    sqlite_import: ChildRun | None = None

    @staticmethod
    def fresh_db(db: Path) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)

    def import_attempt(self, archive: Archive, db: Path) -> ChildRun | None:
        """Import the archive into a new library: the directory if `we import` takes one, else the
        files in batches under ARG_MAX (one run's figures, summed over its batches)."""
        self.fresh_db(db)
        run = run_child(
            we_cmd("import", "--db", str(db), str(archive.games_dir)), env=self.cli.env, capture=True
        )
        if run.returncode == 0 and self.library_count(db) == archive.games:
            self.import_batches = 0
            return run
        self.fresh_db(db)
        files = [str(p) for p in _game_files(archive.games_dir)]
        batches: list[list[str]] = [[]]
        used, limit = 0, os.sysconf("SC_ARG_MAX") // 4
        for name in files:
            if batches[-1] and used + len(name) + 9 > limit:
                batches.append([])
                used = 0
            batches[-1].append(name)
            used += len(name) + 9
        total = ChildRun(0.0, 0.0, 0, 0)
        for batch in batches:
            run = run_child(we_cmd("import", "--db", str(db), *batch), env=self.cli.env, capture=True)
            if run.returncode != 0:
                self.report.errors.append(f"we import: exit {run.returncode}: {run.stderr.strip()[-300:]}")
                return None
            total = ChildRun(
                total.seconds + run.seconds, total.cpu + run.cpu, max(total.maxrss_kb, run.maxrss_kb), 0
            )
        count = self.library_count(db)
        if count != archive.games:
            self.report.errors.append(f"we import: {count} game(s) in the library, expected {archive.games}")
            return None
        self.import_batches = len(batches)
        return total

    # --- the library on PostgreSQL
    def measure_postgres(self) -> None:
        """`we import` into PostgreSQL and SQLite side by side on the big archive, then four
        importers at once into one library of each kind, each taking a quarter of the games."""
        if "postgresql://" not in (self.cli.help("import") or ""):
            self.report.add(Row("we import --db postgresql://", verdict="not available"))
            return
        self.log("PostgreSQL: starting a cluster of our own (fsync on, as SQLite's FULL sync) ...")
        cluster = self.tmp / "pg"
        started = subprocess.run(
            [str(ROOT / ".ci" / "pg-cluster"), "start", str(cluster)],
            env={**os.environ, "PG_CLUSTER_DURABLE": "1"},
            capture_output=True,
            text=True,
            check=False,
        )
        if started.returncode != 0:
            self.report.add(Row("we import --db postgresql://", verdict="not available"))
            self.report.notes.append(f"no PostgreSQL for the benchmark: {started.stderr.strip()[-300:]}")
            return
        server = started.stdout.strip().split("=", 1)[1].strip("'")
        try:
            self.measure_postgres_imports(server)
        finally:
            stop = [str(ROOT / ".ci" / "pg-cluster"), "stop", str(cluster)]
            subprocess.run(stop, capture_output=True, check=False)

    def measure_postgres_imports(self, server: str) -> None:
        import psycopg

        _, big = self.sizes
        base = server.split("?", 1)

        def fresh_database(name: str) -> str:
            with psycopg.connect(server, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name}")
                admin.execute(f"CREATE DATABASE {name}")
            return f"{base[0].rsplit('/', 1)[0]}/{name}?{base[1]}"

        def counted(url: str) -> int:
            with psycopg.connect(url) as conn:
                return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])

        def single() -> ChildRun | None:
            url = fresh_database("bench_import")
            run = run_child(we_cmd("import", "--db", url, str(big.games_dir)), env=self.cli.env, capture=True)
            if run.returncode != 0 or counted(url) != big.games:
                self.report.errors.append(f"we import --db postgresql://: exit {run.returncode}, games lost")
                return None
            return run

        self.log("we import --db postgresql:// ...")
        sqlite = self.sqlite_import
        if sqlite is None:
            db = self.tmp / "games-pg-compare.db"
            sqlite = self.best(lambda: self.import_attempt(big, db))
        pg = self.best(single)
        if pg is None or sqlite is None:
            self.report.add(Row("we import --db postgresql://", f"{big.events:,} ev", verdict="WRONG"))
            return
        self.report.add(Row("we import --db games.db (SQLite, again)", f"{big.events:,} ev", sqlite.seconds,
                            sqlite.cpu, f"{big.events / sqlite.seconds:,.0f} ev/s"))  # fmt: skip
        self.report.add(
            Row(
                "we import --db postgresql://",
                f"{big.events:,} ev",
                pg.seconds,
                pg.cpu,
                f"{big.events / pg.seconds:,.0f} ev/s",
                f"{pg.seconds / sqlite.seconds:.2f}x SQLite's time",
                target="within 2x of SQLite's time",
                verdict=pass_miss(pg.seconds <= 2 * sqlite.seconds),
            )
        )
        # Four importers at once, a quarter of the archive each (links in four folders).
        quarters = []
        files = _game_files(big.games_dir)
        for k in range(4):
            folder = self.tmp / f"quarter-{k}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            for path in files[k::4]:
                (folder / path.name).symlink_to(path)
            quarters.append(folder)
        for kind in ("SQLite", "PostgreSQL"):
            self.log(f"four importers at once into {kind} ...")
            if kind == "SQLite":
                target = str(self.tmp / "games-four.db")
                self.fresh_db(Path(target))
            else:
                target = fresh_database("bench_four")
            wall, runs, failed = self.run_together(
                [we_cmd("import", "--db", target, str(folder)) for folder in quarters]
            )
            games = counted(target) if kind == "PostgreSQL" else self.library_count(Path(target))
            name = f"4 x we import at once ({kind})"
            if failed or games != big.games:
                # SQLite takes one writer at a time: the others may give up after its busy timeout.
                verdict = "WRONG" if kind != "SQLite" else "fails"
                self.report.add(Row(name, f"{big.events:,} ev", wall, verdict=verdict))
                self.report.notes.append(f"{name}: {games} of {big.games} games stored; {failed[:1]}")
                continue
            self.report.add(Row(name, f"{big.events:,} ev", wall, sum(r.cpu for r in runs),
                                f"{big.events / wall:,.0f} ev/s"))  # fmt: skip

    def run_together(self, commands: list[list[str]]) -> tuple[float, list[ChildRun], list[str]]:
        """Start every command at once; the wall time until the last one ends, their runs, and
        what those that failed said."""
        from concurrent.futures import ThreadPoolExecutor

        env = child_env(self.out)
        start = time.perf_counter()
        with ThreadPoolExecutor(len(commands)) as pool:
            futures = [pool.submit(run_child, cmd, env=env, capture=True) for cmd in commands]
            runs = [f.result() for f in futures]
        wall = time.perf_counter() - start
        failed = [r.stderr.strip()[-200:] for r in runs if r.returncode != 0]
        return wall, runs, failed

    @staticmethod
    def library_count(db: Path) -> int | None:
        """Games in a library, read from its SQLite `games` table."""
        import sqlite3

        if not db.exists():
            return None
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                tables = [r[0] for r in conn.execute("select name from sqlite_master where type='table'")]
                for table in ("games", "game"):
                    if table in tables:
                        return conn.execute(f"select count(*) from {table}").fetchone()[0]
        except sqlite3.Error:
            return None
        return None

    def measure_library_audit(self, dbs: dict[int, Path]) -> None:
        """`we audit` of every game in the library: --all/--library if it has one, else every game
        id as an argument when they fit in ARG_MAX (they do for 20,000 games), else a sample."""
        self.log("we audit from the library ...")
        small, big = self.sizes
        help_text = self.cli.help("audit") or ""
        whole = next((flag for flag in ("--all", "--library") if flag in help_text), None)
        runs: dict[int, ChildRun | None] = {}
        counts: dict[int, int] = {}
        for archive in (small, big):
            games = archive.games if whole is not None else self.ids_that_fit(archive.games)
            runs[archive.games] = self.best(
                lambda db=dbs[archive.games], games=games: self.library_audit_attempt(db, whole, games)
            )
            counts[archive.games] = games
        run = runs[big.games]
        games = counts[big.games]
        how = f"{whole} --db" if whole else "GAME-ID... --db"
        size = f"{games:,} games" if games == big.games else f"{games:,} of {big.games:,} games"
        if run is None or runs[small.games] is None:
            self.report.add(Row(f"we audit {how} (library)", size, verdict="WRONG"))
            return
        events = big.events if games == big.games else self.sample_events(big, games)
        memory, is_flat = memory_cell(runs[small.games], run)
        whole_library = games == big.games
        if not whole_library:
            self.report.notes.append(
                f"the library audit passes game ids as arguments; only the first {games:,} fit ARG_MAX"
            )
        ratio_ok = run.seconds <= TARGET_AUDIT_RATIO * self.floor[big.games].seconds
        self.report.add(
            Row(
                f"we audit {how} (library)",
                size,
                run.seconds,
                run.cpu,
                rate(events, run.seconds, "ev"),
                self.ratio(big, run) if whole_library else "",
                memory,
                f"<= {TARGET_AUDIT_RATIO:.0f}x floor, memory flat" if whole_library else "memory flat",
                pass_miss(bool(is_flat) and (ratio_ok or not whole_library)),
            )
        )

    def library_audit_attempt(self, db: Path, whole: str | None, games: int) -> ChildRun | None:
        if whole is not None:
            cmd = we_cmd("audit", whole, "--db", str(db), "--json")
        else:
            cmd = we_cmd("audit", "--db", str(db), "--json", *[game_id(i) for i in range(games)])
        run = run_child(cmd, env=self.cli.env, capture=True)
        errors = judge(parse_audit_json(run.stdout), [game_id(i) for i in range(games)])
        if run.returncode != 0:
            errors.insert(0, f"exit status {run.returncode}: {run.stderr.strip()[-300:]}")
        self.report.errors.extend(f"we audit --db ({games:,} games): {e}" for e in errors)
        return None if errors else run

    @staticmethod
    def ids_that_fit(games: int) -> int:
        """How many game ids fit on one command line, with room to spare for the environment."""
        budget = os.sysconf("SC_ARG_MAX") // 2 - sum(len(k) + len(v) + 10 for k, v in os.environ.items())
        used = 1000  # the interpreter, -m cli.main audit --db PATH --json
        for i in range(games):
            used += len(game_id(i)) + 1 + 8  # the string, its NUL, its pointer
            if used > budget:
                return i
        return games

    @staticmethod
    def sample_events(archive: Archive, sample: int) -> int:
        total = 0
        for i in range(sample):
            with open(archive.games_dir / f"{game_id(i)}.jsonl", "rb") as f:
                total += sum(1 for _ in f)
        return total


def check_log(path: Path, players: int | None = None) -> str | None:
    """Why a log is not a valid complete game (integrity, then rules), or None when it is."""
    import orjson

    from eventstore.integrity import verify_log
    from wecore.conformance import GameChecker

    verified = verify_log(path)
    if not verified.ok:
        return str(verified.problems[0])
    checker = GameChecker()
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            obj = orjson.loads(line)
            if not checker.feed(n, obj["type"], obj["data"]):
                problem = checker.problem
                return f"line {problem.line}: {problem.kind}: {problem.message}"  # type: ignore[union-attr]
    state = checker.state
    if not state.is_over:
        return "the game does not end"
    if players is not None and len(state.players) != players:
        return f"{len(state.players)} players, expected {players}"
    return None


# ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games in the archive (default {DEFAULT_GAMES:,}; {QUICK_GAMES:,} with --quick)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"where archives are cached and scratch files go (default {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes for generating the archive and for `we audit --jobs` (default: cores)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each timed command this many times and keep the fastest (default 1)",
    )
    parser.add_argument("--quick", action="store_true", help=f"a small archive ({QUICK_GAMES:,} games)")
    parser.add_argument(
        "--service", action="store_true", help="only the service section (`we serve` under load)"
    )
    parser.add_argument("--audit", action="store_true", help="only the floor and the `we audit` rows")
    parser.add_argument("--seconds", type=float, default=20, help="with --service: how long (default 20)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="with --service: rounds of `we serve` against its peer, alternated (default 4, at least 4)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="with --service: on a PostgreSQL library, one server and then two on one database",
    )
    parser.add_argument(
        "--write-docs",
        nargs="?",
        type=Path,
        const=DEFAULT_PAGE,
        default=None,
        metavar="PAGE",
        help="also write the figures, machine and load as the docs site's speed page "
        "(default docs/speed.md), or with --ladder its strength page (default "
        "docs/explanation/strength.md)",
    )
    parser.add_argument(
        "--ladder",
        action="store_true",
        help="only the bots' ladder: win shares of ismcts and greedy, and ismcts's move time",
    )
    parser.add_argument(
        "--ladder-games", type=int, default=1000, help="with --ladder: games a match-up (default 1000)"
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="with --ladder: ismcts's playouts a move (default: its own)",
    )
    parser.add_argument(
        "--ladder-default-games",
        type=int,
        default=100,
        metavar="N",
        help="with --ladder and --iterations: also ismcts at its own default playouts against "
        "three greedy bots on the first N deals (default 100; 0: not)",
    )
    older = parser.add_mutually_exclusive_group()
    older.add_argument(
        "--compare-with",
        metavar="REV",
        help="with --ladder: only the search bot of this checkout against that of REV (a throwaway "
        "`git worktree add --detach`), each against three greedy bots on the same --ladder-games deals",
    )
    older.add_argument(
        "--compare-tree",
        type=Path,
        metavar="DIR",
        help="with --ladder: --compare-with the checkout already at DIR (nothing is written there)",
    )
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.ladder_games < 1:
        parser.error("--ladder-games must be at least 1")
    if args.ladder_default_games < 0:
        parser.error("--ladder-default-games must be at least 0")
    if (args.compare_with or args.compare_tree) and not args.ladder:
        parser.error("--compare-with and --compare-tree go with --ladder")
    if args.compare_tree is not None and not (args.compare_tree / "wecore").is_dir():
        parser.error(f"--compare-tree {args.compare_tree}: no wecore there")
    if args.write_docs is DEFAULT_PAGE:
        page = ("explanation", "strength.md") if args.ladder else ("speed.md",)
        args.write_docs = ROOT.joinpath("docs", *page)
    if args.games is None:
        args.games = QUICK_GAMES if args.quick else DEFAULT_GAMES
    if args.games < 4:
        parser.error("--games must be at least 4")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.rounds < 4:
        parser.error("--rounds must be at least 4: a median of fewer alternated rounds says little")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    args.out = args.out.resolve()
    return args


# What each part of the benchmark imports from the test extras: missing, it is named at once in
# one line, before anything starts (without httpx, --service once hung with a server behind it).
NEEDS = {"service": ("httpx",), "postgres": ("psycopg",)}


def missing_modules(names: Sequence[str]) -> list[str]:
    import importlib.util

    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        kind, directory = args.worker
        print(json.dumps(WORKERS[kind](Path(directory))))
        return 0
    sys.path.insert(0, str(Path(__file__).parent))
    needed = [*NEEDS["service"]] if args.service else []
    if args.postgres:
        needed += NEEDS["postgres"]
    if missing := missing_modules(needed):
        print(
            f"bench.py: error: {', '.join(missing)} not installed: python -m pip install '.[test]'",
            file=sys.stderr,
        )
        return 2
    if args.service:
        import bench_service

        load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
        status = bench_service.run(seconds=args.seconds, postgres=args.postgres, rounds=args.rounds)
        if args.write_docs is not None:
            from speed_page import service_section, with_service_section, write_page

            load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
            section = service_section(bench_service.FIGURES, machine(), load_before, load_after, args.argv)
            existing = "# Speed and reliability figures\n"
            if args.write_docs.exists():
                existing = args.write_docs.read_text(encoding="utf-8")
            write_page(args.write_docs, with_service_section(existing, section))
        return status
    if args.ladder:
        sys.path.insert(0, str(Path(__file__).parent))
        from compare import kept_section, with_section
        from ladder import run_ladder

        from wecore.search import DEFAULT_ITERATIONS

        if args.compare_with or args.compare_tree:
            return compare_ladder(args)
        run = run_ladder(
            args.ladder_games,
            args.iterations or DEFAULT_ITERATIONS,
            args.jobs,
            default_games=args.ladder_default_games,
            analyses=True,
        )
        if args.write_docs is not None:
            from speed_page import write_page
            from strength_page import strength_page

            page = strength_page(run, machine(), args.argv)
            write_page(args.write_docs, with_section(page, kept_section(args.write_docs)))
        return run.failed
    return Bench(args).run()


def compare_ladder(args: argparse.Namespace) -> int:
    """`--ladder --compare-with REV` / `--compare-tree DIR`: the two search bots on the same deals,
    and with --write-docs their section of the strength page (the rest of the page kept)."""
    from compare import compare_section, run_compare, with_section
    from speed_page import write_page

    from wecore.search import DEFAULT_ITERATIONS

    comparison = run_compare(
        args.ladder_games,
        args.iterations or DEFAULT_ITERATIONS,
        args.jobs,
        rev=args.compare_with,
        tree=args.compare_tree,
    )
    if args.write_docs is not None:
        existing = "# Strength: the bots' ladder\n"
        if args.write_docs.exists():
            existing = args.write_docs.read_text(encoding="utf-8")
        when = f"{datetime.now(UTC):%Y-%m-%d %H:%M}"
        section = compare_section(comparison, machine(), args.argv, when)
        write_page(args.write_docs, with_section(existing, section))
    return comparison.failed


if __name__ == "__main__":
    sys.exit(main())
