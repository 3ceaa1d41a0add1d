"""learned: plays the policy learned by ``python -m mus_rl.train`` (docs/rl.md).

The weights are ``weights.npz`` next to this file (``$MUS_LEARNED_WEIGHTS`` names
another file). The policy is a small numpy network over the observation vector of
:mod:`mus_rl.encode`, choosing among the legal actions of :mod:`mus_rl.actions`; it plays
greedily (its most likely action), so a match replays the same.
"""

from __future__ import annotations

import os
from pathlib import Path

from mus_rl.policy import LinearPolicy, PolicyBot
from mus_sdk import serve

WEIGHTS = Path(os.environ.get("MUS_LEARNED_WEIGHTS", Path(__file__).resolve().parent / "weights.npz"))


class LearnedBot(PolicyBot):
    """The trained policy as an SDK bot."""

    name = "learned"
    version = "1.0"
    author = "mus-arena"

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(os.environ.get("MUS_BOT_SEED", "0"))
        super().__init__(LinearPolicy.load(WEIGHTS), sample=False, seed=seed)


if __name__ == "__main__":
    serve(LearnedBot())
