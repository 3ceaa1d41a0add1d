"""One ``Observation`` (issue 31, item 3): the engine's view and what a bot receives are
one class, and a view sent over the wire comes back equal to itself, but for the
request's own fields."""

from __future__ import annotations

import dataclasses
import random

import mus_core
import mus_core.state
import mus_sdk
import pytest
from mus_core import Rules, SignalMode
from mus_core.random_play import random_action
from mus_core.state import MusState

from arena.wire import convert as wire


def test_the_engine_and_the_sdk_name_one_class() -> None:
    assert mus_sdk.Observation is mus_core.Observation is mus_core.state.Observation
    assert mus_sdk.LegalActions is mus_core.LegalActions
    view = MusState.new(Rules(), seed=3).view(0)
    assert type(view) is mus_sdk.Observation
    assert isinstance(view.legal_actions, mus_sdk.LegalActions)


def _states(seed: int, rules: Rules) -> list[MusState]:
    """Every state of one random match (a clone before each action), with señas given
    at random where they are legal (intercepted ones are not in every seat's history)."""
    rng = random.Random(seed)
    state = MusState.new(rules, seed=seed)
    seen = []
    while not state.is_terminal and len(seen) < 400:
        seat = rng.randrange(rules.players)
        senas = state.legal_senas(seat)
        if senas and rng.random() < 0.3:
            state.give_sena(seat, rng.choice(senas))
        seen.append(state.clone())
        state.apply(random_action(rng, state.legal_actions()))
    return seen


@pytest.mark.parametrize("rules", [Rules(), Rules(players=2), Rules(players=6), Rules(signals=SignalMode.PARTNER_WITH_INTERCEPTION)],
                         ids=["4p", "2p", "6p", "intercepted-senas"])
def test_a_view_over_the_wire_is_the_view(rules: Rules) -> None:
    """For every seat of every state of random matches, the observation the SDK builds from
    the arena's request is the engine's view with the request's fields filled in (and the
    seat asked as the seat to act: a request is always to the seat it is sent to)."""
    checked = 0
    for seed in range(6):
        for state in _states(seed, rules):
            for seat in range(rules.players):
                view = state.view(seat)
                got = wire.observation_for(state, seat, request_id=7, match_id="m", deadline_ms=5, time_bank_ms=9)
                want = dataclasses.replace(view, request_id=7, match_id="m", deadline_ms=5, time_bank_ms=9,
                                           to_act=seat)
                assert got == want, (seed, seat)
                assert view.to_act == state.to_act
                checked += 1
    assert checked >= 6 * rules.players  # every seat of every match, at least its first state


def test_a_bots_helpers_work_on_an_engine_view() -> None:
    """What the SDK gives bots (the queries, the forward model) now reads a view directly."""
    state = MusState.new(Rules(), seed=11)
    view = state.view(state.to_act or 0)
    assert view.team == view.seat % 2 and view.num_seats == 4
    assert view.partner == (view.seat + 2) % 4
    assert view.legal_actions.can(mus_sdk.ActionKind.MUS)
    sampled = view.to_state(random.Random(1))
    assert sampled.view(view.seat).cards == view.cards


def test_built_by_hand_a_request_is_to_its_own_seat() -> None:
    view = MusState.new(Rules(), seed=5).view(1)
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "to_act"}
    asked = mus_sdk.Observation(**{**fields, "legal_actions": mus_sdk.LegalActions([mus_sdk.mus()])})
    assert asked.to_act == 1
    idle = mus_sdk.Observation(**{**fields, "legal_actions": mus_sdk.LegalActions([])})
    assert idle.to_act is None
