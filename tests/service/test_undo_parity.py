"""One undo rule for `we record` and the service, on one log they both write: a real `we serve`
and a real `we record` process. Players bring their gifts on their phones, the host records the
first open at the recorder; an undo (from either face) takes back the open and the unseen
brings written with it, never the gifts people brought themselves, and both faces say it in
the same words."""

from __future__ import annotations

import json
import re
from typing import Any

from served import Server, key_of, move, new_game, we


def _voided(path: Any, seqs: list[int]) -> list[int]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return [x["data"]["voids"] for x in lines if x["seq"] in seqs]


def _numberless(sentence: str) -> str:
    return re.sub(r"event \d+", "event N", sentence)


def test_an_undo_at_the_recorder_keeps_the_gifts_brought_on_phones(server: Server) -> None:
    game = new_game(server, title="Phones and a recorder")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    seq = game["seq"]
    for player in ("Ben", "Cat"):  # Ann (the starter) has not brought hers yet
        with server.client(key_of(game["links"]["seats"][player])) as phone:
            answer = move(phone, gid, seq, type="bring", card=None)
            assert answer.status_code == 201, answer.text
            seq = answer.json()["seq"]

    recorded = we("record", path, input="open R7\nundo\n")
    assert recorded.returncode == 0, recorded.stderr
    # seq + 1: Ann's unseen bring, written with the open (seq + 2); then the two voids
    said = (
        f"Undone: event {seq + 2}, Ann opening R7, with the 1 unseen bring recorded for it"
        " (undone at the table)."
    )
    assert said in recorded.stdout, recorded.stdout
    assert _voided(path, [seq + 3, seq + 4]) == [seq + 2, seq + 1]
    with server.host as host:
        view = host.get(f"/api/v1/games/{gid}").json()
        assert view["seq"] == seq + 4
        assert view["phase"] == "bringing" and view["waiting_to_bring"] == ["Ann"], view

        # The same open and undo through the API: the same rule, the same sentence.
        opened = move(host, gid, view["seq"], type="open", as_="Ann", card="R7")
        assert opened.status_code == 201, opened.text
        undone = move(host, gid, opened.json()["seq"], type="undo")
        assert undone.status_code == 201, undone.text
        assert [e["data"]["voids"] for e in undone.json()["events"]] == [seq + 6, seq + 5]
        assert _numberless(undone.json()["undone"]) == _numberless(said)

        # An open written by the service, undone at the recorder (which reads `at` from the file).
        head = undone.json()["seq"]
        assert move(host, gid, head, type="open", as_="Ann", card="R7").status_code == 201
    recorded = we("record", path, input="undo\n")
    assert recorded.returncode == 0, recorded.stderr
    assert f"Undone: event {head + 2}, Ann opening R7, with the 1 unseen bring" in recorded.stdout
    assert _voided(path, [head + 3, head + 4]) == [head + 2, head + 1]
    assert we("audit", path).returncode == 0


def test_a_refused_undo_is_the_same_sentence_at_both(server: Server) -> None:
    game = new_game(server, title="Nothing to undo yet")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    with server.host as host:
        refused = move(host, gid, game["seq"], type="undo")
    assert refused.status_code == 422
    recorded = we("record", path, input="undo\n")
    # The recorder may deal the lists again, so it undoes them where the service cannot; with
    # attics dealt neither does, and the recorder adds what it can do instead.
    assert "Undone: event 2, the dealing of the gift lists" in recorded.stdout
    attics = new_game(server, title="Attics dealt", lists=None, deal_attics=True)
    with server.host as host:
        refused = move(host, attics["id"], attics["seq"], type="undo")
    assert refused.status_code == 422
    recorded = we("record", server.directory / f"{attics['id']}.jsonl", input="undo\n")
    assert refused.json()["error"] in recorded.stderr, (refused.json(), recorded.stderr)


def test_undoing_a_phones_bring_takes_back_that_bring_alone(server: Server) -> None:
    """Only an open writes unseen brings with it: two phones bringing in the same second are two
    moves, and each undo (at the service or at the recorder) takes back one of them."""
    game = new_game(server, title="Two quick brings")
    gid = game["id"]
    path = server.directory / f"{gid}.jsonl"
    seq = game["seq"]
    for player in ("Ann", "Ben", "Cat"):
        with server.client(key_of(game["links"]["seats"][player])) as phone:
            seq = move(phone, gid, seq, type="bring", card=None).json()["seq"]
    with server.host as host:
        undone = move(host, gid, seq, type="undo")
    assert undone.status_code == 201, undone.text
    assert undone.json()["undone"] == f"Undone: event {seq}, Cat bringing a gift (undone at the table)."
    recorded = we("record", path, input="undo\n")
    assert f"Undone: event {seq - 1}, Ben bringing a gift (undone at the table)." in recorded.stdout
    assert _voided(path, [seq + 1, seq + 2]) == [seq, seq - 1]
