"""Each rule about a move, once: a predicate that returns why a move is refused, or None.

The reducer raises RuleViolation with these reasons, `legal_moves` lists only the moves they
let through, and the recorder's hints word them, so the three can never disagree about a rule.
(python-chess works the same way: `is_legal` and move generation share one predicate.)

The gift-level part of a steal (`gift_refusal`) is separate so that move generation, which
already knows that the thief is to move and the owner holds the gift, can ask only it (why no
steal at all is allowed once, `no_steal_reason`, then each gift's lock and freeze,
`held_gift_refusal`);
`steal_refusal` is the whole rule for any steal a person may type, and the reducer, which has
checked the turn with the event's party, asks `taking_refusal` (the same without the turn).
"""

from __future__ import annotations

from wecore.kinds import AFTER_EACH_OPEN, DECIDING, MOVE_KINDS, Kind, kinds_of_move
from wecore.names import not_a_player
from wecore.rulesets import HOUSE_RULE_NAMED
from wecore.state import GameState, Phase

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


def no_steal_reason(state: GameState) -> str | None:
    """Why no gift at all may be stolen now, whoever holds it, so the player to move must open:
    a house rule's cap (max_steals_between_opens). The one answer `gift_refusal`, `legal_moves`
    and the narration ask; None when steals are allowed (each gift may still refuse its own)."""
    cap = state.ruleset.max_steals_between_opens  # type: ignore[union-attr]
    if cap is not None and state.counts.steals_since_open >= cap:  # type: ignore[union-attr]
        steals = "1 steal has" if cap == 1 else f"{cap} steals have"
        return f"{steals} been made since the last open, the most the house rule allows in a row"
    return None


def gift_refusal(state: GameState, card: str, holder: str) -> str | None:
    """Why `card`, an opened gift of this party that `holder` holds, cannot be stolen now: a
    reason no steal is allowed (`no_steal_reason`: then the player to move must open), the
    gift's lock, or its freeze (max_steals_per_gift)."""
    reason = no_steal_reason(state)
    if reason is not None:
        return f"{reason}: {state.player_to_move} must open a gift"
    return held_gift_refusal(state, card, holder)


def held_gift_refusal(state: GameState, card: str, holder: str) -> str | None:
    """`gift_refusal` without `no_steal_reason`, which is the same for every gift: the gift's own
    lock and freeze. (Move generation asks `no_steal_reason` once.)"""
    if card in state.locked:
        # Under the keep-or-swap house rule a gift taken in a swap is locked as a stolen one is.
        took = "took" if _swaps_after_each_open(state) else "stole"
        return f"{holder} just {took} it and no gift has been opened since"
    if card in state.frozen:
        return (
            f"it has been stolen {state.ruleset.max_steals_per_gift} times this party"  # type: ignore[union-attr]
            " and is frozen"
        )
    return None


def steal_refusal(state: GameState, thief: str, owner: str, card: str | None) -> str | None:
    """Why `thief` may not steal `card` from `owner` now (card None: whatever `owner` holds)."""
    return turn_refusal(state, thief, "steal") or taking_refusal(state, thief, owner, card)


def taking_refusal(state: GameState, thief: str, owner: str, card: str | None) -> str | None:
    """`steal_refusal` for a `thief` known to be the player to move: the steal rules proper.
    (The reducer, which has just checked the turn with the event's party, asks only this.)"""
    victim = state.seat_of.get(owner)
    if victim is None:
        return not_a_player(owner, state.players)
    held = state.holding[victim]
    if held is None or held != card:
        if owner == thief:
            return f"{thief} cannot steal from themselves"
        if card is not None:
            if any(card in cards for cards in state.kept):
                return f"{thief} cannot steal {card}: it was kept in an earlier party and is out of play"
            if card in state.face_down or (card not in state.seen and state.unseen_face_down):
                return f"{thief} cannot steal {card}: it has not been opened yet"
        if held is None:
            kept = state.kept[victim]
            out_of_play = ""
            if kept:
                verb = "is" if len(kept) == 1 else "are"
                out_of_play = (
                    f" (what {owner} kept in earlier parties, {', '.join(kept)}, {verb} out of play)"
                )
            return f"{thief} cannot steal from {owner}: {owner} holds no gift now{out_of_play}"
        if card is not None:
            return f"{thief} cannot steal {card} from {owner}: {owner} holds {held}"
    refusal = gift_refusal(state, held, owner)
    if refusal is not None:
        return f"{thief} cannot steal {held}: {refusal}"
    return None


def opening_refusal(state: GameState, card: str | None) -> str | None:
    """Why the player to move may not open `card` now (card None: any gift brought unseen):
    whether it is a face-down gift of this party."""
    if card in state.face_down:
        return None
    if card is None:
        return None if state.unseen_face_down else "no gift was brought unseen, so name the card opened"
    # A card still in an attic is "seen" only by its owner: saying so would let any seat read
    # the attics by naming cards in refused opens (which leave no trace).
    if card in state.seen and not (state.attics and any(card in attic for attic in state.attics)):
        return f"{card} is not a face-down gift of this party: it was seen before"
    if state.unseen_face_down:
        return None
    return f"{card} is not a face-down gift of this party"


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
                f"{player} cannot swap {own} for {takes}: {card} has been stolen"
                f" {state.ruleset.max_steals_per_gift} times this party and is frozen"  # type: ignore[union-attr]
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
