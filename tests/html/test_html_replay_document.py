"""The generated replay page, read as a document: self-contained, and in step with the engine."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from replay_support import embedded, expected_view, script_text, state_at

from service.replay_page import render_html, replay_steps, script_json
from wecore.errors import UnknownPlayerError
from wecore.events import parse_event
from wecore.narrate import describe
from wecore.replay import voided_by
from wecore.scoring import score
from wecore.views import redact_log


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(document: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Collector()
    parser.feed(document)
    return parser.tags


@pytest.fixture
def page(four_dealt) -> str:
    return render_html(four_dealt, viewer=None, fingerprint=None)


# --- self-contained ---------------------------------------------------------------------


def test_page_loads_nothing_from_anywhere(page):
    for tag, attrs in _tags(page):
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            value = (attrs.get(name) or "").strip().lower()
            assert not re.match(r"(https?:)?//", value), f"<{tag} {name}={value!r}> reaches the network"
        assert not (tag == "script" and "src" in attrs), "scripts are inline"
        assert not (tag == "link" and "stylesheet" in (attrs.get("rel") or "")), "styles are inline"
        assert tag not in ("iframe", "object", "embed", "base")
    css_and_js = page.split('<script type="application/json"')[0] + page.rsplit("</script>", 2)[-2]
    assert "@import" not in css_and_js
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", css_and_js)
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts)\b", css_and_js)


def test_page_forbids_the_network_by_policy(page):
    policy = next(a["content"] for t, a in _tags(page) if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in policy


def test_page_is_one_complete_document(page):
    assert page.startswith("<!doctype html>")
    assert page.rstrip().endswith("</html>")
    assert "@@" not in page.replace("@@LOG_JSON@@", "")  # every placeholder filled
    tags = _tags(page)
    assert [t for t, _ in tags].count("script") == 3  # the log, the steps, the program
    assert any(t == "meta" and a.get("name") == "viewport" for t, a in tags)


# --- the data -----------------------------------------------------------------------------


def test_the_log_itself_is_embedded(page, four_dealt):
    assert embedded(page, "we-log") == four_dealt


@pytest.mark.parametrize("seq", [1, 3, 4, 8, 9, 20, 45, 86, 87])
def test_each_step_is_the_engines_view_at_that_seq(page, four_dealt, seq):
    step = embedded(page, "we-replay")["steps"][seq - 1]
    assert step["seq"] == seq
    assert step["view"] == expected_view(four_dealt, seq, None)
    before, after = state_at(four_dealt, seq - 1), state_at(four_dealt, seq)
    event = parse_event(four_dealt[seq - 1]["type"], four_dealt[seq - 1]["data"])
    assert step["sentence"] == describe(event, before, after, viewer=None, omniscient=True)


def test_every_step_is_there_in_order(page, four_dealt):
    steps = embedded(page, "we-replay")["steps"]
    assert [s["seq"] for s in steps] == [e["seq"] for e in four_dealt]
    assert [s["type"] for s in steps] == [e["type"] for e in four_dealt]


@pytest.mark.parametrize("seq", [2, 7, 9, 10, 11, 12, 13])
def test_steps_agree_through_a_void(one_party, seq):
    steps, _, _ = replay_steps(one_party, None)
    assert steps[seq - 1]["view"] == expected_view(one_party, seq, None)


def test_voided_events_are_marked(one_party):
    assert voided_by(parse_event(e["type"], e["data"]) for e in one_party) == {10: 11}
    steps = embedded(render_html(one_party, viewer=None, fingerprint=None), "we-replay")["steps"]
    assert [s["seq"] for s in steps if s["voided_by"]] == [10]
    assert steps[9]["voided_by"] == 11
    assert steps[10]["sentence"].startswith("Event 10 is voided")


def test_voided_events_are_struck_through_by_the_style(page):
    assert re.search(r"li\.voided \.text \{[^}]*line-through", page)


def test_notes_are_told(one_party):
    steps, _, _ = replay_steps(one_party, None)
    assert steps[7]["type"] == "note"
    assert steps[7]["sentence"] == 'Note: Zoë says: "I\'ll remember that"'


def test_standings_and_fingerprint(one_party):
    page = render_html(one_party, viewer=None, fingerprint=None)
    data = embedded(page, "we-replay")
    assert data["meta"]["fingerprint"] == "abb6aa1e5ad9"
    last = data["steps"][-1]["board"]
    assert last["complete"] is True
    assert last["winners"] == ["Cat"]
    assert {p["player"]: p["total"] for p in last["players"]} == {"Zoë": 0, "Ben": 4, "Cat": 10}
    zoe = next(p for p in last["players"] if p["player"] == "Zoë")
    assert zoe["counted"] == [["red", None], ["yellow", None], ["green", None]]
    final = score(state_at(one_party, len(one_party)))
    assert zoe["unused"] == [{"card": "B2", "reason": final.of("Zoë").unused[0].reason}]
    assert [p["explain"] for p in last["players"]] == [p.explain() for p in final.players]
    # Without JavaScript the page still says who won, and the fingerprint.
    noscript = re.search(r"<noscript>(.*?)</noscript>", page, re.S).group(1)
    assert "Final standings" in noscript and "abb6aa1e5ad9" in noscript
    assert "<strong><bdi>Cat</bdi></strong>: 10 — winner" in noscript  # each name isolated


def test_a_given_fingerprint_is_shown_as_given(one_party):
    page = render_html(one_party, viewer=None, fingerprint="0123456789ab")
    assert embedded(page, "we-replay")["meta"]["fingerprint"] == "0123456789ab"


def test_a_tie_shows_every_leader(four_dealt):
    last = embedded(render_html(four_dealt, viewer=None, fingerprint=None), "we-replay")["steps"][-1]
    assert last["board"]["winners"] == ["Ann", "Ben"]
    assert last["view"]["winners"] == ["Ann", "Ben"]


def test_people_and_colours_come_from_the_engine(page):
    meta = embedded(page, "we-replay")["meta"]
    assert meta["persons"]["red"] == "Mother-in-Law"
    assert meta["persons"]["blue"] == "Random Stranger"
    assert meta["letters"] == {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue"}


def test_a_game_in_progress_replays(four_dealt):
    steps, state, _ = replay_steps(four_dealt[:30], None)
    assert len(steps) == 30 and not state.is_over
    assert steps[-1]["board"]["complete"] is False


# --- --as PLAYER -------------------------------------------------------------------------


@pytest.fixture
def as_ann(four_dealt) -> str:
    return render_html(four_dealt, viewer="ann", fingerprint=None)  # any case, as on the command line


def test_as_a_player_the_views_are_that_seats(as_ann, four_dealt):
    data = embedded(as_ann, "we-replay")
    assert data["meta"]["viewer"] == "Ann"
    for seq in (3, 5, 8, 40, 87):
        assert data["steps"][seq - 1]["view"] == expected_view(four_dealt, seq, "Ann")
    attics = data["steps"][2]["view"]["attics"]
    assert isinstance(attics["Ann"], list) and len(attics["Ann"]) == 8
    assert attics["Ben"] == 8 and attics["Cat"] == 8 and attics["Dev"] == 8


def test_as_a_player_the_embedded_log_is_redacted(as_ann, four_dealt):
    log = embedded(as_ann, "we-log")
    assert re.search(r'id="we-log" data-redacted-for="Ann"', as_ann)
    assert log == redact_log(four_dealt, "Ann")
    attics = next(e for e in log if e["type"] == "attics_dealt")["data"]["attics"]
    assert attics["Ann"] == four_dealt[2]["data"]["attics"]["Ann"]
    assert attics["Ben"] == [None] * 8 and attics["Cat"] == [None] * 8 and attics["Dev"] == [None] * 8
    brought = [e["data"] for e in log if e["type"] == "gift_brought"]
    assert all(d["card"] is None for d in brought if d["player"] != "Ann")
    assert all(d["card"] is not None for d in brought if d["player"] == "Ann")
    # Hashes would let anyone try the ~50 cards until one matches, so none is left.
    assert "sha256:" not in as_ann
    assert all("hash" not in e and "prev" not in e for e in log)


def test_as_a_player_nothing_unknown_leaks_before_the_first_open(as_ann, four_dealt):
    ann_attic = set(four_dealt[2]["data"]["attics"]["Ann"])
    others = {c for name, cards in four_dealt[2]["data"]["attics"].items() if name != "Ann" for c in cards}
    first_open = next(e["seq"] for e in four_dealt if e["type"] == "gift_opened")
    steps = embedded(as_ann, "we-replay")["steps"][: first_open - 1]
    shown = set(re.findall(r'"([ROYGB](?:10|[1-9]))"', json.dumps(steps)))
    assert shown and shown <= ann_attic
    assert not shown & others
    # The sentences are told from Ann's seat as well.
    assert steps[2]["sentence"].startswith("Attics dealt (8 cards each); yours:")
    assert steps[4]["sentence"] == "Dev brings a gift face down."


def test_omniscient_page_shows_everything(page, four_dealt):
    step = embedded(page, "we-replay")["steps"][4]
    assert step["view"]["face_down_known"] == ["B10", "O1"]
    assert isinstance(step["view"]["attics"]["Ben"], list)


def test_unknown_viewer_is_refused(four_dealt):
    with pytest.raises(UnknownPlayerError):
        render_html(four_dealt, viewer="Xavier", fingerprint=None)


def test_an_empty_log_is_refused():
    with pytest.raises(ValueError, match="empty"):
        render_html([], viewer=None, fingerprint=None)


# --- escaping --------------------------------------------------------------------------


def test_log_text_cannot_break_out_of_the_page(frozen_log):
    page = render_html(frozen_log, viewer=None, fingerprint=None)
    title = frozen_log[0]["data"]["title"]
    assert "</script><script>" in title
    # Exactly three script elements open and close; the title's attempts are inert text.
    assert page.count("<script") == 3 and page.count("</script>") == 3
    assert "<!--" not in page
    assert embedded(page, "we-log") == frozen_log
    assert embedded(page, "we-replay")["meta"]["title"] == title
    assert "<title>Eve &lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)" in page
    # A placeholder in the log's text is not filled in again.
    assert script_text(page, "we-log").count("@@LOG_JSON@@") == 1


def test_script_json_escapes_every_markup_character():
    text = script_json({"a": "</script><!-- & > \u2028"})
    assert not set(text) & set("<>&\u2028")
    assert json.loads(text) == {"a": "</script><!-- & > \u2028"}


def test_frozen_gifts_are_in_the_views(frozen_log):
    steps, _, _ = replay_steps(frozen_log, None)
    frozen_held = [s for s in steps if set(s["view"]["frozen"]) & set(s["view"]["holding"].values())]
    assert frozen_held, "the sample game should freeze a gift"
    seq = frozen_held[0]["seq"]
    assert frozen_held[0]["view"] == expected_view(frozen_log, seq, None)


def test_after_a_tie_break_the_page_lists_the_winner_first():
    from pathlib import Path

    log = Path(__file__).resolve().parents[2] / "replays" / "tie-5p.jsonl"
    envelopes = [json.loads(line) for line in log.read_text().splitlines()]
    document = render_html(envelopes, viewer=None, fingerprint=None)
    board = embedded(document, "we-replay")["steps"][-1]["board"]
    assert board["ranked"][:2] == ["Cat", "Ben"] and board["tie_broken_by"] == "Cat"
    noscript = document[document.index("<noscript>") :]
    cat, ben = (noscript.index(f"<strong><bdi>{name}</bdi></strong>") for name in ("Cat", "Ben"))
    assert cat < ben
