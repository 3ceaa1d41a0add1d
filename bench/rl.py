"""Environment throughput: steps per second of mus_rl's environments against the engine's
own actions per second, in the same run, same rules, uniform random legal play.

    python bench/rl.py [--seconds 3] [--repeat 3] [--players 4]

Three loops, each for ``--seconds`` of the process's CPU time in every one of ``--repeat``
runs, taken in turns of ``--slice`` seconds (engine, then each environment, then again) so
that whatever else the machine does weighs on the three alike:

- ``engine``: ``MusState`` with ``legal_actions()`` and ``apply(random_action(...))``
  (bench/engine.py's loop: the game alone);
- ``pettingzoo``: ``MusEnv`` (whole matches) with ``env.last()`` (the observation
  vector and the action mask of the agent to act) and ``env.step(index)``, the index
  drawn uniformly from the mask: what an RL loop pays per step;
- ``pettingzoo_no_obs``: the same without ``last()``, the mask alone (what a loop that
  builds its own features from ``info_state`` pays).

Each run gives its ratios to the engine; the last line is JSON with the best rates and
the median of the runs' ratios (goal: >= 0.5;
on a busy machine a ratio of one run is worth more than a ratio of two best rates,
which may come from different moments).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engine as engine_bench
from _machine import machine
from mus_core.rules import Rules
from mus_rl.pettingzoo_env import MusEnv

# CPU time of this process: on a machine busy with other jobs, wall time charges their
# share to whichever loop was running, and the ratio of two loops measured one after the
# other swung by 2x from run to run.
CLOCK = time.process_time


class EngineLoop:
    """bench/engine.py's random play, run in turns: (actions, CPU seconds) per turn."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules, self.seed, self.turn = rules, seed, 0

    def run(self, seconds: float) -> tuple[int, float]:
        self.turn += 1  # each turn plays its own matches: the seeds of one run never repeat
        _, actions, _, elapsed = engine_bench.run(seconds, self.rules, self.seed + 10_000 * self.turn, CLOCK)
        return actions, elapsed


class EnvLoop:
    """``MusEnv`` stepping with ``last()`` or with the mask alone, run in turns; the
    environment (and its caches) lives from one turn to the next, as in training."""

    def __init__(self, rules: Rules, seed: int, observe: bool) -> None:
        self.rng = random.Random(seed)
        self.env = MusEnv(rules, episode="match")
        self.seed, self.matches, self.observe = seed, 0, observe

    def run(self, seconds: float) -> tuple[int, float]:
        env, rng, observe = self.env, self.rng, self.observe
        steps = 0
        start = CLOCK()
        while CLOCK() - start < seconds:
            env.reset(seed=self.seed + self.matches)
            self.matches += 1
            while not env.terminations[env.agent_selection]:
                agent = env.agent_selection
                mask = env.last()[0]["action_mask"] if observe else env.legal_mask(agent)
                legal = mask.nonzero()[0]  # flatnonzero without its Python wrapper
                env.step(int(legal[int(rng.random() * len(legal))]))
                steps += 1
        return steps, CLOCK() - start


def rates(seconds: float, slice_seconds: float, rules: Rules, seed: int) -> dict[str, float]:
    """Steps per CPU second of the three loops, taken in turns of ``slice_seconds``."""
    loops = {"engine": EngineLoop(rules, seed), "pettingzoo": EnvLoop(rules, seed, True),
             "pettingzoo_no_obs": EnvLoop(rules, seed, False)}
    done = {name: [0, 0.0] for name in loops}
    while min(t for _, t in done.values()) < seconds:
        for name, loop in loops.items():
            steps, elapsed = loop.run(slice_seconds)
            done[name][0] += steps
            done[name][1] += elapsed
    return {name: steps / elapsed for name, (steps, elapsed) in done.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--players", type=int, default=4, choices=(2, 4, 6))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slice", type=float, default=0.25, help="seconds of each turn of a loop")
    args = ap.parse_args()
    rules = Rules(players=args.players)
    print("machine:", json.dumps(machine()))
    best = {"engine": 0.0, "pettingzoo": 0.0, "pettingzoo_no_obs": 0.0}
    ratios: list[tuple[float, float]] = []
    for i in range(args.repeat):
        seed = args.seed + 1_000_000 * i
        # Interleaved, so a busy spell of the machine hits all three alike.
        got = rates(args.seconds, args.slice, rules, seed)
        ratios.append((got["pettingzoo"] / got["engine"], got["pettingzoo_no_obs"] / got["engine"]))
        print(f"run {i}: " + ", ".join(f"{k} {v:,.0f}/s" for k, v in got.items())
              + f"; ratios {ratios[-1][0]:.2f}, {ratios[-1][1]:.2f} (mask only)")
        best = {k: max(best[k], got[k]) for k in best}
    out = {"bench": "rl", "players": args.players, **{f"{k}_per_s": round(v) for k, v in best.items()},
           "ratio": round(statistics.median(r[0] for r in ratios), 3),
           "ratio_no_obs": round(statistics.median(r[1] for r in ratios), 3)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
