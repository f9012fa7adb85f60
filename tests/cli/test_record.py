"""`we record FILE`: setting up a new game, and every way a line or a file is refused."""

from __future__ import annotations

import json
import shutil

import pytest
from freezegun import freeze_time
from weharness import NEW3, VECTORS, one_error_line, read_log, rejections, we

from cli.opening import read_game
from eventstore.integrity import verify_log
from service.reading import GameSource

# --- a new game ------------------------------------------------------------------------------


@freeze_time("2026-11-26 19:00:05")
def test_new_game_writes_the_set_up_with_house_rules_and_timestamps(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we(
        "record",
        log,
        *NEW3,
        "--title",
        "Thanksgiving 2026",
        "--attic-size",
        "2",
        "--max-steals",
        "2",
        input="",
    )
    assert result.exit_code == 0, result.stderr
    lines = read_log(log)
    assert [e["type"] for e in lines] == ["game_started", "gift_lists_dealt"]
    assert {e["game"] for e in lines} == {"thanksgiving-2026"}
    assert {e["at"] for e in lines} == {"2026-11-26T19:00:05.000000Z"}
    assert lines[0]["data"] == {
        "players": ["Ann", "Bob", "Cat"],
        "dealer": "Cat",
        "ruleset": "white-elephant-2011",
        "options": {"attic_sizes": {"3": 2}, "max_steals_per_gift": 2},
        "title": "Thanksgiving 2026",
    }
    assert lines[1]["data"]["lists"] == {
        "Ann": ["red", "green", "yellow"],
        "Bob": ["blue", "green", "orange"],
        "Cat": ["red", "blue", "orange"],
    }
    assert verify_log(log).ok
    assert "Recording game thanksgiving-2026" in result.stdout
    assert "Party 1 of 2 \u00b7 Ann starts" in result.stdout
    # EOF is quit: the last word is where the file stands, with its fingerprint.
    assert f"Saved: 2 events in {log}" in result.stdout
    assert lines[1]["hash"][7:19] in result.stdout


@freeze_time("2026-12-24 18:30:00")
def test_game_id_defaults_to_the_date_and_names_are_written_as_typed_in_players(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we(
        "record",
        log,
        "--players",
        "Ann, Bob ,Cat",
        "--dealer",
        "bo",
        "--lists",
        "ann=red green yellow;BOB=b,g,o;c=RBO",
        input="",
    )
    assert result.exit_code == 0, result.stderr
    first, lists = read_log(log)
    assert first["game"] == "game-2026-12-24-183000"
    assert first["data"]["players"] == ["Ann", "Bob", "Cat"]
    assert first["data"]["dealer"] == "Bob"
    assert "title" not in first["data"] and first["data"]["options"] == {}
    assert lists["data"]["lists"]["Bob"] == ["blue", "green", "orange"]


def test_explicit_game_id(tmp_path):
    log = tmp_path / "g.jsonl"
    assert we("record", log, *NEW3, "--game-id", "friday-night", input="").exit_code == 0
    assert read_log(log)[0]["game"] == "friday-night"


@pytest.mark.parametrize("missing", ["--players", "--dealer", "--lists"])
def test_a_missing_flag_off_a_terminal_is_a_usage_error(tmp_path, missing):
    args = list(NEW3)
    at = args.index(missing)
    del args[at : at + 2]
    log = tmp_path / "g.jsonl"
    result = we("record", log, *args, input="open R7\n")
    assert result.exit_code == 2
    assert f"needs {missing}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not log.exists()


def test_new_game_flags_on_an_existing_file_are_a_usage_error(tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(VECTORS / "one-party.jsonl", log)
    before = log.read_bytes()
    result = we("record", log, "--title", "again", input="")
    assert result.exit_code == 2
    assert "already exists" in result.stderr and "--title" in result.stderr
    assert log.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lists", "Ann=RGY,Dan=BGO,Cat=RBO"], "--lists: 'Dan' is not a player here (Ann, Bob, Cat)"),
        (["--lists", "Ann=RGY,Bob=RGY,Cat=RBO"], "--lists: Ann and Bob cannot hold the same gift list"),
        (["--lists", "Ann=RGY,ann=BGO,Cat=RBO"], "--lists: Ann is given twice"),
        (["--lists", "Ann=RGY,Bob=BGO"], "--lists: no gift list was dealt to Cat"),
        (["--lists", "Ann=RGX,Bob=BGO,Cat=RBO"], "--lists: 'X' is not a colour"),
        (["--lists", "Ann=RRG,Bob=BGO,Cat=RBO"], "is not a gift list: give three different colours"),
        (["--dealer", "Zed"], "--dealer: 'Zed' is not a player here"),
        (["--players", "Ann,Bob"], "--players: White Elephant is for 3 to 7 players, not 2"),
        (["--players", "Ann,Bob,ann"], "two players are called 'ann'"),
        (["--attic-size", "20"], "3 players with 20 cards each need 60 cards"),
        (
            ["--attics", "Ann=R1 R2,Bob=B1 B2,Cat=G1 G2"],
            "Ann's attic has 2 cards; with 3 players each attic has 9",
        ),
        (["--attics", "Ann=R1 P2"], "'P2' is not a card"),
    ],
)
def test_set_up_refused_by_the_rules_is_one_usage_line_and_exit_2(tmp_path, args, message):
    """A flag whose value cannot start a game is a usage error, exit 2, as a missing flag is."""
    base = dict(zip(NEW3[::2], NEW3[1::2], strict=True))
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    log = tmp_path / "g.jsonl"
    result = we("record", log, *[x for kv in base.items() for x in kv], input="")
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("we record: error: ") and line.endswith("(see 'we record --help')"), line
    assert message in line and "Traceback" not in result.stdout
    assert not log.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lists", "Ann RGY"], "is not NAME=VALUE"),
        (["--game-id", "Not An Id"], "is not a game id"),
        (["--attic-size", "0"], "--attic-size"),
    ],
)
def test_malformed_flags_are_usage_errors(tmp_path, args, message):
    base = dict(zip(NEW3[::2], NEW3[1::2], strict=True))
    base.update(zip(args[::2], args[1::2], strict=True))
    log = tmp_path / "g.jsonl"
    result = we("record", log, *[x for kv in base.items() for x in kv], input="")
    assert result.exit_code == 2
    assert message in result.stderr
    assert not log.exists()


def test_on_a_terminal_missing_set_up_is_asked_for_and_bad_answers_asked_again(tmp_path, monkeypatch):
    monkeypatch.setattr("cli.record_setup.is_interactive", lambda: True)
    log = tmp_path / "g.jsonl"
    answers = (
        "Tonight at Ann's\nAnn,Bob\nOpen,Bob,Cat\nAnn,Bob,Cat\nZed\nca\nRGY\nyrg\nBGO\nRBO\nstatus\nquit\n"
    )
    result = we("record", log, "--attic-size", "1", input=answers)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Title of the game (Enter for none)" in out
    assert "White Elephant is for 3 to 7 players, not 2" in out
    # A player called Open would make `Open open R7` mean two things.
    assert "'Open' starts with the command word 'open': give that player another name" in out
    assert "'Zed' is not a player here" in out
    assert "Ann already has that list" in out
    assert "party 1 \u00b7 Ann> " in out  # the prompt names the player to move
    first, lists = read_log(log)
    assert first["data"]["title"] == "Tonight at Ann's"
    assert first["data"]["dealer"] == "Cat"
    assert lists["data"]["lists"]["Bob"] == ["blue", "green", "orange"]


# --- lines at the table ------------------------------------------------------------------------


def new_game(tmp_path, *extra: str, script: str = ""):
    log = tmp_path / "g.jsonl"
    result = we("record", log, *NEW3, *extra, input=script)
    return log, result


def test_open_records_the_unseen_brings_first_and_names_are_any_case(tmp_path):
    log, result = new_game(tmp_path, script="ANN o r7\nbob steal a\n")
    assert result.exit_code == 0, result.stderr
    events = read_log(log)[2:]
    assert [(e["type"], e["data"]) for e in events] == [
        ("gift_brought", {"party": 1, "player": "Ann", "card": None}),
        ("gift_brought", {"party": 1, "player": "Bob", "card": None}),
        ("gift_brought", {"party": 1, "player": "Cat", "card": None}),
        ("gift_opened", {"party": 1, "player": "Ann", "card": "R7"}),
        ("gift_stolen", {"party": 1, "player": "Bob", "from": "Ann", "card": "R7"}),
    ]
    assert "Ann, Bob and Cat bring gifts face down, unseen." in result.stdout
    assert "Ann opens R7; Bob is next." in result.stdout
    assert "Bob steals R7 from Ann, who moves next" in result.stdout
    assert rejections(result) == []


def test_a_bad_card_is_rejected_and_the_session_goes_on(tmp_path):
    log, result = new_game(tmp_path, script="open P11\nopen R7\n")
    assert result.exit_code == 1
    [line] = rejections(result)
    assert line == (
        "rejected (input line 1: open P11): 'P11' is not a card: write a colour letter R, O, Y, G or B"
        " and a number 1-10, e.g. R7 or b10"
    )
    assert [e["type"] for e in read_log(log)][-1] == "gift_opened"
    assert len(read_log(log)) == 6  # nothing at all was written for the bad line
    # The script went on past the bad line, and its run ends in exit 1 saying so, in one line.
    assert result.stderr.splitlines()[-1] == (
        "we: error: 1 input line was refused (the first: input line 1); every other line was recorded"
    )


def test_a_wrong_actor_name_is_rejected(tmp_path):
    log, result = new_game(tmp_path, script="Bob open R7\nAnn open R7\ncat steal ann\nBob steal Ann\n")
    assert result.exit_code == 1
    assert rejections(result) == [
        "rejected (input line 1: Bob open R7): it is Ann's turn, not Bob's. Ann opens first: `open CARD`.",
        "rejected (input line 3: cat steal ann): it is Bob's turn, not Cat's. Bob can open a gift"
        " (`open CARD`) or steal R7 from Ann.",
    ]
    types = [e["type"] for e in read_log(log)]
    assert types.count("gift_brought") == 3 and types[-2:] == ["gift_opened", "gift_stolen"]


def test_stealing_back_a_locked_gift_is_rejected_with_what_to_do_instead(tmp_path):
    log, result = new_game(tmp_path, script="open R7\nsteal Ann\nsteal Bob\nsteal r7\nopen G2\n")
    assert result.exit_code == 1
    assert rejections(result) == [
        "rejected (input line 3: steal Bob): Ann cannot steal R7: Bob just stole it and no gift has been"
        " opened since. Ann can open a gift (`open CARD`); nothing can be stolen now.",
        "rejected (input line 4: steal r7): Ann cannot steal R7: Bob just stole it and no gift has been"
        " opened since. Ann can open a gift (`open CARD`); nothing can be stolen now.",
    ]
    assert read_log(log)[-1]["data"] == {"party": 1, "player": "Ann", "card": "G2"}


def test_unknown_and_ambiguous_commands_and_names(tmp_path):
    _, result = new_game(
        tmp_path,
        "--players",
        "Ann,Anna,Bob",
        "--lists",
        "Ann=RGY,Anna=BGO,Bob=RBO",
        "--dealer",
        "Bob",
        script="dance\nopen\nopen R7\nsteal An\nsteal Zed\nsteal\n",
    )
    assert [line.split("): ", 1)[1] for line in rejections(result)] == [
        "'dance' is not a command: type `help` for the list",
        "say which card was turned over, e.g. `open R7`",
        "'An' could be Ann or Anna: type more of the name",
        "'Zed' is not a player here (Ann, Anna, Bob)",
        "say whose gift is stolen, e.g. `steal Ann`",
    ]


def test_undo_voids_the_latest_event_and_says_what_was_undone(tmp_path):
    log, result = new_game(
        tmp_path, script="open R7\nsteal ann\nundo\nundo Bob opened, he did not steal\nopen B2\n"
    )
    assert result.exit_code == 0, result.stderr
    events = read_log(log)
    assert [(e["seq"], e["type"]) for e in events[5:]] == [
        (6, "gift_opened"),
        (7, "gift_stolen"),
        (8, "event_voided"),
        (9, "event_voided"),  # the open, then the three unseen brings recorded for it
        (10, "event_voided"),
        (11, "event_voided"),
        (12, "event_voided"),
        (13, "gift_brought"),
        (14, "gift_brought"),
        (15, "gift_brought"),
        (16, "gift_opened"),
    ]
    assert events[7]["data"] == {"voids": 7, "reason": "undone at the table"}
    assert [e["data"]["voids"] for e in events[8:12]] == [6, 5, 4, 3]
    assert {e["data"]["reason"] for e in events[8:12]} == {"Bob opened, he did not steal"}
    assert "Undone: event 7, Bob stealing R7 from Ann (undone at the table)." in result.stdout
    assert (
        "Undone: event 6, Ann opening R7, with the 3 unseen brings recorded for it"
        " (Bob opened, he did not steal)." in result.stdout
    )
    # After both undos Ann is to move again and R7 was never seen: she may open B2.
    assert events[15]["data"] == {"party": 1, "player": "Ann", "card": "B2"}
    assert read_game(GameSource("g", path=log)).ok


def test_a_wrong_gift_list_is_fixed_before_the_first_gift(tmp_path):
    # Undo takes back the lists; until they are given again nothing else is taken.
    script = "undo wrong lists\nopen R7\nlists Ann=RGY,Bob=BGO,Cat=RBY\nundo\nundo\nopen R7\n"
    log, result = new_game(tmp_path, script=script)
    assert result.exit_code == 1, result.stderr
    assert "Undone: event 2, the dealing of the gift lists (wrong lists)." in result.stdout
    assert "Give the gift lists again: `lists Ann=RGY,Bob=BGO,...`" in result.stdout
    refused = (
        "the gift lists are not dealt yet: give them with `lists Ann=RGY,Bob=BGO,...`"
        " (one NAME=COLOURS per player)."
    )
    assert [line.split("): ", 1)[1] for line in rejections(result)] == [
        refused,
        "there is nothing to undo",
        refused,
    ]
    events = read_log(log)
    assert [e["type"] for e in events] == [
        "game_started",
        "gift_lists_dealt",
        "event_voided",
        "gift_lists_dealt",
        "event_voided",
    ]
    assert events[3]["data"]["lists"]["Cat"] == ["red", "blue", "yellow"]


def test_start_over_is_for_a_terminal_and_before_the_first_gift(tmp_path):
    log, result = new_game(tmp_path, script="open R7\nstart over\n")
    (line,) = [line.split("): ", 1)[1] for line in rejections(result)]
    assert line.startswith("gifts have been brought already, so the game cannot start over")
    assert log.exists() and not list(tmp_path.glob("*.abandoned*"))


def test_start_over_on_a_pipe_stops_the_script_in_one_line(tmp_path):
    """Nobody on a pipe can answer the set-up's questions, and what follows `start over` in a
    script was meant for another set-up: it is not recorded into this one."""
    log, result = new_game(tmp_path, script="start over\nopen R7\nsteal Ann\n")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"we: error: input line 1: start over at a terminal (it asks for the set-up again), or move"
        f" {log} away and run `we record` again with the right --players, --dealer and --lists;"
        " nothing after this line was read"
    ]
    assert [e["type"] for e in read_log(log)] == ["game_started", "gift_lists_dealt"]
    assert f"Saved: 2 events in {log}" in result.stdout
    assert not list(tmp_path.glob("*.abandoned*"))


def test_comments_blank_lines_and_quit(tmp_path):
    script = "# Thanksgiving, table 2\n\n   \nopen R7  # the red 7!\nquit\nopen B2\n"
    log, result = new_game(tmp_path, script=script)
    assert result.exit_code == 0
    assert rejections(result) == []
    assert read_log(log)[-1]["data"]["card"] == "R7"  # nothing after quit was read
    assert "carry on later with `we record" in result.stdout


def test_note_help_and_status(tmp_path):
    log, result = new_game(
        tmp_path,
        "--max-steals",
        "1",
        script="open R7\nsteal ann\nopen g2\nnote Bob loves red\nhelp\nstatus\n",
    )
    assert result.exit_code == 0, result.stderr
    assert read_log(log)[-1]["data"] == {"text": "Bob loves red"}
    out = result.stdout
    assert "Note: Bob loves red" in out
    assert "steal PLAYER" in out and "undo [REASON]" in out  # help
    # status: whose turn, who holds what, locked/frozen, face down, the legal moves
    assert "Party 1 of 9: Cat to move." in out
    assert "R7 frozen" in out  # stolen once with max_steals_per_gift 1
    assert "Face down: 1 gift" in out
    assert "Frozen: R7" in out
    assert "Cat can open a gift (`open CARD`) or steal G2 from Ann." in out


def test_bring_is_needed_when_the_attics_were_dealt(tmp_path):
    attics = "Ann=R1 R2 R3,Bob=B1 B2 B3,Cat=G1 G2 G3"
    log, result = new_game(
        tmp_path,
        "--attic-size",
        "3",
        "--attics",
        attics,
        script="open R1\nbring Ann R1\nbring Bob R2\nbring bob b3\nbring c g2\nopen G2\n",
    )
    assert result.exit_code == 1, result.stderr
    assert [line.split("): ", 1)[1] for line in rejections(result)] == [
        "nobody can open a gift yet: party 1 is waiting for gifts from Ann, Bob, Cat."
        " Still to bring: Ann, Bob, Cat (`bring PLAYER CARD`).",
        "R2 is not in Bob's attic. Still to bring: Bob, Cat (`bring PLAYER CARD`).",
    ]
    events = read_log(log)
    assert events[2]["type"] == "attics_dealt"
    assert events[2]["data"]["attics"]["Bob"] == ["B1", "B2", "B3"]
    assert [e["data"].get("card") for e in events[3:]] == ["R1", "B3", "G2", "G2"]
    assert "Bob brings B3 face down." in result.stdout


def test_steal_naming_the_card_instead_of_the_player(tmp_path):
    log, result = new_game(tmp_path, script="open R7\nsteal r7\n")
    assert rejections(result) == []
    assert read_log(log)[-1]["data"] == {"party": 1, "player": "Bob", "from": "Ann", "card": "R7"}


# --- the end of the game: standings, tie, what is still taken ---------------------------------


@freeze_time("2026-11-26 22:00:00")
def test_the_end_standings_tie_and_after(tmp_path):
    # One party. Ann keeps R7 (red is on her list: 7), Bob B7 (blue: 7), Cat Y1 (not on RBO: 0).
    script = (
        "tie ann early\nopen R7\nopen B7\nopen Y1\nopen Y2\ntie cat\ntie Ann best speech for Fluffy\n"
        "tie bob too\nstatus\n"
    )
    log, result = new_game(tmp_path, "--attic-size", "1", script=script)
    assert result.exit_code == 1, result.stderr
    out = result.stdout
    assert "Cat opens Y1: the last gift, the game is over." in out
    assert "Tie: Ann, Bob share the win." in out
    assert "Ann: red R7 (party 1) + green - + yellow - = 7" in out
    assert "not counted: Y1 (yellow is not on the list)" in out
    assert "`tie PLAYER REASON`" in out
    assert "Tie broken: Ann wins (best speech for Fluffy)." in out
    assert "Winner: Ann (tie broken: best speech for Fluffy)." in out
    events = read_log(log)
    assert events[-1]["type"] == "tie_broken"
    assert events[-1]["data"] == {"winner": "Ann", "reason": "best speech for Fluffy"}
    # The tie-break is an event, so the fingerprint noted at the end of the last party is stale.
    end_of_game = [line for line in out.splitlines() if line.startswith("Fingerprint: ")]
    noted = events[-2]["hash"][7:19]
    assert end_of_game == [f"Fingerprint: {noted} (note it down; `we audit` proves a log against it)"]
    assert (
        f"The fingerprint changed with the tie-break: {events[-1]['hash'][7:19]} (note this one down instead"
        in out
    )
    assert [line.split("): ", 1)[1] for line in rejections(result)] == [
        "a tie can only be broken after the last party",
        "the game is over, so nobody can open, steal or bring any more; `tie`, `undo`, `note`, `status`"
        " and `quit` still work",
        "Cat is not among the tied leaders (Ann, Bob)",
        "the tie was already broken in favour of Ann",
    ]
    score = json.loads(we("score", log, "--json").stdout)
    assert score["winners"] == ["Ann"] and score["scores"] == {"Ann": 7, "Bob": 7, "Cat": 0}


def test_undo_after_the_end_reopens_the_game(tmp_path):
    script = "open R7\nopen B7\nopen Y1\nundo\nsteal bob\nopen Y1\n"
    log, result = new_game(tmp_path, "--attic-size", "1", script=script)
    assert result.exit_code == 0, result.stderr
    assert "The game is open again." in result.stdout
    assert rejections(result) == []
    last = read_log(log)[-2:]
    assert [e["type"] for e in last] == ["gift_stolen", "gift_opened"]
    kept = json.loads(we("score", log, "--json").stdout)["kept"]
    assert kept == {"Ann": ["R7"], "Bob": ["Y1"], "Cat": ["B7"]}


# --- carrying on ---------------------------------------------------------------------------------


@freeze_time("2026-11-26 19:00:00", auto_tick_seconds=0)
def test_a_second_sitting_carries_on_the_same_chain(tmp_path):
    log, first = new_game(tmp_path, script="open R7\n")
    assert first.exit_code == 0
    with freeze_time("2026-11-26 20:15:00"):
        second = we("record", log, input="steal ann\n")
    assert second.exit_code == 0, second.stderr
    assert "Carrying on with game" in second.stdout and "(6 events so far)" in second.stdout
    assert "Bob to move." in second.stdout
    events = read_log(log)
    assert [e["seq"] for e in events] == list(range(1, 8))
    assert events[-1]["prev"] == events[-2]["hash"]
    assert events[-1]["at"] == "2026-11-26T20:15:00.000000Z"
    assert events[-2]["at"] == "2026-11-26T19:00:00.000000Z"
    assert verify_log(log).ok


def test_a_finished_game_can_still_take_a_note(tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(VECTORS / "four-players-dealt.jsonl", log)
    result = we("record", log, input="open R1\nnote played at Dev's\n")
    assert result.exit_code == 1
    assert "Tie: Ann, Ben share the win." in result.stdout
    assert "only tie, undo, note, status and quit" in result.stdout
    assert len(rejections(result)) == 1
    assert read_log(log)[-1]["seq"] == 88
    assert result.stdout.rstrip().endswith(f"Fingerprint: {read_log(log)[-1]['hash'][7:19]}")


def test_a_torn_file_is_refused_with_the_repair_hint(tmp_path):
    log = tmp_path / "g.jsonl"
    data = (VECTORS / "one-party.jsonl").read_bytes()
    log.write_bytes(data[:-40])  # the last append was cut off mid-line
    result = we("record", log, input="note hello\n")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "line 13 is torn" in line and f"run `we repair {log}`" in line
    assert log.read_bytes() == data[:-40]


def test_a_tampered_file_is_refused(tmp_path):
    log = tmp_path / "g.jsonl"
    shutil.copy(VECTORS / "four-players-edited.jsonl", log)
    before = log.read_bytes()
    result = we("record", log, input="note hello\n")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "line 20: integrity" in line and "refusing to record onto a damaged log" in line
    assert log.read_bytes() == before


def test_someone_else_appending_between_the_read_and_the_append_is_told_and_the_line_taken(
    tmp_path, monkeypatch
):
    """Another writer slips a line in after the recorder read the head and before it appends:
    nothing of the recorder's line is written then; it reads the log again, judges the line
    against it (a note is still a note) and takes it, saying first what was added."""
    from eventstore.jsonl import JsonlLog

    log, _ = new_game(tmp_path)
    real_append = JsonlLog.append

    def sneaky(self, events, expected_seq, at=None, summary=None):
        if not getattr(sneaky, "done", False):
            sneaky.done = True
            real_append(self, [("note", {"text": "from another recorder"})], expected_seq, at)
        return real_append(self, events, expected_seq, at, summary)

    monkeypatch.setattr(JsonlLog, "append", sneaky)
    result = we("record", log, input="note mine\nnote mine again\n")
    assert result.exit_code == 0, result.stderr
    assert rejections(result) == []
    out = result.stdout
    assert "Meanwhile (event 3): Note: from another recorder" in out
    assert out.index("Meanwhile (event 3)") < out.index("Note: mine")
    notes = [e["data"].get("text") for e in read_log(log)[2:]]
    assert notes == ["from another recorder", "mine", "mine again"]
    assert f"Saved: 5 events in {log}" in out


def test_names_and_notes_are_printed_as_typed_not_read_as_markup(tmp_path):
    log = tmp_path / "g.jsonl"
    result = we(
        "record",
        log,
        "--players",
        "[b]Ann,Bob,Cat",
        "--dealer",
        "Cat",
        "--lists",
        "[b]Ann=RGY,Bob=BGO,Cat=RBO",
        input="note [red]shh[/red] :smile:\nopen R7\n",
    )
    assert result.exit_code == 0, result.stderr
    assert "Note: [red]shh[/red] :smile:" in result.stdout
    assert "[b]Ann opens R7; Bob is next." in result.stdout
    assert read_log(log)[2]["data"] == {"text": "[red]shh[/red] :smile:"}


def test_names_of_several_words_and_natural_verbs(tmp_path):
    log = tmp_path / "mw.jsonl"
    setup = [
        "--players",
        "Ann Marie,Bob,Cat",
        "--dealer",
        "Ann Marie",
        "--lists",
        "Ann Marie=RGY,Bob=BGO,Cat=RBO",
        "--attic-size",
        "1",
    ]
    # Bob (left of the dealer) opens, Cat steals from Bob, Bob opens again; Ann Marie is to move.
    moves = "Bob opens R7\nCat steals Bob\nBob open Y3\nsteal Ann Marie\nAnn Marie: steals Bob\nBob o G2\n"
    result = we("record", log, *setup, input=moves)
    assert result.exit_code == 1, result.output
    assert rejections(result) == [
        "rejected (input line 4: steal Ann Marie): Ann Marie cannot steal from themselves."
        " Ann Marie can open a gift (`open CARD`) or steal Y3 from Bob, R7 from Cat."
    ]
    moves_logged = [
        (e["type"], e["data"]["player"], e["data"].get("from"), e["data"]["card"])
        for e in read_log(log)
        if e["type"] in ("gift_opened", "gift_stolen")
    ]
    assert moves_logged == [
        ("gift_opened", "Bob", None, "R7"),
        ("gift_stolen", "Cat", "Bob", "R7"),
        ("gift_opened", "Bob", None, "Y3"),
        ("gift_stolen", "Ann Marie", "Bob", "Y3"),
        ("gift_opened", "Bob", None, "G2"),
    ]


def test_one_undo_takes_back_an_open_with_the_unseen_brings_recorded_for_it(tmp_path):
    log = tmp_path / "u.jsonl"
    result = we("record", log, *NEW3, "--attic-size", "2", input="open R7\nundo\nopen B2\n")
    assert result.exit_code == 0, result.output
    assert "with the 3 unseen brings recorded for it" in result.output
    entries = read_log(log)
    voids = [e["data"]["voids"] for e in entries if e["type"] == "event_voided"]
    # The open first (the latest in effect), then the three brings under it, newest first.
    assert voids == [6, 5, 4, 3]
    opened = [e["data"]["card"] for e in entries if e["type"] == "gift_opened"]
    assert opened == ["R7", "B2"]
    report = read_game(GameSource(label=str(log), path=log))
    assert report.ok
    assert report.state.holdings == {"Ann": "B2"}
    assert report.state.seqs_in_effect() == [2, 11, 12, 13, 14]
