"""Running `we` as a real process with its peak memory measured (see peakmem.py)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def run_measured(*args: object, timeout: float = 300, stdin: bytes | None = None) -> tuple[int, float, str]:
    """`we ARGS` as a process (reading `stdin` through a pipe if given): its exit status, peak
    resident memory (MiB) and stderr."""
    with tempfile.TemporaryDirectory() as folder:
        out = pathlib.Path(folder) / "peak"
        done = subprocess.run(
            [sys.executable, str(HERE / "peakmem.py"), str(out), *map(str, args)],
            cwd=HERE.parents[1],
            stdin=subprocess.DEVNULL if stdin is None else None,
            input=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
        peak = int(out.read_text()) / 1024 if out.exists() else float("inf")
    return done.returncode, peak, done.stderr.decode(errors="replace")
