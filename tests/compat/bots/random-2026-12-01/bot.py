"""random: plays uniformly at random among the legal actions (a baseline opponent).

Deterministic: at the start of each match its ``random.Random`` is seeded from
``$MUS_BOT_SEED`` (default 0), the match id and its seat, so a match replays identically
whichever matches its process played before (a league keeps a bot's process for several
matches; see docs/league.md). Uniform means: each legal entry is equally likely; within an
envido range the amount is uniform in [min, min(max, 10)], within a discard range every
subset is equally likely.
"""

from __future__ import annotations

import os
import random

from mus_sdk import Action, Bot, MatchInfo, Observation, serve


class RandomBot(Bot):
    """Picks a uniformly random legal action."""

    name = "random"
    version = "1.0"
    author = "mus-arena"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(os.environ.get("MUS_BOT_SEED", "0"))
        self.seed = seed
        self.rng = random.Random(seed)

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"{self.seed}:{match.match_id}:{match.seat}")

    def decide(self, obs: Observation) -> Action:
        return obs.legal.sample(self.rng)


if __name__ == "__main__":
    serve(RandomBot())
