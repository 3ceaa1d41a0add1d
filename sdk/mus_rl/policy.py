"""A small numpy policy over the discrete action space, and the SDK bot that plays it.

:class:`LinearPolicy` is a softmax over the legal indices of a linear function of the
observation vector (:mod:`mus_rl.encode`) plus a hidden layer when ``hidden > 0``; it
is what :mod:`mus_rl.train` learns and ``bots/learned`` plays. Weights are an ``.npz``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from mus_sdk import Bot, MatchInfo, Observation

from mus_rl.actions import NUM_ACTIONS, legal_indices, to_action
from mus_rl.encode import encode, vector_size


class LinearPolicy:
    """``softmax(W2 · tanh(W1 · x + b1) + b2)`` over the legal actions (or ``W2 · x + b2``
    without a hidden layer)."""

    def __init__(self, players: int = 4, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        d = vector_size(players)
        self.players = players
        self.hidden = hidden
        if hidden > 0:
            self.params = {
                "W1": (rng.standard_normal((hidden, d)) / np.sqrt(d)).astype(np.float32),
                "b1": np.zeros(hidden, np.float32),
                "W2": np.zeros((NUM_ACTIONS, hidden), np.float32),
                "b2": np.zeros(NUM_ACTIONS, np.float32),
            }
        else:
            self.params = {"W2": np.zeros((NUM_ACTIONS, d), np.float32), "b2": np.zeros(NUM_ACTIONS, np.float32)}

    def features(self, x: np.ndarray) -> np.ndarray:
        """The last layer's input for observation ``x``."""
        if self.hidden > 0:
            return np.tanh(self.params["W1"] @ x + self.params["b1"])  # type: ignore[no-any-return]
        return x

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The action distribution (0 outside ``mask``)."""
        logits = self.params["W2"] @ self.features(x) + self.params["b2"]
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()  # type: ignore[no-any-return]

    def act(self, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> int:
        """A sampled index (with ``rng``), else the most likely one."""
        p = self.probabilities(x, mask)
        if rng is None:
            return int(np.argmax(p))
        return int(rng.choice(NUM_ACTIONS, p=p))

    def save(self, path: str | Path) -> None:
        """Write the weights (and the shape) to ``path`` (``.npz``)."""
        np.savez_compressed(path, players=self.players, hidden=self.hidden, **self.params)

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        """Read weights written by :meth:`save`.

        Raises:
            ValueError: the file is not such weights.
        """
        try:
            with np.load(path) as data:
                policy = cls(int(data["players"]), int(data["hidden"]))
                for k in policy.params:
                    if data[k].shape != policy.params[k].shape:
                        raise KeyError(f"{k} has shape {data[k].shape}, expected {policy.params[k].shape}")
                    policy.params[k] = data[k].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:  # np.load's ValueError: not an .npz
            raise ValueError(f"{path}: not policy weights ({exc})") from None
        return policy


class PolicyBot(Bot):
    """An SDK bot that plays a :class:`LinearPolicy` (greedy, or sampled when ``sample``)."""

    name = "learned"
    version = "1.0"
    author = "mus-arena"

    def __init__(self, policy: LinearPolicy, sample: bool = False, seed: int = 0) -> None:
        self.policy = policy
        self.sample = sample
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def on_match_start(self, match: MatchInfo) -> None:
        """Reseed per match and seat, so a match replays the same."""
        self.rng = np.random.default_rng(random.Random(f"{self.seed}:{match.match_id}:{match.seat}").getrandbits(64))

    def decide(self, obs: Observation) -> Any:
        """The policy's choice among the legal actions."""
        cards = tuple(sorted(obs.cards))
        mask = np.zeros(NUM_ACTIONS, np.int8)
        legal = legal_indices(tuple(obs.legal_actions), cards)
        mask[legal] = 1
        x = encode(obs)  # type: ignore[arg-type]
        index = self.policy.act(x, mask, self.rng if self.sample else None)
        return to_action(index, cards)
