"""clumsy: always asks for mus, otherwise plays at random, gives a seña now and then,
and once a match its code fails.

For the report's tests (tests/report): its matches hold discard rounds (it wants mus), señas (which only the partner
sees under partner signals) and a bot_error fault whose detail is HTML, which the report
must show as text. Deterministic: its generator is seeded by the match id and the seat.
"""

from __future__ import annotations

import random

from mus_sdk import MUS, Action, Bot, MatchInfo, Observation, Sena, serve

FAIL_AT = 5
"""The decision of each match (counted from 1, per seat) at which decide() raises."""


class ClumsyBot(Bot):
    name = "clumsy"
    version = "1.0"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.decisions = 0

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"clumsy:{match.match_id}:{match.seat}")
        self.decisions = 0

    def decide(self, obs: Observation) -> Action | tuple[Action, Sena | None]:
        self.decisions += 1
        if self.decisions == FAIL_AT:
            raise ValueError("<img src=x onerror=alert(1)> no card to play")
        action = MUS if MUS in obs.legal_actions else obs.legal_actions.sample(self.rng)
        if Sena.CORTAR_MUS in obs.legal_senas and self.rng.random() < 0.5:
            return action, Sena.CORTAR_MUS
        return action


if __name__ == "__main__":
    serve(ClumsyBot())
