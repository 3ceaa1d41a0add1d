"""learned: plays the policy learned by ``python -m mus_rl.train`` (docs/rl.md).

The weights are ``weights.npz`` next to this file (``$MUS_LEARNED_WEIGHTS`` names
another file). The policy is a small numpy network over the observation vector of
:mod:`mus_rl.encode`, choosing among the legal actions of :mod:`mus_rl.actions`; it plays
greedily (its most likely action), so a match replays the same.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

try:
    from mus_rl.policy import LinearPolicy, PolicyBot
except ImportError as exc:  # numpy (the SDK's rl extra) missing: say so in one line, no traceback
    sys.exit(f"learned: cannot import {exc.name or 'mus_rl'}: this bot needs the SDK's rl extra: "
             "pip install 'mus-sdk[rl]' (docs/rl.md)")
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
