"""Working through many games: how many processes --jobs starts, the garbage collector settled
for a batch, and the logs of a directory.

The worker pool is the command's, not a use case's: what it takes care of is the command's own
process (Ctrl-C at a terminal, workers that end with the command, a worker lost said in one
line, exit status 1). What each worker does is a use case of service/, the same in any process
(service.library.verified_for_import for `we import`, service.analysis.value_decision_at for
`we analyse`), and the output does not depend on how many there are."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# --jobs is capped at this many worker processes per CPU: beyond it they only queue for the
# same cores, and each costs its own memory (--jobs 100000 once started 446 of them, 12 GB).
JOBS_PER_CPU = 4


def worker_count(jobs: int, tasks: int) -> int:
    """How many processes --jobs `jobs` starts for `tasks` pieces of work: 0 means one per
    CPU; never more than there is work for, nor more than JOBS_PER_CPU per CPU."""
    cpus = os.cpu_count() or 1
    wanted = cpus if jobs == 0 else jobs
    return max(1, min(wanted, tasks, JOBS_PER_CPU * cpus))


def die_with_the_parent(parent: int) -> None:
    """A pool worker's initializer: it ends when the command that started it (pid `parent`,
    read before the fork) is gone.

    Killed outright (SIGKILL, the OOM killer), a command cannot stop its workers, and they
    would wait forever for tasks (each holds the task pipe open for the others), keeping the
    command's stdout open behind it: a shell pipeline or a test would never see its end. On
    Linux the kernel signals the worker (PR_SET_PDEATHSIG); elsewhere a thread looks every
    half second. The parent's pid comes from the parent: read here, after a command killed
    between the fork and this call, it would be the reaper's, and the worker would outlive it."""
    import signal

    if os.getppid() != parent:
        os._exit(1)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0:  # 1: PR_SET_PDEATHSIG
                if os.getppid() != parent:  # gone before the call took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="we-parent-watch", daemon=True).start()


def start_worker(parent: int, initializer: Callable[..., None] | None = None, *args: object) -> None:
    """die_with_the_parent, Ctrl-C left to the command (a terminal sends it to every process of
    the command: each worker would print its own traceback), then the pool's own initializer."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_the_parent(parent)
    if initializer is not None:
        initializer(*args)


@contextmanager
def worker_pool(
    workers: int, initializer: Callable[..., None] | None = None, initargs: tuple[object, ...] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` processes started by start_worker. Left by an exception (Ctrl-C, a
    reader gone), the tasks not yet started are dropped, so the command ends once the running
    ones have (it would otherwise work through every task it had handed the pool). A worker
    lost is one line (CommandFailed, exit 1), not the pool's traceback."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    args: tuple[Any, ...] = (os.getpid(), initializer, *initargs)
    pool = ProcessPoolExecutor(max_workers=workers, initializer=start_worker, initargs=args)
    ending = threading.Event()
    try:
        with _ctrl_c_held():
            # With fork (Linux) the first task starts every worker, here: each is born with
            # Ctrl-C held, so one that comes before start_worker has told it to leave Ctrl-C to
            # the command is never its traceback. The command gets it once released.
            pool.submit(int)
        _watch_for_a_lost_worker(pool, ending)
        yield pool
    except BrokenProcessPool:
        # A worker was killed from outside (the OOM killer, say): the pool has stopped the
        # others, and what they had not handed back is lost.
        ending.set()
        pool.shutdown(wait=True, cancel_futures=True)
        from cli.exits import CommandFailed

        raise CommandFailed(LOST_WORKER) from None
    except BaseException:
        ending.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    ending.set()
    pool.shutdown(wait=True)


def _watch_for_a_lost_worker(pool: ProcessPoolExecutor, ending: threading.Event) -> None:
    """The pool tells its caller of a worker killed from outside (BrokenProcessPool), except
    when the worker was killed halfway through handing back a result: the pool's own thread
    then waits forever for the rest of it, and the other workers for the lock it held
    (CPython 3.11). So a thread watches the workers: one that ends while the pool is still in
    use, with no word from the pool within LOST_WORKER_GRACE seconds, ends the command itself,
    with the same line. What it printed or imported before stays (a library's transaction
    rolls back), as after a kill."""
    from multiprocessing.connection import wait

    processes = list(getattr(pool, "_processes", {}).values())
    if not processes:
        return  # not a pool that shows its workers: nothing to watch

    def watch() -> None:
        ended = wait([process.sentinel for process in processes])
        for process in processes:
            if process.sentinel in ended:
                process.join(1)  # its exit status: a closed sentinel can come just before it
        lost = any(process.exitcode not in (None, 0) for process in processes)
        if not lost or ending.wait(LOST_WORKER_GRACE) or getattr(pool, "_shutdown_thread", False):
            return  # a worker that ended as told, or a loss the pool has reported
        from cli.exits import CommandFailed

        for process in processes:
            if process.exitcode is None:
                process.kill()
        with suppress(OSError, ValueError):
            sys.stdout.flush()
        CommandFailed(LOST_WORKER).show()
        sys.stderr.flush()
        os._exit(CommandFailed.exit_code)

    threading.Thread(target=watch, name="we-worker-watch", daemon=True).start()


# How long the watch waits for the pool to report a lost worker before it ends the command.
LOST_WORKER_GRACE = 3.0


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


LOST_WORKER = (
    "a worker process ended before its work was done (killed from outside, or out of memory?), "
    "so the command stopped there; run it again, or with --jobs 1"
)


@contextmanager
def collector_settled_for_a_batch() -> Iterator[None]:
    """While a command works through thousands of games: what was loaded before stays put, so
    the cyclic garbage collector stops re-scanning it, and young-generation collections come
    every 50,000 allocations instead of 700. Folding makes no cycles (states only point back
    to older states), so this changes how often the collector runs, not what it frees; an
    import runs about 5% faster. Restored afterwards (tests run commands in-process)."""
    import gc

    thresholds = gc.get_threshold()
    # Only when nothing is frozen yet: unfreezing afterwards would also release what a caller
    # had frozen for its own reasons.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if freeze:
            gc.unfreeze()


def logs_in_directory(directory: Path) -> list[Path]:
    """Every *.jsonl entry in `directory` that is not a directory, in name order. scandir knows
    which entries are directories without a stat each: a club's archive holds tens of
    thousands of games. A FIFO or device named *.jsonl is listed too, so that its reader
    reports it ("not a regular file") instead of passing it over in silence. So is a season
    ledger (whatever its name): its reader says what it is, and skips it in one line."""
    with os.scandir(directory) as entries:
        names = sorted(e.name for e in entries if e.name.endswith(".jsonl") and not _is_dir(e))
    return [directory / name for name in names]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False  # cannot tell: list it, and its reader will say what is wrong
