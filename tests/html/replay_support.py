"""Helpers for the HTML replay tests: sample logs, and the engine's own fold of them.

A module of its own (not conftest) so that no other directory's conftest can stand in for it.
(No __init__.py in this directory on purpose: a package called `html` would shadow the standard
library's.)
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

from eventstore.envelope import seal
from wecore.bots import play_game
from wecore.events import event_payload, parse_event
from wecore.reducer import fold
from wecore.state import GameState
from wecore.views import view

VECTORS = pathlib.Path(__file__).resolve().parents[1] / "vectors"


def load_log(name: str) -> list[dict[str, Any]]:
    with open(VECTORS / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def envelopes_of(events: list, game: str = "bot-game") -> list[dict[str, Any]]:
    """Seal engine events into a well-formed log (hash chain and all)."""
    out: list[dict[str, Any]] = []
    prev = None
    for seq, event in enumerate(events, start=1):
        kind, data = event_payload(event)
        envelope = seal(game, seq, f"2026-12-24T18:{seq // 60:02d}:{seq % 60:02d}Z", kind, data, prev)
        out.append(envelope.to_dict())
        prev = envelope.hash
    return out


def state_at(envelopes: list[dict[str, Any]], seq: int) -> GameState:
    """The engine's state after event `seq`, folded straight from the log."""
    return fold(parse_event(e["type"], e["data"]) for e in envelopes[:seq])


def expected_view(envelopes: list[dict[str, Any]], seq: int, viewer: str | None) -> dict[str, Any]:
    """What `we replay --at SEQ --json` shows: the view after `seq`, as JSON values."""
    state = state_at(envelopes, seq)
    return json.loads(json.dumps(view(state, viewer, omniscient=viewer is None).to_dict()))


def script_text(document: str, element_id: str) -> str:
    match = re.search(
        rf'<script type="application/json" id="{element_id}"[^>]*>(.*?)</script>', document, re.S
    )
    assert match, f"no <script id={element_id}> in the page"
    return match.group(1)


def embedded(document: str, element_id: str) -> Any:
    return json.loads(script_text(document, element_id))


def frozen_game() -> list[dict[str, Any]]:
    """A seven-player bot game under max_steals_per_gift=1, whose title tries to break out."""
    events, _ = play_game(
        seed=7,
        player_count=7,
        options={"max_steals_per_gift": 1},
        title='Eve </script><script>alert("x")</script><!-- & @@LOG_JSON@@',
    )
    return envelopes_of(events, game="frozen-bots")
