"""observer: a real SDK bot process that records every ``Observation`` it receives.

It serves with ``mus_sdk.serve``, so what it records is exactly what a Python bot's
``decide`` is given (converted by the SDK in the bot's own process). Each observation is
pickled (an eager ``Observation``; see ``mus_sdk.convert``) as one hex line of a file of
its own in ``$MUS_TEST_OUT`` (named by a random id: in a pid namespace every bot is pid 1),
flushed before the answer is sent.

It plays at random among the legal actions (seeded by ``$MUS_BOT_SEED``) but never an
órdago (so that matches last several hands and bets get answered by both partners),
and gives a random legal seña with a third of its answers (so that the history holds
señas, which each seat sees or not).

The notifications are recorded too, in a second file (``ends-<id>.txt``): one pickled
``(seat, HandResult)`` per hand end and ``(seat, MatchEnd)`` at the match end.
"""

from __future__ import annotations

import os
import pickle
import random
import uuid

from mus_sdk import ORDAGO, Bot, Decision, HandResult, MatchEnd, MatchInfo, Observation, serve


class Observer(Bot):
    """Random play but órdago; every observation written down."""

    name = "observer"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(int(os.environ.get("MUS_BOT_SEED", "0")))
        folder = os.environ["MUS_TEST_OUT"]
        name = uuid.uuid4().hex
        self.out = open(os.path.join(folder, f"observer-{name}.txt"), "a")
        self.ends = open(os.path.join(folder, f"ends-{name}.txt"), "a")
        self.seat = -1

    def on_match_start(self, match: MatchInfo) -> None:
        self.seat = match.seat

    def on_hand_end(self, summary: HandResult) -> None:
        self.ends.write(pickle.dumps((self.seat, summary)).hex() + "\n")
        self.ends.flush()

    def on_match_end(self, result: MatchEnd) -> None:
        self.ends.write(pickle.dumps((self.seat, result)).hex() + "\n")
        self.ends.flush()

    def decide(self, obs: Observation) -> Decision:
        self.out.write(pickle.dumps(obs).hex() + "\n")
        self.out.flush()
        options = [a for a in obs.legal_actions.concrete(max_envido=4) if a != ORDAGO]  # never the only one
        action = self.rng.choice(options)
        if obs.legal_senas and self.rng.random() < 1 / 3:
            return action, self.rng.choice(obs.legal_senas)
        return action


if __name__ == "__main__":
    serve(Observer())
