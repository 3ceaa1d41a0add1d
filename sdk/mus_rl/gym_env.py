"""One seat learns, the other seats are SDK bots: Mus as a Gymnasium environment.

    env = MusGymEnv(opponents="rulebot", partner="rulebot", episode="hand")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(action)

The partner(s) and opponents are any ``mus_sdk.Bot``: a bot object (e.g. a snapshot of
the learner wrapped in :class:`mus_rl.policy.PolicyBot`), or a bot directory
(``"bots/rulebot"``, or a bundled bot's name: ``"rulebot"``, ``"random"``, ``"search"``),
played in this process. Observations and actions are those of
:class:`mus_rl.pettingzoo_env.MusEnv` (a dict with the vector and the action mask;
``Discrete(32)``), and ``action_masks()`` gives the mask too (the convention of
sb3-contrib's ``MaskablePPO``). An index that is not legal is replaced by the lowest
legal one (``info["illegal"]`` is then true) and costs ``illegal_penalty``: learners
should use the mask.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from mus_core.forward import hand_score
from mus_core.rules import Rules
from mus_core.state import MusState
from mus_sdk import Bot

from mus_rl.actions import NUM_ACTIONS, legal_indices, to_action
from mus_rl.bots import BotSeat, make_bot
from mus_rl.fast_encode import MaskCache, StateEncoder
from mus_rl.pettingzoo_env import _EPISODES, _REWARDS, Episode, MusEnv, Reward

BotSpec = str | Path | Bot


class MusGymEnv(gym.Env[dict[str, np.ndarray], np.int64]):
    """A single-agent Mus environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012  (gymnasium declares it an instance attribute)

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seat: int = 0,
        partner: BotSpec = "rulebot",
        opponents: BotSpec = "rulebot",
        episode: Episode = "hand",
        reward: Reward = "hand",
        illegal_penalty: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        """``seat``: the learner's seat; ``partner`` plays every other seat of its team,
        ``opponents`` every seat of the other team (one bot object per seat: give a
        directory or name to get fresh objects, a ``Bot`` object is shared).

        Raises:
            ValueError: a bad seat, episode, reward or bot.
        """
        self.rules = rules if rules is not None else Rules()
        n = self.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, not {seat}")
        if episode not in _EPISODES or reward not in _REWARDS:
            raise ValueError(f"episode must be one of {_EPISODES} and reward one of {_REWARDS}")
        self.seat, self.episode, self.reward_mode = seat, episode, reward
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self._specs = {s: (partner if s % 2 == seat % 2 else opponents) for s in range(n) if s != seat}
        self._bots = {s: make_bot(spec, seed=s) for s, spec in self._specs.items()}
        space = MusEnv(self.rules)
        self.observation_space = space.observation_space("S0")
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.state = MusState.new(self.rules, seed=0)
        self._seats: dict[int, BotSeat] = {}
        self._match_id = "rl"
        self._encoder = StateEncoder(self.rules)  # the vector of encode(view), kept up to date
        self._masks = MaskCache()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new match (dealt from ``seed``, else from the environment's generator); the
        bots play until the learner is to act."""
        super().reset(seed=seed)
        match_seed = int(self.np_random.integers(0, 2**63))
        self.state = MusState.new(self.rules, seed=match_seed)
        self._match_id = f"rl-{match_seed}"
        self._seats = {s: BotSeat(bot, s, seed=match_seed + s) for s, bot in self._bots.items()}
        for seat in self._seats.values():
            seat.start(self.state, self._match_id)
        _, done = self._advance()
        if done:  # a whole episode without the learner cannot happen (mano rotates); be safe
            return self.reset(seed=match_seed % (2**32) + 1)
        return self._obs(), {"action_mask": self.action_masks()}

    def action_masks(self) -> np.ndarray:
        """1 for each legal action index of the learner now."""
        if self.state.to_act == self.seat:
            return self._masks.mask(self.state.legal_actions())
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def step(self, action: np.int64 | int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the bots' until the learner is to act again or
        the episode ends."""
        state = self.state
        cards = self._cards()
        legal = legal_indices(state.legal_actions(), cards)
        index = int(action)
        illegal = index not in legal
        if illegal:
            index = legal[0]
        hands = len(state.hand_results)
        state.apply(to_action(index, cards))
        reward, done = self._after_action(hands)
        if not done:
            more, done = self._advance()
            reward += more
        if illegal:
            reward -= self.illegal_penalty
        info: dict[str, Any] = {"action_mask": self.action_masks(), "illegal": illegal}
        if state.hand_results:
            info["hand_result"] = state.hand_results[-1]
        return self._obs(), reward, done, False, info

    def _cards(self) -> tuple[Any, ...]:
        return self.state.cards_of(self.seat)

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self._encoder.encode(self.state, self.seat), "action_mask": self.action_masks()}

    def _advance(self) -> tuple[float, bool]:
        """The bots play until the learner's turn; the reward gathered meanwhile."""
        total = 0.0
        state = self.state
        while state.to_act is not None and state.to_act != self.seat:
            hands = len(state.hand_results)
            self._seats[state.to_act].play(state, self._match_id)
            reward, done = self._after_action(hands)
            total += reward
            if done:
                return total, True
        return total, state.to_act is None

    def _after_action(self, hands_before: int) -> tuple[float, bool]:
        state = self.state
        if len(state.hand_results) == hands_before:
            return 0.0, False
        result = state.hand_results[-1]
        team = self.seat % 2
        for seat in self._seats.values():
            seat.hand_end(state)
        reward = 0.0
        if self.reward_mode == "hand":
            reward = hand_score(result, team, self.rules.target_points) / self.rules.target_points
        elif self.reward_mode == "game" and result.game_over:
            reward = 1.0 if result.game_winner == team else -1.0
        elif self.reward_mode == "match" and state.is_terminal:
            reward = 1.0 if state.match_winner == team else -1.0
        done = state.is_terminal or self.episode == "hand" or (self.episode == "game" and result.game_over)
        if done:
            for seat in self._seats.values():
                seat.end(state)
        return reward, done

    def render(self) -> str:
        """The table as text."""
        st = self.state
        return f"scores {st.scores} hand {st.hand_no} {st.phase.name} S{self.seat} holds {' '.join(map(str, self._cards()))}"
