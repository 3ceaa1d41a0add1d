"""The incremental encoder (mus_rl.fast_encode) against the obvious one built from
``view(seat)`` (mus_rl.encode): equal vectors for every seat over thousands of random
steps, every table size and some variants, so the speed-up cannot leak a hidden card
nor drop a public one."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numpy")

from mus_core.random_play import random_action
from mus_core.rules import JuegoReal, MusCorrido, Rules, SignalMode
from mus_core.state import MusState
from mus_rl.encode import encode
from mus_rl.fast_encode import StateEncoder

VARIANTS = [
    (Rules(), 2500),
    (Rules(players=2), 800),
    (Rules(players=6, max_mus_rounds=6), 1200),
    (Rules(kings=4, juego_real=JuegoReal.ANY_TEN_CARD, max_stake=12, plural_answers_bind_partner=True,
           target_points=15, games_to_win=2), 1200),
    (Rules(signals=SignalMode.PARTNER_WITH_INTERCEPTION, interception_p=0.3,
           mus_corrido=MusCorrido.FIRST_HAND_OF_EACH_GAME), 800),
]


def _mismatch(fast: np.ndarray, slow: np.ndarray) -> list[int]:
    return np.flatnonzero(fast != slow).tolist()


@pytest.mark.parametrize(("rules", "steps"), VARIANTS, ids=["4p", "2p", "6p", "variant", "senas"])
def test_fast_vector_equals_the_vector_of_the_view_at_every_step_for_every_seat(rules: Rules, steps: int) -> None:
    rng = random.Random(11)
    encoder = StateEncoder(rules)
    checked, m = 0, 0
    while checked < steps:
        state = MusState.new(rules, seed=m)
        m += 1
        while not state.is_terminal and checked < steps:
            # Seats in a random order, some twice: the cache must not depend on the order.
            for seat in rng.choices(range(rules.players), k=rules.players):
                fast, slow = encoder.encode(state, seat), encode(state.view(seat))
                assert not _mismatch(fast, slow), f"seat {seat}, step {checked}: entries {_mismatch(fast, slow)}"
            if rules.signals_enabled and rng.random() < 0.3:
                seat = rng.randrange(rules.players)
                senas = state.legal_senas(seat)
                if senas:
                    state.give_sena(seat, rng.choice(senas))
            state.apply(random_action(rng, state.legal_actions()))
            checked += 1
        for seat in range(rules.players):  # the match's end too
            assert not _mismatch(encoder.encode(state, seat), encode(state.view(seat)))


def test_switching_states_and_going_back_gives_each_state_its_own_vector() -> None:
    rules = Rules()
    rng = random.Random(2)
    a, b = MusState.new(rules, seed=1), MusState.new(rules, seed=2)
    encoder = StateEncoder(rules)
    for _ in range(300):
        for state in (a, b, a.clone()):
            if state.is_terminal:
                continue
            out = np.full(encoder.size, 7.0, np.float32)
            assert encoder.encode(state, state.to_act or 0, out) is out
            assert np.array_equal(out, encode(state.view(state.to_act or 0)))
        for state in (a, b):
            if not state.is_terminal:
                state.apply(random_action(rng, state.legal_actions()))


def test_a_state_of_other_rules_or_a_missing_seat_is_refused() -> None:
    encoder = StateEncoder(Rules())
    with pytest.raises(ValueError, match="other rules"):
        encoder.encode(MusState.new(Rules(kings=4)), 0)
    with pytest.raises(ValueError, match="no seat 4"):
        encoder.encode(MusState.new(Rules()), 4)
