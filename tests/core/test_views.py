"""What a seat, or a spectator, may see of the table."""

from hypothesis import given, settings
from hypothesis import strategies as st

from wecore import INITIAL_STATE, RandomBot, evolve, play_game, view
from wecore.rulesets import HOUSE_RULES
from wecore.views import view_as

from .games import game_two_way_tie
from .helpers import ANN, BEN, CAT, Table, three_players

# Any mix of the registry's house rules, as tests/core/test_properties.py draws them.
house_rules = st.none() | st.fixed_dictionaries(
    {}, optional={rule.name: st.sampled_from(rule.samples) for rule in HOUSE_RULES}
)

A3 = {ANN: ["R7", "B3"], BEN: ["Y9", "G5"], CAT: ["O4", "R2"]}


def bringing():
    table = three_players(A3, sizes=2)
    table.bring(ANN, "R7")
    table.bring(BEN, "Y9")
    return table


def test_a_seat_sees_its_own_attic_and_counts_of_the_others():
    seat = view(bringing().state, ANN)
    assert seat.viewer == ANN
    assert seat.attics == {ANN: ["B3"], BEN: 1, CAT: 2}
    seat = view(bringing().state, CAT)
    assert seat.attics == {ANN: 1, BEN: 1, CAT: ["R2", "O4"]}  # sorted by colour R O Y G B


def test_a_seat_sees_its_own_brought_card_and_no_other():
    state = bringing().state
    ann = view(state, ANN)
    assert ann.face_down_known == ["R7"]
    assert ann.face_down_hidden == 1
    cat = view(state, CAT)
    assert cat.face_down_known == []
    assert cat.face_down_hidden == 2
    assert cat.waiting_to_bring == [CAT]


def test_face_down_gifts_stay_hidden_once_the_party_is_played():
    table = bringing()
    table.bring(CAT, "O4")
    table.open(ANN, "Y9")
    ben = view(table.state, BEN)
    assert ben.face_down_known == []  # his Y9 is open now, and public
    assert ben.face_down_hidden == 2
    assert ben.holding == {ANN: "Y9"}
    cat = view(table.state, CAT)
    assert cat.face_down_known == ["O4"]
    assert cat.face_down_hidden == 1
    text = repr(view(table.state, BEN).to_dict())
    assert "R7" not in text
    assert "O4" not in text


def test_a_spectator_sees_no_attic_cards_and_no_face_down_gift():
    table = bringing()
    spectator = view(table.state)
    assert spectator.viewer is None
    assert spectator.attics == {ANN: 1, BEN: 1, CAT: 2}
    assert spectator.face_down_known == []
    assert spectator.face_down_hidden == 2
    text = repr(spectator.to_dict())
    for card in ["R7", "B3", "Y9", "G5", "O4", "R2"]:
        assert card not in text


def test_omniscient_view_shows_everything():
    everything = view(bringing().state, omniscient=True)
    assert everything.attics == {ANN: ["B3"], BEN: ["G5"], CAT: ["R2", "O4"]}
    assert everything.face_down_known == ["R7", "Y9"]
    assert everything.face_down_hidden == 0


def test_unseen_gifts_are_hidden_from_everyone():
    table = three_players(None, sizes=2)
    table.bring_all({ANN: None, BEN: "B5", CAT: None})
    assert view(table.state, omniscient=True).face_down_hidden == 2
    assert view(table.state, BEN).face_down_known == ["B5"]
    assert view(table.state, BEN).face_down_hidden == 2
    assert view(table.state, ANN).face_down_hidden == 3
    assert view(table.state, ANN).attics is None


def test_public_facts_for_everyone():
    table = bringing()
    table.bring(CAT, "O4")
    table.open(ANN, "Y9")
    table.steal(BEN, ANN, "Y9")
    for viewer in (None, ANN, BEN, CAT):
        seat = view(table.state, viewer)
        assert seat.phase == "playing"
        assert seat.party == 1
        assert seat.parties == 2
        assert seat.to_move == ANN
        assert seat.starter == ANN
        assert seat.dealer == CAT
        assert seat.holding == {BEN: "Y9"}
        assert seat.locked == ["Y9"]
        assert seat.gift_lists[ANN] == ["red", "yellow", "green"]
        assert seat.winners is None
        assert not seat.complete


def test_view_of_a_finished_game():
    table = game_two_way_tie()
    seat = view(table.state, BEN)
    assert seat.complete
    assert seat.scores == {ANN: 9, BEN: 8, CAT: 9}
    assert seat.winners == [ANN, CAT]
    assert seat.kept == {ANN: ["G8", "Y1"], BEN: ["R2", "O6"], CAT: ["Y8", "B1"]}
    assert seat.attics == {ANN: 0, BEN: [], CAT: 0}
    table.break_tie(CAT)
    assert view(table.state).winners == [CAT]
    assert view(table.state).tie_broken_by == CAT


def test_the_redacted_log_shows_a_seat_what_its_view_shows() -> None:
    # One rule (views.sees_private) for the table and the log: the attic cards a seat's view
    # lists are the ones its redacted log names, and a spectator's log names none.
    from wecore.bots import play_payloads
    from wecore.events import parse_event
    from wecore.reducer import fold
    from wecore.views import redact_log, view

    payloads, _ = play_payloads(7, 4)
    lines = [
        {"seq": n, "type": t, "data": d, "prev": None, "hash": "sha256:..."}
        for n, (t, d) in enumerate(payloads, start=1)
    ]
    dealt_at = next(n for n, (t, _) in enumerate(payloads, start=1) if t == "attics_dealt")
    dealt = fold(parse_event(t, d) for t, d in payloads[:dealt_at])
    for viewer in (*dealt.players, None):
        log = redact_log(lines, viewer)
        attics = log[dealt_at - 1]["data"]["attics"]
        seen = view(dealt, viewer).attics
        assert seen is not None
        for name, cards in attics.items():
            if isinstance(seen[name], list):
                assert name == viewer and sorted(cards) == sorted(seen[name])
            else:
                assert cards == [None] * seen[name]
        for line in log:
            assert "hash" not in line and "prev" not in line
            if line["type"] == "gift_brought":
                assert (line["data"]["card"] is not None) == (line["data"]["player"] == viewer)


def test_a_seat_opens_the_gifts_it_has_not_seen_by_place():
    from wecore.views import OPEN_BY_PLACE, face_down_places, gift_at, hidden_card_refusal, seat_moves

    table = bringing()
    table.bring(CAT, "O4")  # Ann starts party 1
    state = table.state
    assert face_down_places(state, ANN) == ["R7", "Y9", "O4"]  # her own first, then as brought
    assert face_down_places(state, CAT) == ["O4", "R7", "Y9"]
    assert seat_moves(state, ANN) == [
        {"type": "open", "as": ANN, "card": "R7"},
        {"type": "open", "as": ANN, "gift": 2},
        {"type": "open", "as": ANN, "gift": 3},
    ]
    assert seat_moves(state, BEN) == []  # not his turn
    assert gift_at(state, ANN, 3) == "O4"
    # one sentence for every card she has not seen; her own is left to the rules
    said = {card: hidden_card_refusal(state, ANN, "open", card) for card in ("Y9", "O4", "B3", "G1")}
    assert set(said.values()) == {OPEN_BY_PLACE}
    assert hidden_card_refusal(state, ANN, "open", "R7") is None


def test_without_attics_a_seats_bring_is_unseen_whatever_the_card():
    from wecore.views import BRING_UNSEEN, hidden_card_refusal, seat_moves

    table = Table()
    table.start()
    table.lists(
        {ANN: ["red", "green", "yellow"], BEN: ["blue", "green", "orange"], CAT: ["red", "blue", "orange"]}
    )
    table.bring(ANN, "R7")  # written with its card, at a recorder
    state = table.state
    assert {hidden_card_refusal(state, BEN, "bring", card) for card in ("R7", "R8")} == {BRING_UNSEEN}
    assert seat_moves(state, BEN) == [{"type": "bring", "as": BEN, "card": None}]


@given(seed=st.integers(0, 2**32), count=st.integers(3, 7), rules=house_rules)
@settings(max_examples=40, deadline=None)
def test_a_view_made_from_another_viewers_is_the_view(seed: int, count: int, rules: dict | None) -> None:
    """A served move views one state for several kinds of key: the first in full, the others
    made from it (view_as). Each must be exactly what `view` gives that viewer, hidden cards
    included, at every state of a game, whichever viewer was worked out first."""
    events, _ = play_game(seed, count, RandomBot(), options=rules)
    state = INITIAL_STATE
    for event in events:
        state = evolve(state, event)
        if not state.players:
            continue
        viewers = [(None, True), (None, False), *((p, False) for p in state.players)]
        for first in viewers[:3]:
            base = view(state, first[0], omniscient=first[1])
            for viewer, omniscient in viewers:
                made = view_as(base, state, viewer, omniscient)
                assert made == view(state, viewer, omniscient=omniscient)
                assert list(made.to_dict()) == list(view(state, viewer, omniscient=omniscient).to_dict())
