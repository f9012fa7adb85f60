"""An independent generator of White Elephant logs for adversarial audits.

Written from ../shared/spec (log-format.md, rules.md) only: it hashes with the standard library,
plays games by its own reading of the rules and scores them by its own reading of the scoring
rule, so it can judge the project rather than agree with it by construction.

- `Table` plays a game legally step by step (random or chosen moves), and can append any raw
  event, so a case can put one illegal event at a known line.
- `chain` / `rechain` turn events into hashed envelopes; `text_of` writes them as JSON Lines.
- `build_cases()` returns every case with the verdict the spec implies.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

COLOURS = ("red", "orange", "yellow", "green", "blue")
LETTER = {"red": "R", "orange": "O", "yellow": "Y", "green": "G", "blue": "B"}
COLOUR_OF_LETTER = {v: k for k, v in LETTER.items()}
ALL_CARDS = [f"{LETTER[c]}{n}" for c in COLOURS for n in range(1, 11)]
LIST_DECK = [
    ("red", "yellow", "green"),
    ("red", "yellow", "blue"),
    ("red", "orange", "green"),
    ("red", "orange", "blue"),
    ("orange", "yellow", "green"),
    ("orange", "yellow", "blue"),
    ("yellow", "green", "blue"),
]
PRINTED_ATTIC = {3: 9, 4: 8, 5: 5, 6: 6, 7: 7}
NAMES = ["Ann", "Ben", "Cat", "Dev", "Eve", "Fay", "Gus"]
RULESET = "white-elephant-2011"
ENVELOPE_ORDER = ("v", "game", "seq", "at", "type", "data", "prev", "hash")
BASE_TIME = datetime(2026, 11, 26, 19, 0, 0, tzinfo=UTC)


# --- hashing and envelopes ---------------------------------------------------------------


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def hash_of(envelope: dict[str, Any]) -> str:
    body = {k: v for k, v in envelope.items() if k != "hash"}
    return "sha256:" + hashlib.sha256(canonical(body)).hexdigest()


def at_of(seq: int) -> str:
    return (BASE_TIME + timedelta(seconds=seq)).strftime("%Y-%m-%dT%H:%M:%SZ")


def chain(events: list[tuple[str, dict[str, Any]]], game: str) -> list[dict[str, Any]]:
    envs: list[dict[str, Any]] = []
    prev = None
    for i, (etype, data) in enumerate(events, start=1):
        env = {
            "v": 1,
            "game": game,
            "seq": i,
            "at": at_of(i),
            "type": etype,
            "data": copy.deepcopy(data),
            "prev": prev,
        }
        env["hash"] = hash_of(env)
        prev = env["hash"]
        envs.append(env)
    return envs


def rechain(
    envs: list[dict[str, Any]],
    keep_prev: frozenset[int] = frozenset(),
    keep_hash: frozenset[int] = frozenset(),
) -> list[dict[str, Any]]:
    """Recompute every prev and hash in order (0-based indexes in keep_* are left as they are),
    so the only faults left are the ones a case put in on purpose."""
    prev = None
    for i, env in enumerate(envs):
        if "prev" in env and i not in keep_prev:
            env["prev"] = prev
        if "hash" in env and i not in keep_hash:
            env["hash"] = hash_of(env)
        prev = env.get("hash")
    return envs


def line_of(env: Any, *, compact: bool = False, ascii_only: bool = False) -> str:
    if isinstance(env, dict):
        ordered = {k: env[k] for k in ENVELOPE_ORDER if k in env}
        ordered.update({k: v for k, v in env.items() if k not in ordered})
        env = ordered
    seps = (",", ":") if compact else (", ", ": ")
    return json.dumps(env, ensure_ascii=ascii_only, separators=seps)


def text_of(envs: list[Any], **kw: Any) -> str:
    return "".join(line_of(e, **kw) + "\n" for e in envs)


def fingerprint(envs: list[dict[str, Any]]) -> str:
    return envs[-1]["hash"][len("sha256:") :][:12]


# --- the game, by the spec ---------------------------------------------------------------


@dataclass
class PartyState:
    number: int
    starter: int
    brought: dict[str, str | None] = field(default_factory=dict)  # player -> card as recorded
    face_down: list[str] = field(default_factory=list)  # physical cards still face down
    seen_face_down: set[str] = field(default_factory=set)  # of those, the ones brought seen
    holders: dict[str, str] = field(default_factory=dict)  # player -> held card
    locked: set[str] = field(default_factory=set)
    steals: dict[str, int] = field(default_factory=dict)
    last_victim: str | None = None
    opened: int = 0


class Table:
    """A game played by the rules. Every method that records a move appends one event."""

    def __init__(
        self,
        n: int = 3,
        *,
        players: list[str] | None = None,
        dealer: int | str = 0,
        options: dict[str, Any] | None = None,
        title: str | None = "Adversarial",
        attics: bool = True,
        seen: bool | None = None,
        seed: int = 0,
        steal_p: float = 0.45,
        lists: dict[str, list[str]] | None = None,
        start: bool = True,
    ) -> None:
        self.players = list(players) if players else NAMES[:n]
        self.n = len(self.players)
        self.dealer = self.players[dealer] if isinstance(dealer, int) else dealer
        self.options = dict(options or {})
        self.title = title
        self.rng = random.Random(seed)
        self.steal_p = steal_p
        self.attics_dealt = attics
        self.seen = attics if seen is None else seen
        sizes = self.options.get("attic_sizes", {})
        self.size = sizes.get(str(self.n), PRINTED_ATTIC.get(self.n, 0))
        deck = ALL_CARDS[:]
        self.rng.shuffle(deck)
        self.hands = {p: deck[i * self.size : (i + 1) * self.size] for i, p in enumerate(self.players)}
        triples = self.rng.sample(LIST_DECK, self.n)
        self.lists = lists or {p: list(t) for p, t in zip(self.players, triples, strict=True)}
        self.kept: dict[str, list[str]] = {p: [] for p in self.players}
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.party: PartyState | None = None
        self.parties_done = 0
        self.tie_winner: str | None = None
        if start:
            self.start()

    # -- recording

    def raw(self, etype: str, data: dict[str, Any]) -> int:
        """Append any event, changing no state; returns its line number."""
        self.events.append((etype, copy.deepcopy(data)))
        return len(self.events)

    def start(self) -> None:
        data: dict[str, Any] = {
            "players": self.players,
            "dealer": self.dealer,
            "ruleset": RULESET,
            "options": self.options,
        }
        if self.title is not None:
            data["title"] = self.title
        self.raw("game_started", data)
        self.raw("gift_lists_dealt", {"lists": self.lists})
        if self.attics_dealt:
            self.raw("attics_dealt", {"attics": self.hands})

    def note(self, text: str = "a remark") -> int:
        return self.raw("note", {"text": text})

    # -- queries

    @property
    def line(self) -> int:
        return len(self.events)

    @property
    def over(self) -> bool:
        return self.parties_done == self.size

    def begin_party(self) -> PartyState:
        number = self.parties_done + 1
        starter = (self.players.index(self.dealer) + number) % self.n
        self.party = PartyState(number=number, starter=starter)
        return self.party

    def mover(self) -> str:
        ps = self.party
        assert ps is not None
        if ps.last_victim is not None:
            return ps.last_victim
        for i in range(self.n):
            p = self.players[(ps.starter + i) % self.n]
            if p not in ps.holders:
                return p
        raise AssertionError("nobody to move")

    def stealable(self) -> list[tuple[str, str]]:
        ps = self.party
        assert ps is not None
        cap = self.options.get("max_steals_per_gift")
        return [
            (holder, card)
            for holder, card in ps.holders.items()
            if card not in ps.locked and (cap is None or ps.steals.get(card, 0) < cap)
        ]

    # -- moves

    def bring(self, player: str, card: str | None = None, *, unseen: bool | None = None) -> int:
        ps = self.party if self.party is not None and self.party.opened == 0 else None
        if ps is None:
            ps = self.begin_party()
        hand = self.hands[player]
        physical = card if card is not None else self.rng.choice(hand)
        hand.remove(physical)
        recorded = None if (unseen if unseen is not None else not self.seen) else physical
        ps.brought[player] = recorded
        ps.face_down.append(physical)
        if recorded is not None:
            ps.seen_face_down.add(physical)
        return self.raw("gift_brought", {"party": ps.number, "player": player, "card": recorded})

    def bring_all(self, order: list[str] | None = None) -> None:
        order = order or self.rng.sample(self.players, self.n)
        for p in order:
            self.bring(p)

    def open(self, card: str | None = None) -> int:
        ps = self.party
        assert ps is not None and len(ps.brought) == self.n
        player = self.mover()
        physical = card if card is not None else self.rng.choice(ps.face_down)
        ps.face_down.remove(physical)
        ps.seen_face_down.discard(physical)
        ps.holders[player] = physical
        ps.locked.clear()
        ps.last_victim = None
        ps.opened += 1
        line = self.raw("gift_opened", {"party": ps.number, "player": player, "card": physical})
        if not ps.face_down:
            for p in self.players:
                self.kept[p].append(ps.holders[p])
            self.parties_done += 1
            self.party = None
        return line

    def steal(self, victim: str | None = None) -> int:
        ps = self.party
        assert ps is not None
        player = self.mover()
        options = self.stealable()
        if victim is None:
            victim, card = self.rng.choice(options)
        else:
            card = ps.holders[victim]
            assert (victim, card) in options, "not a legal steal"
        del ps.holders[victim]
        ps.holders[player] = card
        ps.locked.add(card)
        ps.steals[card] = ps.steals.get(card, 0) + 1
        ps.last_victim = victim
        return self.raw("gift_stolen", {"party": ps.number, "player": player, "from": victim, "card": card})

    def move(self) -> int:
        options = self.stealable()
        if options and self.rng.random() < self.steal_p:
            return self.steal()
        return self.open()

    def play_party(self) -> None:
        self.bring_all()
        while self.party is not None:
            self.move()

    def finish(self) -> Table:
        """Play the current party (if any) and every party left."""
        while self.party is not None:
            self.move()
        while not self.over:
            self.play_party()
        return self

    def play(self, parties: int | None = None) -> Table:
        for _ in range(self.size if parties is None else parties):
            self.play_party()
        return self

    # -- checkpoints for voided moves

    def snapshot(self) -> dict[str, Any]:
        keep = {k: v for k, v in self.__dict__.items() if k not in ("events", "rng")}
        return copy.deepcopy(keep)

    def restore(self, snap: dict[str, Any]) -> None:
        self.__dict__.update(copy.deepcopy(snap))

    def void(self, line: int, reason: str = "typed the wrong move") -> int:
        return self.raw("event_voided", {"voids": line, "reason": reason})

    # -- scoring by rules.md

    def scores(self) -> dict[str, int]:
        out = {}
        for p in self.players:
            total = 0
            for colour in self.lists[p]:
                nums = [int(c[1:]) for c in self.kept[p] if COLOUR_OF_LETTER[c[0].upper()] == colour]
                total += max(nums, default=0)
            out[p] = total
        return out

    def winners(self) -> list[str]:
        if self.tie_winner is not None:
            return [self.tie_winner]
        s = self.scores()
        top = max(s.values())
        return [p for p in self.players if s[p] == top]

    def leaders(self) -> list[str]:
        s = self.scores()
        top = max(s.values())
        return [p for p in self.players if s[p] == top]

    def break_tie(self, winner: str) -> int:
        self.tie_winner = winner
        return self.raw("tie_broken", {"winner": winner, "reason": "best speech"})


# --- cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    content: bytes
    ok: bool
    line: int | None = None  # first wrong line (problems[0].seq)
    kind: str | None = None
    events: int | None = None
    fingerprint: str | None = None
    complete: bool | None = None
    scores: dict[str, int] | None = None
    winners: list[str] | None = None
    why: str = ""
    game: str | None = None
    envs: list[dict[str, Any]] | None = None  # for valid logs, what a round trip must keep
    also: list[tuple[int, str]] = field(default_factory=list)  # later problems that must be reported too


def valid_case(name: str, t: Table, game: str | None = None, why: str = "", **kw: Any) -> Case:
    game = game or slug(name)
    envs = chain(t.events, game)
    complete = t.over
    return Case(
        name=name,
        content=text_of(envs).encode("utf-8"),
        ok=True,
        events=len(envs),
        fingerprint=fingerprint(envs),
        complete=complete,
        scores=t.scores() if complete else None,
        winners=t.winners() if complete else None,
        why=why,
        game=game,
        envs=envs,
        **kw,
    )


def bad(name: str, content: bytes | str, line: int, kind: str, why: str = "") -> Case:
    if isinstance(content, str):
        content = content.encode("utf-8")
    return Case(name=name, content=content, ok=False, line=line, kind=kind, why=why)


def slug(name: str) -> str:
    out = "".join(c if c.isalnum() and c.isascii() else "-" for c in name.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")[:64] or "game"


def events_case(
    name: str, events: list[tuple[str, dict[str, Any]]], line: int, kind: str, why: str = ""
) -> Case:
    """A log of these events, properly hashed: the only faults are in the events."""
    return bad(name, text_of(chain(events, slug(name))), line, kind, why)
