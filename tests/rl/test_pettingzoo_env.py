"""The PettingZoo AEC environment: PettingZoo's own checks on every table size and some
variants, thousands of random hand-episodes checked for conserved cards, zero-sum
rewards and observations that carry no other seat's cards."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="mus_rl needs the rl extra: pip install 'mus-sdk[rl]'")

from mus_core.rules import JuegoReal, Rules
from mus_core.state import MusState
from mus_rl.actions import legal_indices, to_action
from mus_rl.encode import encode
from mus_rl.fast_encode import StateEncoder
from mus_rl.pettingzoo_env import MusEnv
from pettingzoo.test import api_test, seed_test

VARIANTS = [
    Rules(),
    Rules(players=2),
    Rules(players=6),
    Rules(kings=4, juego_real=JuegoReal.ANY_TEN_CARD, max_stake=12, plural_answers_bind_partner=True),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=["4p", "2p", "6p", "variant"])
def test_pettingzoo_api_test_passes(rules: Rules) -> None:
    api_test(MusEnv(rules, episode="hand"), num_cycles=60)


def test_pettingzoo_seed_test_passes_over_a_whole_game() -> None:
    seed_test(lambda: MusEnv(episode="game", reward="game"), num_cycles=200)


def test_the_same_seed_gives_the_same_episode_and_another_seed_another() -> None:
    def run(seed: int) -> list[int]:
        env = MusEnv(episode="hand")
        env.reset(seed=seed)
        return [int(c) for c in env.state.hands[0]]

    assert run(5) == run(5)
    assert run(5) != run(6)


def _cards_conserved(state: MusState) -> bool:
    cards = [c for h in state.hands for c in h] + list(state.stock) + list(state.pile)
    return sorted(cards) == list(range(40))


@pytest.mark.parametrize(("rules", "episodes"), [(Rules(), 1200), (Rules(players=6), 200), (Rules(players=2), 200)],
                         ids=["4p", "6p", "2p"])
def test_random_episodes_conserve_cards_are_zero_sum_and_show_only_own_cards(rules: Rules, episodes: int) -> None:
    rng = np.random.default_rng(3)
    env = MusEnv(rules, episode="hand", reward="hand")
    hands_seen = 0
    for ep in range(episodes):
        env.reset(seed=ep)
        totals = {a: 0.0 for a in env.agents}
        observe = ep % 4 == 0  # the vector on every 4th episode: it is most of the cost
        for agent in env.agent_iter():
            seat = int(agent[1:])
            if observe:
                obs, reward, term, trunc, _ = env.last()
                mask = obs["action_mask"]
                own = np.flatnonzero(obs["observation"][:40]).tolist()
                assert own == sorted(int(c) for c in env.state.hands[seat]), "the vector's cards are the seat's own"
                assert np.array_equal(obs["observation"], encode(env.state.view(seat))), "the vector of the view"
            else:
                reward, term, trunc = env._cumulative_rewards[agent], env.terminations[agent], env.truncations[agent]
                mask = env.legal_mask(agent)
            totals[agent] += reward
            assert _cards_conserved(env.state)
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(mask))))
        team_sums = [sum(r for a, r in totals.items() if int(a[1:]) % 2 == t) for t in (0, 1)]
        assert team_sums[0] == pytest.approx(-team_sums[1]), "zero-sum between teams"
        per_seat = {r for a, r in totals.items() if int(a[1:]) % 2 == 0}
        assert len(per_seat) == 1, "every seat of a team gets the team's reward"
        hands_seen += team_sums[0] != 0
    assert hands_seen > episodes // 2, "most hands score"


def test_an_observation_does_not_change_with_the_other_seats_hidden_cards() -> None:
    """Seat 0's vector is the same whatever the other seats hold (their cards permuted
    among them), as long as nothing public depends on them: until another seat's
    discard, the first declaration or the end of the hand (an órdago's showdown)."""
    rng = random.Random(11)
    checked = 0
    for trial in range(60):
        deck = list(range(40))
        rng.shuffle(deck)
        hands = [deck[4 * s : 4 * s + 4] for s in range(4)]
        others = hands[1:]
        rng.shuffle(others)
        a = MusState.from_deal(Rules(), hands, mano=trial % 4, stock=deck[16:], seed=1)
        b = MusState.from_deal(Rules(), [hands[0], *others], mano=trial % 4, stock=deck[16:], seed=1)
        fast_a, fast_b = StateEncoder(Rules()), StateEncoder(Rules())
        while not a.history_events or all(e.kind.value != "declaration" for e in a.history_events):
            assert np.array_equal(encode(a.view(0)), encode(b.view(0)))
            assert np.array_equal(fast_a.encode(a, 0), fast_b.encode(b, 0))
            checked += 1
            seat = a.to_act
            assert seat is not None and seat == b.to_act
            view = a.view(seat)
            options = legal_indices(view.legal_actions, view.cards)
            choice = rng.choice(options)
            if a.phase.name == "DISCARD" and seat != 0:
                break  # another seat's discard depends on its cards: the views part
            a.apply(to_action(choice, view.cards))
            b.apply(to_action(choice, tuple(sorted(b.hands[seat]))))
            if a.hand_results:
                break
    assert checked > 100
