"""Every path that judges a move agrees with every other, at every step of bot games, under
every house rule of the registry (and all of them at once).

The paths: the reducer (`evolve` accepts or refuses the move's events), `legal_moves`, the
recorder (what Tab offers in `we record` and what its toolbar lists; what it does with the typed
line) and the HTTP API (`legal` in the game's JSON; what a POSTed move gets). A house rule
enforced in only some of them (a refusal written in the recorder alone, a predicate the reducer
asks but move generation does not) makes one path list or take a move that another refuses.

Each step: every candidate move (the legal ones and a sample of illegal ones) is judged by every
path; then the bot's move is made through one path in turn (the log written by the reducer's
events, by the recorder's typed line, or by a POST), so each path also reads the log the others
wrote.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from cli.glance import table_at_a_glance
from cli.record_grammar import completions
from cli.record_setup import resume
from eventstore.jsonl import JsonlLog
from service.http import create_app
from service.play import commit, start_game
from wecore.cards import ALL_CARDS
from wecore.dealing import deal_payloads
from wecore.errors import RuleViolation
from wecore.events import Event, GiftBrought, parse_event
from wecore.kinds import MOVE_KINDS, MOVE_TYPE_NAMES
from wecore.levels import BOTS
from wecore.moves import Bring, Move, Open, Roll, Steal, Swap, chance_outcomes, legal_moves, move_event
from wecore.reducer import fold
from wecore.rng import SeededRandom
from wecore.rules import brought_with_first_open
from wecore.rulesets import HOUSE_RULES, Shape
from wecore.state import GameState, Phase

HOST_KEY = "host-key-for-the-paths-test"
PLAYERS = ("Ann", "Ben", "Cat")
GAME = "paths"


def option_sets() -> list[dict[str, Any]]:
    """Each house rule of the registry alone, at its most binding sample, and all at once; every
    game is small (two parties of three) so that many steps fit in a few seconds."""
    sets = []
    together: dict[str, Any] = {}
    for rule in HOUSE_RULES:
        if rule.shape is Shape.COUNTS:
            continue  # every game here plays small attics
        # The most binding value: the smallest cap, a flag on.
        value = True if rule.shape is Shape.FLAG else min(rule.samples)
        sets.append({rule.name: value})
        together[rule.name] = value
    sets.append(together)
    for options in sets:
        options.setdefault("attic_sizes", {"3": 2})
    return sets


@dataclass(frozen=True)
class Candidate:
    """A move someone might make now: what the recorder's line says, what the API's move object
    says, and the events the reducer is given for it."""

    kind: str  # open, steal, bring, swap, keep, roll (CANDIDATE_KINDS)
    player: str
    # The card opened or brought (None: unseen), the player stolen from or swapped with, the face rolled.
    arg: str | None

    def line(self) -> str:
        if self.kind == "open":
            return f"{self.player}: open {self.arg}"
        if self.kind == "bring":
            return f"bring {self.player} {self.arg}"
        if self.kind == "keep":
            return f"{self.player}: keep"
        return f"{self.player}: {self.kind} {self.arg}"

    def move_object(self) -> dict[str, Any]:
        if self.kind == "keep":
            return {"type": "swap", "as": self.player, "with": None}
        if self.kind in ("steal", "swap"):
            key = "from" if self.kind == "steal" else "with"
            return {"type": self.kind, "as": self.player, key: self.arg}
        if self.kind == "roll":  # the host records a die rolled at the table
            return {"type": self.kind, "as": self.player, "value": int(self.arg or 0)}
        return {"type": self.kind, "as": self.player, "card": self.arg}


# Every kind of move a candidate can be (a swap with nobody is a keep): a kind declared in
# wecore.kinds and not here fails test_every_kind_of_move_is_tried.
CANDIDATE_KINDS = frozenset({"open", "steal", "bring", "swap", "keep", "roll"})


def unseen_card(state: GameState) -> str:
    """A card an unseen gift may turn out to be: the first not met in the game."""
    return next(card for card in ALL_CARDS if card not in state.seen)


def typed(state: GameState, candidate: Candidate) -> Candidate:
    """The candidate as a person types it: an unseen gift's open names a card."""
    if candidate.kind == "open" and candidate.arg is None:
        return Candidate("open", candidate.player, unseen_card(state))
    return candidate


def of_move(state: GameState, move: Move) -> Candidate:
    match move:
        case Bring():
            return Candidate("bring", move.player, move.card)
        case Open():
            return Candidate("open", move.player or state.player_to_move or "", move.card)
        case Steal():
            return Candidate("steal", move.player or "", move.from_player)
        case Swap():
            if move.with_player is None:
                return Candidate("keep", move.player or "", None)
            return Candidate("swap", move.player or "", move.with_player)
        case Roll():
            return Candidate("roll", move.player or "", str(move.value))
    raise TypeError(move)


def listed(state: GameState) -> set[Candidate]:
    """What the rules allow now: `legal_moves`, and the first open that brings the gifts not
    recorded unseen (rules.brought_with_first_open), which the recorder and API offer too."""
    moves = {typed(state, of_move(state, m)) for m in legal_moves(state) if not _unseen_bring(m)}
    if brought_with_first_open(state):
        moves.add(Candidate("open", state.starter_name or "", unseen_card(state)))
    return moves


def _unseen_bring(move: Move) -> bool:
    # Nobody types an unseen bring: it is written with the party's first open (`listed`).
    return isinstance(move, Bring) and move.card is None


def every_candidate(state: GameState) -> Iterator[Candidate]:
    """Legal moves and their near misses: every player's opens, steals from everyone, brings,
    swaps and keeps, whoever is to move."""
    cards = [*state.face_down, unseen_card(state)]
    if state.attics is not None:
        for attic in state.attics:
            cards.extend(sorted(attic)[:1])
    for player in state.players:
        for card in cards:
            yield Candidate("open", player, card)
        for other in state.players:
            yield Candidate("steal", player, other)
            yield Candidate("swap", player, other)
        yield Candidate("keep", player, None)
        for kind in MOVE_KINDS:  # a chance move: each of its outcomes, and one past each end
            if kind.outcomes:
                for face in range(min(kind.outcomes) - 1, max(kind.outcomes) + 2):
                    yield Candidate(kind.move or "", player, str(face))
        if state.attics is not None:
            for attic in state.attics:
                for card in sorted(attic)[:2]:
                    yield Candidate("bring", player, card)


def reducer_events(state: GameState, candidate: Candidate) -> list[Event] | None:
    """The events that carry the candidate out, as a log would hold them (None: no event can,
    e.g. a steal from someone holding nothing or a swap for no gift). Which event a move makes
    is the declaration's (`wecore.moves.move_event`: a swap's kind is its phase's)."""
    party, player, arg = state.party, candidate.player, candidate.arg
    brings: list[Event] = []
    move: Move
    if candidate.kind == "bring":
        move = Bring(player, arg)
    elif candidate.kind == "open":
        brings = [GiftBrought(party=party, player=p, card=None) for p in brought_with_first_open(state)]
        move = Open(arg, player)
    elif candidate.kind == "keep":
        move = Swap(None, player, None)
    elif candidate.kind == "roll":
        move = Roll(int(arg or 0), player)
    else:
        held = state.holding[state.seat_of[arg]] if state.holding else None  # type: ignore[index]
        if held is None:
            return None
        move = Steal(arg, player, held) if candidate.kind == "steal" else Swap(arg, player, held)
    return [*brings, parse_event(*move_event(state, move))]


def reducer_accepts(state: GameState, candidate: Candidate) -> bool:
    events = reducer_events(state, candidate)
    if events is None:
        return False
    try:
        fold(events, state)
    except RuleViolation:
        return False
    return True


class Table:
    """One game log, and the recorder and HTTP app that read and write it."""

    def __init__(self, directory: Path, seed: str, options: dict[str, Any], attics: bool) -> None:
        self.path = directory / f"{GAME}.jsonl"
        payloads = deal_payloads(seed, PLAYERS, options=options, deal_attics=attics)
        start_game(self.path, GAME, [parse_event(kind, data) for kind, data in payloads])
        # Entered once (see `close`): one event loop for every request, not one per request.
        self.client = TestClient(create_app(directory, "http://testserver", HOST_KEY)).__enter__()
        self.client.headers["Authorization"] = f"Bearer {HOST_KEY}"
        self.recorder = resume(self.path, greet=False)
        self.log = JsonlLog(self.path)

    def close(self) -> None:
        self.client.__exit__(None, None, None)

    # --- the log as it stands ---
    def events(self) -> list[Event]:
        self.recorder.look()  # the recorder reads what the others wrote
        return list(self.recorder.now.events)

    def state(self) -> GameState:
        events = self.events()
        return fold(events)

    def head(self) -> int:
        return len(self.events())

    # --- what each path lists ---
    def recorder_listing(self, state: GameState) -> RecorderListing:
        """What the recorder offers now: Tab after each verb, the prompt, the toolbar."""
        session = self.recorder
        now = session.state
        return RecorderListing(
            prompt=session.prompt(),
            opens=set(completions(now, ["open"])),
            steals=set(completions(now, ["steal"])),
            swaps=set(completions(now, ["swap"])),
            rolls=set(completions(now, ["roll"])),
            brings={p: set(completions(now, ["bring", p])) for p in state.players},
            toolbar_steals=_steals_on(table_at_a_glance(state)),
        )

    def api_legal(self) -> list[dict[str, Any]]:
        answer = self.client.get(f"/api/v1/games/{GAME}")
        assert answer.status_code == 200, answer.text
        return answer.json()["legal"]

    # --- what each path does with a move ---
    def recorder_takes(self, candidate: Candidate) -> bool:
        head = self.head()
        self.recorder.handle(candidate.line())
        return self.file_head() > head

    def file_head(self) -> int:
        return self.log.head()[0]

    def api_takes(self, candidate: Candidate) -> bool:
        head = self.file_head()
        answer = self.client.post(
            f"/api/v1/games/{GAME}/moves", json={"expect": head, "move": candidate.move_object()}
        )
        assert answer.status_code in (201, 403, 422), answer.text
        taken = answer.status_code == 201
        assert taken == (self.file_head() > head), answer.text
        return taken

    def reducer_takes(self, state: GameState, candidate: Candidate) -> bool:
        events = reducer_events(state, candidate)
        if events is None:
            return False
        commit(self.log, events, self.file_head())
        return True


@dataclass(frozen=True)
class RecorderListing:
    prompt: str
    opens: set[str]
    steals: set[str]
    swaps: set[str]
    rolls: set[str]
    brings: dict[str, set[str]]
    toolbar_steals: str

    def lists(self, state: GameState, candidate: Candidate) -> bool:
        """Would the recorder offer this move: Tab after the verb, to the player the prompt names
        (and the toolbar's steals, which must be Tab's)?"""
        mover = f" {candidate.player}>" in self.prompt or f" {candidate.player} " in self.prompt
        match candidate.kind:
            case "open":
                return candidate.arg in self.opens and mover
            case "steal":
                offered = candidate.arg in self.steals
                card = state.holding[state.seat_of[candidate.arg]]  # type: ignore[index]
                assert offered == (f"{card} ({candidate.arg})" in self.toolbar_steals), self.toolbar_steals
                return offered and mover
            case "swap":
                return candidate.arg in self.swaps and mover
            case "keep":
                return "keep" in self.prompt and mover
            case "roll":
                return candidate.arg in self.rolls and mover
        return candidate.arg in self.brings[candidate.player]


def _steals_on(toolbar: str) -> str:
    found = re.search(r"Steal: (.*?)(?:\n|$)", toolbar)
    return found.group(1) if found else ""


def api_lists(legal: list[dict[str, Any]], state: GameState, candidate: Candidate) -> bool:
    wanted = candidate.move_object()
    if candidate.kind == "open" and candidate.arg not in state.face_down:
        wanted = {**wanted, "card": None}  # an unseen gift: its card is known once turned
    return wanted in legal


def check_step(table: Table, state: GameState, rng: SeededRandom) -> Candidate:
    """Every path judges the candidates the same; returns the move to make (the bot's)."""
    allowed = listed(state)
    legal = table.api_legal()
    recorder = table.recorder_listing(state)
    candidates = sorted(set(every_candidate(state)) | allowed, key=repr)
    for candidate in candidates:
        expected = candidate in allowed
        verdicts = {
            "reducer": reducer_accepts(state, candidate),
            "recorder's listing": recorder.lists(state, candidate),
            "API's legal": api_lists(legal, state, candidate),
        }
        wrong = {path: verdict for path, verdict in verdicts.items() if verdict != expected}
        assert not wrong, f"{candidate.line()!r}: legal_moves says {expected}, but {wrong}"
    refused = [c for c in candidates if c not in allowed]
    for candidate in rng.shuffled(refused)[:2]:
        assert not table.recorder_takes(candidate), f"the recorder took {candidate.line()!r}"
        assert not table.api_takes(candidate), f"the API took {candidate.move_object()}"
    return rng.choice(sorted(allowed, key=repr))


def test_every_kind_of_move_is_tried() -> None:
    """Every kind of move declared (wecore.kinds) is a candidate here, so every path is asked
    about it; a new kind fails this until Candidate learns its line and move object."""
    assert set(MOVE_TYPE_NAMES) <= CANDIDATE_KINDS
    assert {"party_die", "keep_or_swap_on_open", "starter_final_swap"} <= {
        name for options in option_sets() for name in options
    }


@pytest.mark.parametrize("options", option_sets(), ids=lambda o: "+".join(k for k in o if k != "attic_sizes"))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), attics=st.booleans())
def test_every_path_agrees_at_every_step(options, seed, attics):
    rng = SeededRandom(f"paths-{seed}")
    bot = BOTS["random"]()
    with tempfile.TemporaryDirectory() as directory:
        table = Table(Path(directory), f"paths-{seed}", options, attics)
        makers = ("reducer", "recorder", "API")
        step = 0
        state = table.state()
        while not state.is_over:
            candidate = check_step(table, state, rng)
            if rng.randbelow(2):
                # The bot's own choice, where it has one, so its style of play is covered too.
                choices = legal_moves(state)
                # Never at a chance node: no bot chooses a face (the test's rng draws it).
                if state.phase is not Phase.BRINGING and choices and not chance_outcomes(state):
                    candidate = typed(state, of_move(state, bot.choose(state, choices, rng)))
            maker = makers[step % len(makers)]
            if maker == "reducer":
                taken = table.reducer_takes(state, candidate)
            elif maker == "recorder":
                taken = table.recorder_takes(candidate)
            else:
                taken = table.api_takes(candidate)
            assert taken, f"the {maker} refused {candidate.line()!r}, which legal_moves lists"
            step += 1
            state = table.state()
        table.close()
