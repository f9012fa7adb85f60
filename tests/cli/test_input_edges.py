"""The CLI's input edges, as a hostile or clumsy user meets them: what is piped into `we record`,
arguments that are not UTF-8, --jobs, output into a closed pipe, odd files where logs are
expected, control characters in names. Real processes wherever the behaviour is about one."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from peakmem_run import run_measured
from weharness import ROOT, VECTORS

SET_UP = ["--no-library", "--players", "Xena,Yuri,Zoe", "--dealer", "Xena"]
SET_UP += ["--lists", "Xena=RGY,Yuri=BGO,Zoe=RBO"]


def run_we(*args: object, stdin: bytes | None = None, cwd: Path | None = None, shell: str | None = None):
    """`we ARGS` as a real process (or, with `shell`, a bash pipeline in which `we` is a function)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if shell is not None:
        script = f'we() {{ "{sys.executable}" -m cli.main "$@"; }}\nset -o pipefail\n{shell}'
        command: list[str | bytes] = ["bash", "-c", script]
    else:
        command = [sys.executable, "-m", "cli.main", *[a if isinstance(a, bytes) else str(a) for a in args]]
    return subprocess.run(
        command, input=stdin, capture_output=True, cwd=cwd or ROOT, env=env, timeout=300, check=False
    )


# --- 1. a piped recorder reads lines of bounded length -----------------------------------


def test_an_overlong_piped_line_is_refused_in_bounded_memory_and_the_rest_recorded(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    script = b"x" * 8_000_000 + b"\nopen R3\n" + b"\0" * 8_000_000  # the last one with no newline at all
    code, peak, err = run_measured("record", *SET_UP, log, stdin=script)
    assert code == 1 and "Traceback" not in err, err
    assert peak < 100, f"{peak:.0f} MiB"
    assert len(err) < 1000, err[:300]
    assert "input line 1: xxxxx" in err and "input line 3: " in err
    assert err.count("longer than 4,096 characters") == 2
    assert "R3" in log.read_text()


# --- 2. arguments that are not UTF-8 -----------------------------------------------------


def one_line(result: subprocess.CompletedProcess[bytes]) -> str:
    err = result.stderr.decode("utf-8", "backslashreplace")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err[-2000:]
    return err


NEW = "{new log}"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["record", NEW, "--players", b"X\xff,Yuri,Zoe", "--dealer", "Yuri", "--lists", "Y=R"], "--players"),
        (["record", NEW, "--title", b"Zo\xeb's night", *SET_UP], "--title"),  # a Latin-1 terminal
        (["analyse", "--seed", b"\xff", VECTORS / "one-party.jsonl"], "--seed"),
        (["analyse", "--jobs", b"\xff", VECTORS / "one-party.jsonl"], "--jobs"),
        (["replay", VECTORS / "one-party.jsonl", "--as", b"Zo\xeb"], "--as"),
        (["stats", "--versus", b"Zo\xeb", "Ben"], "--versus"),
    ],
)
def test_text_that_is_not_utf8_is_one_usage_line_naming_the_option(tmp_path: Path, args, option) -> None:
    log = tmp_path / "n.jsonl"
    result = run_we(*[log if a == NEW else a for a in args], cwd=tmp_path)
    assert result.returncode == 2
    assert f"{option}: not valid UTF-8 (is the terminal set to UTF-8?)" in one_line(result)
    assert not log.exists()


def test_file_names_that_are_not_utf8_work_as_paths_and_are_shown_escaped(tmp_path: Path) -> None:
    made = run_we("record", b"night\xff.jsonl", *SET_UP, stdin=b"open R3\n", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    log = tmp_path / os.fsdecode(b"night\xff.jsonl")
    assert "R3" in log.read_text()
    lines = log.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / os.fsdecode(b"bad\xff.jsonl")
    damaged.write_bytes(b"".join(lines[:3]) + b'{"x":\n')
    for args in (["audit"], ["score"], ["replay"], ["replay", "--html", "page.html"]):
        result = run_we(*args[:1], b"bad\xff.jsonl", *args[1:], cwd=tmp_path)
        assert result.returncode == 1, (args, result.stderr)
        err = result.stderr.decode("utf-8", "backslashreplace")
        assert "Traceback" not in err, err
        if args[0] != "audit":
            assert "bad\\xff.jsonl: line 4: integrity" in err.splitlines()[-1]
    assert "bad\\xff.jsonl: line 4" in (tmp_path / "page.html").read_text()
    missing = run_we("score", b"gone\xff.jsonl", cwd=tmp_path)
    assert missing.returncode == 1 and "gone\\xff.jsonl" in one_line(missing)


def test_a_file_name_that_is_not_utf8_is_shown_escaped_on_stdout_too(tmp_path: Path) -> None:
    """Not only in errors: "OK  night\\xff.jsonl", "Recording game ... in night\\xff.jsonl".
    The raw byte reached the terminal, which shows U+FFFD: not which file was meant."""
    made = run_we("record", b"night\xff.jsonl", *SET_UP, stdin=b"open R3\n", cwd=tmp_path)
    library = tmp_path / "lib.db"
    runs = {
        "record": made,
        "audit": run_we("audit", b"night\xff.jsonl", cwd=tmp_path),
        "audit DIR": run_we("audit", ".", cwd=tmp_path),
        "import": run_we("import", b"night\xff.jsonl", "--db", library, cwd=tmp_path),
        "repair": run_we("repair", b"night\xff.jsonl", cwd=tmp_path),
        "replay --html": run_we("replay", b"night\xff.jsonl", "--html", b"page\xff.html", cwd=tmp_path),
    }
    for name, result in runs.items():
        assert result.returncode == 0, (name, result.stderr)
        said = result.stdout + result.stderr
        assert b"\xff" not in said, (name, said)
        said.decode("utf-8")  # all of it text a terminal shows as it is
        assert b"\\xff.jsonl" in said or b"page\\xff.html" in said, (name, said)


# --- 3. --jobs starts no more processes than there is work for ----------------------------


def most_descendants(command: list[str]) -> int:
    """Run `command`; the most processes below it seen at once (looked at every few ms)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    most = 0
    while process.poll() is None:
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as stat:
                        parents[int(entry)] = int(stat.read().rsplit(b")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        below = {process.pid}
        grew = True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in below} - below
            below |= more
            grew = bool(more)
        most = max(most, len(below) - 1)
        time.sleep(0.005)
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    return most


def test_jobs_are_capped_at_the_work_there_is(tmp_path: Path) -> None:
    # one-party.jsonl has 8 decisions with 12 moves to roll out between them: 12 tasks.
    vector = str(VECTORS / "one-party.jsonl")
    we = [sys.executable, "-m", "cli.main"]
    analysed = most_descendants([*we, "analyse", "-j", "40", "--rollouts", "1", vector])
    cap = min(12, 4 * (os.cpu_count() or 1))
    assert 1 <= analysed <= cap + 1, analysed  # the pool's workers and at most one helper
    audited = most_descendants([*we, "audit", "--jobs", "24", vector, vector])
    assert audited <= 3, audited


def test_an_audit_uses_every_cpu_by_default_but_not_for_one_game(tmp_path: Path) -> None:
    """`we audit` at its defaults (--jobs 0) checks many games in a worker per CPU, and one
    game in its own process, where a pool would only cost its start-up."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: the default is one process")
    vector = VECTORS / "one-party.jsonl"
    for i in range(200):
        (tmp_path / f"game-{i:03}.jsonl").write_bytes(vector.read_bytes())
    we = [sys.executable, "-m", "cli.main"]
    assert most_descendants([*we, "audit", "--json", str(vector)]) == 0
    workers = most_descendants([*we, "audit", "--json", str(tmp_path)])
    assert workers >= 2, workers
    assert most_descendants([*we, "audit", "--json", "--jobs", "1", str(tmp_path)]) == 0


@pytest.mark.parametrize("command", ["analyse", "audit"])
@pytest.mark.parametrize("jobs", ["-1", "-5", "many"])
def test_a_jobs_that_is_no_count_is_one_usage_line(command: str, jobs: str) -> None:
    result = run_we(command, "--jobs", jobs, VECTORS / "one-party.jsonl")
    assert result.returncode == 2 and "--jobs" in one_line(result)


# --- 4. output into a pipe whose reader has gone keeps the command's exit status -----------

REPLAYS = ROOT / "replays"


def run_into_a_closed_pipe(*args: object) -> subprocess.CompletedProcess[bytes]:
    """`we ARGS | head -0`, made certain: the pipe's reading end is closed before `we` starts,
    so its first write finds nobody there."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "cli.main", *map(str, args)]
        return subprocess.run(
            command, stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT, env=env, timeout=300, check=False
        )
    finally:
        os.close(write_end)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("library") / "lib.db"
    imported = run_we("import", "--db", db, REPLAYS / "bots-7p.jsonl", REPLAYS / "disputed-honest.jsonl")
    assert imported.returncode == 0, imported.stderr
    return db


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["audit", REPLAYS / "disputed-honest.jsonl", REPLAYS / "disputed-edited.jsonl"], 1),
        (["audit", "--json", REPLAYS / "disputed-honest.jsonl", REPLAYS / "disputed-edited.jsonl"], 1),
        (["audit", REPLAYS / "disputed-honest.jsonl"], 0),
        (["score", REPLAYS / "disputed-edited.jsonl"], 1),
        (["score", REPLAYS / "disputed-honest.jsonl"], 0),
        (["replay", REPLAYS / "bots-7p.jsonl"], 0),
        (["replay", REPLAYS / "disputed-edited.jsonl"], 1),
        (["games", "--db", "LIB"], 0),
        (["stats", "--db", "LIB"], 0),
        (["export", "sim-replays-1", "--db", "LIB", "-o", "-"], 0),
    ],
)
def test_a_closed_pipe_keeps_the_exit_status_and_says_nothing_of_it(library: Path, args, status) -> None:
    args = [library if a == "LIB" else a for a in args]
    result = run_into_a_closed_pipe(*args)
    err = result.stderr.decode()
    assert result.returncode == status, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    assert status == 0 or len(err.splitlines()) <= 1, err


# --- 5. messages that say what is really wrong ------------------------------------------


@pytest.mark.parametrize("command", ["audit", "replay", "score", "analyse", "import"])
def test_a_fifo_device_or_broken_link_is_named_for_what_it_is(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "gone.jsonl")
    db = ["--db", tmp_path / "lib.db"]
    expected = ((fifo, "not a regular file (a FIFO)"), ("/dev/null", "not a regular file (a device)"))
    for path, words in expected:
        result = run_we(command, path, *db, cwd=tmp_path)
        assert result.returncode == 1 and words in one_line(result) and "no such file" not in one_line(result)
    result = run_we(command, dangling, *db, cwd=tmp_path)
    assert result.returncode == 1 and "a broken symbolic link" in one_line(result), result.stderr
    assert "vanished" not in one_line(result) and "no such file" not in one_line(result)


def test_a_broken_link_in_an_audited_directory_is_named_and_the_rest_audited(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes((VECTORS / "one-party.jsonl").read_bytes())
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    result = run_we("audit", tmp_path)
    assert result.returncode == 1
    assert "b.jsonl: a broken symbolic link" in result.stdout.decode() + result.stderr.decode()
    assert "OK" in result.stdout.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["export", "sim-replays-1", "--db", "LIB", "-o", "nodir/x.jsonl"],
        ["replay", REPLAYS / "bots-7p.jsonl", "--html", "nodir/x.html"],
        ["stats", "--fairness", "--db", "LIB", "--plot", "nodir/p.png"],
        ["record", "nodir/g.jsonl", *SET_UP],
        ["record", "nodir/g.jsonl"],  # said before the flags a new game needs are asked for
    ],
)
def test_an_output_in_a_missing_directory_names_the_users_path(tmp_path: Path, library: Path, args) -> None:
    result = run_we(*[library if a == "LIB" else a for a in args], cwd=tmp_path)
    line = one_line(result)
    assert result.returncode == 1 and "nodir" in line and "does not exist" in line, line
    assert ".tmp" not in line and "/tmp" not in line.replace(str(tmp_path), "")


def test_a_file_where_an_outputs_directory_should_be_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("mine")
    record = run_we("record", "afile/g.jsonl", *SET_UP, cwd=tmp_path)
    line = one_line(record)
    assert (
        record.returncode == 1
        and "cannot write afile/g.jsonl: the directory afile is not a directory" in line
    )
    simulate = run_we("simulate", "--seed", "a", "--out", "afile/sub", cwd=tmp_path)
    line = one_line(simulate)
    assert simulate.returncode == 1 and "cannot create the directory afile/sub: Not a directory" in line, line
    assert (tmp_path / "afile").read_text() == "mine"


def test_dash_is_standard_output_for_export_and_refused_elsewhere(tmp_path: Path, library: Path) -> None:
    exported = run_we("export", "sim-replays-1", "--db", library, "-o", "-", cwd=tmp_path)
    assert exported.returncode == 0 and not (tmp_path / "-").exists(), exported.stderr
    assert run_we("export", "sim-replays-1", "--db", library, "-o", "f.jsonl", cwd=tmp_path).returncode == 0
    assert exported.stdout == (tmp_path / "f.jsonl").read_bytes()
    assert "to standard output" in exported.stderr.decode()
    page = run_we("replay", REPLAYS / "bots-7p.jsonl", "--html", "-", cwd=tmp_path)
    assert page.returncode == 1 and "standard output" in one_line(page) and not (tmp_path / "-").exists()


def test_record_on_someone_elses_database_says_what_it_is(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "other-app.db"
    with sqlite3.connect(other) as connection:
        connection.execute("create table things (x)")
    before = other.read_bytes()
    result = run_we("record", other, cwd=tmp_path)
    line = one_line(result)
    assert result.returncode == 1 and "not a game log" in line and "SQLite database" in line
    assert "repair" not in line and line.count("`") % 2 == 0
    assert other.read_bytes() == before


def test_an_overlong_title_is_a_title_error(tmp_path: Path) -> None:
    result = run_we("record", tmp_path / "t.jsonl", "--title", "T" * 500, *SET_UP)
    assert result.returncode == 2 and "--title: the title is longer than 200 characters" in one_line(result)


@pytest.mark.parametrize("depth", [65, 1024, 1025, 5000])
def test_any_nesting_past_the_limit_is_too_deep_not_bad_json(tmp_path: Path, depth: int) -> None:
    log = tmp_path / "deep.jsonl"
    log.write_text('{"x":' + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "}\n")
    report = json.loads(run_we("audit", "--json", log).stdout)
    assert "nested more than 64 levels" in report["problems"][0]["message"], report["problems"][0]


# --- 6. control characters in names and titles ----------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [("--players", "Xe\nna,Yuri,Zoe"), ("--players", "Xe\x1b[31mna,Yuri,Zoe"),
     ("--players", "Xe\x85na,Yuri,Zoe"), ("--title", "Game\tnight"), ("--title", "Game\x7f")],
)  # fmt: skip
def test_control_characters_in_names_and_titles_are_refused(tmp_path: Path, option: str, value: str) -> None:
    log = tmp_path / "c.jsonl"
    flags = {"--players": "Xena,Yuri,Zoe", "--dealer": "Yuri", "--lists": "Yuri=BGO"}
    flags[option] = value
    result = run_we("record", "--no-library", log, *[x for pair in flags.items() for x in pair])
    line = one_line(result)
    assert result.returncode == 2 and f"{option}: " in line and "control character" in line, line
    assert not log.exists()


def _children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != b"Z":
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _cpu_ticks(pid: int) -> int:
    """The CPU time a process has used, in clock ticks (utime + stime, /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _await_work(pid: int) -> None:
    """Until a forked worker has used some CPU of its own: an idle one blocks on its task queue
    and uses none, so this is the event "it is working", however slow the machine."""
    deadline = time.monotonic() + 60
    while _cpu_ticks(pid) < 3:
        assert time.monotonic() < deadline, "the worker never started working"
        time.sleep(0.01)


def _seconds_of_work(command: str, folder: Path, times: int) -> list[str]:
    """`we COMMAND ...` that keeps --jobs workers busy for seconds: bots-7p analysed, or a
    folder of 3,000 games audited or imported `times` over."""
    if command == "analyse":
        return ["analyse", str(REPLAYS / "bots-7p.jsonl")]
    game = (VECTORS / "four-players-dealt.jsonl").read_bytes()
    for i in range(3000):
        (folder / f"g{i:04}.jsonl").write_bytes(game)
    args = [command, *[str(folder)] * times]
    return [*args, "--db", str(folder / "lib.db")] if command == "import" else args


def _with_workers(args: list[str], **popen: Any) -> tuple[subprocess.Popen[bytes], set[int]]:
    """`we ARGS --jobs 2` as a real process, once both its workers are seen."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "cli.main", *args, "--jobs", "2"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, **popen)
    workers: set[int] = set()
    deadline = time.monotonic() + 30
    while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
        workers |= _children_of(process.pid)
        time.sleep(0.01)
    assert len(workers) >= 2, "the workers never started"
    return process, workers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command", ["audit", "import", "analyse"])
def test_workers_end_when_their_command_is_killed(tmp_path: Path, command: str) -> None:
    """SIGKILL leaves a command no time to stop its --jobs workers: they must end by
    themselves, and let go of its stdout, or a pipeline (`we audit DIR | less`) never ends."""
    args = _seconds_of_work(command, tmp_path, 1)
    process, workers = _with_workers(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.kill()
    process.wait(timeout=10)
    assert process.stdout is not None
    fd, deadline = process.stdout.fileno(), time.monotonic() + 10
    while True:  # to the end of stdout, which comes once nobody holds it open
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, "the command's stdout is still held open after it was killed"
        if not os.read(fd, 65536):
            break
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers), "workers outlived their command"


@pytest.mark.parametrize("command", ["audit", "import", "analyse"])
def test_ctrl_c_ends_a_command_and_its_workers_with_one_line(tmp_path: Path, command: str) -> None:
    """A terminal sends Ctrl-C to every process of the command: the workers leave it to the
    command, which says one line and ends soon, dropping the tasks not yet started."""
    args = _seconds_of_work(command, tmp_path, 4)  # so that Ctrl-C comes while it runs
    process, _ = _with_workers(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert process.poll() is None, "it ended before Ctrl-C"
    # At once: a worker only just forked must not answer Ctrl-C with its own traceback.
    os.killpg(process.pid, signal.SIGINT)
    try:
        _, err = process.communicate(timeout=20)
    finally:  # a command that did not end is not left running after the test
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 1
    # click ends the "^C" a terminal echoed with a newline first.
    assert [line for line in err.decode().splitlines() if line] == ["we: aborted"], err.decode()[-2000:]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command", ["audit", "import", "analyse"])
def test_a_worker_killed_from_outside_ends_its_command_with_one_line(tmp_path: Path, command: str) -> None:
    """The OOM killer (or anyone) may kill one --jobs worker: the command says so in one line
    and ends with exit 1, with no traceback, and the others do not go on working."""
    args = _seconds_of_work(command, tmp_path, 4)
    process, workers = _with_workers(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    victim = min(workers)
    _await_work(victim)  # killed while it holds a task, not while it waits for its first
    os.kill(victim, signal.SIGKILL)
    try:
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    lines = [line for line in err.decode().splitlines() if line]
    assert process.returncode == 1, err.decode()[-2000:]
    assert len(lines) == 1 and lines[0].startswith("we: error: ") and "worker" in lines[0], lines
    assert "--jobs 1" in lines[0]
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers), "workers outlived their command"
    if command == "import":
        # What the import wrote before the loss is a library that still opens.
        listed = run_we("games", "--db", tmp_path / "lib.db")
        assert listed.returncode == 0 and not listed.stderr, listed.stderr


LATE_WORKER = """
import os, sys, time
from cli.batch import die_with_the_parent

command = os.getpid()
gone_r, gone_w = os.pipe()
if os.fork() == 0:  # a worker forked, not yet at its initializer when the command is killed
    os.close(gone_w)
    os.read(gone_r, 1)  # end of file: the command is gone
    die_with_the_parent(command)
    print("alive after its command was killed", flush=True)
    time.sleep(60)
    os._exit(0)
os.close(gone_r)
print("forked", flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork")
def test_a_worker_that_starts_after_its_command_was_killed_ends_at_once() -> None:
    """Under load a worker may first run after its command was killed (a loaded run of
    the suite saw the stdout of `we import` held open so): it must not take the reaper that
    adopted it for its command."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-c", LATE_WORKER], cwd=ROOT, env=env, stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline() == b"forked\n"
    process.kill()
    process.wait(timeout=10)
    fd, deadline, rest = process.stdout.fileno(), time.monotonic() + 30, b""
    while True:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"the late worker still holds the command's stdout: {rest!r}"
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        rest += chunk
    assert rest == b"", rest


WEDGED_POOL = """
import multiprocessing, os, signal, sys, threading, time
from cli.batch import _watch_for_a_lost_worker

class WedgedPool:  # CPython's pool once a worker died halfway through a result: it says nothing
    _shutdown_thread = False

worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
worker.start()
pool = WedgedPool()
pool._processes = {worker.pid: worker}
_watch_for_a_lost_worker(pool, threading.Event())
print("partial output", flush=False)
os.kill(worker.pid, signal.SIGKILL)
time.sleep(30)
sys.exit(0)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork")
def test_a_worker_lost_while_the_pool_says_nothing_still_ends_the_command_with_one_line() -> None:
    """Killed halfway through handing back a result, a worker leaves CPython 3.11's pool waiting
    forever for the rest (1 run in 12 of the test above hung so): the command's own watch ends
    it, with the same line, what it had printed flushed, and no worker left behind."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", WEDGED_POOL], cwd=ROOT, env=env, capture_output=True, timeout=60, check=False
    )
    took = time.monotonic() - started
    lines = [line for line in result.stderr.decode().splitlines() if line]
    assert result.returncode == 1, result.stderr.decode()[-2000:]
    assert len(lines) == 1 and lines[0].startswith("we: error: a worker process ended"), lines
    assert result.stdout == b"partial output\n"
    assert took < 20, f"the watch took {took:.1f} s"
