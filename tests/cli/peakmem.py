"""`python tests/cli/peakmem.py OUT ARGS...` runs `we ARGS...` and writes its peak resident
memory (VmHWM, in KiB) to the file OUT as it exits.

Measured inside the process, from its own address space: a child's ru_maxrss would also count
the memory of the test process it was forked from (Linux keeps the high-water mark across
exec).
"""

from __future__ import annotations

import atexit
import pathlib
import runpy
import sys


def _report(out: str) -> None:
    with open("/proc/self/status", encoding="ascii") as status:
        peak = next(line for line in status if line.startswith("VmHWM:"))
    pathlib.Path(out).write_text(peak.split()[1])


if __name__ == "__main__":
    atexit.register(_report, sys.argv.pop(1))
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    sys.argv[0] = "we"
    runpy.run_module("cli.main", run_name="__main__")
