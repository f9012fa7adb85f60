"""Bots at several served tables share one thread: each table's bot answers in its turn."""

from __future__ import annotations

import time

from served import Server, key_of, move, new_game

SEARCHERS = ["Uma", "Vic", "Wes", "Xia", "Yan", "Zed"]


def _lines(server: Server, game: str) -> int:
    return len((server.directory / f"{game}.jsonl").read_bytes().splitlines())


def test_a_table_of_bots_alone_does_not_keep_another_tables_bot_waiting(server: Server) -> None:
    """Six search bots play a game among themselves while Ann plays against two bots at another
    table. After each of Ann's moves that makes it a bot's turn, her table's bot moves before
    the bots' own table has moved more than a few times: they take turns, a move a game."""
    bots_only = new_game(
        server,
        players=SEARCHERS,
        dealer="Zed",
        lists=None,
        deal_attics=True,
        bots=dict.fromkeys(SEARCHERS, "ismcts"),
    )["id"]
    mine = new_game(server, lists=None, deal_attics=True, bots={"Ben": "random", "Cat": "random"})
    gid, ann = mine["id"], server.client(key_of(mine["links"]["seats"]["Ann"]))
    host = server.host

    def bots_over() -> bool:
        return bool(host.get(f"/api/v1/games/{bots_only}").json()["complete"])

    waited: list[int] = []  # moves of the bots' table while Ann's table waited for its bot
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and not bots_over():
            view = ann.get(f"/api/v1/games/{gid}").json()
            if view["complete"]:
                break
            if not view["legal"]:
                time.sleep(0.02)
                continue
            posted = move(ann, gid, view["seq"], **view["legal"][0])
            if posted.status_code != 201:
                continue  # a bot brought first: look again
            after = ann.get(f"/api/v1/games/{gid}").json()
            if after["legal"] or after["complete"] or after["seq"] > view["seq"] + 1:
                continue  # Ann's turn again, or her table's bot was quicker than this look
            if bots_over():
                break
            before = _lines(server, bots_only)
            while ann.get(f"/api/v1/games/{gid}").json()["seq"] == view["seq"] + 1:
                assert time.monotonic() < deadline, "Ann's table's bot never moved"
                time.sleep(0.02)
            waited.append(_lines(server, bots_only) - before)
    finally:
        ann.close()
        host.close()
    # One move a game a round; the looks above are not atomic, so allow a few.
    most = max(waited, default=0)
    assert most <= 4, f"the bots' table moved {most} times while Ann's table waited for its bot: {waited}"
    assert len(waited) >= 3, f"too few of Ann's bots' turns came while the bots' table played: {waited}"
