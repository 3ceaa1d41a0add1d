"""A bot that never cuts the mus: it always asks for mus and throws its first card.
Four of it at a table (as ``mus check`` seats them, or two such entries in a league)
would discard and reshuffle for ever; the referee must stop the match
(tests/referee/test_endless_mus.py)."""

import random

from mus_sdk import MUS, Action, Bot, Observation, serve


class AlwaysMus(Bot):
    name = "always-mus"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        if MUS in legal:
            return MUS
        if legal.discard_range is not None:
            return legal.discard_range.options()[0]
        return legal.sample(self.rng)


if __name__ == "__main__":
    serve(AlwaysMus())
