"""The Gymnasium single-seat environment, the OpenSpiel game (OpenSpiel's own random
simulation checks, ISMCTS), the OpenSpiel-bot adapter in a refereed match, and the
learned policy: a few training steps, its weights, bots/learned in a match."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="mus_rl needs the rl extra: pip install 'mus-sdk[rl]'")

from gymnasium.utils.env_checker import check_env
from mus_core.rules import Rules
from mus_rl.bots import load_bot_class
from mus_rl.gym_env import MusGymEnv
from mus_rl.policy import LinearPolicy, PolicyBot

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter

ROOT = Path(__file__).resolve().parents[2]
SHORT = Rules(target_points=10, games_to_win=1)


def test_gymnasium_check_env_passes() -> None:
    check_env(MusGymEnv(partner="random", opponents="rulebot"), skip_render_check=True)


def test_gym_episode_against_a_snapshot_of_the_learner_and_an_illegal_index_is_replaced() -> None:
    snapshot = PolicyBot(LinearPolicy(hidden=8, seed=3), sample=True)
    env = MusGymEnv(SHORT, partner=snapshot, opponents="random", episode="match", reward="match", illegal_penalty=0.5)
    obs, info = env.reset(seed=4)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(mask == 0)[0])
    obs, reward, done, _, info = env.step(illegal)
    assert info["illegal"] and reward in (-0.5, 0.5, -1.5)
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    penalty = 0.5 if info["illegal"] else 0.0
    assert reward + penalty in (1.0, -1.0) and env.state.is_terminal


pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs pip install 'mus-sdk[openspiel]'")


@pytest.mark.parametrize("params", [{}, {"players": 2, "kings": 4}, {"players": 6, "max_mus_rounds": 1}])
def test_openspiel_random_simulation_checks_pass(params: dict[str, int]) -> None:
    from mus_rl import openspiel_game  # noqa: F401  (registers python_mus)

    game = pyspiel.load_game("python_mus", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_openspiel_ismcts_plays_a_hand_and_returns_are_zero_sum() -> None:
    import random

    from mus_rl import openspiel_game  # noqa: F401
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_mus")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 10,
                           random_state=np.random.RandomState(0))
    state, rng = game.new_initial_state(), random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    returns = state.returns()
    assert sum(returns[0::2]) == pytest.approx(-sum(returns[1::2])) and returns[0] == returns[2]


def test_an_openspiel_bot_plays_a_refereed_match_through_the_sdk() -> None:
    from mus_rl.openspiel_game import OpenSpielBot
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_mus")
    search = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 4,
                              random_state=np.random.RandomState(0))
    players = [
        InProcessBot(OpenSpielBot(search, game, seed=0), "ismcts"),
        InProcessBot(OpenSpielBot(lambda g, seat: pyspiel.make_uniform_random_bot(seat, 1), seed=1), "uniform"),
        InProcessBot(OpenSpielBot(search, game, seed=2), "ismcts2"),
        InProcessBot(load_bot_class("random")(seed=3), "random"),
    ]
    result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=SHORT, seed=3, match_id="os"))
    assert result.winner_team in (0, 1)
    assert not result.faults


def test_an_ismcts_bot_through_the_adapter_makes_the_same_moves_for_the_same_seed() -> None:
    """OpenSpiel's ISMCTS resamples with an unseeded sampler; the adapter gives it one
    drawn from its seed, so two fresh bots seeded alike choose alike, decision after
    decision (they differed from run to run before)."""
    import random

    from mus_core.random_play import random_action
    from mus_core.state import MusState
    from mus_rl.bots import sdk_observation
    from mus_rl.openspiel_game import OpenSpielBot
    from open_spiel.python.algorithms import ismcts, mcts

    def moves() -> list[object]:
        game = pyspiel.load_game("python_mus")
        search = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 8,
                                  random_state=np.random.RandomState(0))
        bot, rng, chosen = OpenSpielBot(search, game, seed=4), random.Random(1), []
        seed = 0
        while len(chosen) < 20:
            state, seed = MusState.new(SHORT, seed=seed), seed + 1
            while not state.is_terminal:
                if state.to_act == 0:
                    chosen.append(bot.decide(sdk_observation(state.view(0))))
                    state.apply(chosen[-1])
                else:
                    state.apply(random_action(rng, state.legal_actions()))
        return chosen

    first = moves()
    assert moves() == first


def test_training_smoke_saves_weights_that_bots_learned_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mus_rl import train

    out = tmp_path / "w.npz"
    before = LinearPolicy(hidden=8, seed=1)
    train.main(["--imitate", "4", "--imitate-epochs", "1", "--batches", "2", "--batch", "4", "--hidden", "8", "--eval-every", "2", "--eval-hands", "4",
                "--partner", "self", "--opponents", "random,rulebot", "--out", str(out)])
    learned = LinearPolicy.load(out)
    assert not np.array_equal(learned.params["W2"], before.params["W2"]), "the training loop moved the weights"
    monkeypatch.setenv("MUS_LEARNED_WEIGHTS", str(out))
    cls = load_bot_class(ROOT / "bots" / "learned")
    players = [InProcessBot(cls(seed=s) if s % 2 == 0 else load_bot_class("rulebot")(), f"p{s}") for s in range(4)]
    result = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=SHORT, seed=5, match_id="learned"))
    assert result.winner_team in (0, 1) and not result.faults


def test_policy_weights_that_are_not_weights_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not policy weights"):
        LinearPolicy.load(bad)
