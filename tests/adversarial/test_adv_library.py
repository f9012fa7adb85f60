"""Library round trips and repair on adversarial logs, through the real command.

- Valid logs (however they are laid out) import and export back with the same fingerprint and
  the same parsed events (so the same hashes), and the export audits exactly like the original.
- Every invalid case is refused by `we import`, naming its first wrong line, and nothing of it
  is stored.
- A torn log is repaired by `we repair`: a backup of the file as it was, every acknowledged
  (newline-terminated) line kept byte for byte, and the result audits OK.
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from typing import Any

import click
import pytest
from advcases import all_cases, base_envs, lines_of
from advgen import Case, Table, chain, fingerprint, slug, text_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = all_cases()


def we(*args: object, check: bool = False) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if check:
        assert out.returncode == 0, out.stderr
    return out


class _ThroughRun(click.Command):
    """`we` in-process, exactly as `python -m cli.main` runs it: sys.exit(run(we))."""

    def __init__(self) -> None:
        super().__init__("we")

    def main(self, args: Any = None, prog_name: Any = None, **extra: Any) -> Any:  # type: ignore[override]
        from cli.exits import run
        from cli.main import we as group

        saved = sys.argv
        sys.argv = ["we", *(args or [])]
        try:
            code = run(group)
        finally:
            sys.argv = saved
        sys.exit(code)


def we_fast(*args: object, check: bool = False) -> Any:
    """The same command in this process (no interpreter start-up): for the many small calls."""
    from click.testing import CliRunner

    result = CliRunner().invoke(_ThroughRun(), [str(a) for a in args], catch_exceptions=False)
    if check:
        assert result.exit_code == 0, result.stderr
    result.returncode = result.exit_code
    return result


def audit(*paths: pathlib.Path) -> list[dict[str, Any]]:
    out = we("audit", "--json", *paths)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def audit_fast(*paths: pathlib.Path) -> list[dict[str, Any]]:
    out = we_fast("audit", "--json", *paths)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


ROUND_TRIP = [
    c
    for c in CASES
    if c.ok
    and (
        c.name.startswith(
            (
                "format/",
                "valid/full-",
                "valid/void-",
                "valid/names-",
                "valid/tie-",
                "valid/note-",
                "valid/lowercase-",
                "valid/game-id-64",
                "valid/house-max-steals-1",
                "valid/in-progress-first",
            )
        )
    )
]


def write(folder: pathlib.Path, cases: list[Case]) -> list[pathlib.Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, case in enumerate(cases):
        path = folder / f"{i:04d}-{slug(case.name)[:80]}.jsonl"
        path.write_bytes(case.content)
        paths.append(path)
    return paths


def test_round_trip_keeps_fingerprints(tmp_path: pathlib.Path) -> None:
    assert len(ROUND_TRIP) >= 40
    assert len({c.game for c in ROUND_TRIP}) == len(ROUND_TRIP)
    db = tmp_path / "lib.db"
    paths = write(tmp_path / "in", ROUND_TRIP)
    imported = we("import", tmp_path / "in", "--db", db)
    assert imported.returncode == 0, imported.stderr
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    exported = []
    for i, case in enumerate(ROUND_TRIP):
        target = out_dir / f"{case.game}.jsonl"
        run = we if i == 0 else we_fast  # the real command once, then in-process
        out = run("export", case.game, "-o", target, "--db", db)
        assert out.returncode == 0, f"{case.name}: {out.stderr}"
        exported.append(target)
    before = {r["source"]: r for r in audit(*paths)}
    after = audit(*exported)
    for case, path, target, result in zip(ROUND_TRIP, paths, exported, after, strict=True):
        original = before[str(path)]
        assert result["ok"], (case.name, result["problems"][:2])
        assert result["fingerprint"] == case.fingerprint == original["fingerprint"], case.name
        assert result["events"] == case.events, case.name
        assert result["complete"] == case.complete, case.name
        assert result.get("scores") == original.get("scores"), case.name
        assert result.get("winners") == original.get("winners"), case.name
        # Same events, field for field (so the same hashes), and written as the spec says.
        raw = target.read_bytes()
        assert raw.endswith(b"\n")
        parsed = [json.loads(line) for line in raw.decode("utf-8").split("\n")[:-1]]
        assert parsed == case.envs, case.name
    # Importing the exports again changes nothing.
    again = we_fast("import", *exported, "--db", db)
    assert again.returncode == 0, again.stderr


INVALID = [c for c in CASES if not c.ok]


def test_import_refuses_every_invalid_log(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "lib.db"
    paths = write(tmp_path / "bad", INVALID)
    out = we("import", *paths, "--db", db)
    assert out.returncode == 1
    refused = [line for line in out.stderr.splitlines() if "refused" in line]
    wrong = []
    for case, path in zip(INVALID, paths, strict=True):
        line = next((x for x in refused if f"{path}:" in x), "")
        match = re.search(r"line (\d+)", line)
        if not line:
            wrong.append(f"{case.name}: not refused (expected line {case.line}, {case.kind})")
        elif not match or int(match.group(1)) != case.line:
            wrong.append(f"{case.name}: expected line {case.line}, got {line!r}")
    assert not wrong, "\n".join(wrong)
    listing = we("games", "--db", db)
    assert "adv-base" not in listing.stdout
    assert re.search(r"\b[1-9]\d* games? in\b", listing.stdout) is None, listing.stdout


def test_import_keeps_good_logs_beside_refused_ones(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "lib.db"
    good = Table(3, seed=501).play()
    envs = chain(good.events, "good-beside-bad")
    edited = [json.loads(json.dumps(e)) for e in envs]
    edited[9]["data"]["party"] = 2
    (tmp_path / "a-good.jsonl").write_text(text_of(envs), encoding="utf-8")
    (tmp_path / "b-edited.jsonl").write_text(text_of(edited), encoding="utf-8")
    out = we_fast("import", tmp_path / "a-good.jsonl", tmp_path / "b-edited.jsonl", "--db", db)
    assert out.returncode == 1
    exported = tmp_path / "exported.jsonl"
    we_fast("export", "good-beside-bad", "-o", exported, "--db", db, check=True)
    assert [json.loads(x) for x in exported.read_text(encoding="utf-8").splitlines()] == envs


def test_longer_version_extends_and_fork_is_refused(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "lib.db"
    t = Table(3, seed=502).play()
    envs = chain(t.events, "growing")
    (tmp_path / "prefix.jsonl").write_text(text_of(envs[:20]), encoding="utf-8")
    (tmp_path / "full.jsonl").write_text(text_of(envs), encoding="utf-8")
    fork = chain([*t.events[:20], ("note", {"text": "a different line 21"})], "growing")
    (tmp_path / "fork.jsonl").write_text(text_of(fork), encoding="utf-8")
    we_fast("import", tmp_path / "prefix.jsonl", "--db", db, check=True)
    we_fast("import", tmp_path / "full.jsonl", "--db", db, check=True)
    assert we_fast("import", tmp_path / "fork.jsonl", "--db", db).returncode == 1
    out = tmp_path / "out.jsonl"
    we_fast("export", "growing", "-o", out, "--db", db, check=True)
    assert audit_fast(out)[0]["fingerprint"] == fingerprint(envs)


# --- repair --------------------------------------------------------------------------------------

ENVS = base_envs("adv-repair")
LINES = lines_of(ENVS)


@pytest.mark.parametrize("tail", ["complete-json", "half-line", "one-char", "with-cr", "spaces"])
@pytest.mark.parametrize("crlf", [False, True])
def test_repair_torn_log(tmp_path: pathlib.Path, tail: str, crlf: bool) -> None:
    lines = [x.replace("\n", "\r\n") for x in LINES] if crlf else LINES
    last = lines[-1].rstrip("\r\n")
    torn = {
        "complete-json": last,
        "half-line": last[: len(last) // 2],
        "one-char": "{",
        "with-cr": last + "\r",
        "spaces": "   ",
    }[tail]
    acknowledged = "".join(lines[:-1]).encode("utf-8")
    original = acknowledged + torn.encode("utf-8")
    log = tmp_path / "game.jsonl"
    log.write_bytes(original)
    before = audit_fast(log)[0]
    assert (before["ok"], before["problems"][0]["seq"], before["problems"][0]["kind"]) == (
        False,
        len(LINES),
        "integrity",
    )
    assert we_fast("import", log, "--db", tmp_path / "lib.db").returncode == 1
    real = tail == "complete-json" and not crlf  # the real command once, then in-process
    out = (we if real else we_fast)("repair", log)
    assert out.returncode == 0, out.stderr
    backups = [p for p in tmp_path.iterdir() if p != log and p.name.startswith("game.jsonl")]
    assert any(p.read_bytes() == original for p in backups), "no backup of the torn file"
    assert log.read_bytes() == acknowledged, "repair must keep every acknowledged line byte for byte"
    after = audit_fast(log)[0]
    assert after["ok"] and after["events"] == len(LINES) - 1 and not after["complete"], after["problems"][:2]
    assert after["fingerprint"] == fingerprint(ENVS[:-1])
    we_fast("import", log, "--db", tmp_path / "lib.db", check=True)
    # Appending the lost event again completes the game with the original fingerprint.
    with log.open("ab") as f:
        f.write(LINES[-1].encode("utf-8"))
    final = audit_fast(log)[0]
    assert final["ok"] and final["complete"] and final["fingerprint"] == fingerprint(ENVS)


def test_repair_leaves_a_sound_log_alone(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "game.jsonl"
    content = "".join(LINES).encode("utf-8")
    log.write_bytes(content)
    we_fast("repair", log)
    assert log.read_bytes() == content


@pytest.mark.parametrize("damage", ["edited-middle", "blank-middle", "garbage-middle"])
def test_repair_refuses_damage_before_the_tail(tmp_path: pathlib.Path, damage: str) -> None:
    lines = LINES[:]
    k = 10
    if damage == "edited-middle":
        lines[k - 1] = lines[k - 1].replace('"party": 1', '"party": 2', 1)
    elif damage == "blank-middle":
        lines.insert(k - 1, "\n")
    else:
        lines[k - 1] = "garbage\n"
    content = ("".join(lines[:-1]) + lines[-1].rstrip("\n")[:30]).encode("utf-8")
    log = tmp_path / "game.jsonl"
    log.write_bytes(content)
    out = we_fast("repair", log)
    assert out.returncode != 0
    assert log.read_bytes() == content, "a log damaged before its tail must be left untouched"


def test_second_repair_keeps_a_backup_of_each_torn_state(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "game.jsonl"
    first = ("".join(LINES[:-2]) + LINES[-2][:20]).encode("utf-8")
    log.write_bytes(first)
    we_fast("repair", log, check=True)
    second = log.read_bytes() + LINES[-2].encode("utf-8") + LINES[-1][:25].encode("utf-8")
    log.write_bytes(second)
    we_fast("repair", log, check=True)
    assert log.read_bytes() == "".join(LINES[:-1]).encode("utf-8")
    backups = {p.read_bytes() for p in tmp_path.iterdir() if p != log}
    assert second in backups
