"""A hostile log (issue 46): a name holding a right-to-left override ("\\u202eneB") cannot reorder
the words that follow it on the TV, a seat or the replay HTML, because each name is isolated. The
log is written straight to a file (the writers refuse such a name): a club may still be sent one.

What is checked is where the words are drawn (getClientRects), since innerText reads the same
whether or not the override took hold."""

from __future__ import annotations

import itertools
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import launched_chromium
from served import Server, lobby_links, start_server, we

from eventstore.envelope import seal
from wecore.bots import play_game
from wecore.events import event_payload

HOSTILE = "\u202eneB"  # drawn as "Ben" by the override it holds
WAIT_MS = 15_000

# For the first sentences holding the name: the x of each word after it, with its line's y. On a
# line, left-to-right words are drawn at growing x; an override that leaked reverses them.
WORDS_AFTER = """([selector, name]) => {
  const out = [];
  for (const node of document.querySelectorAll(selector)) {
    const text = node.textContent;
    const at = text.indexOf(name);
    if (at < 0) continue;
    const words = [...text.slice(at + name.length).matchAll(/\\S+/g)].slice(0, 5);
    if (words.length < 3) continue;
    const texts = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    let pos = 0;
    while (walker.nextNode()) { texts.push([walker.currentNode, pos]); pos += walker.currentNode.length; }
    const placed = words.map((word) => {
      const start = at + name.length + word.index;
      const [textNode, from] = texts.filter(([, p]) => p <= start).pop();
      const range = document.createRange();
      const offset = start - from;
      range.setStart(textNode, offset);
      range.setEnd(textNode, Math.min(textNode.length, offset + word[0].length));
      const box = range.getClientRects()[0];
      return { word: word[0], x: box.x, y: Math.round(box.y) };
    });
    // the name itself: in a <bdi>, or under unicode-bidi: isolate
    const range = document.createRange();
    const [nameNode, nameFrom] = texts.filter(([, p]) => p <= at).pop();
    let holder = nameNode.parentElement;
    let isolated = false;
    for (let e = holder; e && e !== node.parentElement; e = e.parentElement) {
      if (e.tagName === "BDI" || /isolate|plaintext/.test(getComputedStyle(e).unicodeBidi)) {
        isolated = e.textContent.includes(name) && e.textContent.length <= name.length + 1;
        break;
      }
    }
    out.push({ text: text.slice(at, at + 60), placed, isolated });
    if (out.length >= 4) break;
  }
  return out;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


def hostile_log(path: Path) -> None:
    """A three-player bot game whose Ben is renamed "\\u202eneB", sealed into a valid chain."""
    events, _ = play_game(
        seed=46, player_count=3, players=["Ann", "Ben", "Cat"], options={"attic_sizes": {"3": 3}}
    )
    lines, prev = [], None
    for seq, event in enumerate(events, start=1):
        kind, data = event_payload(event)
        data = json.loads(json.dumps(data).replace('"Ben"', json.dumps(HOSTILE)))
        envelope = seal(
            "hostile-names", seq, f"2026-12-24T18:{seq // 60:02d}:{seq % 60:02d}Z", kind, data, prev
        )
        lines.append(json.dumps(envelope.to_dict(), ensure_ascii=False))
        prev = envelope.hash
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("hostile")
    hostile_log(folder / "hostile-names.jsonl")
    saved = folder.parent / "hostile-replay.html"
    we("replay", folder / "hostile-names.jsonl", "--html", saved, check=True)
    running = start_server(folder)
    with running.host as host:
        lobby = host.get(f"/?k={running.host_key}").text
    links = lobby_links(lobby, "hostile-names")
    urls = {"tv": links["Table (for the TV)"], "seat": links["Ann"], "replay": saved.as_uri()}
    yield running, {k: (v if "://" in v else running.url + v).replace("&amp;", "&") for k, v in urls.items()}
    assert running.stop(signal.SIGTERM) == 0


@pytest.mark.parametrize("name", ["tv", "seat", "replay"])
def test_words_after_a_hostile_name_keep_their_order_on_screen(
    browser: Any, hostile: tuple[Server, dict[str, str]], name: str
) -> None:
    _, urls = hostile
    page = browser.new_page(
        viewport={"width": 1920, "height": 1080} if name == "tv" else {"width": 1280, "height": 900}
    )
    page.goto(urls[name])
    page.wait_for_function("() => document.querySelectorAll('#timeline li').length > 5", timeout=WAIT_MS)
    sentences = page.evaluate(WORDS_AFTER, ["#timeline li .text", HOSTILE])
    sentences += page.evaluate(WORDS_AFTER, ["header p, #standings h3, #to-move, #winners", HOSTILE])
    page.close()
    assert len(sentences) >= 3, sentences
    compared = 0
    for sentence in sentences:
        assert sentence["isolated"], sentence
        placed = sentence["placed"]
        for before, after in itertools.pairwise(placed):
            if before["y"] == after["y"]:  # on one line: drawn left to right
                assert after["x"] > before["x"], sentence
                compared += 1
    assert compared >= 3, sentences
