"""Mus as a PettingZoo AEC environment (agent-environment cycle): one agent per seat.

    from mus_rl import MusEnv
    env = MusEnv(rules=Rules(players=4), episode="hand", reward="hand")
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        env.step(action)

Agents are ``"S0" .. "S{n-1}"``, the seats of the SDK (``S0`` is seat 0; its team is
``seat % 2``, :meth:`MusEnv.team`). Observations are a dict: ``"observation"``, the
vector of :mod:`mus_rl.encode`, and ``"action_mask"``, 1 for each legal index of
:mod:`mus_rl.actions`. The structured information state (the engine's
``Observation``, what the seat may know, señas included) is :meth:`MusEnv.info_state`,
and the SDK's ``Observation`` that a bot's ``decide`` receives is
:meth:`MusEnv.sdk_observation`.

Episodes (``episode``): ``"match"`` (the rules' whole match), ``"game"`` (until one
game is won) or ``"hand"`` (one hand). Rewards (``reward``), the same for every seat of
a team and the opposite for the other, so they are zero-sum between teams:
``"hand"``: after each hand, the stones the team gained minus the opponents' (a hand
that ends a game counts ``target_points`` for its winner, as
:func:`mus_core.forward.hand_score`), divided by ``target_points``; ``"game"``: +1 / -1
when a game is won / lost; ``"match"``: +1 / -1 at the end of the match.
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar, Literal

import numpy as np
from gymnasium import spaces
from mus_core import Observation
from mus_core.errors import IllegalActionError
from mus_core.forward import hand_score
from mus_core.rules import Rules
from mus_core.state import MusState
from pettingzoo import AECEnv

from mus_rl.actions import ACTION_NAMES, NUM_ACTIONS, to_action
from mus_rl.encode import vector_size
from mus_rl.fast_encode import MaskCache, StateEncoder

Episode = Literal["match", "game", "hand"]
Reward = Literal["hand", "game", "match"]
_EPISODES = ("match", "game", "hand")
_REWARDS = ("hand", "game", "match")


_SEATS = {f"S{seat}": seat for seat in range(6)}


def seat_of(agent: str) -> int:
    """The seat of an agent name (``"S2"`` -> 2)."""
    seat = _SEATS.get(agent)  # on every step: a lookup, not a parse
    return int(agent[1:]) if seat is None else seat


class MusEnv(AECEnv):  # type: ignore[misc]
    """A Mus table as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "mus_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: Rules | None = None,
        episode: Episode = "match",
        reward: Reward = "hand",
        render_mode: str | None = None,
    ) -> None:
        """``rules``: any variant and table size of the engine (default ``Rules()``).

        Raises:
            ValueError: an unknown ``episode``, ``reward`` or ``render_mode``.
        """
        super().__init__()
        if episode not in _EPISODES:
            raise ValueError(f"episode must be one of {_EPISODES}, not {episode!r}")
        if reward not in _REWARDS:
            raise ValueError(f"reward must be one of {_REWARDS}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.rules = rules if rules is not None else Rules()
        self.episode = episode
        self.reward_mode = reward
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [f"S{s}" for s in range(n)]
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (vector_size(n),), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self._act_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.state: MusState = MusState.new(self.rules, seed=0)
        self.seed_used = 0
        # The vector and the mask, kept up to date from each step's events (the same
        # vector as mus_rl.encode.encode of the seat's view: tests/rl/test_fast_encode.py).
        self._encoder = StateEncoder(self.rules)
        self._masks = MaskCache()
        self._done = True  # until reset: no agent may act (every mask is zeros)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same dict space for every agent."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(32)``: the indices of :mod:`mus_rl.actions`."""
        return self._act_space

    def team(self, agent: str) -> int:
        """The team of ``agent`` (0 or 1)."""
        return seat_of(agent) % 2

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match dealt from ``seed`` (a fresh random seed when ``None``); the same
        seed and actions give the same episode. ``options`` is accepted and ignored."""
        self.seed_used = secrets.randbits(64) if seed is None else seed
        self.state = MusState.new(self.rules, seed=self.seed_used)
        self._start = (self.state.game_no, len(self.state.hand_results))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.to_act]  # type: ignore[index]
        self._rewarded = False  # whether self.rewards holds a hand's rewards (else all 0)
        self._done = False  # the episode is over (every agent terminated)

    def info_state(self, agent: str) -> Observation:
        """The structured information state of ``agent``: the engine's view of its seat."""
        return self.state.view(seat_of(agent))

    def sdk_observation(self, agent: str) -> Any:
        """The ``mus_sdk.Observation`` an SDK bot in that seat would be given now."""
        from mus_rl.bots import sdk_observation

        return sdk_observation(self.state.view(seat_of(agent)))

    def legal_mask(self, agent: str) -> np.ndarray:
        """1 for each legal action index of ``agent`` (all 0 when it is not to act)."""
        return self._mask(agent, seat_of(agent))

    def _mask(self, agent: str, seat: int) -> np.ndarray:
        # Until the episode ends, agent_selection is always the seat to act (step sets it).
        if not self._done and agent == self.agent_selection:
            return self._masks.mask(self.state.legal_actions())
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": vector, "action_mask": mask}`` for ``agent``."""
        seat = _SEATS.get(agent)  # seat_of, without its call on every step
        if seat is None:
            seat = seat_of(agent)
        return {"observation": self._encoder.encode(self.state, seat), "action_mask": self._mask(agent, seat)}

    def step(self, action: int | None) -> None:
        """Play ``action`` (an index) for the agent to act; ``None`` for a finished agent.

        Raises:
            ValueError: an index that is not legal now (the mask says which are).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        index = -1 if action is None else int(action)
        if not 0 <= index < NUM_ACTIONS:
            raise ValueError(f"{agent}: action {action!r} is not legal now (see the action mask)")
        # The hand's cards matter only to a discard (the index names cards by position).
        cards = state.cards_of(seat_of(agent)) if 2 <= index < 17 else ()
        self._cumulative_rewards[agent] = 0.0
        hand_before = state.hand_no
        try:
            state.apply(to_action(index, cards))  # checks it; the state is unchanged if illegal
        except IllegalActionError:  # the same set as the mask: see mus_rl.actions
            raise ValueError(f"{agent}: action {action!r} ({ACTION_NAMES[index]}) is not legal now "
                             "(see the action mask)") from None
        # A hand ended when the next one was dealt, or when it ended the match.
        if state.hand_no != hand_before or state.is_terminal:
            self._hand_over()
        elif self._rewarded:  # rewards are of the last step only: clear the last hand's
            for a in self.agents:
                self.rewards[a] = 0.0
            self._rewarded = False
        if not self._done:
            self.agent_selection = self.possible_agents[state.to_act]  # type: ignore[index]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _hand_over(self) -> None:
        """Rewards and the end of the episode after the hand just counted."""
        state = self.state
        result = state.hand_results[-1]
        rules = self.rules
        per_team = [0.0, 0.0]
        if self.reward_mode == "hand":
            for t in (0, 1):
                per_team[t] = hand_score(result, t, rules.target_points) / rules.target_points
        elif (self.reward_mode == "game" and result.game_over) or (self.reward_mode == "match" and state.is_terminal):
            winner = result.game_winner if self.reward_mode == "game" else state.match_winner
            per_team = [1.0 if winner == t else -1.0 for t in (0, 1)]
        for a in self.agents:
            self.rewards[a] = per_team[seat_of(a) % 2]
            self.infos[a] = {"hand_result": result}
        self._rewarded = True
        done = state.is_terminal or self.episode == "hand" or (self.episode == "game" and result.game_over)
        if done:
            self._done = True
            for a in self.agents:
                self.terminations[a] = True

    def render(self) -> str:
        """The table as text: scores, phase, the agent to act and its cards."""
        st = self.state
        seat = st.to_act
        who = "-" if seat is None else f"S{seat} holding {' '.join(str(c) for c in sorted(st.hands[seat]))}"
        return f"scores {st.scores} games {st.games_won} hand {st.hand_no} {st.phase.name} {st.current_lance} to act: {who}"

    def close(self) -> None:
        """Nothing to release."""


def action_names() -> tuple[str, ...]:
    """The name of each action index."""
    return ACTION_NAMES
