"""The replay page, one template for both faces: `we replay GAME --html OUT.html` writes it as
one self-contained file, and `we serve` sends it in live mode (it then follows the game's
stream and offers a seat's moves).

The page draws; it does not play. Every state it shows is computed here by folding the log
with `wecore` (the reducer, `views.view`, `narrate.describe`, `scoring.score`) and embedded
in the page as JSON, next to the log itself. So the page and the engine cannot disagree: the
page's script only renders the precomputed steps.

Step *i* of the page is the table after the event with `seq` *i* — the same state as
`we replay --at i`. Without a viewer the page is omniscient (every attic and face-down gift);
with one it shows only what that seat could know, and the embedded log is redacted to match
(see `redact_log`).
"""

from __future__ import annotations

import functools
import html
import json
import re
from importlib import resources
from typing import Any

import orjson

from eventstore.canonical import fingerprint
from service.guard import inline_hashes
from wecore.cards import COLOUR_NAME, COLOURS, PERSON_OF
from wecore.decider import resolve_player
from wecore.events import AnyEvent, Exchange, parse_event
from wecore.kinds import KINDS
from wecore.narrate import describe
from wecore.replay import steps, voided_by
from wecore.scoring import Scoreboard, score
from wecore.state import GameState
from wecore.turns import Turn, page_marks, turn_of_view
from wecore.views import SeatView, redact_log, view

TEMPLATE_NAME = "replay_template.html"
# The page's own inline script and style are allowed by their hashes (filled in once the page is
# made), nothing else: a saved page has no server to send a header, so the policy is in a <meta>
# (where frame-ancestors would be ignored with a console error, so it is left to the header).
_CSP = "default-src 'none'; script-src {scripts}; style-src {styles}; img-src data:; base-uri 'none'"
_CSP_SLOT = "@@CSP@@"
_PLACEHOLDER = re.compile(r"@@([A-Z_]+)@@")
_LIVE_CODE = re.compile(r"  // @@LIVE_BEGIN@@.*?// @@LIVE_END@@\n", re.DOTALL)
# In a <script> element "<" could open "</script>" or "<!--"; "&" and ">" are escaped too
# so the JSON text reads the same to any HTML parser. Each is a valid JSON string escape.
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def render_html(
    envelopes: list[dict[str, Any]],
    *,
    viewer: str | None,
    fingerprint: str | None,
    spectator: bool = False,
    live: dict[str, Any] | None = None,
    analysis: dict[str, Any] | None = None,
    fingerprint_label: str = "Fingerprint of the log",
    cut: str | None = None,
    extra_scripts: tuple[str, ...] = (),
) -> str:
    """The whole replay page for a log's parsed envelopes.

    `viewer`: None for the omniscient page, else a player's name (any case, as `--as`).
    `fingerprint`: the log's fingerprint; None takes it from the last envelope's hash.
    `spectator`: without a viewer, only public facts (the table key of `we serve`).
    `live`: the live mode of `we serve`: the page follows the game's stream (its URLs, the key
    and the seat's legal moves are in this dict) and offers the seat's moves as buttons.
    `analysis`: what `service.analysis.page_analysis` gives (`we replay --html --analyse`): the
    pivotal moves are marked on the timeline and each decision's alternatives shown at its step.
    `fingerprint_label`: what the fingerprint shown is of, when the page is not the whole log.
    `cut`: why the page ends before the log does (damaged after it, or a page up to an event);
    the page then says so and offers the events it holds as a part, not as the log.
    `extra_scripts`: more scripts for the page, after its own (a seat's receipts), allowed by
    the page's policy by their hashes like its own.
    Raises the engine's errors (EventSchemaError, RuleViolation, UnknownPlayerError) for a log
    that does not fold, and ValueError for an empty one.
    """
    steps, final, seat = replay_steps(envelopes, viewer, spectator)
    if fingerprint is None:
        fingerprint = fingerprint_of(envelopes)
    log = envelopes if seat is None and not spectator else redact_log(envelopes, seat)
    first = envelopes[0]
    title = final.title or str(first.get("game", "White Elephant"))
    meta = {
        "game": first.get("game"),
        "title": final.title,
        "players": list(final.players),
        "viewer": seat,
        "fingerprint": fingerprint,
        "fingerprint_label": fingerprint_label,
        "cut": cut,
        "colours": [c.value for c in COLOURS],
        "letters": {c.letter: c.value for c in COLOURS},
        "persons": {c.value: PERSON_OF[c] for c in COLOURS},
        "live": live,
    }
    values = {
        "LANG": "en",
        "TITLE": html.escape(title),
        "HEADING": f"<bdi>{html.escape(title)}</bdi>",
        "SUBTITLE": _subtitle(final, seat, spectator),
        "CSP": _CSP_SLOT,  # filled in last, from the page it protects
        "MODE": "live" if live is not None else "file",
        "LIVE_BEGIN": "",
        "LIVE_END": "",
        "NOSCRIPT": _noscript(final, fingerprint, fingerprint_label, cut),
        "REDACTED_FOR": html.escape(seat or ("spectator" if spectator else ""), quote=True),
        "LOG_JSON": script_json(log),
        "REPLAY_JSON": script_json(
            {"meta": meta, "steps": steps, **({"analysis": analysis} if analysis is not None else {})}
        ),
    }
    template = resources.files("service").joinpath(TEMPLATE_NAME).read_text(encoding="utf-8")
    if live is None:
        # A saved page never reaches the network: the live mode's code is not in it at all.
        template = _LIVE_CODE.sub("", template)
    # One pass, so nothing substituted (say a title containing "@@LOG_JSON@@") is read again.
    head, slot, body = template.partition(_CSP_SLOT)
    page = _PLACEHOLDER.sub(lambda m: values[m.group(1)], body)
    if extra_scripts:
        more = "".join(f"<script>{script}</script>" for script in extra_scripts)
        end = page.rindex("</body>")
        page = page[:end] + more + page[end:]
    scripts, styles = inline_hashes(page.encode())
    policy = _CSP.format(scripts=scripts, styles=styles)
    if live is not None:
        policy += "; connect-src 'self'"
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], head) + (policy if slot else "") + page


def replay_steps(
    envelopes: list[dict[str, Any]], viewer: str | None, spectator: bool = False
) -> tuple[list[dict[str, Any]], GameState, str | None]:
    """(steps, final state, resolved viewer): one step per envelope, the state after it.

    Each step holds the event's sentence, whether a later event voided it, the view of the
    table (`views.view`, omniscient without a viewer) and the standings so far.
    """
    if not envelopes:
        raise ValueError("an empty log has nothing to replay")
    # Parsed as the fold reaches them, so the first problem in line order is the one raised.
    walked = list(steps(parse_event(e.get("type"), e.get("data")) for e in envelopes))
    voided = voided_by(step.event for step in walked)
    seat = None if viewer is None else resolve_player(walked[0].after, viewer)
    omniscient = seat is None and not spectator
    page_steps = [
        {
            "seq": step.seq,
            "type": step.event.TYPE,
            "at": envelope.get("at"),
            "sentence": describe(step.event, step.before, step.after, viewer=seat, omniscient=omniscient),
            "voided_by": voided.get(step.seq),
            **step_marks(step.event, step.after, seat, omniscient),
            "view": view_dict(step.after, seat, omniscient),
            "board": board_dict(score(step.after)),
        }
        for step, envelope in zip(walked, envelopes, strict=True)
    ]
    return page_steps, walked[-1].after, seat


def swapped_seats(event: Any, after: GameState | None = None) -> list[str]:
    """The players who exchanged gifts in a swap, or every player when a chance move passed the
    gifts round (a 6 of the die); none for any other event, or a keep."""
    kind = KINDS[event.TYPE]
    if kind.passes_gifts is not None and after is not None:
        probe = tuple(after.players)
        return list(probe) if kind.passes_gifts(probe, *kind_outcome(event)) != probe else []
    partner = event.with_player if isinstance(event, Exchange) else None
    return [event.player, partner] if partner is not None else []


def kind_outcome(event: Any) -> tuple[Any, ...]:
    """A chance move's outcome, its last field as its kind declares it (a die's face)."""
    return (getattr(event, KINDS[event.TYPE].attrs[-1]),)


def step_marks(
    event: AnyEvent, after: GameState, viewer: str | None, omniscient: bool, seen: SeatView | None = None
) -> dict[str, Any]:
    """What the page marks at a step, beside the view, all worded here so that the page's script
    names no kind of event and no phase: the event's style on the timeline (its kind's, as
    `wecore.kinds` declares it), the seats a swap exchanged, and the turn's lines and badge.
    `seen`: the viewer's view of `after`, where the caller has it already."""
    sv = seen if seen is not None else view(after, viewer, omniscient=omniscient)
    marks = _turn_marks(turn_of_view(sv))
    return {"style": KINDS[event.TYPE].style, "swapped": swapped_seats(event, after), **marks}


# The page's marks of a turn depend on the turn alone, and a game has few turns (every move
# served marks its step for each kind of key): worded once per turn.
@functools.lru_cache(maxsize=1024)
def _turn_marks(turn: Turn) -> dict[str, str | bool]:
    return page_marks(turn)


def view_dict(state: GameState, viewer: str | None, omniscient: bool | None = None) -> dict[str, Any]:
    """The view the page shows (and `we replay --at SEQ --json` prints), as plain JSON values."""
    omniscient = viewer is None if omniscient is None else omniscient
    plain: dict[str, Any] = _plain(view(state, viewer, omniscient=omniscient).to_dict())
    return plain


def board_dict(board: Scoreboard) -> dict[str, Any]:
    """The standings with their card-by-card explanation, as plain JSON values (fresh ones on
    every call: a caller may change what it is given)."""
    found = _BOARD_PARTS.get(id(board))
    if found is None or found[0] is not board:
        found = _board_parts(board)
    _, ranked, players = found
    return {
        "complete": board.complete,
        "winners": list(board.winners),
        "tie_broken_by": board.tie_broken_by,
        "tie_reason": board.tie_reason,
        "ranked": list(ranked),  # the standings' order
        "players": [
            {
                "player": player,
                "list": list(gift_list),
                "counted": list(map(list, counted)),
                "unused": list(map(dict, unused)),
                "total": total,
                "explain": explain,
            }
            for player, gift_list, counted, unused, total, explain in players
        ],
    }


def board_json(board: Scoreboard) -> orjson.Fragment:
    """board_dict(board) as orjson writes it, to put in a message as it is: encoded once per
    board (a party's moves share one), not once per move and kind of key."""
    found = _BOARD_JSON.get(id(board))
    if found is not None and found[0] is board:
        return found[1]
    encoded = orjson.Fragment(orjson.dumps(board_dict(board)))
    if len(_BOARD_JSON) >= _BOARD_PARTS_KEPT:
        _BOARD_JSON.clear()
    _BOARD_JSON[id(board)] = (board, encoded)
    return encoded


# Each player's part of board_dict, as tuples: (player, list, counted, unused, total, explain).
_PlayerParts = tuple[
    str, tuple[str, ...], tuple[tuple[str, str | None], ...], tuple[dict[str, str], ...], int, str
]
# By the id of a board (kept with it, so an id used again is told apart): its ranked names and
# players' parts. A board is the same object for every move of a party (`scoring.score` hands
# it out again), and every kind of key following a game is sent it: worded once, copied after.
_BOARD_PARTS: dict[int, tuple[Scoreboard, tuple[str, ...], tuple[_PlayerParts, ...]]] = {}
_BOARD_PARTS_KEPT = 256
# By the id of a board, as _BOARD_PARTS: the board and its board_json.
_BOARD_JSON: dict[int, tuple[Scoreboard, orjson.Fragment]] = {}


def _board_parts(board: Scoreboard) -> tuple[Scoreboard, tuple[str, ...], tuple[_PlayerParts, ...]]:
    players = tuple(
        [
            (
                entry.player,
                tuple([COLOUR_NAME[c] for c in entry.gift_list]),
                tuple([(COLOUR_NAME[c], card) for c, card in entry.counted.items()]),
                tuple([{"card": u.card, "reason": u.reason} for u in entry.unused]),
                entry.total,
                entry.explain(),
            )
            for entry in board.players
        ]
    )
    parts = (board, tuple([entry.player for entry in board.ranked]), players)
    if len(_BOARD_PARTS) >= _BOARD_PARTS_KEPT:
        _BOARD_PARTS.clear()
    _BOARD_PARTS[id(board)] = parts
    return parts


def fingerprint_of(envelopes: list[dict[str, Any]]) -> str | None:
    """The fingerprint of the log after its last envelope, when that has a hash."""
    return fingerprint(envelopes[-1].get("hash")) if envelopes else None


def script_json(value: Any) -> str:
    """JSON that is safe as the text of a <script type="application/json"> element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _SCRIPT_UNSAFE[m.group(0)], text)


def _plain(value: Any) -> Any:
    """Tuples to lists and enums to their values, as JSON would give them back."""
    return json.loads(json.dumps(value))


def isolated(name: str) -> str:
    """A player's name as HTML, escaped and isolated in a <bdi>: a bidi control in a name (a
    hostile log's "\u202e") cannot reorder the words around it."""
    return f"<bdi>{html.escape(name)}</bdi>"


def _subtitle(state: GameState, viewer: str | None, spectator: bool = False) -> str:
    """The line under the title, as HTML (each name isolated)."""
    who = ", ".join(isolated(p) for p in state.players)
    if spectator:
        seen = "as the table sees it (public facts only)"
    else:
        everything = "everything shown, every attic and face-down gift"
        seen = f"seen from {isolated(viewer)}'s seat" if viewer else everything
    return f"{who} \u00b7 dealer {isolated(str(state.dealer))} \u00b7 {seen}"


def _noscript(state: GameState, fingerprint: str | None, label: str, cut: str | None) -> str:
    """The final standings in plain HTML, for readers without JavaScript."""
    board = score(state)
    heading = "Final standings" if board.complete else "Standings so far (the game is not over)"
    rows = []
    for entry in board.ranked:
        parts = html.escape(
            ", ".join(f"{c.value} ({PERSON_OF[c]}) {card or 'none'}" for c, card in entry.counted.items())
        )
        mark = " \u2014 winner" if board.complete and entry.player in board.winners else ""
        rows.append(f"<li><strong>{isolated(entry.player)}</strong>: {entry.total}{mark} ({parts})</li>")
    tie = ""
    if board.tie_broken_by:
        winner, reason = isolated(board.tie_broken_by), html.escape(board.tie_reason or "")
        tie = f"<p>Tie broken: {winner} ({reason}).</p>"
    fp = f"<p>{html.escape(label)}: <code>{html.escape(fingerprint)}</code></p>" if fingerprint else ""
    note = f"<p><strong>{html.escape(cut)}</strong></p>" if cut else ""
    return (
        "<p>The table and timeline of this replay need JavaScript.</p>"
        f"{note}<h2>{heading}</h2><ol>{''.join(rows)}</ol>{tie}{fp}"
    )
