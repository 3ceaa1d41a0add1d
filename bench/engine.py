"""Engine throughput: complete matches with uniform random legal play, one process, one core.

Prints the machine, then as its last line a JSON object with ``hands_per_s`` and
``actions_per_s`` (best of ``--repeat`` runs, each of ``--seconds``). Also measures the
bare cost of the random player alone (choosing from the same legal lists without the
engine), so the engine's own share can be read off in the same run.

    python bench/engine.py [--seconds 3] [--repeat 3] [--players 4]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _machine import machine
from mus_core import Rules
from mus_core.random_play import random_action
from mus_core.state import MusState


def run(seconds: float, rules: Rules, seed: int, clock: Callable[[], float] = time.perf_counter) -> tuple[int, int, int, float]:
    """Random matches for ``seconds`` of ``clock`` (wall time by default; bench/rl.py
    passes the process's CPU time): (hands, actions, matches, elapsed)."""
    rng = random.Random(seed)
    hands = actions = matches = 0
    start = clock()
    deadline = start + seconds
    m = 0
    while clock() < deadline:
        state = MusState.new(rules, seed=seed + m)
        m += 1
        apply = state.apply
        legal = state.legal_actions
        while not state.is_terminal:
            apply(random_action(rng, legal()))
            actions += 1
        hands += len(state.hand_results)
        matches += 1
    return hands, actions, matches, clock() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--players", type=int, default=4, choices=(2, 4, 6))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = Rules(players=args.players)
    print("machine:", json.dumps(machine()))
    best = None
    for i in range(args.repeat):
        hands, actions, matches, dt = run(args.seconds, rules, args.seed + 1_000_000 * i)
        rate = (hands / dt, actions / dt, matches / dt, actions / max(hands, 1))
        print(
            f"run {i}: {rate[0]:,.0f} hands/s, {rate[1]:,.0f} actions/s, {rate[2]:,.0f} matches/s, "
            f"{rate[3]:.1f} actions/hand"
        )
        if best is None or rate[0] > best[0]:
            best = rate
    assert best is not None
    print(
        json.dumps(
            {
                "bench": "engine",
                "players": args.players,
                "hands_per_s": round(best[0]),
                "actions_per_s": round(best[1]),
                "matches_per_s": round(best[2], 1),
                "actions_per_hand": round(best[3], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
