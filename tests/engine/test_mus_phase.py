"""The mus (discard) phase: docs/rules.md §3 (calls, discards, replacements, stock exhaustion,
repetition, ``max_mus_rounds``, ``mus_corrido``) and the 2- and 6-player tables of §10."""

from __future__ import annotations

import pytest
from mus_core import (
    CARDS,
    MUS,
    NO_MUS,
    Action,
    DiscardRange,
    EventKind,
    IllegalActionError,
    Lance,
    MusCorrido,
    Phase,
    Rules,
    discard,
)
from mus_core.state import MusState

# ---------------------------------------------------------------------------- helpers


def ordered_deal(rules: Rules | None = None, mano: int = 0) -> MusState:
    """Seat s holds cards 4s..4s+3; the stock from the top is the remaining cards in order."""
    rules = rules or Rules()
    n = rules.players
    hands = [[CARDS[4 * s + i] for i in range(4)] for s in range(n)]
    stock = list(range(4 * n, 40))
    return MusState.from_deal(rules, hands, mano=mano, stock=stock)


def all_cards(state: MusState) -> list[int]:
    return sorted([c for s in range(state.n) for c in state.hands[s]] + list(state.stock) + list(state.pile))


def assert_conserved(state: MusState) -> None:
    assert all_cards(state) == list(range(40))


def mus_round(state: MusState, counts: dict[int, int] | list[int]) -> dict[int, list[int]]:
    """Everybody says mus, then each seat (in turn order) discards its first ``counts[seat]``
    cards (sorted). Returns what each seat discarded."""
    n = state.n
    assert state.phase == Phase.MUS
    for _ in range(n):
        state.apply(MUS)
    assert state.phase == Phase.DISCARD
    thrown: dict[int, list[int]] = {}
    for _ in range(n):
        seat = state.to_act
        assert seat is not None
        chosen = sorted(state.hands[seat])[: counts[seat]]
        thrown[seat] = chosen
        state.apply(discard(chosen))
    return thrown


def top(state: MusState, k: int) -> list[int]:
    """The next ``k`` cards of the stock, top first (state.stock is stored reversed)."""
    return list(reversed(state.stock[-k:])) if k else []


# ---------------------------------------------------------------------------- calls


def test_calls_start_at_mano_and_go_in_turn_order() -> None:
    s = ordered_deal(mano=2)
    assert s.phase == Phase.MUS and s.to_act == 2
    assert s.legal_actions() == (MUS, NO_MUS)
    s.apply(MUS)
    assert s.to_act == 3
    s.apply(MUS)
    assert s.to_act == 0


def test_first_no_mus_ends_the_phase() -> None:
    s = ordered_deal()
    s.apply(MUS)
    s.apply(NO_MUS)  # S1 cuts
    assert s.phase == Phase.BETTING and s.current_lance is Lance.GRANDE
    assert s.to_act == 0 and s.mano == 0  # cutting does not change mano (§3.1)
    calls = [e for e in s.history_events if e.kind is EventKind.MUS_CALL]
    assert [(e.seat, e.action) for e in calls] == [(0, MUS), (1, NO_MUS)]
    assert len(s.stock) == 24 and s.pile == ()
    assert [len(s.hands[i]) for i in range(4)] == [4, 4, 4, 4]


def test_mano_no_mus_at_once() -> None:
    s = ordered_deal()
    before = [s.hands[i] for i in range(4)]
    s.apply(NO_MUS)
    assert s.phase == Phase.BETTING and s.to_act == 0
    assert [s.hands[i] for i in range(4)] == before


# ---------------------------------------------------------------------------- discards


def test_discard_only_after_all_four_say_mus() -> None:
    s = ordered_deal()
    for _i in range(3):
        s.apply(MUS)
        assert s.phase == Phase.MUS
    s.apply(MUS)
    assert s.phase == Phase.DISCARD and s.to_act == 0
    legal = s.legal_actions()
    assert len(legal) == 1 and isinstance(legal[0], DiscardRange)
    assert sorted(legal[0].cards) == sorted(s.hands[0])


@pytest.mark.parametrize(
    "bad",
    [
        (),  # at least one card
        (0, 0),  # twice the same card
        (4,),  # not in the hand
        (0, 1, 2, 3, 4),  # five cards
    ],
)
def test_discard_must_be_1_to_4_own_distinct_cards(bad: tuple[int, ...]) -> None:
    s = ordered_deal()
    for _ in range(4):
        s.apply(MUS)
    action = Action(Action.parse("discard Ao").kind, 0, tuple(CARDS[c] for c in bad))
    stock_before, hand_before = list(s.stock), s.hands[0]
    with pytest.raises(IllegalActionError) as info:
        s.apply(action)
    assert info.value.seat == 0
    assert list(s.stock) == stock_before and s.hands[0] == hand_before and s.to_act == 0


def test_non_discard_actions_illegal_in_discard_phase() -> None:
    s = ordered_deal()
    for _ in range(4):
        s.apply(MUS)
    for bad in ("mus", "no-mus", "paso", "e2", "quiero"):
        with pytest.raises(IllegalActionError):
            s.apply(Action.parse(bad))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_discard_counts_1_to_4_are_legal(k: int) -> None:
    s = ordered_deal()
    mus_round(s, [k, k, k, k])
    assert [len(s.hands[i]) for i in range(4)] == [4, 4, 4, 4]
    assert len(s.stock) == 24 - 4 * k and len(s.pile) == 4 * k
    assert_conserved(s)


def test_all_discard_first_then_replacements_in_turn_order() -> None:
    s = ordered_deal(mano=1)
    for _ in range(4):
        s.apply(MUS)
    assert s.to_act == 1  # discards start with mano
    stock_top = top(s, 24)
    counts = {1: 2, 2: 1, 3: 3, 0: 4}
    thrown = {}
    for seat in (1, 2, 3, 0):
        assert s.to_act == seat
        chosen = sorted(s.hands[seat])[: counts[seat]]
        thrown[seat] = chosen
        s.apply(discard(chosen))
        if seat != 0:
            # Nobody is served before everybody has discarded.
            assert len(s.hands[seat]) == 4 - counts[seat]
            assert len(s.stock) == 24
    # Replacements as blocks, from the top of the stock, in turn order from mano.
    pos = 0
    for seat in (1, 2, 3, 0):
        got = stock_top[pos : pos + counts[seat]]
        pos += counts[seat]
        assert set(got) <= set(s.hands[seat]), seat
        assert not set(thrown[seat]) & set(s.hands[seat])
    assert len(s.stock) == 24 - 10 and sorted(s.pile) == sorted(c for t in thrown.values() for c in t)
    assert_conserved(s)
    assert s.phase == Phase.MUS and s.to_act == 1  # the calls start again from mano


def test_discard_counts_are_public_cards_are_not() -> None:
    s = ordered_deal()
    thrown = mus_round(s, [1, 2, 3, 4])
    for seat in range(4):
        view = s.view(seat)
        events = [e for e in view.history if e.kind is EventKind.DISCARD]
        assert [(e.seat, e.value) for e in events] == [(0, 1), (1, 2), (2, 3), (3, 4)]
        assert sorted(view.cards) == sorted(s.hands[seat])
        for other in range(4):
            if other != seat:
                assert not set(view.cards) & set(s.hands[other])
    assert thrown  # the discards themselves appear in no view
    for seat in range(4):
        text = repr(s.view(seat).history)
        for c in thrown[(seat + 1) % 4]:
            assert repr(CARDS[c]) not in text


def test_repeated_rounds() -> None:
    s = ordered_deal()
    mus_round(s, [1, 1, 1, 1])
    assert s.view(0).discard_round == 1
    mus_round(s, [2, 2, 2, 2])
    assert s.view(0).discard_round == 2
    assert len(s.stock) == 24 - 4 - 8
    assert s.phase == Phase.MUS and s.to_act == 0
    s.apply(MUS)
    s.apply(MUS)
    s.apply(NO_MUS)
    assert s.phase == Phase.BETTING and s.to_act == 0
    assert_conserved(s)


def test_many_rounds_keep_40_cards() -> None:
    s = ordered_deal()
    for r in range(12):
        mus_round(s, [4, 3, 2, 1] if r % 2 else [1, 4, 4, 2])
        assert [len(s.hands[i]) for i in range(4)] == [4, 4, 4, 4]
        assert_conserved(s)
    s.apply(NO_MUS)
    assert s.phase == Phase.BETTING


# ---------------------------------------------------------------------------- TV-18


def _tv18_round1() -> MusState:
    s = ordered_deal()
    assert len(s.stock) == 24
    mus_round(s, [4, 4, 4, 4])
    assert len(s.pile) == 16 and len(s.stock) == 8
    assert_conserved(s)
    return s


def test_tv18_case_a_two_missing_reshuffles_everything() -> None:
    s = _tv18_round1()
    old_stock = top(s, 8)
    pile_round1 = set(s.pile)
    counts = [4, 3, 4, 2]
    for _ in range(4):
        s.apply(MUS)
    thrown = {}
    for seat in range(4):
        chosen = sorted(s.hands[seat])[: counts[seat]]
        thrown[seat] = set(chosen)
        s.apply(discard(chosen))
    reshuffled = pile_round1 | thrown[0] | thrown[1] | thrown[2] | thrown[3]
    assert len(reshuffled) == 29
    # S0 got the first 4 of the old stock, S1 the next 3, S2 the last one.
    assert set(old_stock[:4]) <= set(s.hands[0])
    assert set(old_stock[4:7]) <= set(s.hands[1])
    assert old_stock[7] in s.hands[2]
    # S2's other 3 and S3's 2 come from the reshuffled 29 (all discards).
    assert len((set(s.hands[2]) - {old_stock[7]}) & reshuffled) == 3
    assert len(set(s.hands[3]) & reshuffled) == 2
    assert [len(s.hands[i]) for i in range(4)] == [4, 4, 4, 4]
    assert len(s.stock) == 24 and len(s.pile) == 0
    assert set(s.stock) <= reshuffled
    assert_conserved(s)
    shuffles = [e for e in s.history_events if e.kind is EventKind.RESHUFFLE]
    assert [e.value for e in shuffles] == [29]


def test_tv18_case_b_one_missing_keeps_own_discards_aside() -> None:
    s = _tv18_round1()
    old_stock = top(s, 8)
    pile_round1 = set(s.pile)
    counts = [3, 3, 2, 4]
    for _ in range(4):
        s.apply(MUS)
    thrown = {}
    for seat in range(4):
        chosen = sorted(s.hands[seat])[: counts[seat]]
        thrown[seat] = set(chosen)
        s.apply(discard(chosen))
    assert set(old_stock[:3]) <= set(s.hands[0])
    assert set(old_stock[3:6]) <= set(s.hands[1])
    assert set(old_stock[6:8]) <= set(s.hands[2])
    reshuffled = pile_round1 | thrown[0] | thrown[1] | thrown[2]
    assert len(reshuffled) == 24
    # S3's 4 new cards come from the 24; none is one of its own round-2 discards.
    assert set(s.hands[3]) <= reshuffled
    assert not set(s.hands[3]) & thrown[3]
    assert [len(s.hands[i]) for i in range(4)] == [4, 4, 4, 4]
    assert len(s.stock) == 20
    assert sorted(s.pile) == sorted(thrown[3])  # back on the (now empty) pile
    assert set(s.stock) <= reshuffled
    assert_conserved(s)
    shuffles = [e for e in s.history_events if e.kind is EventKind.RESHUFFLE]
    assert [e.value for e in shuffles] == [24]


def test_two_missing_after_exact_exhaustion_reshuffles_everything() -> None:
    # Stock 8 after round 1; round 2: all discard 4 -> S0 4, S1 4 (stock 0), then S2 and
    # S3 are both missing: everything (16 + 16) is reshuffled and 8 cards served.
    s = _tv18_round1()
    mus_round(s, [4, 4, 4, 4])
    assert len(s.stock) == 32 - 8 and len(s.pile) == 0
    assert_conserved(s)


# ---------------------------------------------------------------------------- max_mus_rounds


def test_max_mus_rounds_zero_means_no_mus_phase() -> None:
    s = ordered_deal(Rules(max_mus_rounds=0), mano=1)
    assert s.phase == Phase.BETTING and s.current_lance is Lance.GRANDE and s.to_act == 1
    with pytest.raises(IllegalActionError):
        s.apply(MUS)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_mus_rounds_n(n: int) -> None:
    s = ordered_deal(Rules(max_mus_rounds=n))
    for _r in range(n):
        assert s.phase == Phase.MUS and s.to_act == 0
        mus_round(s, [1, 1, 1, 1])
    # Reaching the limit is an automatic "no hay mus": the lances start with mano.
    assert s.phase == Phase.BETTING and s.current_lance is Lance.GRANDE and s.to_act == 0
    assert_conserved(s)


def test_max_mus_rounds_unlimited_by_default() -> None:
    s = ordered_deal()
    for _ in range(20):
        mus_round(s, [2, 2, 2, 2])
    assert s.phase == Phase.MUS


# ---------------------------------------------------------------------------- mus_corrido


@pytest.mark.parametrize("cutter", [1, 2, 3])
def test_mus_corrido_cutter_becomes_mano(cutter: int) -> None:
    s = ordered_deal(Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH), mano=0)
    for _ in range(cutter):
        s.apply(MUS)
    assert s.to_act == cutter
    s.apply(NO_MUS)
    assert s.mano == cutter and s.dealer == (cutter - 1) % 4
    assert s.phase == Phase.BETTING and s.current_lance is Lance.GRANDE and s.to_act == cutter


def test_mus_corrido_mano_cutting_keeps_mano() -> None:
    s = ordered_deal(Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH), mano=0)
    s.apply(NO_MUS)
    assert s.mano == 0 and s.dealer == 3 and s.to_act == 0


def test_mus_corrido_all_mus_shifts_nominal_mano() -> None:
    s = ordered_deal(Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH), mano=0)
    for _ in range(4):
        s.apply(MUS)
    # c = S0 deals the replacements; S1 is the new nominal mano and discards first.
    assert s.phase == Phase.DISCARD and s.to_act == 1
    assert s.dealer == 0 and s.mano == 1
    order = []
    for _ in range(4):
        order.append(s.to_act)
        s.apply(discard(sorted(s.hands[s.to_act])[:1]))
    assert order == [1, 2, 3, 0]
    assert s.phase == Phase.MUS and s.to_act == 1  # the calls resume at c+1
    s.apply(MUS)
    s.apply(NO_MUS)  # S2 cuts: S2 is mano
    assert s.mano == 2 and s.dealer == 1 and s.to_act == 2


def test_mus_corrido_later_hands_rotate_from_actual_dealer() -> None:
    s = ordered_deal(Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH), mano=0)
    s.apply(MUS)
    s.apply(MUS)
    s.apply(NO_MUS)  # S2 mano, S1 dealer
    while not s.hand_results:
        s.apply(next(a for a in s.legal_actions() if isinstance(a, Action)))
    r = s.hand_results[-1]
    assert (r.dealer, r.mano) == (1, 2)
    # Next hand: dealer S2, mano S3; no corrido: the mus cut does not move mano.
    assert (s.dealer, s.mano) == (2, 3)
    assert s.phase == Phase.MUS and s.to_act == 3
    s.apply(MUS)
    s.apply(NO_MUS)
    assert s.mano == 3 and s.to_act == 3


def test_mus_corrido_off_by_default() -> None:
    s = ordered_deal()
    s.apply(MUS)
    s.apply(NO_MUS)
    assert s.mano == 0 and s.to_act == 0


# ---------------------------------------------------------------------------- 2 and 6 players


def test_two_players_deal_and_mus() -> None:
    s = ordered_deal(Rules(players=2))
    assert s.n == 2 and len(s.stock) == 32
    assert [len(s.hands[i]) for i in range(2)] == [4, 4]
    s.apply(MUS)
    assert s.to_act == 1
    s.apply(MUS)
    assert s.phase == Phase.DISCARD and s.to_act == 0
    s.apply(discard(sorted(s.hands[0])[:4]))
    s.apply(discard(sorted(s.hands[1])[:2]))
    assert len(s.stock) == 26 and len(s.pile) == 6
    assert_conserved(s)
    assert s.phase == Phase.MUS and s.to_act == 0
    s.apply(NO_MUS)
    assert s.phase == Phase.BETTING and s.to_act == 0


def test_two_players_random_deal_sizes() -> None:
    s = MusState.new(Rules(players=2), seed=3)
    assert len(s.stock) == 32 and all(len(s.hands[i]) == 4 for i in range(2))
    assert_conserved(s)


def test_six_players_deal() -> None:
    s = ordered_deal(Rules(players=6))
    assert s.n == 6 and len(s.stock) == 16
    for i in range(6):
        assert s.to_act == i
        s.apply(MUS)
    assert s.phase == Phase.DISCARD


def test_six_players_all_four_cards_triggers_reshuffle() -> None:
    s = ordered_deal(Rules(players=6))
    old_stock = top(s, 16)
    thrown = mus_round(s, [4] * 6)
    # S0..S3 took the 16 stock cards; S4 and S5 are both missing: the whole pile (24)
    # is reshuffled into the stock.
    for seat in range(4):
        assert sorted(s.hands[seat]) == sorted(old_stock[4 * seat : 4 * seat + 4])
    everything_thrown = {c for t in thrown.values() for c in t}
    assert set(s.hands[4]) <= everything_thrown and set(s.hands[5]) <= everything_thrown
    assert len(s.stock) == 16 and len(s.pile) == 0
    assert_conserved(s)
    shuffles = [e for e in s.history_events if e.kind is EventKind.RESHUFFLE]
    assert [e.value for e in shuffles] == [24]
    assert s.phase == Phase.MUS and s.to_act == 0


def test_six_players_first_no_mus() -> None:
    s = ordered_deal(Rules(players=6), mano=4)
    s.apply(MUS)
    s.apply(MUS)
    s.apply(NO_MUS)  # S0 cuts
    assert s.phase == Phase.BETTING and s.to_act == 4 and s.mano == 4


def _win_game_by_deje(s: MusState) -> None:
    """From the grande of a hand at 39-x for T0 with S0 mano: S0 bets, T1 declines."""
    assert s.to_act == 0 and s.current_lance is Lance.GRANDE
    s.apply(Action.parse("e2"))
    s.apply(Action.parse("nq"))
    s.apply(Action.parse("nq"))
    assert s.hand_results[-1].game_over


def test_mus_corrido_first_hand_of_each_game_applies_again() -> None:
    rules = Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_EACH_GAME)
    s = MusState.from_deal(
        rules, [[CARDS[4 * i + j] for j in range(4)] for i in range(4)], mano=0, scores=(39, 0)
    )
    s.apply(NO_MUS)  # mano cuts at once: mano stays S0
    _win_game_by_deje(s)
    # New game: dealer S0, nominal mano S1; corrido again, so the cutter becomes mano.
    assert (s.dealer, s.mano) == (0, 1) and s.game_no == 1
    assert s.legal_senas(1) == ()  # no señas until the mus is cut
    s.apply(MUS)  # S1
    s.apply(MUS)  # S2
    s.apply(NO_MUS)  # S3 cuts
    assert s.mano == 3 and s.dealer == 2 and s.to_act == 3


def test_mus_corrido_first_hand_of_match_only() -> None:
    rules = Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_MATCH)
    s = MusState.from_deal(
        rules, [[CARDS[4 * i + j] for j in range(4)] for i in range(4)], mano=0, scores=(39, 0)
    )
    s.apply(NO_MUS)
    _win_game_by_deje(s)
    assert (s.dealer, s.mano) == (0, 1) and s.game_no == 1
    s.apply(MUS)
    s.apply(MUS)
    s.apply(NO_MUS)  # S3 cuts: mano does not change outside the first hand of the match
    assert s.mano == 1 and s.to_act == 1
