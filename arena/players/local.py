"""Engine-level players for demos and tests."""

from __future__ import annotations

import random

from mus_core import HandResult, Observation
from mus_core.random_play import random_action

from arena.referee.player import Decision, DecisionTiming, MatchEndInfo, MatchStartInfo


class RandomPlayer:
    """Uniform random legal play, seeded (deterministic)."""

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def start_match(self, info: MatchStartInfo) -> None:
        """Nothing to prepare."""

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """A uniformly random legal action."""
        return Decision(random_action(self._rng, view.legal_actions))

    def hand_end(self, result: HandResult) -> None:
        """Nothing to learn."""

    def end_match(self, info: MatchEndInfo) -> None:
        """Nothing to clean up."""
