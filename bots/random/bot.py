"""random: plays uniformly at random among the legal actions (a baseline opponent).

Deterministic: its ``random.Random`` is seeded from ``$MUS_BOT_SEED`` (default 0), so a
match replays identically. Uniform means: each legal entry is equally likely; within an
envido range the amount is uniform in [min, min(max, 10)], within a discard range every
subset is equally likely.
"""

from __future__ import annotations

import os
import random

from mus_sdk import Action, Bot, Observation, serve


class RandomBot(Bot):
    """Picks a uniformly random legal action."""

    name = "random"
    version = "1.0"
    author = "mus-arena"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(os.environ.get("MUS_BOT_SEED", "0"))
        self.rng = random.Random(seed)

    def decide(self, obs: Observation) -> Action:
        return obs.legal.sample(self.rng)


if __name__ == "__main__":
    serve(RandomBot())
