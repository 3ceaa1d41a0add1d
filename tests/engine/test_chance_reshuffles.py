"""Reshuffles given from outside (``chance_reshuffles``, for OpenSpiel's chance nodes):
the state waits for the order, nobody acts meanwhile, and given the order the seed
would have drawn it plays exactly the seeded match."""

from __future__ import annotations

import random

import pytest
from mus_core.actions import MUS, DiscardRange
from mus_core.errors import IllegalActionError
from mus_core.random_play import random_action
from mus_core.rules import Rules
from mus_core.state import MusState, _permute

RULES = Rules(players=4, target_points=20)


def _policy(rng: random.Random, state: MusState) -> object:
    """Random play that says mus nine times in ten, so that the stock runs out often."""
    legal = state.legal_actions()
    if MUS in legal and rng.random() < 0.9:
        return MUS
    if isinstance(legal[0], DiscardRange) and rng.random() < 0.5:
        return random_action(rng, (DiscardRange(legal[0].cards, 3, 4),))
    return random_action(rng, legal)


def _seeded_order(state: MusState) -> list[int]:
    """The order the seed draws for the reshuffle that is due, the next card served first
    (the engine's own draw, as the seeded path makes it)."""
    fresh = list(state.reshuffle_due)
    _permute(fresh, state._prf.draw(b"reshuffle:%d:%d" % (state.hand_no, state._reshuffles)))
    return [int(c) for c in reversed(fresh)]


def test_given_the_seeds_order_a_chance_state_plays_the_seeded_match_exactly() -> None:
    reshuffles = 0
    for seed in range(12):
        seeded, chance = MusState.new(RULES, seed=seed), MusState.new(RULES, seed=seed)
        chance.chance_reshuffles = True
        rng = random.Random(seed)
        while not seeded.is_terminal:
            action = _policy(rng, seeded)
            seeded.apply(action)  # type: ignore[arg-type]
            chance.apply(action)  # type: ignore[arg-type]
            while chance.reshuffle_due:
                reshuffles += 1
                chance.apply_reshuffle(_seeded_order(chance))
            assert chance.hands == seeded.hands and chance.stock == seeded.stock and chance.pile == seeded.pile
            assert chance.history_events == seeded.history_events
        assert chance.hand_results == seeded.hand_results and chance.is_terminal
    assert reshuffles >= 10, "the policy makes reshuffles happen"


def _state_with_a_reshuffle_due() -> MusState:
    rng = random.Random(5)
    for seed in range(50):
        state = MusState.new(RULES, seed=seed)
        state.chance_reshuffles = True
        while not state.is_terminal and state.hand_no == 0:
            state.apply(_policy(rng, state))  # type: ignore[arg-type]
            if state.reshuffle_due:
                return state
    raise AssertionError("no reshuffle in 50 hands")


def test_while_a_reshuffle_is_due_nobody_acts_and_only_its_cards_are_accepted() -> None:
    state = _state_with_a_reshuffle_due()
    due = state.reshuffle_due
    assert state.to_act is None and state.legal_actions() == () and not state.is_terminal
    with pytest.raises(IllegalActionError):
        state.apply(random_action(random.Random(0), (DiscardRange(state.hands[0], 1, 1),)))
    with pytest.raises(ValueError, match="reshuffle is due"):
        state.chance_reshuffles = False
    with pytest.raises(ValueError, match="each once"):
        state.apply_reshuffle([*due[1:], due[1]])
    with pytest.raises(ValueError, match="each once"):
        state.apply_reshuffle(due[1:])
    twin = state.clone()
    order = sorted(due, reverse=True)
    state.apply_reshuffle(order)
    twin.apply_reshuffle(order)
    assert state.hands == twin.hands and state.to_act is not None and not state.reshuffle_due
    cards = [c for h in state.hands for c in h] + list(state.stock) + list(state.pile)
    assert sorted(cards) == list(range(40))
    with pytest.raises(ValueError, match="no reshuffle is due"):
        state.apply_reshuffle(order)
    assert state.legal_actions(), "the hand goes on"
