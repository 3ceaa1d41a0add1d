"""The OpenSpiel game's reshuffles are chance nodes: when the stock runs out during the
replacements, chance draws the new stock card by card among the pile's cards, and the
hand goes on from the order drawn; ISMCTS searches through them."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs pip install 'mus-sdk[openspiel]'")

from mus_rl import openspiel_game  # noqa: E402  (registers python_mus)
from mus_rl.actions import ACTION_NAMES, DISCARD_BASE  # noqa: E402

CHANCE = int(pyspiel.PlayerId.CHANCE)


def _player_action(state: object, rng: random.Random) -> int:
    """Mus nine times in ten and discards of three or four cards, so the stock runs out."""
    legal = state.legal_actions()  # type: ignore[attr-defined]
    if 0 in legal and rng.random() < 0.9:
        return 0
    big = [a for a in legal if DISCARD_BASE <= a < DISCARD_BASE + 15 and bin(a - DISCARD_BASE + 1).count("1") >= 3]
    return rng.choice(big or legal)


def _cards_conserved(engine: object) -> bool:
    cards = [c for h in engine.hands for c in h] + list(engine.stock) + list(engine.pile)  # type: ignore[attr-defined]
    return sorted(cards) == list(range(40))


def test_reshuffles_are_uniform_chance_nodes_and_the_hand_goes_on_from_the_order_drawn() -> None:
    game = pyspiel.load_game("python_mus", {"players": 6, "max_mus_rounds": 3})
    rng = random.Random(4)
    reshuffle_nodes = 0
    for _ in range(15):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() != CHANCE:
                state.apply_action(_player_action(state, rng))
                continue
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0) and len({p for _, p in outcomes}) == 1
            if state.engine is not None:
                reshuffle_nodes += 1
                due = {int(c) for c in state.engine.reshuffle_due}
                assert {a for a, _ in outcomes} == due - set(state.reshuffled), "the pile's cards not yet placed"
                assert state.engine.to_act is None and state.action_to_string(CHANCE, outcomes[0][0]).startswith("reshuffle")
                placed = [*state.reshuffled, outcomes[0][0]]
                state.apply_action(outcomes[0][0])
                if len(placed) == len(due):  # the stock was rebuilt from the order drawn
                    assert not state.engine.reshuffle_due and _cards_conserved(state.engine)
                continue
            state.apply_action(rng.choice([a for a, _ in outcomes]))
        returns = state.returns()
        assert sum(returns[0::2]) == pytest.approx(-sum(returns[1::2]))
    assert reshuffle_nodes >= 30, "the policy makes the stock run out"


def test_a_clone_in_the_middle_of_a_reshuffle_plays_on_like_the_original() -> None:
    game = pyspiel.load_game("python_mus", {"players": 6, "max_mus_rounds": 3})
    rng = random.Random(9)
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal() and not (state.engine is not None and state.reshuffled):
            if state.current_player() == CHANCE:
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                state.apply_action(_player_action(state, rng))
        if state.is_terminal():
            continue
        twin = state.clone()
        while not state.is_terminal():
            choices = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else None
            action = rng.choice(choices) if choices else _player_action(state, rng)
            state.apply_action(action)
            twin.apply_action(action)
        assert twin.is_terminal() and twin.returns() == state.returns()
        return
    raise AssertionError("no hand reached a reshuffle")


def test_ismcts_searches_through_reshuffle_chance_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    seen = []
    outcomes = openspiel_game.MusSpielState.chance_outcomes

    def counting(self: openspiel_game.MusSpielState) -> list[tuple[int, float]]:
        seen.append(self.engine is not None)
        return outcomes(self)

    monkeypatch.setattr(openspiel_game.MusSpielState, "chance_outcomes", counting)

    game = pyspiel.load_game("python_mus", {"players": 6, "max_mus_rounds": 3})
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 8,
                           random_state=np.random.RandomState(0))
    rng = random.Random(2)
    for _ in range(10):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            if state.engine.phase.name == "DISCARD":  # at 6 seats the stock runs out soon
                seen.clear()
                assert bot.step(state) in state.legal_actions()
                if any(seen):
                    return  # its simulations passed through a reshuffle's chance nodes
            state.apply_action(_player_action(state, rng))
    raise AssertionError("the search never met a reshuffle chance node")


def test_whole_game_passes_openspiel_random_simulation_checks() -> None:
    game = pyspiel.load_game("python_mus", {"whole_game": True, "target_points": 10})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_whole_game_deals_each_hand_by_chance_and_carries_scores_and_mano_on() -> None:
    game = pyspiel.load_game("python_mus", {"whole_game": True, "target_points": 15})
    rng = random.Random(1)
    longest = 0
    for _ in range(12):
        state, deals = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if state.dealing:
                    deals += 1
                    assert len(outcomes) == 40 - len(state.deck)
                state.apply_action(rng.choice([a for a, _ in outcomes]))
                continue
            legal = state.legal_actions()
            calm = [a for a in legal if a in (1, 17, 19)]  # no-mus, paso, no-quiero: longer games
            state.apply_action(rng.choice(calm) if calm and rng.random() < 0.8 else rng.choice(legal))
        results = [*state.past, state.engine.hand_results[-1]]
        assert deals == 40 * len(results), "every hand dealt by chance"
        assert [r.hand for r in results] == list(range(len(results)))
        assert all(r.scores_before == p.scores_after for p, r in itertools.pairwise(results))
        assert all(r.mano == (p.mano + 1) % 4 for p, r in itertools.pairwise(results))
        assert [r.game_over for r in results] == [False] * (len(results) - 1) + [True]
        winner = results[-1].game_winner
        assert state.returns() == [1.0 if s % 2 == winner else -1.0 for s in range(4)]
        longest = max(longest, len(results))
    assert longest >= 3, "some games last several hands"


def test_ismcts_plays_whole_games_searching_into_the_next_hands_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """ISMCTS on ``whole_game``, deciding for seat 0 from a game's second hand on (where
    the information state holds the finished hands): its moves are legal, each game
    ends with +1 / -1 per team, and its rollouts go past the end of a hand into the next
    deal's chance nodes (the value it searches is the game's, not the hand's)."""
    from open_spiel.python.algorithms import ismcts, mcts

    later_deals = []
    outcomes = openspiel_game.MusSpielState.chance_outcomes

    def counting(self: openspiel_game.MusSpielState) -> list[tuple[int, float]]:
        later_deals.append(self.dealing and bool(self.past))
        return outcomes(self)

    monkeypatch.setattr(openspiel_game.MusSpielState, "chance_outcomes", counting)
    game = pyspiel.load_game("python_mus", {"whole_game": True})
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 4,
                           random_state=np.random.RandomState(0))
    bot._resampler_cb = openspiel_game.seeded_resampler(0)  # OpenSpiel's own sampler is not seeded
    rng = random.Random(5)
    big = {ACTION_NAMES.index("ordago")} | {i for i, name in enumerate(ACTION_NAMES)
                                          if name.startswith("envido ") and name != "envido 2"}
    searched = crossed = False
    for _ in range(8):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            elif state.current_player() == 0 and state.past:  # from the game's second hand on
                later_deals.clear()
                action = bot.step(state)
                assert action in state.legal_actions()
                crossed = crossed or any(later_deals)
                searched = True
                state.apply_action(action)
            else:  # random, with no órdago and no raise beyond 2, so that games last more than a hand
                legal = state.legal_actions()
                state.apply_action(rng.choice([a for a in legal if a not in big] or legal))
        returns = state.returns()
        assert sorted(returns) == [-1.0, -1.0, 1.0, 1.0] and returns[0] == returns[2]
        if crossed and searched:
            return
    raise AssertionError(f"in 8 games: a search {searched}, a rollout into the next deal {crossed}")
