#!/usr/bin/env python3
"""Regenerate the sample games in replays/, byte for byte.

    python replays/make_replays.py [OUT_DIR]      (default: the directory of this script)

Nothing here reads the clock or an unseeded random source: every game is played by wecore's
bots from a fixed seed, and every timestamp comes from a seeded "table clock". The games that
look recorded at a table are played with the hands known (so the bots can play), then written
the way `we record` writes a real evening: the attics were never seen, every gift goes down
unseen (brought with `card: null`, recorded together with the party's first open), and cards
appear only as they are opened.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from eventstore.envelope import seal  # noqa: E402
from service.simulate import sealed_game, sim_game_id  # noqa: E402
from wecore.bots import GreedyBot, RandomBot, play_game  # noqa: E402
from wecore.cards import ALL_CARDS, CARD_COLOUR, CARD_NUMBER  # noqa: E402
from wecore.events import (  # noqa: E402
    AtticsDealt,
    Event,
    EventVoided,
    GiftBrought,
    GiftOpened,
    GiftStolen,
    Note,
    TieBroken,
    event_payload,
)
from wecore.reducer import evolve  # noqa: E402
from wecore.rng import SeededRandom  # noqa: E402
from wecore.scoring import score, tied_leaders  # noqa: E402
from wecore.state import INITIAL_STATE, GameState  # noqa: E402

# The seed and players of the bot game; the README says how to make it with `we simulate`.
BOTS_SEED = "replays"
BOTS_PLAYERS = 7


def _epoch(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp())


def _at(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class Recorder:
    """Writes events as a table does: checked by the rules, stamped by a plausible clock."""

    def __init__(self, game_id: str, start: str, seed: str) -> None:
        self.game_id = game_id
        self.clock = _epoch(start)
        self.rng = SeededRandom(f"clock/{seed}")
        self.state: GameState = INITIAL_STATE
        self.lines: list[bytes] = []
        self.prev: str | None = None

    @property
    def next_seq(self) -> int:
        return len(self.lines) + 1

    def wait(self, low: int, high: int) -> None:
        self.clock += low + self.rng.randbelow(high - low + 1)

    def write(self, event: Event) -> int:
        """Append one event at the current time; its seq."""
        self.state = evolve(self.state, event)  # a replay must be a legal game
        kind, data = event_payload(event)
        envelope = seal(self.game_id, self.next_seq, _at(self.clock), kind, data, self.prev)
        self.prev = envelope.hash
        self.lines.append(envelope.to_line())
        return envelope.seq

    def data(self) -> bytes:
        return b"".join(self.lines)


def as_recorded_at_a_table(
    recorder: Recorder,
    shadow: Sequence[Event],
    *,
    notes: dict[tuple[int, int], str] | None = None,
    typo_at: tuple[int, int] | None = None,
    breaks: dict[int, tuple[int, int]] | None = None,
) -> None:
    """Write a game played with known hands as a table records it.

    notes: (party, opens so far in that party) -> a note written at that point.
    typo_at: (party, nth open) whose card is first typed wrong, voided, then typed right.
    breaks: party -> (low, high) seconds of pause before it (dinner).
    """
    notes = dict(notes or {})
    breaks = breaks or {}
    pending_brings: list[Event] = []
    opens_in_party = 0
    seen: set[str] = set()
    for event in shadow:
        if isinstance(event, AtticsDealt):
            continue  # nobody at a real table writes down the hands
        if isinstance(event, GiftBrought):
            if not pending_brings:
                opens_in_party = 0
                low, high = breaks.get(event.party, (60, 200))
                recorder.wait(low, high)  # gifts wrapped, talk, the next party begins
            pending_brings.append(GiftBrought(party=event.party, player=event.player, card=None))
            continue
        if isinstance(event, GiftOpened | GiftStolen):
            for bring in pending_brings:  # `we record` writes them with the first open
                recorder.write(bring)
            pending_brings.clear()
        if isinstance(event, GiftOpened):
            recorder.wait(25, 100)
            opens_in_party += 1
            if typo_at == (event.party, opens_in_party):
                wrong = _typo(event.card, seen, recorder.rng)
                seq = recorder.write(GiftOpened(party=event.party, player=event.player, card=wrong))
                recorder.wait(12, 30)
                recorder.write(EventVoided(voids=seq, reason=f"typed {wrong}; the card was {event.card}"))
                recorder.wait(5, 15)
            recorder.write(event)
            seen.add(event.card)
            note = notes.pop((event.party, opens_in_party), None)
            if note is not None:
                recorder.wait(20, 60)
                recorder.write(Note(text=note))
            continue
        if isinstance(event, GiftStolen):
            recorder.wait(15, 60)
        else:
            recorder.wait(40, 120)  # set-up: writing down the gift lists
        recorder.write(event)
    if notes:
        raise ValueError(f"notes never placed: {notes}")


def _typo(card: str, seen: set[str], rng: SeededRandom) -> str:
    """A card of the same colour, never seen in the game so far: a plausible slip of the finger."""
    colour = CARD_COLOUR[card]
    options = [c for c in ALL_CARDS if CARD_COLOUR[c] is colour and c != card and c not in seen]
    return rng.choice(options)


def find_game(
    prefix: str,
    players: Sequence[str],
    bots: Callable[[], object],
    wanted: Callable[[list[Event], GameState], bool],
    title: str,
) -> tuple[str, list[Event], GameState]:
    """The first seed prefix-0, prefix-1, ... whose bot game satisfies `wanted`."""
    for attempt in range(10_000):
        seed = f"{prefix}-{attempt}"
        bot = bots()
        events, state = play_game(seed, len(players), bot, players=players, title=title)  # type: ignore[arg-type]
        if wanted(events, state):
            return seed, events, state
    raise RuntimeError(f"no {prefix} game found")


# --- the games ---------------------------------------------------------------------


def game_night() -> bytes:
    """Three friends, printed rules (9 parties), an evening with a dinner break, a typo undone."""
    players = ("Maria", "Jonas", "Priya")
    _, shadow, _ = find_game(
        "game-night", players, GreedyBot, lambda events, state: True, "Game night at Maria's"
    )
    recorder = Recorder("game-night-2026-12-05", "2026-12-05T18:47:12Z", "game-night")
    as_recorded_at_a_table(
        recorder,
        shadow,
        notes={
            (4, 3): "Dinner break: Jonas made lasagne",
            (7, 1): "Priya's cat walked across the table; no cards moved",
        },
        typo_at=(6, 2),
        breaks={5: (1500, 1900)},
    )
    return recorder.data()


def tie_game() -> bytes:
    """Five players, a shared top score, settled by the best speech (tie_broken)."""
    players = ("Ann", "Ben", "Cat", "Dev", "Eve")

    def tied(events: list[Event], state: GameState) -> bool:
        return len(tied_leaders(state)) == 2

    _, shadow, state = find_game("tie", players, GreedyBot, tied, "New Year's Eve")
    recorder = Recorder("new-years-eve-2026", "2026-12-31T20:05:41Z", "tie")
    as_recorded_at_a_table(recorder, shadow, notes={(3, 5): "Half time: fireworks next door"})
    leaders = tied_leaders(state)
    recorder.wait(120, 300)
    top = score(state).of(leaders[0]).total
    recorder.write(Note(text=f"{' and '.join(leaders)} tie on {top}: speeches!"))
    recorder.wait(180, 400)
    winner = leaders[-1]
    person = state.gift_lists[winner][0].person
    recorder.write(TieBroken(winner=winner, reason=f"the best speech: a ballad for {person}"))
    return recorder.data()


def bots_game() -> bytes:
    """Exactly what `we simulate -n 7 --seed replays --bot greedy --bot random` writes as game 1."""
    bots = [GreedyBot() if seat % 2 == 0 else RandomBot() for seat in range(BOTS_PLAYERS)]
    from wecore.dealing import DEFAULT_NAMES

    title = f"Simulated game 1 from seed {BOTS_SEED}"
    events, _ = play_game(
        f"{BOTS_SEED}-1", BOTS_PLAYERS, bots, players=DEFAULT_NAMES[:BOTS_PLAYERS], title=title
    )
    envelopes = sealed_game(sim_game_id(BOTS_SEED, 1), 1, [event_payload(e) for e in events])
    return b"".join(e.to_line() for e in envelopes)


def _dispute_edit(events: list[Event], state: GameState) -> tuple[str, str] | None:
    """In a table game where Ben lost: a card Ben opened and kept untouched, and a higher card
    of that list colour never seen all game, that would make Ben the winner. (old, new)"""
    board = score(state)
    if "Ben" in board.winners:
        return None
    seen = {e.card for e in events if isinstance(e, GiftOpened | GiftStolen)}
    stolen = {e.card for e in events if isinstance(e, GiftStolen)}
    ben = state.seat_of["Ben"]
    best_rival = max(p.total for p in board.players if p.player != "Ben")
    entry = board.of("Ben")
    for colour, card in entry.counted.items():
        if card is None or card in stolen:
            continue
        opened_by_ben = any(
            isinstance(e, GiftOpened) and e.card == card and e.player == "Ben" for e in events
        )
        if not opened_by_ben or card not in state.kept[ben]:
            continue
        for number in range(10, CARD_NUMBER[card], -1):
            new = f"{colour.letter}{number}"
            if new not in seen and entry.total - CARD_NUMBER[card] + number > best_rival:
                return card, new
    return None


def disputed() -> tuple[bytes, bytes, int, str, str]:
    """The honest log, the same log with one card edited (not re-hashed), the edited line."""
    players = ("Ann", "Ben", "Cat", "Dev")

    def wanted(events: list[Event], state: GameState) -> bool:
        return _dispute_edit(events, state) is not None

    _, shadow, state = find_game("office", players, GreedyBot, wanted, "Office party")
    old, new = _dispute_edit(shadow, state)  # type: ignore[misc]
    recorder = Recorder("office-party-2026", "2026-12-18T19:12:03Z", "office")
    as_recorded_at_a_table(recorder, shadow, notes={(2, 4): "Ben keeps his own score on a napkin"})
    honest = recorder.lines
    needle = b'"type":"gift_opened","data":{"party":'
    target = f'"player":"Ben","card":"{old}"}}'.encode()
    index = next(i for i, line in enumerate(honest) if needle in line and target in line)
    edited = list(honest)
    edited[index] = honest[index].replace(target, f'"player":"Ben","card":"{new}"}}'.encode())
    return b"".join(honest), b"".join(edited), index + 1, old, new


def build() -> tuple[dict[str, bytes], str]:
    """Every replay file's bytes, and a line saying what was edited in the disputed copy."""
    honest, edited, line, old, new = disputed()
    files = {
        "game-night-3p.jsonl": game_night(),
        "tie-5p.jsonl": tie_game(),
        "bots-7p.jsonl": bots_game(),
        "disputed-honest.jsonl": honest,
        "disputed-edited.jsonl": edited,
    }
    return files, f"disputed-edited.jsonl: line {line} changed {old} -> {new}"


def main(argv: Sequence[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else HERE
    out.mkdir(parents=True, exist_ok=True)
    files, edit = build()
    for name, data in files.items():
        (out / name).write_bytes(data)
    print(f"wrote {len(files)} logs to {out}; {edit}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
