"""The service's pages: the host's lobby, and the live table (the replay page in live mode)."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import segno

from service.guard import inline_hashes
from service.keys import HOST, SEAT, TABLE, Role
from service.live import Folder, LiveGame, plain
from wecore.kinds import MOVE_KINDS
from wecore.rulesets import HOUSE_RULES, Shape, house_rules_text
from wecore.wording import counted

if TYPE_CHECKING:
    from service.library_games import StoredGames


# Unfinished games shown with their seats' codes, a page at a time: a folder of a thousand games
# is a thousand sections, and drawing every seat's QR code took most of a minute.
LOBBY_PAGE = 12

# The words of each chance move's button on a live page (its outcome drawn by the server, or the
# one the host records), by move type, as its kind declares them: the page names no kind.
CHANCE_LABELS: dict[str, dict[str, str]] = {
    kind.move: {"field": kind.fields[-1].key, "drawn": kind.drawn_label, "recorded": kind.recorded_label}
    for kind in MOVE_KINDS
    if kind.move is not None and kind.outcomes
}
if any(not (words["drawn"] and "{outcome}" in words["recorded"]) for words in CHANCE_LABELS.values()):
    raise ImportError("service.pages: a chance kind must word its buttons (drawn_label, recorded_label)")


# The codes of a few pages of seats (7 a game at most), drawn once: reloading the lobby is cheap.
@functools.lru_cache(maxsize=4 * LOBBY_PAGE * 7)
def qr_svg(url: str, title: str) -> str:
    """A QR code as inline SVG (segno, pure Python; nothing fetched)."""
    svg = segno.make(url, error="m").svg_inline(border=2, omitsize=True, title=title)  # sized by the page
    return str(svg)


def live_page(game: LiveGame, role: Role, key: str) -> str:
    from service.replay_page import render_html

    with game.lock:
        envelopes = list(game.envelopes)
        head = game.head
        now = plain(game.view_object(head, role)) if head else {}
        legal, undoes, sealed = now.get("legal", []), now.get("undoes"), now.get("sealed")
        fingerprint = game.fingerprint(head)
        over = game.state.is_over
    if role.kind != HOST and not over:
        fingerprint = None
    live = {
        "stream": f"/api/v1/games/{game.game}/stream?k={key}",
        "view": f"/api/v1/games/{game.game}",
        "moves": f"/api/v1/games/{game.game}/moves",
        "key": key,
        "seat": role.seat if role.kind == SEAT else None,
        "host": role.kind == HOST,
        "legal": legal,
        "undoes": undoes,
        "sealed": sealed,
        "stopped": game.stopped,
        "play": f"/api/v1/games/{game.game}/play?k={key}",
        "seal": f"/api/v1/games/{game.game}/seal" if role.kind == HOST else None,
        "receipt": f"/api/v1/games/{game.game}/receipt" if role.kind == SEAT else None,
        "chance": CHANCE_LABELS,
    }
    if not envelopes:
        why = html.escape(game.stopped or "This game has no events.")
        return _plain_page("Not readable", f"<p>{why}</p>")
    return render_html(
        envelopes,
        viewer=role.seat if role.kind == SEAT else None,
        fingerprint=fingerprint or "",
        spectator=role.kind == TABLE,
        live=live,
        extra_scripts=seat_receipt_scripts() if role.kind == SEAT else (),
    )


@cache
def seat_receipt_scripts() -> tuple[str, ...]:
    """The seat page's receipts: the vendored signing and QR libraries, then our script."""
    from importlib import resources

    files = resources.files("service")
    return tuple(files.joinpath(name).read_text(encoding="utf-8") for name in _RECEIPT_SCRIPTS)


_RECEIPT_SCRIPTS = ("vendor/receipt_libs.js", "receipts_page.js")


_STYLE = """
:root { color-scheme: light dark; --ink: #1b1b1f; --paper: #fbfaf7; --surface: #fff; --line: #c9c6bd;
  --muted: #5f5b52; --alert: #b3261e; --link: #0b57d0; }
/* A dim living room: light ink on dark paper, AA in both schemes. */
@media (prefers-color-scheme: dark) {
  :root { --ink: #ecebe6; --paper: #161619; --surface: #212125; --line: #5c5b55; --muted: #b9b8b1;
    --alert: #ff8f85; --link: #8ab4f8; }
}
body { font: 16px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 0 1rem 2rem;
  color: var(--ink); background: var(--paper); }
.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
bdi { unicode-bidi: isolate; }
.house-rules { color: var(--muted); }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin: 0 0 0.4rem; }
.game { background: var(--surface); border: 1px solid var(--line); border-radius: 0.6rem; padding: 0.75rem;
  margin: 0.75rem 0; }
.seats { display: flex; flex-wrap: wrap; gap: 1rem; }
.seat { text-align: center; font-weight: 600; }
.seat svg { display: block; width: 9rem; height: auto; background: #fff; }
.seat.bot { width: 9rem; align-self: center; }
.bot-mark { display: block; font-size: 2.5rem; color: var(--muted); }
/* A checkbox sits on its words' baseline: its bottom edge is its baseline in a baseline-aligned
   flex line, so it neither floats above the words nor hangs below them. */
label > span { display: inline-flex; align-items: baseline; gap: 0.4rem; }
label > span > input[type=checkbox] { margin: 0; min-height: 0; width: 1.1rem; height: 1.1rem;
  flex: none; }
form, fieldset { display: grid; gap: 0.5rem; max-width: 32rem; }
fieldset { border: 1px solid var(--line); border-radius: 0.5rem; }
label { display: grid; gap: 0.2rem; }
input, button { font: inherit; min-height: 2.5rem; padding: 0.2rem 0.5rem; max-width: 100%;
  box-sizing: border-box; }
label, fieldset { min-width: 0; } label { grid-template-columns: minmax(0, 1fr); } input { min-width: 0; }
#start-error { color: var(--alert); font-weight: 600; }
.error { font-size: 1.25rem; padding-top: 2rem; } .error h1 { font-size: 1.8rem; color: var(--alert); }
a { color: var(--link); overflow-wrap: anywhere; }
"""


_ERROR_HEADINGS = {
    401: "This link does not open anything here",
    403: "This link is not enough for this page",
    404: "There is no such game here",
}


def error_page(status: int, sentence: str) -> str:
    """A refused page in words a guest can read on a phone (the API's answers stay JSON)."""
    heading = _ERROR_HEADINGS.get(status, "This page cannot be shown")
    # What to do is said once: ask the host (for a new link, or for this guest's own).
    what = (
        "The link may be cut short, mistyped, or from an earlier evening: the host's links change"
        " when the host's key does. Ask the host for a new link."
        if status == 401
        else "Ask the host for your own link: it is on the host's lobby, as a QR code per seat."
    )
    body = (
        f'<main class="error" data-status="{status}"><h1>{html.escape(heading)}</h1>'
        f"<p>{html.escape(sentence[:1].upper() + sentence[1:])}.</p><p>{html.escape(what)}</p></main>"
    )
    return _plain_page(heading, body)


def _plain_page(title: str, body: str, script: str = "") -> str:
    rest = (
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>{body}"
        f"<script>{script}</script></body></html>"
    )
    scripts, styles = inline_hashes(rest.encode())
    csp = f"default-src 'none'; style-src {styles}; script-src {scripts}; connect-src 'self'; img-src data:"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">{rest}'
    )


# Hiding an unfinished game (an abandoned test, a false start) is the host's view of the lobby:
# kept in this browser (localStorage), never in the folder. Nothing of the game changes, the TV and
# the phones are not told, and "Show" brings it back.
_HIDE_SCRIPT = """
const hiddenKey = "we-hidden-games";
const hiddenGames = new Set(JSON.parse(localStorage.getItem(hiddenKey) || "[]"));
function drawHidden() {
  let count = 0;
  for (const section of document.querySelectorAll("section.game[data-unfinished]")) {
    const hide = hiddenGames.has(section.dataset.game);
    section.hidden = hide;
    count += hide;
  }
  const line = document.getElementById("hidden-games");
  line.hidden = count === 0;
  document.getElementById("hidden-count").textContent =
    count === 1 ? "1 unfinished game hidden" : count + " unfinished games hidden";
}
function keepHidden() { localStorage.setItem(hiddenKey, JSON.stringify([...hiddenGames])); drawHidden(); }
for (const button of document.querySelectorAll("button[data-hide]")) {
  button.addEventListener("click", () => { hiddenGames.add(button.dataset.hide); keepHidden(); });
}
document.getElementById("show-hidden").addEventListener("click", () => {
  hiddenGames.clear();
  keepHidden();
});
drawHidden();
"""

_START_SCRIPT = (
    _HIDE_SCRIPT
    + """
document.getElementById("start").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const players = form.players.value.split(",").map((s) => s.trim()).filter(Boolean);
  const options = {};
  for (const input of form.querySelectorAll("[data-option]")) {
    const name = input.dataset.option;
    if (input.dataset.shape === "flag") { if (input.checked) options[name] = true; continue; }
    if (input.value.trim() === "") continue;
    const value = Number(input.value);
    options[name] = input.dataset.shape === "counts" ? { [String(players.length)]: value } : value;
  }
  const bots = {};
  for (const pair of form.bots.value.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [player, bot] = pair.split("=").map((s) => s.trim());
    bots[player] = bot || "greedy";
  }
  const body = { players, dealer: form.dealer.value.trim() || players[0] || "",
    lists: null, deal_attics: form.attics.checked, options, title: form.title.value.trim() || null, bots,
    clock: form.clock.value.trim() === "" ? null : Number(form.clock.value) };
  fetch("/api/v1/games", { method: "POST", headers: { "Content-Type": "application/json",
    "Authorization": "Bearer " + form.dataset.key }, body: JSON.stringify(body) })
    .then((r) => r.json().then((b) => {
      if (r.status === 201) location.reload();
      else document.getElementById("start-error").textContent = b.error;  // role=alert: said aloud
    }));
});
"""
)


def _bot_levels() -> str:
    """The bots a seat can have, easiest first: the levels a host picks from."""
    from service.bots import BOT_LEVELS

    items = "".join(
        f'<li data-bot="{html.escape(name)}">{html.escape(words)}</li>' for name, words in BOT_LEVELS.items()
    )
    return f'<ul id="bot-levels" aria-label="Bot levels, easiest first">{items}</ul>'


def _house_rule_fields() -> str:
    """One field per house rule of the registry (blank or unticked: the printed rule)."""
    fields = []
    for rule in HOUSE_RULES:
        words = html.escape(rule.flag_help[:1].upper() + rule.flag_help[1:])
        name = html.escape(rule.name)
        if rule.shape is Shape.FLAG:
            fields.append(
                f'<label><span><input type="checkbox" data-option="{name}" data-shape="flag">'
                f" {words}</span></label>"
            )
        else:
            shape = "counts" if rule.shape is Shape.COUNTS else "number"
            fields.append(
                f'<label>{words} <input type="number" min="1" step="1" inputmode="numeric"'
                f' data-option="{name}" data-shape="{shape}" placeholder="as printed"></label>'
            )
    legend = "<legend>House rules (leave blank to play as printed)</legend>"
    return f"<fieldset>{legend}{''.join(fields)}</fieldset>"


def _name(player: str) -> str:
    """A player's name as HTML, isolated (a bidi control in it cannot reorder what follows)."""
    return f"<bdi>{html.escape(player)}</bdi>"


def _house_rules_line(state: Any) -> str:
    """A game's house rules in the words of their declarations (wecore.rulesets), or none."""
    options = state.ruleset.options() if state.ruleset is not None else {}
    told = house_rules_text(options)
    return f'<p class="house-rules">House rules: {html.escape(told)}</p>' if told else ""


def _game_section(
    game: LiveGame,
    links: Callable[[str, tuple[str, ...]], dict[str, Any]],
    host_key: str,
    bots_of: Callable[[str], dict[str, str]],
    codes: bool,
) -> str:
    """One game of the lobby: its title, players, where it is, its links, and each seat's code to
    scan (`codes`) or only its link."""
    assert game.game is not None
    state = game.state
    title = state.title or game.game
    where = (
        "the game is over"
        if state.is_over
        else (f"{state.player_to_move} to move" if state.player_to_move else "waiting for gifts")
    )
    if game.stopped:
        where = "damaged: " + game.stopped
    those = links(game.game, state.players)
    bots = bots_of(game.game)
    if codes:
        seats = "".join(
            f'<div class="seat" data-seat="{html.escape(p)}">{qr_svg(url, f"{p}’s seat")}'
            f'<a href="{html.escape(url)}">{_name(p)}'
            f'<span class="vh"> in {html.escape(title)}</span></a></div>'
            for p, url in those["seats"].items()
        )
    else:
        seats = " · ".join(
            f'<a href="{html.escape(url)}">{_name(p)}<span class="vh"> in {html.escape(title)}</span></a>'
            for p, url in those["seats"].items()
        )
    # A bot's seat has no code to scan: said, so nobody waits for a player who is a bot.
    seats += "".join(
        f'<div class="seat bot" data-bot="{html.escape(p)}"><span class="bot-mark">bot</span>'
        f"{_name(p)}<br><small>plays {html.escape(bot)}</small></div>"
        for p, bot in bots.items()
    )
    players = ", ".join(_name(p) + (" (bot)" if p in bots else "") for p in state.players)
    rules = _house_rules_line(state)
    table = html.escape(those["table"])
    host = html.escape(f"/t/{game.game}?k={host_key}")
    unfinished = not state.is_over
    hide = (
        f'<button type="button" class="hide" data-hide="{html.escape(game.game)}">'
        "Hide this unfinished game</button>"
        if unfinished
        else ""
    )
    scan = "Each player scans their own code:" if codes else "Seats:"
    return (
        f'<section class="game" data-game="{html.escape(game.game)}"'
        f"{' data-unfinished' if unfinished else ''}>"
        f"<h2><bdi>{html.escape(title)}</bdi></h2>"
        f"<p>{players} · {game.head} events · {where}</p>{rules}{hide}"
        # Each link names its game, for a screen reader listing the page's links.
        f'<p><a href="{table}">Table (for the TV)<span class="vh"> of {html.escape(title)}</span></a> · '
        f'<a href="{host}">Host view<span class="vh"> of {html.escape(title)}</span></a></p>'
        f'<p>{scan}</p><div class="seats">{seats}</div></section>'
    )


def _last_played(place: tuple[int, LiveGame]) -> tuple[str, int]:
    """When a game's last event was written (its `at`: RFC 3339 UTC, so it sorts as text), then
    its place in the folder."""
    index, game = place
    return (str(game.envelopes[-1].get("at") or "") if game.envelopes else "", index)


def _pager(page: int, pages: int, count: int, host_key: str) -> str:
    """Which page of the unfinished games this is, with links to the others (none on one page)."""
    if pages <= 1:
        return ""

    def link(number: int, words: str) -> str:
        return f'<a href="/?k={html.escape(host_key)}&amp;page={number}">{words}</a>'

    steps = []
    if page > 1:
        steps.append(link(page - 1, "earlier games"))
    if page < pages:
        steps.append(link(page + 1, "later games"))
    return (
        f'<p class="pages">{counted(count, "unfinished game")}, {LOBBY_PAGE} a page: page {page} of {pages}'
        f" · {' · '.join(steps)}</p>"
    )


def _season_line(folder: Any) -> str:
    """The folder's season: how many games are sealed, and the fingerprint a club notes down."""
    from service.ratings_page import season_ratings_html
    from service.season import SEASON_FILE, folder_season

    directory = getattr(folder, "directory", None)
    reading = folder_season(directory) if directory is not None else None
    if reading is None:
        return ""
    fp = reading.fingerprint or "not proven: see `we season verify`"
    return (
        f'<p id="season">Season {html.escape(reading.season.name or SEASON_FILE)}:'
        f" {counted(len(reading.season.games), 'game')} sealed"
        f" · season fingerprint <code>{html.escape(fp)}</code></p>"
    ) + season_ratings_html(reading)


def lobby_page(
    folder: Folder | StoredGames,
    links: Callable[[str, tuple[str, ...]], dict[str, Any]],
    host_key: str,
    bots_of: Callable[[str], dict[str, str]] = lambda game: {},
    page: int = 1,
) -> str:
    """The host's lobby: the unfinished games, LOBBY_PAGE a page (`page`, from 1), each with its
    seats' codes; then every finished game, folded, with its links and no codes."""
    parts = [
        "<h1>White Elephant: the games</h1>",
        _season_line(folder),
        '<p id="hidden-games" hidden><span id="hidden-count"></span> (in this browser only) '
        '<button type="button" id="show-hidden">Show them</button></p>',
    ]
    unfinished: list[LiveGame] = []
    finished: list[LiveGame] = []
    for game in folder.games():
        folder.refresh(game)
        if game.game is not None:
            (finished if game.state.is_over else unfinished).append(game)
    # The game played last comes first: the one just started, whose codes the host is about to
    # show round the table, is on the first page however many games the folder holds.
    # (Games played in the same second: the one later in the folder first.)
    unfinished = [game for _, game in sorted(enumerate(unfinished), key=_last_played, reverse=True)]
    pages = max(1, -(-len(unfinished) // LOBBY_PAGE))
    page = min(max(page, 1), pages)
    pager = _pager(page, pages, len(unfinished), host_key)
    parts.append(pager)
    for game in unfinished[(page - 1) * LOBBY_PAGE : page * LOBBY_PAGE]:
        parts.append(_game_section(game, links, host_key, bots_of, codes=True))
    if pages > 1:
        parts.append(pager)
    if finished:
        parts.append(
            f'<details id="finished-games"><summary>{counted(len(finished), "finished game")}</summary>'
            + "".join(_game_section(game, links, host_key, bots_of, codes=False) for game in finished)
            + "</details>"
        )
    for game, why in folder.unserved():  # a second file with a served game's id: named, no links
        parts.append(
            f'<section class="game unserved" data-game="{html.escape(game.game or "")}">'
            f"<h2><bdi>{html.escape(game.state.title or game.label)}</bdi></h2>"
            f"<p>{html.escape(why)}</p></section>"
        )
    parts.append(
        "<h2>Start a game</h2>"
        f'<form id="start" data-key="{html.escape(host_key)}">'
        '<label>Title <input name="title" placeholder="Thanksgiving 2026"></label>'
        '<label>Players, clockwise <input name="players" required placeholder="Ann, Ben, Cat"></label>'
        '<label>Dealer <input name="dealer" placeholder="Ann"></label>'
        '<label><span><input type="checkbox" name="attics"> deal the attics too</span></label>'
        '<label>Bots at seats (with the attics dealt) <input name="bots"'
        ' placeholder="Ben=greedy, Cat=ismcts"></label>'
        f"{_bot_levels()}"
        "<label>Table clock, seconds a player has for a move (empty: the server's; 0: none)"
        ' <input name="clock" type="number" min="0" max="86400" placeholder="60"></label>'
        f"{_house_rule_fields()}"
        '<button type="submit">Start (gift lists dealt at random)</button>'
        '<p id="start-error" role="alert"></p></form>'
    )
    return _plain_page("White Elephant: games", "<main>" + "".join(parts) + "</main>", _START_SCRIPT)
