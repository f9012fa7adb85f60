"""Golden playthroughs: a few games written out event by event, state by state, as text.

In the spirit of OpenSpiel's playthrough files: any change to dealing, bots or rules that
changes a game shows up as a diff in tests/core/golden/*.txt. See golden/README.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from wecore import INITIAL_STATE, GameState, event_payload, evolve, play_game
from wecore.bots import GreedyBot, RandomBot
from wecore.cards import sort_key
from wecore.events import Event

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REGEN_COMMAND = "python -m tests.core.regen_golden"


def _cards(cards: Iterable[str]) -> str:
    text = " ".join(sorted(cards, key=sort_key))
    return text or "-"


def render_state(state: GameState) -> list[str]:
    """A compact, complete-enough rendering of a state, one fact per line."""
    if not state.players:
        return ["  phase: not started"]
    turn = state.player_to_move or "-"
    lines = [
        f"  phase: {state.phase.value} | party {state.party}/{state.party_count}"
        f" | starter {state.starter_name or '-'} | to move {turn}"
    ]
    if state.attics is not None:
        attics = " | ".join(f"{p} {_cards(a)}" for p, a in zip(state.players, state.attics, strict=True))
        lines.append(f"  attics: {attics}")
    if state.waiting_to_bring:
        lines.append(f"  waiting to bring: {' '.join(state.waiting_to_bring)}")
    lines.append(f"  face down: {_cards(state.face_down)} (+{state.unseen_face_down} unseen)")
    holding = " ".join(f"{p}={c or '-'}" for p, c in zip(state.players, state.holding, strict=True))
    lines.append(f"  holding: {holding}")
    lines.append(f"  locked: {_cards(state.locked)} | frozen: {_cards(state.frozen)}")
    kept = " | ".join(f"{p} {' '.join(k) or '-'}" for p, k in zip(state.players, state.kept, strict=True))
    lines.append(f"  kept: {kept}")
    board = state.scoreboard
    scores = " ".join(f"{p}={t}" for p, t in board.totals.items())
    lines.append(f"  scores: {scores}" + (f" | winners: {' '.join(board.winners)}" if state.is_over else ""))
    return lines


def render_game(title: str, events: Iterable[Event]) -> str:
    lines = [
        f"# Golden playthrough: {title}",
        f"# Do not edit by hand. Regenerate on purpose only: {REGEN_COMMAND}",
    ]
    state = INITIAL_STATE
    for seq, event in enumerate(events, start=1):
        event_type, data = event_payload(event)
        state = evolve(state, event)
        lines.append(f"[{seq}] {event_type} {json.dumps(data, sort_keys=True, ensure_ascii=False)}")
        lines.extend(render_state(state))
    return "\n".join(lines) + "\n"


def _bot_game(seed: int, count: int, bot, options=None) -> Callable[[], list[Event]]:
    return lambda: play_game(seed, count, bot, options=options)[0]


def _hand_game() -> list[Event]:
    """game_two_way_tie with a mistaken open that is noted and voided, and the tie broken."""
    from .games import game_two_way_tie
    from .helpers import ANN, CAT, Table

    log = game_two_way_tie().log
    table = Table(log[:14])  # up to Cat's open of O6 in party 2; Ann is to move
    table.open(ANN, "B1")  # recorded by mistake
    table.note("Ann stole the O6; she did not open the blue 1")
    table.void(table.seq - 1)
    for event in log[14:]:  # Ann steals O6, and the rest of the game
        table.do(event)
    table.break_tie(CAT, "best speech for Fluffy the Cat")
    return table.log


GAMES: dict[str, tuple[str, Callable[[], list[Event]]]] = {
    "3p-random-seed-1": ("3 players, random bots, seed 1, printed rules", _bot_game(1, 3, RandomBot())),
    "5p-greedy-seed-2": ("5 players, greedy bots, seed 2, printed rules", _bot_game(2, 5, GreedyBot())),
    "7p-random-seed-3-max-steals-2": (
        "7 players, random bots, seed 3, max_steals_per_gift 2",
        _bot_game(3, 7, RandomBot(), {"max_steals_per_gift": 2}),
    ),
    "3p-hand-void-note-tie": (
        "3 players by hand (tests/core/games.py game_two_way_tie) with a note, a void and tie_broken",
        _hand_game,
    ),
}


def golden_text(name: str) -> str:
    title, make = GAMES[name]
    return render_game(title, make())


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.txt"


def write_all() -> list[Path]:
    GOLDEN_DIR.mkdir(exist_ok=True)
    paths = []
    for name in GAMES:
        path = golden_path(name)
        path.write_text(golden_text(name), encoding="utf-8")
        paths.append(path)
    return paths
