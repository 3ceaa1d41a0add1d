"""trivial: the cheapest legal answer (no-mus, paso, no-quiero), for protocol benchmarks."""

from __future__ import annotations

from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve


class TrivialBot(Bot):
    """Cuts the mus, passes, declines: every hand is counted en paso."""

    name = "trivial"
    version = "1.0"

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in legal:
                return a
        return legal.fixed[0]


if __name__ == "__main__":
    serve(TrivialBot())
