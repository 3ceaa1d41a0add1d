"""Soak: a long league of the bundled bots, watching the arena's memory and faults.

Plays a round-robin league of rulebot, random and trivial (bot processes, as in
production) until at least ``--hands`` hands are played, then prints the machine, the
arena's resident memory (RSS) at start and end, the faults, and as its last line a JSON
object. Target: memory growth under 50 MB, zero faults for these well-behaved bots.

    python bench/soak.py [--hands 10000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402

from arena.league.config import load_league  # noqa: E402
from arena.league.runner import run_league  # noqa: E402

LEAGUE = """
name = "soak"
seed = {seed}
matches_per_pairing = {matches}
duplicate = true
jobs = {jobs}
[rules]
games_to_win = 3
[time]
decision_ms = 5000
time_bank_ms = 600000
[[entry]]
name = "rulebot"
bot = "{root}/bots/rulebot"
[[entry]]
name = "random"
bot = "{root}/bots/random"
[[entry]]
name = "trivial"
bot = "{root}/bench/bots/trivial"
"""


def rss_mb() -> float:
    """Resident memory of this process, in MB."""
    with open("/proc/self/status", encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    start_rss = rss_mb()
    hands = faults = matches = rounds = 0
    samples: list[float] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        while hands < args.hands:
            cfg_path = Path(tmp) / f"soak{rounds}.toml"
            cfg_path.write_text(LEAGUE.format(seed=rounds, matches=6, jobs=args.jobs, root=HERE.parent), encoding="utf-8")
            config = load_league(cfg_path)
            run = run_league(config, Path(tmp) / f"out{rounds}", jobs=args.jobs)
            rounds += 1
            for r in run.results:
                hands += r["hands"]
                faults += len(r["faults"])
                matches += 1
            samples.append(rss_mb())
            print(f"round {rounds}: {hands} hands, {matches} matches, {faults} faults, arena RSS {samples[-1]:.1f} MB", flush=True)
    dt = time.perf_counter() - t0
    end_rss = rss_mb()
    print(json.dumps({"bench": "soak", "hands": hands, "matches": matches, "faults": faults,
                      "rss_start_mb": round(start_rss, 1), "rss_end_mb": round(end_rss, 1),
                      "rss_growth_mb": round(end_rss - start_rss, 1), "seconds": round(dt, 1),
                      "hands_per_s": round(hands / dt, 1)}))


if __name__ == "__main__":
    main()
