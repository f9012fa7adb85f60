"""`we audit`: verdicts, problems by line and kind, scores, claims, arguments, exit statuses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from weharness import ROOT, VECTORS, one_error_line, read_terminal, we
from weharness import sealed as write_resealed  # what a careful forger, or a buggy writer, produces

EXPECTED = json.loads((VECTORS / "expected.json").read_text(encoding="utf-8"))
FOUR = VECTORS / "four-players-dealt.jsonl"
ONE = VECTORS / "one-party.jsonl"
EDITED = VECTORS / "four-players-edited.jsonl"


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def envelopes(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def game(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {"game": "hand-made", "at": f"2026-11-26T19:00:{seq:02d}Z", "type": kind, "data": data}
        for seq, (kind, data) in enumerate(events, start=1)
    ]


START = [
    (
        "game_started",
        {
            "players": ["Ann", "Ben", "Cat"],
            "dealer": "Cat",
            "ruleset": "white-elephant-2011",
            "options": {"attic_sizes": {"3": 1}},
        },
    ),
    (
        "gift_lists_dealt",
        {
            "lists": {
                "Ann": ["red", "yellow", "green"],
                "Ben": ["red", "orange", "blue"],
                "Cat": ["orange", "yellow", "blue"],
            }
        },
    ),
    ("gift_brought", {"party": 1, "player": "Ann", "card": None}),
    ("gift_brought", {"party": 1, "player": "Ben", "card": None}),
    ("gift_brought", {"party": 1, "player": "Cat", "card": None}),
    ("gift_opened", {"party": 1, "player": "Ann", "card": "R7"}),  # line 6: Ann starts (left of Cat)
]


# --- the vectors ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_json_agrees_with_the_vectors(name):
    expected = EXPECTED[name]
    result = we("audit", "--json", VECTORS / name)
    assert result.exit_code == (0 if expected["ok"] else 1), result.stderr
    (report,) = json_lines(result.stdout)
    assert report["ok"] is expected["ok"]
    assert report["source"] == str(VECTORS / name)
    if expected["ok"]:
        for key in ("complete", "events", "fingerprint", "scores", "winners"):
            assert report[key] == expected[key], key
        assert report["problems"] == []
    else:
        first = report["problems"][0]
        assert (first["seq"], first["kind"]) == (expected["first_wrong_line"], expected["kind"])
        assert "scores" not in report and "winners" not in report
    assert report["claims"] == []


def test_json_keys_and_problem_order():
    (report,) = json_lines(we("audit", "--json", EDITED).stdout)
    assert list(report) == [
        "game",
        "source",
        "ok",
        "events",
        "fingerprint",
        "stored_fingerprint",
        "complete",
        "problems",
        "problems_omitted",
        "warnings",
        "claims",
    ]
    assert report["game"] == "vector-two"
    lines = [(p["seq"], p["kind"]) for p in report["problems"]]
    assert lines == sorted(lines, key=lambda p: (p[0], p[1] != "integrity"))
    assert lines[0] == (20, "integrity")
    assert all(set(p) == {"seq", "kind", "message"} for p in report["problems"])


def test_text_report_of_a_clean_game():
    result = we("audit", FOUR)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"OK  {FOUR}")
    assert "fingerprint 533f2d2596f7" in out
    assert "87 lines, complete" in out
    assert "red R8 + orange O8 + blue B6" in out  # Ann's score, card by card
    assert "Tie: Ann, Ben share the win." in out
    assert "\x1b[" not in out  # piped: plain text


def test_text_report_of_the_edited_vector_names_the_line_and_kind():
    result = we("audit", EDITED)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"FAILED  {EDITED}")
    assert "line 20: integrity: `hash` does not match" in result.stdout
    assert "untrusted" in result.stdout
    assert result.stderr == ""


def test_a_broken_chain_proves_no_fingerprint():
    # The edit was not re-hashed, so the last line still claims the honest log's hash: a host
    # comparing that value with the one noted at the table would accept the tampered log.
    honest = EXPECTED["four-players-dealt.jsonl"]["fingerprint"]
    text = we("audit", EDITED).stdout
    assert "fingerprint not proven: the chain breaks at line 20" in text
    assert honest not in text
    (report,) = json_lines(we("audit", "--json", EDITED).stdout)
    assert report["fingerprint"] is None
    assert report["stored_fingerprint"] == honest
    (clean,) = json_lines(we("audit", "--json", FOUR).stdout)
    assert clean["fingerprint"] == clean["stored_fingerprint"] == honest


def test_many_games_print_a_line_each_and_a_summary(tmp_path):
    for path in (ONE, FOUR, EDITED):
        shutil.copy(path, tmp_path / path.name)
    result = we("audit", tmp_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"OK  {tmp_path / FOUR.name}  (game vector-two)  fingerprint 533f2d2596f7, 87 lines, complete;"
        " Tie: Ann, Ben share the win.",
        f"FAILED  {tmp_path / EDITED.name}  (game vector-two)  fingerprint not proven: the chain breaks"
        " at line 20, 87 lines, 2 problems",
        lines[2],
        f"  and 1 more: `we audit {tmp_path / EDITED.name}` lists them",
        lines[4],
        "3 games audited: 2 OK, 1 FAILED.",
    ]
    assert lines[2].startswith("  line 20: integrity: `hash` does not match")
    assert lines[4].startswith(f"OK  {tmp_path / ONE.name}  ")
    assert "Final scores" not in result.stdout and "counts" not in result.stdout


def test_tables_print_every_games_whole_report_and_one_game_always_does(tmp_path):
    for path in (ONE, FOUR):
        shutil.copy(path, tmp_path / path.name)
    alone = we("audit", tmp_path / FOUR.name).stdout
    assert "Final scores" in alone
    assert alone.splitlines()[1] == "  fingerprint 533f2d2596f7, 87 lines, complete"
    whole = we("audit", "--tables", tmp_path).stdout
    assert whole.count("Final scores") == 2
    assert alone in whole  # each game's report as it prints alone, then the summary
    assert whole.endswith("2 games audited: 2 OK, 0 FAILED.\n")


def test_exit_status_is_1_if_any_game_fails():
    assert we("audit", ONE, FOUR).exit_code == 0
    result = we("audit", ONE, EDITED, FOUR)
    assert result.exit_code == 1
    assert "3 games audited: 2 OK, 1 FAILED." in result.stdout


# --- arguments -----------------------------------------------------------------------


def test_a_directory_means_every_jsonl_in_it_sorted(tmp_path):
    for path in (ONE, FOUR, EDITED):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "notes.txt").write_text("not a log")
    reports = json_lines(we("audit", "--json", tmp_path).stdout)
    assert [Path(r["source"]).name for r in reports] == [
        "four-players-dealt.jsonl",
        "four-players-edited.jsonl",
        "one-party.jsonl",
    ]


def test_an_empty_directory_is_refused(tmp_path):
    result = we("audit", tmp_path)
    assert result.exit_code == 1
    assert "no *.jsonl logs" in one_error_line(result)


def test_a_library_id(tmp_path):
    from eventstore.sqlite import Library

    db = tmp_path / "games.db"
    with Library(db) as library:
        library.import_log(FOUR)
    result = we("audit", "--json", "--db", db, "vector-two")
    assert result.exit_code == 0, result.stderr
    (report,) = json_lines(result.stdout)
    assert report["source"] == "vector-two"
    assert report["fingerprint"] == "533f2d2596f7"
    assert report["scores"] == EXPECTED["four-players-dealt.jsonl"]["scores"]
    # $WE_DB is the default library
    assert we("audit", "vector-two", env={"WE_DB": str(db)}).exit_code == 0


def test_a_nonexistent_path_is_one_line_and_exit_1(tmp_path):
    result = we("audit", tmp_path / "missing.jsonl", "--db", tmp_path / "none.db")
    assert result.exit_code == 1
    assert "missing.jsonl" in one_error_line(result)
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("command", "argument", "error"),
    [
        ("score", "DIR", "is a directory, not a game log"),
        ("audit", "no-such-game", "no game 'no-such-game': not a file, and not a game id in the library"),
        ("audit", "vector-one", "no game 'vector-one': not a file, and not a game id in the library"),
        ("audit", "no/such.jsonl", "no such file: no/such.jsonl"),
        ("audit", "", "no such file: "),
    ],
)
def test_what_a_game_argument_that_is_no_game_is_told(tmp_path, command, argument, error):
    from eventstore.sqlite import Library

    db = tmp_path / "games.db"
    with Library(db) as library:
        library.import_log(FOUR)
    text = str(tmp_path) if argument == "DIR" else argument
    for library_args in ([], ["--db", db]):  # a library that exists, and one that does not
        result = we(command, text, *(library_args or ["--db", tmp_path / "none.db"]))
        assert result.exit_code == 1
        assert error in one_error_line(result)
    assert not (tmp_path / "none.db").exists()


def test_a_usage_error_is_exit_2():
    assert we("audit").exit_code == 2
    assert we("audit", ONE, "--claim", "Ben").exit_code == 2
    assert we("audit", ONE, "--claim", "Ben=many").exit_code == 2
    assert we("audit", ONE, "--jobs", "-1").exit_code == 2


def test_the_real_command_never_shows_a_traceback(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "audit",
            str(tmp_path / "nope.jsonl"),
            "--db",
            str(tmp_path / "x.db"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("we: error: ")
    failed = subprocess.run(
        [sys.executable, "-m", "cli.main", "audit", "--json", str(EDITED)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert failed.returncode == 1 and failed.stderr == ""
    assert json.loads(failed.stdout)["problems"][0]["seq"] == 20


# --- kinds of problem ----------------------------------------------------------------


def first_problem(path: Path) -> dict[str, Any]:
    result = we("audit", "--json", path)
    assert result.exit_code == 1
    (report,) = json_lines(result.stdout)
    assert report["ok"] is False
    return report["problems"][0]


def test_an_unknown_payload_field_rehashed_is_schema(tmp_path):
    objs = envelopes(ONE)
    objs[7]["data"]["mood"] = "cheerful"  # line 8, hashes recomputed: the chain is fine
    problem = first_problem(write_resealed(tmp_path / "field.jsonl", objs))
    assert (problem["seq"], problem["kind"]) == (8, "schema")
    assert "mood" in problem["message"]


def test_a_bad_card_rehashed_is_schema(tmp_path):
    objs = envelopes(FOUR)
    line = next(i for i, o in enumerate(objs) if o["type"] == "gift_opened")
    objs[line]["data"]["card"] = "P7"
    problem = first_problem(write_resealed(tmp_path / "card.jsonl", objs))
    assert (problem["seq"], problem["kind"]) == (line + 1, "schema")


def test_stealing_a_locked_gift_rehashed_is_rules_at_that_line(tmp_path):
    events = [
        *START,
        ("gift_stolen", {"party": 1, "player": "Ben", "from": "Ann", "card": "R7"}),  # 7: R7 now locked
        ("gift_stolen", {"party": 1, "player": "Ann", "from": "Ben", "card": "R7"}),  # 8: straight back
        ("gift_opened", {"party": 1, "player": "Ann", "card": "Y4"}),
    ]
    problem = first_problem(write_resealed(tmp_path / "locked.jsonl", game(events)))
    assert (problem["seq"], problem["kind"]) == (8, "rules")
    assert "R7" in problem["message"]


def test_an_unfinished_clean_game_is_ok_without_scores(tmp_path):
    path = write_resealed(tmp_path / "half.jsonl", game(START))
    result = we("audit", "--json", path)
    assert result.exit_code == 0
    (report,) = json_lines(result.stdout)
    assert report["ok"] is True and report["complete"] is False
    assert "scores" not in report and "winners" not in report
    assert "not over" in we("audit", path).stdout


def test_a_torn_last_line_is_integrity_at_that_line(tmp_path):
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(ONE.read_bytes()[:-1])
    problem = first_problem(torn)
    assert (problem["seq"], problem["kind"]) == (13, "integrity")
    assert "torn" in problem["message"]


def test_an_empty_file_is_integrity_at_line_1(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    result = we("audit", "--json", empty)
    assert result.exit_code == 1
    (report,) = json_lines(result.stdout)
    (problem,) = report["problems"]
    assert (problem["seq"], problem["kind"]) == (1, "integrity")
    assert "empty" in problem["message"]
    assert report["fingerprint"] is None and report["game"] is None and report["events"] == 0


def test_a_blank_line_is_integrity_at_that_line(tmp_path):
    lines = ONE.read_bytes().splitlines(keepends=True)
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"".join([*lines[:4], b"\n", *lines[4:]]))
    problem = first_problem(blank)
    assert (problem["seq"], problem["kind"]) == (5, "integrity")
    assert "blank" in problem["message"]


# --- claims --------------------------------------------------------------------------


def test_a_true_claim_holds_and_exits_0():
    result = we("audit", "--json", FOUR, "--claim", "Ann=22", "--claim", "ben=22")
    assert result.exit_code == 0, result.stdout
    (report,) = json_lines(result.stdout)
    assert [(c["player"], c["claimed"], c["actual"], c["holds"]) for c in report["claims"]] == [
        ("Ann", 22, 22, True),
        ("Ben", 22, 22, True),
    ]


def test_a_false_claim_is_explained_card_by_card_and_exits_1():
    result = we("audit", "--json", FOUR, "--claim", "Ben=25")
    assert result.exit_code == 1
    (report,) = json_lines(result.stdout)
    assert report["ok"] is True  # the game is fine; the claim is not
    (claim,) = report["claims"]
    assert set(claim) == {"player", "claimed", "actual", "holds", "explanation"}
    assert (claim["claimed"], claim["actual"], claim["holds"]) == (25, 22, False)
    text = claim["explanation"]
    assert text.startswith("Ben claims 25 but scores 22: ")
    # every list colour: the card that counts, and what the claim would need there
    assert "red counts R5" in text and "yellow counts Y9" in text and "blue counts B8" in text
    assert "Ben would need R8 as red (R8 in place of R5, and R8 was kept by Ann in party 1" in text
    assert "B10 was stolen from Ben in party 1 and kept by Cat" in text
    assert "yellow (Y12)" in text and "would need a card above 10: no such card" in text


def test_a_claim_in_text_mode():
    result = we("audit", FOUR, "--claim", "Ben=20")
    assert result.exit_code == 1
    assert "claim Ben=20 fails: Ben claims 20 but scores 22" in result.stdout
    assert "2 more than claimed" in result.stdout


def test_claims_on_an_unknown_player_or_a_broken_game_fail():
    (report,) = json_lines(we("audit", "--json", FOUR, "--claim", "Zed=3").stdout)
    assert report["claims"][0]["holds"] is False and "not a player" in report["claims"][0]["explanation"]
    result = we("audit", "--json", EDITED, "--claim", "Ann=22")
    (report,) = json_lines(result.stdout)
    assert report["claims"][0]["holds"] is False and report["claims"][0]["actual"] is None


def test_a_claim_respects_voided_events(tmp_path):
    # Ben opens Y9, it is voided (typo), he opens Y4 instead: his score is 4, and the story of
    # the cards must not think he ever held Y9.
    events = [
        *START,
        ("gift_opened", {"party": 1, "player": "Ben", "card": "Y9"}),
        ("event_voided", {"voids": 7, "reason": "typo"}),
        ("gift_opened", {"party": 1, "player": "Ben", "card": "Y4"}),
        ("gift_opened", {"party": 1, "player": "Cat", "card": "B2"}),
    ]
    path = write_resealed(tmp_path / "void.jsonl", game(events))
    (report,) = json_lines(we("audit", "--json", path, "--claim", "Cat=11").stdout)
    assert report["ok"] and report["complete"]
    claim = report["claims"][0]
    assert claim["actual"] == 2
    text = claim["explanation"]
    assert "Cat would need any one of" in text
    assert "Y9 as yellow (Y9 in place of nothing, and Y9 never came into play)" in text


# --- parallel ------------------------------------------------------------------------


def test_jobs_give_the_same_output_as_serial(tmp_path):
    for index in range(3):
        for path in (ONE, FOUR, EDITED):
            shutil.copy(path, tmp_path / f"{index}-{path.name}")
    args = [tmp_path, ONE, "--claim", "Ben=4"]
    for mode in (["--json"], [], ["--tables"]):
        serial = we("audit", *mode, *args)
        parallel = we("audit", *mode, "--jobs", "3", *args)
        assert parallel.exit_code == serial.exit_code == 1
        assert parallel.stdout == serial.stdout
        assert len(serial.stdout) > 1000


def test_a_game_argument_that_cannot_be_looked_at_says_why(monkeypatch):
    import os

    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path).endswith("locked.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    result = we("audit", "locked.jsonl", ONE)
    assert result.exit_code == 1
    assert one_error_line(result) == "we: error: locked.jsonl: cannot read: Permission denied"
    assert we("score", f"{ONE}/").exit_code == 0  # a trailing slash still names the file


def test_a_log_written_now_has_microseconds_and_audits_clean_on_the_fast_path(tmp_path, monkeypatch):
    """Writers write `at` with microseconds; the integrity check judges such an `at` by its fast
    path (a minute already seen, then the seconds and fraction), not by the regex every line."""
    import re

    from weharness import NEW3, read_log

    from eventstore import integrity

    log = tmp_path / "now.jsonl"
    recorded = we("record", log, *NEW3, input="open R7\nbob steal ann\nundo\nbob open b4\n")
    assert recorded.exit_code == 0, recorded.stderr
    lines = read_log(log)
    assert len(lines) >= 8
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", e["at"]) for e in lines), lines
    judged_slowly: list[str] = []
    slow = integrity.valid_at
    monkeypatch.setattr(integrity, "valid_at", lambda at: judged_slowly.append(at) or slow(at))
    result = we("audit", "--json", log)
    assert result.exit_code == 0, result.stdout + result.stderr
    (report,) = json_lines(result.stdout)
    assert report["ok"] and report["problems"] == []
    # At most the first `at` of each minute goes the slow way.
    assert len(judged_slowly) <= len({e["at"][:17] for e in lines}), judged_slowly


def test_a_true_claim_in_text_mode_says_it_holds_once():
    result = we("audit", FOUR, "--claim", "Ann=22")
    assert result.exit_code == 0, result.stdout
    (line,) = [x for x in result.stdout.splitlines() if "claim Ann=22" in x]
    assert line.strip().startswith("claim Ann=22 holds: ") and line.count("holds") == 1, line


def _audit_on_a_terminal(args: list[str], **env_changes: str) -> bytes:
    """What `we audit ARGS` shows on a terminal (a pty as stdout) 40 columns wide: narrower than
    a scores table, which a terminal gets wrapped (and a pipe as wide as it needs)."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS="40", **env_changes)
    leader, follower = os.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "cli.main", "audit", *args],
        cwd=ROOT,
        env=env,
        stdout=follower,
        stderr=subprocess.PIPE,
    ) as child:
        os.close(follower)
        shown = read_terminal(leader)
        child.wait(timeout=120)
    assert child.returncode == 1, child.stderr.read()  # type: ignore[union-attr]
    return shown


@pytest.mark.parametrize("plain", [False, True], ids=["colours", "NO_COLOR"])
def test_reports_rendered_by_workers_show_on_a_terminal_as_the_commands_own(tmp_path, plain) -> None:
    """With --jobs the workers lay out the text reports (rich's tables cost ten audits each),
    for a terminal they are not attached to: its width and colours, as the command itself would."""
    for index in range(3):
        for path in (ONE, FOUR, EDITED):
            shutil.copy(path, tmp_path / f"{index}-{path.name}")
    env = {"NO_COLOR": "1"} if plain else {}
    serial = _audit_on_a_terminal([str(tmp_path), "--tables", "--jobs", "1"], **env)
    parallel = _audit_on_a_terminal([str(tmp_path), "--tables", "--jobs", "3"], **env)
    assert parallel == serial
    lines = _audit_on_a_terminal([str(tmp_path), "--jobs", "3"], **env)
    assert lines == _audit_on_a_terminal([str(tmp_path), "--jobs", "1"], **env)
    assert b"Final scores" not in lines and lines.count(b"FAILED") == 4
    assert serial.count(b"Final scores") == 6 and serial.count(b"FAILED") == 4  # 3 edited, and the summary
    assert (b"\x1b[" in serial) is not plain
