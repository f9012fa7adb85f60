"""`we record --as PLAYER`: a host who also plays records every move but sees the game as
their own seat does. A whole game with dealt attics at a real terminal (a pty, pexpect): the
other seats play through the table as phones and bots do, Ann's moves are typed, and nothing
printed names a card of another attic or face-down gift before it is opened.

Without `--as`, a game with dealt attics says once that every hidden card is shown.
"""

from __future__ import annotations

import re

import pytest

pexpect = pytest.importorskip("pexpect")

from test_terminal import ANSI, finish, spawn, terminal_env  # noqa: E402
from weharness import NEW3, ROOT, we  # noqa: E402

from service.table import Table  # noqa: E402
from wecore.bots import GreedyBot, bot_move  # noqa: E402
from wecore.moves import Bring, Move, Open, Steal, Swap  # noqa: E402
from wecore.state import GameState, Phase  # noqa: E402
from wecore.views import cards_known_to, face_down_known, face_down_places  # noqa: E402

CARD = re.compile(r"(?<![A-Za-z0-9])[ROYGB](?:10|[1-9])(?![0-9])")
ATTICS = "Ann=R7 B2 G5,Bob=Y5 O3 R10,Cat=G9 B8 Y1"
EVERY_CARD_SHOWN = "This recorder shows every attic and every face-down gift"


def dealt_game(tmp_path):
    log = tmp_path / "night.jsonl"
    result = we("record", log, *NEW3, "--attic-size", "3", "--attics", ATTICS, "--no-library", input="quit\n")
    assert result.exit_code == 0, result.stderr
    return log


def hidden_from(state: GameState, seat: str) -> set[str]:
    """What Ann may not see: the cards of other attics and of face-down gifts she did not bring."""
    in_play = set(state.face_down)
    for cards in state.attics or ():
        in_play.update(cards)
    return in_play - cards_known_to(state, state.seat_of[seat])


def typed(state: GameState, move: Move, by_place: bool) -> str:
    """Ann's move as she types it: `by_place`, a gift she has not seen by its place."""
    match move:
        case Bring():
            return f"bring Ann {move.card}"
        case Open():
            if not by_place or move.card in face_down_known(state, "Ann"):
                return f"open {move.card}"
            return f"open gift {face_down_places(state, 'Ann').index(move.card) + 1}"
        case Steal():
            return f"steal {move.from_player}"
        case Swap():
            return "keep" if move.with_player is None else f"swap {move.with_player}"
    raise AssertionError(move)


def whose(state: GameState) -> list[str]:
    if state.phase is Phase.BRINGING:
        return list(state.waiting_to_bring)
    return [state.player_to_move] if state.player_to_move else []


def play_at_a_terminal(log, *flags: str) -> tuple[str, set[str], int, int]:
    """A whole game: Ann's moves typed into `we record LOG FLAGS`, the others made through the
    table; after each, `status`. Returns the output, the cards printed while still hidden from
    Ann, and how many moves were Ann's and how many were checked."""
    table = Table.of_file(log)
    child = spawn(["record", str(log), *flags, "--no-library"], ROOT, terminal_env())
    child.expect_exact("Carrying on with game")
    seen = 0
    checked = 0
    ann_moves = 0
    leaked: set[str] = set()
    for _ in range(200):  # a 3-player game of 3 parties takes far fewer moves
        if (state := table.look().state).is_over:
            break
        movers = whose(state)
        if "Ann" in movers:
            move = bot_move(state, "Ann", GreedyBot(), "as-ann")
            assert move is not None
            child.sendline(typed(state, move, by_place="--as" in flags))
            ann_moves += 1
        else:
            move = bot_move(state, movers[0], GreedyBot(), "as-ann")
            assert move is not None
            table.move(move)  # a phone or a bot at another seat
        child.sendline("status")
        child.expect_exact("events recorded; fingerprint")
        output = ANSI.sub("", child.logfile_read.getvalue())
        chunk, seen = output[seen:], len(output)
        leaked |= set(CARD.findall(chunk)) & hidden_from(table.look().state, "Ann")
        checked += 1
    child.sendline("quit")
    status, output = finish(child)
    assert status == 0
    assert table.look().state.is_over  # every move was recorded: the game ended in the log
    return ANSI.sub("", output), leaked, ann_moves, checked


def test_recording_as_ann_never_prints_a_card_she_has_not_seen(tmp_path):
    plain, leaked, ann_moves, checked = play_at_a_terminal(dealt_game(tmp_path), "--as", "ann")
    assert not leaked, f"printed before they were opened: {sorted(leaked)}"
    assert ann_moves >= 3 and checked > 10
    assert "rejected" not in plain
    assert EVERY_CARD_SHOWN not in plain
    assert "Bob brings a gift face down" in plain  # others' brings, told without their card


def test_the_same_game_without_as_shows_the_hidden_cards(tmp_path):
    """The check above can fail: the host's view of the same game prints them."""
    plain, leaked, _, _ = play_at_a_terminal(dealt_game(tmp_path))
    assert leaked
    assert plain.count(EVERY_CARD_SHOWN) == 1


def test_without_as_a_dealt_game_says_once_that_every_card_is_shown(tmp_path):
    log = dealt_game(tmp_path)
    result = we("record", log, "--no-library", input="status\nstatus\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count(EVERY_CARD_SHOWN) == 1
    assert "R10 O3 Y5" in result.stdout  # Bob's attic: the host's view shows it
    assert "--as NAME" in result.stdout


def test_as_a_seat_a_face_down_gift_not_seen_is_opened_by_place(tmp_path):
    log = dealt_game(tmp_path)
    script = "bring Ann R7\nbring Bob Y5\nbring Cat G9\nstatus\nopen Y5\nopen gift 5\nopen gift 2\nquit\n"
    result = we("record", log, "--as", "Ann", "--no-library", input=script)
    out, err = result.stdout, result.stderr
    # Bob's and Cat's brings are told without their cards, even to the one who typed them.
    assert "Bob brings a gift face down" in out and "Y5" not in out.split("Ann opens")[0]
    assert "face-down gift you have not seen is opened by its place" in err  # `open Y5`: one answer
    assert "there is no face-down gift 5" in err
    assert "Ann opens Y5" in out  # gift 2, Bob's, told as it is opened


def test_as_names_a_player_of_the_game(tmp_path):
    log = dealt_game(tmp_path)
    result = we("record", log, "--as", "Zed")
    assert result.exit_code == 2
    assert "--as: 'Zed' is not a player here (Ann, Bob, Cat)" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_the_lists_hint_after_an_undo_names_this_tables_players(tmp_path):
    """Issue 47, friction 4: the example named "Bob", who was not at the table."""
    log = tmp_path / "g.jsonl"
    setup = ["--players", "Zoe,Yan,Xia", "--dealer", "Xia", "--lists", "Zoe=RGY,Yan=BGO,Xia=RBO"]
    result = we("record", log, *setup, "--no-library", input="undo\nopen R7\n")
    assert "Give the gift lists again: `lists Zoe=RGY,Yan=BGO,...`" in result.stdout
    assert "give them with `lists Zoe=RGY,Yan=BGO,...`" in result.stderr
    assert "Bob" not in result.stdout + result.stderr
