"""Each rule about a move, once: a predicate that returns why a move is refused, or None.

The reducer raises RuleViolation with these reasons, `legal_moves` lists only the moves they
let through, and the recorder's hints word them, so the three can never disagree about a rule.
(python-chess works the same way: `is_legal` and move generation share one predicate.)

Each printed move's own refusal is written in its module (`wecore.kinds.open.refusal`, the
steal's in `wecore.kinds.steal`, the bring's in its effect); here are the turn they share, the
swaps' rules, the phases' waits, and the steal's whole rule for any steal a person may type
(`steal_refusal`: the turn, then the steal's own). The steal's gift-level refusals are named here
too, for move generation and the turns.
"""

from __future__ import annotations

from wecore.kinds import AFTER_EACH_OPEN, DECIDING, MOVE_KINDS, Kind, kinds_of_move, steal
from wecore.kinds.open import refusal as opening_refusal
from wecore.kinds.steal import gift_refusal, held_gift_refusal, no_steal_reason
from wecore.names import not_a_player
from wecore.rulesets import HOUSE_RULE_NAMED
from wecore.state import GameState, Phase

__all__ = [
    "brought_with_first_open",
    "decision_refusal",
    "gift_refusal",
    "held_gift_refusal",
    "no_steal_reason",
    "no_swap_reason",
    "not_now",
    "not_played",
    "opening_refusal",
    "steal_refusal",
    "swap_refusal",
    "turn_refusal",
]

PLAYING, BRINGING, OVER, SETTING_UP = (
    Phase.PLAYING,
    Phase.BRINGING,
    Phase.OVER,
    Phase.SETTING_UP,
)


def not_now(state: GameState, action: str) -> str:
    """Why nobody can `action` in this phase of the game."""
    phase = state.phase
    if phase is OVER:
        return f"the game is over: nobody can {action} any more"
    if phase is SETTING_UP:
        return f"the gift lists have not been dealt yet: nobody can {action}"
    awaited = _AWAITED.get(phase)
    if awaited is not None:
        waiting = awaited.format(party=state.party, starter=state.starter_name, mover=state.player_to_move)
        return f"{waiting}: nobody can {action} before that"
    if phase is BRINGING:
        return f"nobody can {action} yet: {_bringing(state)}"
    return f"nobody can {action} now"


if any(kind.option is not None and kind.option not in HOUSE_RULE_NAMED for kind in MOVE_KINDS):
    # A kind's house rule is declared in the registry of house rules (its flag, its words).
    raise ImportError("wecore.rules: every kind's house rule must be declared in wecore.rulesets")

# What each house rule's phase waits for, in its kind's words.
_AWAITED: dict[Phase, str] = {kind.phase: kind.awaited for kind in MOVE_KINDS if kind.awaited and kind.phase}


def _swaps_after_each_open(state: GameState) -> bool:
    """Whether each open is followed at once by its opener's keep or swap (a house rule)."""
    return state.ruleset is not None and bool(getattr(state.ruleset, AFTER_EACH_OPEN or "", False))


def brought_with_first_open(state: GameState) -> tuple[str, ...]:
    """Whose gifts go down unseen with an open now: without attics nobody records a bring, so
    the gifts not recorded go down unseen with the party's first open, by its starter. None
    once the attics are dealt (every bring is named) or once the party is under way. The
    decider, the API's legal moves and the recorder's toolbar ask this."""
    if state.phase is BRINGING and state.attics is None:
        return state.waiting_to_bring
    return ()


def _bringing(state: GameState) -> str:
    """What a party is waiting for while its gifts are brought: for the starter's first open,
    when it brings the gifts (`brought_with_first_open`), else for the brings."""
    if brought_with_first_open(state):
        return f"no gift has been opened in party {state.party} ({state.starter_name} opens first)"
    return f"party {state.party} is waiting for gifts from {', '.join(state.waiting_to_bring)}"


def turn_refusal(state: GameState, player: str, action: str) -> str | None:
    """Why `player` may not make a move of a party now: not a player, wrong phase, not their turn."""
    seat = state.seat_of.get(player)
    if seat is None:
        return not_a_player(player, state.players)
    phase = state.phase
    if phase is not PLAYING:
        if phase is BRINGING:
            return f"{player} cannot {action} yet: {_bringing(state)}"
        return not_now(state, action)
    if seat != state.to_move:
        return f"it is {state.player_to_move}'s turn, not {player}'s"
    return None


def steal_refusal(state: GameState, thief: str, owner: str, card: str | None) -> str | None:
    """Why `thief` may not steal `card` from `owner` now (card None: whatever `owner` holds)."""
    return turn_refusal(state, thief, "steal") or steal.refusal(state, thief, owner, card)


def swap_refusal(state: GameState, player: str, with_player: str | None, takes: str | None) -> str | None:
    """Why `player` may not swap with `with_player`, taking `takes`, or keep (both None): at a
    final swap, or right after their open (each under its house rule)."""
    phase = state.phase
    for kind in _SWAP_KINDS:  # by identity: hashing the phase would run Python code per candidate
        if kind.phase is phase:
            break
    else:
        return no_swap_reason(state)
    decider = state.player_to_move  # the starter at a final swap, the opener after an open
    if player in state.seat_of and player != decider:
        told = kind.only_decider
        return told.format(party=state.party, starter=state.starter_name, mover=decider, player=player)
    if player not in state.seat_of:
        return not_a_player(player, state.players)
    if with_player is None and takes is None:
        return None
    if with_player is None or takes is None:
        return "a swap names both the player swapped with and the gift taken"
    other = state.seat_of.get(with_player)
    if other is None:
        return not_a_player(with_player, state.players)
    if with_player == player:
        return f"{player} cannot swap with themselves"
    held = state.holding[other]
    if held != takes:
        return f"{player} cannot take {takes} from {with_player}: {with_player} holds {held}"
    own = state.holding[state.seat_of[player]]
    if kind.respects_locks:
        refusal = held_gift_refusal(state, takes, with_player)
        if refusal is not None:
            return f"{player} cannot swap for {takes}: {refusal}"
    for card in (own, takes):
        if card in state.frozen:
            return (
                f"{player} cannot swap {own} for {takes}: {card}"
                f" {state.ruleset.frozen_told(state)} and is frozen"  # type: ignore[union-attr]
            )
    return None


# The kinds of swap, each awaited in its own deciding phase.
_SWAP_KINDS: tuple[Kind, ...] = tuple(kind for kind in MOVE_KINDS if kind.phase in DECIDING)
if any(not kind.only_decider for kind in _SWAP_KINDS):
    raise ImportError("wecore.rules: a kind of swap must say who alone decides (only_decider)")


def decision_refusal(state: GameState, kind: Kind) -> str | None:
    """Why an event of `kind`, a decision to keep or swap, cannot be recorded in this phase at
    all (whoever makes it): its house rule is not played, or this is not its phase."""
    ruleset = state.ruleset
    if ruleset is not None and kind.option is not None and not getattr(ruleset, kind.option):
        return not_played(kind)
    if state.phase is not kind.phase:
        return no_swap_reason(state)
    return None


def not_played(kind: Kind) -> str:
    """Why a move of `kind` cannot be made in a game without its house rule, in the rule's own
    words (its declaration's, `wecore.rulesets`), never its key."""
    told = HOUSE_RULE_NAMED[kind.option].told(True) if kind.option is not None else ""
    return f"there is no {kind.named} in this game: its house rule is not played ({told})"


def no_swap_reason(state: GameState) -> str:
    """Why nobody may keep or swap now, or not in the way asked (another decision is awaited)."""
    if state.phase in DECIDING:
        return not_now(state, "make another kind of swap")
    ruleset = state.ruleset
    options = [kind.option for kind in kinds_of_move("swap") if kind.option is not None]
    if ruleset is not None and not any(getattr(ruleset, option) for option in options):
        told = "; ".join(HOUSE_RULE_NAMED[option].told(True) for option in options)
        return f"there is no swap in this game: no house rule with one is played ({told})"
    if state.phase is PLAYING:
        if _swaps_after_each_open(state):
            return (
                f"{state.player_to_move} is to open or steal: a gift is kept or swapped only right"
                " after it is opened"
            )
        return (
            f"party {state.party} still has gifts face down: its starter swaps (or keeps) only"
            " after the last one is opened"
        )
    return not_now(state, "swap")
