"""stateful: plays legal random actions, but seeds its generator with how many matches its
process has played (a bug a league's process reuse brings out): ``mus check`` step 9
must warn that it plays a match differently after other matches."""

import random

from mus_sdk import Action, Bot, MatchInfo, Observation, serve


class Stateful(Bot):
    name = "stateful"

    def __init__(self) -> None:
        self.matches = 0
        self.rng = random.Random(0)

    def on_match_start(self, match: MatchInfo) -> None:
        self.matches += 1  # carried from one match to the next
        self.rng = random.Random(f"{match.match_id}:{match.seat}:{self.matches}")

    def decide(self, obs: Observation) -> Action:
        return obs.legal_actions.sample(self.rng)


if __name__ == "__main__":
    serve(Stateful())
