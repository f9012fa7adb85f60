"""What people type at the table, and how the recorder reads it: the command words and their
short forms, spoken cards (`red 7`), names that would clash with a command, NAME=VALUE entries,
and the refusal a misread line gets; and the recorder's sentences that name those commands
(its prompt, "who moves next", the hint after a refused move), worded by `wecore.turns.worded`.

Apart from the session so that the words of the table are in one place, readable and testable
without a log. It stays in `cli/`: the HTTP service takes structured requests, not typed lines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import click

from service.play import DEFAULT_TIE_REASON
from service.table import openable_cards, resolve_player
from wecore.cards import CARD_FORM_HINT, COLOURS, is_card, parse_card
from wecore.errors import CardNotationError, UnknownPlayerError, WeError
from wecore.kinds import MOVE_KINDS, MOVE_TYPE_NAMES, Kind, MoveType, kinds_of_move
from wecore.moves import CHANCE_CLASSES, Bring, Move, Open, Steal, Swap, legal_moves
from wecore.state import GameState, Phase
from wecore.turns import (
    Turn,
    bringing_words,
    decision,
    opening_words,
    steal_options,
    swap_options,
    turn,
    worded,
)

HELP = """\
Commands (names and cards in any case; a unique start of a name is enough):
  open CARD          (o)  the player to move opens CARD, e.g. `open R7`
  steal PLAYER       (s)  the player to move steals the gift PLAYER holds
  NAME open CARD / NAME steal PLAYER   the same, checking whose turn it is
@@SWAP@@
  bring PLAYER CARD       PLAYER brings CARD face down (needed when the attics were dealt;
                          otherwise gifts not yet brought go down unseen at the first open)
  undo [REASON]           take back the latest event still in effect
  note TEXT               a remark for the record
  tie PLAYER [REASON]     after the last party: PLAYER wins the tie (the best speech)
  status                  whose turn, who holds what, locked and face-down gifts, legal moves
  help                    this list
  quit               (q)  stop; everything accepted is already saved (end of input and Ctrl-C too)
Before the first gift is brought: `undo` takes back the gift lists (then `lists Ann=RGY,...`),
and `start over` sets the game up again (wrong players or dealer), keeping FILE as a backup.
At a terminal: Up/Down for earlier lines, Tab to complete, arrows to edit.
Blank lines and lines starting with # are ignored."""


def _swap_help() -> str:
    """The help's lines for `swap` / `keep`: one line for each kind of event a swap makes, as
    `wecore.kinds` declares them (when it is made, by whom, under which house rule)."""
    indent = " " * 26
    lines = ["  swap PLAYER             the player deciding swaps gifts with PLAYER (`keep`: no swap):"]
    lines += [f"{indent}{kind.when}" for kind in kinds_of_move("swap")]
    return "\n".join(lines)


def _typed_help() -> str:
    """The help's lines for the kinds of move typed as their kind declares (`roll N`)."""
    return "\n".join(f"  {kind.typed:<22}  {kind.typed_help}" for kind in MOVE_KINDS if kind.typed)


def house_rule_move_lines(indent: int, column: int) -> str:
    """`swap PLAYER, keep` and each move typed as its kind declares (`roll N`), with what each is
    for, for `we record --help` (the first line unindented: it replaces a placeholder)."""
    pad = " " * (indent + column)
    swap = [f"{'swap PLAYER, keep':<{column}}a swap (`keep`: none):"]
    swap += [f"{pad}{kind.when}" for kind in kinds_of_move("swap")]
    typed = [f"{' ' * indent}{kind.typed:<{column}}{kind.typed_help}" for kind in MOVE_KINDS if kind.typed]
    return "\n".join([*swap, *typed])


HELP = HELP.replace("@@SWAP@@", _swap_help() + "\n" + _typed_help())


class Reader(Protocol):
    """What a move's words are read against: the game as it stands, and the card an open names
    (the session's, which may ask about a face-down gift)."""

    @property
    def state(self) -> GameState: ...

    def opened_card(self, args: list[str], actor: str | None) -> str: ...


# A move's words, read: the reader, the words after the verb, and who the line says moves
# (None: the player to move).
Parser = Callable[[Reader, list[str], "str | None"], Move]
# What can be typed after the verb, given the words already typed after it.
Completer = Callable[[GameState, list[str]], list[str]]


@dataclass(frozen=True, slots=True)
class MoveWords:
    """How the recorder reads one kind of move: the forms of its verb (the verb first), the move
    type it records, whether words follow it and a player's name may come before it (a check
    of whose turn it is), how its words are read and what can be typed after it."""

    move: MoveType
    forms: tuple[str, ...]
    parse: Parser
    complete: Completer
    takes_words: bool = True
    named_first: bool = True


def _open(reader: Reader, args: list[str], actor: str | None) -> Move:
    if not args:
        raise Rejected("say which card was turned over, e.g. `open R7`")
    return Open(card=reader.opened_card(args, actor), player=actor)


def _steal(reader: Reader, args: list[str], actor: str | None) -> Move:
    if not args:
        raise Rejected("say whose gift is stolen, e.g. `steal Ann`")
    return Steal(from_player=victim(reader.state, " ".join(args)), player=actor)


def _swap(reader: Reader, args: list[str], actor: str | None) -> Move:
    if not args:
        raise Rejected("say whose gift is taken, e.g. `swap Ann` (or `keep`: no swap)")
    return Swap(with_player=victim(reader.state, " ".join(args)), player=actor)


def _keep(reader: Reader, args: list[str], actor: str | None) -> Move:
    return Swap(with_player=None, player=actor)


def _bring(reader: Reader, args: list[str], actor: str | None) -> Move:
    if len(args) < 2:
        raise Rejected("say who brings which card, e.g. `bring Ann R7`")
    if len(args) >= 3 and args[-1].isdigit():  # `bring Ann red 7`
        return Bring(player=" ".join(args[:-2]), card=spoken_card(args[-2:]))
    return Bring(player=" ".join(args[:-1]), card=spoken_card(args[-1:]))


def _after_verb(words: Callable[[GameState], list[str]]) -> Completer:
    """A completer offering `words` right after the verb, and nothing after them."""
    return lambda state, typed: [] if typed else words(state)


def _stolen_from(state: GameState) -> list[str]:
    return [m.from_player for m in legal_moves(state) if isinstance(m, Steal) and m.from_player]


def _swapped_with(state: GameState) -> list[str]:
    return [m.with_player for m in legal_moves(state) if isinstance(m, Swap) and m.with_player]


def _bring_completions(state: GameState, typed: list[str]) -> list[str]:
    if not typed:
        return list(state.waiting_to_bring)
    if state.attics is None:
        return []
    player = a_player(state, typed)
    if player is None:
        return []
    return [m.card for m in legal_moves(state) if isinstance(m, Bring) and m.player == player and m.card]


def _typed(kind: Kind) -> MoveWords:
    """The words of a move typed as its kind declares (`roll N`: a chance move's outcome, as the
    table reports it): the verb and one whole number, its kind's outcome field."""
    word = kind.typed.split()[0]
    cls = CHANCE_CLASSES[kind.move] if kind.move is not None else None
    if kind.move is None or cls is None:
        raise ImportError(f"cli.record_grammar: {word!r} is typed but makes no move")
    move: MoveType = kind.move

    def parse(reader: Reader, args: list[str], actor: str | None) -> Move:
        if len(args) != 1 or not args[0].lstrip("-").isdigit():
            raise Rejected(f"say what came up, e.g. `{word} {kind.outcomes[-1]}`")
        return cls(int(args[0]), actor)

    def outcomes(state: GameState) -> list[str]:  # the outcomes the rules allow now
        return [str(getattr(m, kind.attrs[-1])) for m in legal_moves(state) if move == m.TYPE]

    return MoveWords(move, (word, word + "s"), parse, _after_verb(outcomes))


# The recorder's words for every kind of move, by verb, in the order help and Tab list them:
# the printed moves and the swap's two words, each move typed as its kind declares, the bring.
MOVE_WORDS: dict[str, MoveWords] = {
    "open": MoveWords("open", ("open", "o", "opens"), _open, _after_verb(openable_cards)),
    "steal": MoveWords(
        "steal",
        ("steal", "s", "steals"),
        _steal,
        _after_verb(_stolen_from),
    ),
    "swap": MoveWords(
        "swap",
        ("swap", "swaps"),
        _swap,
        _after_verb(_swapped_with),
    ),
    "keep": MoveWords("swap", ("keep", "keeps"), _keep, lambda state, typed: [], takes_words=False),
    **{kind.typed.split()[0]: _typed(kind) for kind in MOVE_KINDS if kind.typed},
    "bring": MoveWords("bring", ("bring", "b", "brings"), _bring, _bring_completions, named_first=False),
}
_UNWORDED = set(MOVE_TYPE_NAMES) - {words.move for words in MOVE_WORDS.values()}
if _UNWORDED:
    # Every kind of move can be recorded: one the recorder has no words for fails here, not at a table.
    raise ImportError(f"cli.record_grammar: no words in the recorder for {', '.join(sorted(_UNWORDED))!r}")
# The moves typed as their kind declares (`roll N`: a chance move's outcome), by their word.
TYPED_KINDS = {kind.typed.split()[0]: kind for kind in MOVE_KINDS if kind.typed}

# The table's other commands, and their short forms.
_RECORD_VERBS = {
    "undo": "undo",
    "note": "note",
    "tie": "tie",
    "status": "status",
    "st": "status",
    "help": "help",
    "h": "help",
    "?": "help",
    "quit": "quit",
    "q": "quit",
    "exit": "quit",
    "lists": "lists",
    "start": "start",
}
_RECORD_WORDS = ("undo", "note", "tie", "status", "help", "quit", "lists", "start")
VERBS = {
    **{form: verb for verb, words in MOVE_WORDS.items() if verb not in TYPED_KINDS for form in words.forms},
    **_RECORD_VERBS,
    **{form: verb for verb in TYPED_KINDS for form in MOVE_WORDS[verb].forms},
}
# The moves a player's name may come before ("Cat steal Ann").
MOVES = tuple(verb for verb, words in MOVE_WORDS.items() if words.named_first)
COMMAND_WORDS = (*MOVE_WORDS, *_RECORD_WORDS)
WITHOUT_WORDS = ("status", "help", "quit", *(verb for verb, w in MOVE_WORDS.items() if not w.takes_words))
COLOUR_NAMES = {colour.value: colour for colour in COLOURS}
AFTER_THE_END = ("tie", "undo", "note", "status", "help", "quit")


# --- what the recorder tells the table ----------------------------------------------------------

# The recorder allows the gift lists to be undone before the first gift is brought: until they
# are given again the game is setting up, and the table is told how to give them.
LISTS_AGAIN = "Give the gift lists again: `lists NAME=COLOURS,...` (one NAME=COLOURS per player)."


def lists_again(players: Sequence[str]) -> str:
    """LISTS_AGAIN with this table's own names in the example (not players it does not have)."""
    example = ",".join(f"{name}={colours}" for name, colours in zip(players, ("RGY", "BGO"), strict=False))
    return f"Give the gift lists again: `lists {example},...` (one NAME=COLOURS per player)."


def _capital(clause: str) -> str:
    return clause[:1].upper() + clause[1:]


def next_up(t: Turn) -> str:
    """What the recorder tells the table after a move or an undo: "Cat to move."."""
    return worded(
        t,
        playing=f"{t.to_move} to move.",
        first_open=opening_words(t) + ".",
        bringing=bringing_words(t) + " (`bring PLAYER CARD`).",
        over="The game is over.",
        setting_up=LISTS_AGAIN,
        not_started="",
        acting=lambda kind: f"{_capital(decision(t))}: {kind.typed_choice}.",
    )


def moves_hint(state: GameState, refused: str = "") -> str:
    """What can be done instead, after a refused move, in table language (leaving out a reason
    the refusal, `refused`, already gave)."""
    t = turn(state)
    can = ""
    if t.phase is Phase.PLAYING:
        can = "open a gift (`open CARD`)" + steal_options(state, refused)
    return worded(
        t,
        playing=f"{t.to_move} can {can}.",
        first_open=f"{t.starter} opens first: `open CARD`.",
        bringing=f"Still to bring: {t.waiting_text} (`bring PLAYER CARD`).",
        over="The game is over: `tie`, `undo`, `note`, `status` and `quit` still work.",
        setting_up=LISTS_AGAIN,
        not_started="",
        acting=lambda kind: f"{t.to_move} {kind.typed_hint}{swap_options(state)}.",
    )


def prompt(t: Turn) -> str:
    """The recorder's prompt: "party 2 · Cat> "."""
    return worded(
        t,
        playing=f"party {t.party} \u00b7 {t.to_move}> ",
        first_open=f"party {t.party} \u00b7 {t.starter}> ",
        bringing=f"party {t.party} \u00b7 bring ({t.waiting_text})> ",
        over="game over> ",
        setting_up="gift lists> ",
        not_started="game over> ",
        acting=lambda kind: f"party {t.party} \u00b7 {t.to_move} {kind.typed_prompt}> ",
    )


class Rejected(Exception):
    """A line the recorder refuses; the message is for the table."""


# "Ann=RGY,Bob=red green blue;Cat=..." : a comma separates entries only before "NAME=".
_ENTRY_SPLIT = re.compile(r"\s*;\s*|\s*,\s*(?=[^,;=]+=)")


def split_entries(text: str, option: str) -> list[tuple[str, str]]:
    """'Ann=RGY,Bob=BGO' -> [('Ann', 'RGY'), ('Bob', 'BGO')]; usage error if malformed."""
    entries = []
    for part in _ENTRY_SPLIT.split(text.strip()):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise click.BadParameter(f"{part!r} is not NAME=VALUE (e.g. Ann=RGY)", param_hint=option)
        entries.append((name.strip(), value.strip()))
    if not entries:
        raise click.BadParameter("give one NAME=VALUE per player", param_hint=option)
    return entries


def parse_players(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def names_clash(names: Sequence[str]) -> str | None:
    """Why a name cannot be recorded at this table: a command word or a card would make
    `Open open R7` or `steal B2` mean two things."""
    for name in names:
        first = name.split()[0]
        if first.lower() in VERBS:
            return f"{name!r} starts with the command word {first.lower()!r}: give that player another name"
        if is_card(first):
            return f"{name!r} starts like the card {parse_card(first)}: give that player another name"
    return None


# --- table language -------------------------------------------------------------------------


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """', did you mean `open`?' for a slip of the keyboard, or nothing."""
    close = difflib.get_close_matches(word.lower(), choices, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def spoken_card(words: list[str]) -> str:
    """A card as people say it: `R7`, `r 7`, `red 7`, `red7`; CardNotationError otherwise."""
    text = "".join(words)
    match = re.fullmatch(r"([A-Za-z]+)(\d+)", text)
    if match is not None and len(match[1]) > 1:
        colour = COLOUR_NAMES.get(match[1].lower())
        if colour is not None:
            text = colour.letter + match[2]
    try:
        return parse_card(text)
    except CardNotationError:
        if len(words) > 1 and is_card("".join(words[:1])):
            raise Rejected(f"one card is opened at a time: {' '.join(words)!r} is more than a card") from None
        raise CardNotationError(f"{' '.join(words)!r} is not a card: write {CARD_FORM_HINT}") from None


def without_comment(words: list[str]) -> list[str]:
    """A line's words up to a `# comment`."""
    for index, word in enumerate(words):
        if word.startswith("#"):
            return words[:index]
    return words


# --- what can be typed next (Tab) -------------------------------------------------------------


def a_player(state: GameState, words: list[str]) -> str | None:
    """The player these words name, or None."""
    try:
        return resolve_player(state, " ".join(words).rstrip(":,"))
    except WeError:
        return None


def completions(state: GameState, before: list[str]) -> list[str]:
    """The words that can come next after `before`, asking the table what is legal now."""
    if not before:
        return [*COMMAND_WORDS, *state.players]
    verb = VERBS.get(before[0].lower())
    if verb is None:
        # "Ann open R7", "Ann Marie: open R7": the name first, as a check (read as the session
        # reads it: up to three words before the move).
        moved = [i for i in range(1, min(len(before), 4)) if VERBS.get(before[i].lower()) in MOVES]
        at = moved[0] if moved else None
        if at is not None:
            verb, before = VERBS[before[at].lower()], before[at:]
        elif state.phase is Phase.PLAYING and (len(before) == 1 or a_player(state, before)):
            return list(MOVES)
        else:
            return []
    if verb in MOVE_WORDS:
        return MOVE_WORDS[verb].complete(state, before[1:])
    if len(before) == 1:
        if verb == "tie" and state.is_over:
            return list(state.scoreboard.winners)
        if verb == "start":
            return ["over"]
    return []


def tie_words(state: GameState, args: list[str]) -> tuple[str, str]:
    """`tie Ann Marie best speech`: the longest run of words naming a player, then the reason."""
    for cut in range(min(len(args), 4), 0, -1):
        try:
            winner = resolve_player(state, " ".join(args[:cut]))
        except UnknownPlayerError:
            continue
        return winner, " ".join(args[cut:]) or DEFAULT_TIE_REASON
    return args[0], " ".join(args[1:]) or DEFAULT_TIE_REASON


def victim(state: GameState, text: str) -> str:
    """The player named, or (as a courtesy) the player holding the card named."""
    try:
        return resolve_player(state, text)
    except UnknownPlayerError:
        if not is_card(text):
            raise
        card = parse_card(text)
        for player, held in state.holdings.items():
            if held == card:
                return player
        raise Rejected(f"nobody holds {card} now") from None
