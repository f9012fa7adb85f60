"""The examples of the README and of docs/: found, annotated, and run as a reader would run them.

An example is a fenced block tagged `bash`, `sh`, `console` or `python`. The lines right after
its closing fence (blank lines aside) may annotate it:

- `<!-- expect: TEXT -->`: TEXT appears in what it printed (stdout and stderr); repeatable;
- `<!-- expect-exit: N -->`: it ends with exit status N (otherwise 0);
- `<!-- expect-file: PATH -->`: it leaves PATH behind (for a command that prints nothing);
- `*Not run by the tests: WHY*`: it is skipped, with WHY as the reason.

In a `console` block, lines starting with `$ ` are commands and the other lines are output,
each expected in what it printed. The blocks of one page share one scratch folder and run in
page order, so a page can import games in one block and search them in the next.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = {"bash": "shell", "sh": "shell", "console": "console", "python": "python"}
FENCE = re.compile(r"^(`{3,})\s*([\w-]*)")
EXPECT = re.compile(r"^<!--\s*expect:\s*(.*?)\s*-->$")
EXPECT_EXIT = re.compile(r"^<!--\s*expect-exit:\s*(\d+)\s*-->$")
EXPECT_FILE = re.compile(r"^<!--\s*expect-file:\s*(.*?)\s*-->$")
NOT_RUN = re.compile(r"^\*Not run by the tests:\s*(.+?)\*$")
# A runnable block gets this long: `we analyse` with its default rollouts is the slowest reader's
# example; anything longer is a hang, not a slow machine.
BLOCK_TIMEOUT = 600


@dataclass
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    kind: str  # shell, console or python
    code: str
    expects: list[str] = field(default_factory=list)
    exit_status: int = 0
    files: list[str] = field(default_factory=list)
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def examples_of(page: Path) -> list[Example]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, language = opening.groups()
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        if language in LANGUAGES:
            example = Example(page, i + 1, LANGUAGES[language], "\n".join(lines[i + 1 : end]) + "\n")
            _annotate(example, lines, end + 1)
            found.append(example)
        i = end + 1
    return found


def _annotate(example: Example, lines: list[str], start: int) -> None:
    j = start
    while j < len(lines):
        text = lines[j].strip()
        if not text:
            j += 1
            continue
        if m := EXPECT.match(text):
            example.expects.append(m.group(1))
        elif m := EXPECT_EXIT.match(text):
            example.exit_status = int(m.group(1))
        elif m := EXPECT_FILE.match(text):
            example.files.append(m.group(1))
        elif m := NOT_RUN.match(text):
            example.not_run = m.group(1)
        else:
            return
        j += 1


def all_examples() -> list[Example]:
    return [example for page in pages() for example in examples_of(page)]


@dataclass
class Ran:
    status: int
    output: str


def scratch_env(scratch: Path) -> dict[str, str]:
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("WE_", "PYTEST", "COV_", "XDG_"))
    }
    bin_dir = str(Path(sys.executable).parent)
    if shutil.which("we", path=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}") is None:
        # A checkout run without installing (`python -m pytest` in a clone): `we` is the
        # checkout's own, as every other test runs it (`python -m cli.main`).
        shim = scratch / "bin"
        shim.mkdir(exist_ok=True)
        (shim / "we").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cli.main "$@"\n')
        (shim / "we").chmod(0o755)
        bin_dir = f"{shim}{os.pathsep}{bin_dir}"
    env.update(
        HOME=str(home),
        WE_DB=str(home / "we-club.db"),
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        COLUMNS="200",
        PYTHONPATH=str(ROOT),
    )
    return env


def new_scratch(folder: Path) -> Path:
    """A reader's folder: the repository's sample games, nothing else of theirs."""
    shutil.copytree(ROOT / "replays", folder / "replays")
    return folder


def run_example(example: Example, scratch: Path) -> Ran:
    env = scratch_env(scratch)
    if example.kind == "python":
        script = scratch / f"example-{example.line}.py"
        script.write_text(example.code, encoding="utf-8")
        argv = [sys.executable, str(script)]
    elif example.kind == "console":
        commands = [line[2:] for line in example.code.splitlines() if line.startswith("$ ")]
        argv = ["bash", "-e", "-o", "pipefail", "-c", "\n".join(commands)]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", example.code]
    done = subprocess.run(
        argv,
        cwd=scratch,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT,
        check=False,
    )
    return Ran(done.returncode, done.stdout + done.stderr)


def console_outputs(example: Example) -> list[str]:
    return [
        line.strip()
        for line in example.code.splitlines()
        if line.strip() and not line.startswith("$ ") and not line.startswith("#")
    ]
