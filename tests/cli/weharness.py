"""Running `we` in-process exactly as the installed command runs: through `cli.exits.run`,
so exit statuses and one-line errors are the real ones (not click's standalone handling).

(tests/cli has no __init__.py on purpose: a package named `cli` would shadow the project's.)
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import click
from click.testing import CliRunner, Result

from cli.exits import run
from cli.main import we as we_group
from eventstore.envelope import seal

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


class _ThroughRun(click.Command):
    """A stand-in command whose `main` is what `python -m cli.main` does: sys.exit(run(we))."""

    def __init__(self) -> None:
        super().__init__("we")

    def main(self, args: Any = None, prog_name: Any = None, **extra: Any) -> Any:  # type: ignore[override]
        saved = sys.argv
        sys.argv = ["we", *(args or [])]
        try:
            code = run(we_group)
        finally:
            sys.argv = saved
            _end_of_process()
        sys.exit(code)


def _end_of_process() -> None:
    """What the end of a real `we` process does to the libraries it opened: closes them, so the
    next command connects afresh and looks at the library again (not at a connection kept
    from a command before, as one process would never see)."""
    from cli import opening

    libraries = list(opening._open_libraries.values())
    opening._open_libraries.clear()
    for library in libraries:
        library.close()


def we(*args: object, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    """`we ARGS...` with `input` on stdin (not a terminal); stdout and stderr kept apart."""
    return CliRunner().invoke(
        _ThroughRun(), [str(a) for a in args], input=input, env=env, catch_exceptions=False
    )


def one_error_line(result: Result) -> str:
    """The single `we: error: ...` line of a failed command (and nothing else on stderr)."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"expected one error line, got: {result.stderr!r}"
    assert lines[0].startswith("we: error: "), lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]


def read_log(path: pathlib.Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def rejections(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("rejected")]


NEW3 = ["--players", "Ann,Bob,Cat", "--dealer", "Cat", "--lists", "Ann=RGY,Bob=BGO,Cat=RBO"]
"""A three-player table: Ann starts party 1 (left of the dealer Cat), Bob party 2, Cat party 3."""


def read_terminal(leader: int) -> bytes:
    """Everything shown on a pty, read from its `leader` end (then closed) once every process
    writing to it has ended or closed it."""
    import os

    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end is closed: all of it is read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown


def sealed(path: pathlib.Path, objs: list[dict[str, Any]]) -> pathlib.Path:
    """The events `objs` (game, at, type, data) written to `path` as a log, chained as we chain them."""
    lines, prev = [], None
    for seq, obj in enumerate(objs, start=1):
        envelope = seal(obj["game"], seq, obj["at"], obj["type"], obj["data"], prev)
        prev = envelope.hash
        lines.append(envelope.to_line())
    path.write_bytes(b"".join(lines))
    return path
