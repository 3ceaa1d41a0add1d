"""Environment cost in instructions, not seconds: the same figures on a busy machine.

    python bench/rl_instructions.py [--steps 20000] [--warmup 5000]

``bench/rl.py`` times loops, and on a shared 2-core machine its ratio moves by a third
from run to run. This runs each loop under ``valgrind --tool=callgrind`` (instructions
executed are the same whatever else the machine does), once for ``--warmup`` steps and
once for ``--warmup`` + ``--steps`` (so that neither the interpreter's start nor the
caches filled in the first steps count: the hand features of each new rank pattern, the
masks, the engine's shared tuples), with ``PYTHONHASHSEED=0``, and prints the
instructions of one step of each loop and their ratios to the engine's:

- ``engine``: ``MusState`` random play, ``legal_actions()`` and ``apply`` (bench/engine.py's loop);
- ``mask``: ``MusEnv`` stepping with ``env.legal_mask(agent)`` (the wrapper alone);
- ``last``: ``MusEnv`` stepping with ``env.last()`` (the observation vector too).

Two runs of the same loop differ by about 1% (some 12 million instructions, most of
them in the interpreter's start): over 20,000 steps that is under 1,000 a step. Needs
valgrind (Debian's package); takes about ten minutes. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

LOOP = r"""
import random, sys
mode, n = sys.argv[1], int(sys.argv[2])
from mus_core.rules import Rules
from mus_core.state import MusState
from mus_core.random_play import random_action
from mus_rl.pettingzoo_env import MusEnv
rng, steps, m = random.Random(1), 0, 0
if mode == "engine":
    while steps < n:
        st = MusState.new(Rules(), seed=m); m += 1
        while not st.is_terminal and steps < n:
            st.apply(random_action(rng, st.legal_actions())); steps += 1
else:
    env = MusEnv(Rules(), episode="match")
    while steps < n:
        env.reset(seed=m); m += 1
        while not env.terminations[env.agent_selection] and steps < n:
            agent = env.agent_selection
            mask = env.last()[0]["action_mask"] if mode == "last" else env.legal_mask(agent)
            legal = mask.nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))])); steps += 1
"""


def instructions(mode: str, steps: int) -> int:
    """Instructions callgrind counts for the loop ``mode`` run for ``steps`` steps."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-c", LOOP, mode, str(steps)],
                          capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count from callgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=5000)
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from _machine import machine

    print("machine:", json.dumps(machine()))
    per_step = {}
    for mode in ("engine", "mask", "last"):
        total = instructions(mode, args.warmup + args.steps) - instructions(mode, args.warmup)
        per_step[mode] = total / args.steps
        print(f"{mode:>6}: {per_step[mode]:,.0f} instructions a step")
    ratios = {mode: round(per_step["engine"] / per_step[mode], 3) for mode in ("mask", "last")}
    print(f"engine / env: {ratios['last']} with last(), {ratios['mask']} with the mask alone")
    print(json.dumps({"bench": "rl_instructions", "steps": args.steps, "warmup": args.warmup,
                      "per_step": {k: round(v) for k, v in per_step.items()}, "ratio": ratios["last"],
                      "ratio_mask_only": ratios["mask"]}))


if __name__ == "__main__":
    main()
