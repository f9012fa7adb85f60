"""Progress bars (rich, on stderr) while `we analyse`, `we simulate --report` and `we replay
--html --analyse` work: shown when stderr is a terminal, and nothing of them, nor anything else
extra, when it is piped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from weharness import ROOT, read_terminal

NIGHT_3P = ROOT / "replays" / "game-night-3p.jsonl"


def commands(tmp: Path) -> list[tuple[list[str], str]]:
    return [
        (["analyse", str(NIGHT_3P), "--rollouts", "3", "--jobs", "1"], "rolling out"),
        (["simulate", "--report", "-k", "40", "-n", "3", "--seed", "bars"], "simulating"),
        (["replay", str(NIGHT_3P), "--html", str(tmp / "night.html"), "--force", "--analyse"], "rolling out"),
    ]


def run(args: list[str], stderr_terminal: bool) -> tuple[int, bytes, bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS="100")
    if not stderr_terminal:
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True, timeout=120
        )
        return done.returncode, done.stdout, done.stderr
    leader, follower = os.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=follower
    ) as child:
        os.close(follower)
        out = child.stdout.read()  # type: ignore[union-attr]
        child.wait(timeout=120)
    return child.returncode, out, read_terminal(leader)


@pytest.mark.parametrize("index", range(3), ids=["analyse", "simulate-report", "replay-html-analyse"])
def test_a_bar_on_a_terminal_and_nothing_extra_when_piped(tmp_path: Path, index: int) -> None:
    args, label = commands(tmp_path)[index]
    code, piped_out, piped_err = run(args, stderr_terminal=False)
    assert code == 0, piped_err
    # No bar, no escape codes: what stderr says piped is only what the command has to say.
    assert label.encode() not in piped_err and b"\x1b" not in piped_err
    assert piped_err in (b"", b"Wrote " + str(tmp_path / "night.html").encode() + b"\n")
    code, out, terminal = run(args, stderr_terminal=True)
    assert code == 0
    assert label.encode() in terminal
    # What goes to stdout does not depend on whether stderr is a terminal.
    assert out == piped_out
