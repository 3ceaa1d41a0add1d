"""The forward model's speed: Observation.to_state calls and playouts per second, one core.

    python bench/forward_model.py [--matches 40] [--seed 1]

Observations are those a bot receives (``observation_for``) at every tenth decision of
random matches; each is sampled 10 times with ``to_state``, and states are played to
the end of the hand with uniform random play and with bots/search's rollout policy.
Prints the machine, then a JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "bots" / "search"))

from _machine import machine  # noqa: E402
from bot import Rollout  # type: ignore[import-not-found]  # noqa: E402
from mus_core import Rules  # noqa: E402
from mus_core.random_play import random_action  # noqa: E402
from mus_core.state import MusState  # noqa: E402
from mus_sdk.forward import StateSampler, play_out_hand  # noqa: E402

from arena.wire.convert import observation_for  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    rng = random.Random(args.seed)
    observations = []
    for m in range(args.matches):
        state = MusState.new(Rules(), seed=args.seed * 1000 + m)
        k = 0
        while not state.is_terminal:
            if k % 10 == 0:
                observations.append(observation_for(state))
            state.apply(random_action(rng, state.legal_actions()))
            k += 1
    t0 = time.perf_counter()
    states = [obs.to_state(rng) for obs in observations for _ in range(10)]
    sample_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    samplers = [StateSampler(obs) for obs in observations]
    for sampler in samplers:
        for _ in range(10):
            sampler.sample(rng)
    sampler_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for s in states:
        play_out_hand(s.clone(), rng)
    random_s = time.perf_counter() - t0
    policy = Rollout(8)
    t0 = time.perf_counter()
    for s in states:
        play_out_hand(s.clone(), rng, policy)
    policy_s = time.perf_counter() - t0
    n = len(states)
    print(json.dumps({
        "bench": "forward_model", "observations": len(observations), "samples": n,
        "to_state_per_s": round(n / sample_s), "state_sampler_per_s": round(n / sampler_s),
        "random_playouts_per_s": round(n / random_s), "rollout_policy_playouts_per_s": round(n / policy_s),
    }))


if __name__ == "__main__":
    main()
