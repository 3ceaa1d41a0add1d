"""A bot whose bug hides behind órdagos: in its first two matches it bets the whole game
at the first chance and accepts every órdago, so those matches end in their first lance;
from its third match on it plays the lances out, and in chica it answers ``quiero``
with no bet to accept (illegal). One short match cannot find the bug; ``mus check``
must (tests/cli/test_check_steps.py)."""

import random

from mus_sdk import NO_MUS, ORDAGO, PASO, QUIERO, Action, Bot, Lance, MatchInfo, Observation, serve


class GrandeOnly(Bot):
    name = "grande-only"

    def __init__(self) -> None:
        self.matches = 0
        self.rng = random.Random(0)

    def on_match_start(self, match: MatchInfo) -> None:
        self.matches += 1

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        if NO_MUS in legal:
            return NO_MUS
        if self.matches <= 2:
            for action in (ORDAGO, QUIERO):
                if action in legal:
                    return action
        if obs.lance is Lance.CHICA:
            return QUIERO  # the bug: illegal unless a bet is live
        return PASO if PASO in legal else legal.sample(self.rng)


if __name__ == "__main__":
    serve(GrandeOnly())
