"""What the standings cost: ``compute_standings`` on round robins of 4 to 100 entries.

    python bench/standings.py [--sizes 4 20 40 60 100] [--matches 2] [--seed 1]

Each league is a seeded round robin of equal entries (every match a fair coin),
``--matches`` per pairing, as plain results lines. The rating interval is a profile
likelihood one (docs/league.md, "Standings"): each bound a Newton search whose every
step refits the other ratings, in pure Python, so its cost grows about as the cube of
the number of entries, times the entries. Prints the machine, a line per size, and a
JSON line with every figure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402

from arena.league.standings import compute_standings  # noqa: E402


def league(entries: int, per_pairing: int, rng: random.Random) -> tuple[list[str], list[dict[str, Any]]]:
    names = [f"e{i:03d}" for i in range(entries)]
    results: list[dict[str, Any]] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in range(per_pairing):
                t0, t1 = (a, b) if k % 2 == 0 else (b, a)
                results.append({"match_id": f"{a}--{b}--{k:03d}", "team0": t0, "team1": t1,
                                "winner_team": rng.randrange(2), "deal": len(results)})
    return names, results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[4, 20, 40, 60, 100])
    ap.add_argument("--matches", type=int, default=2, help="matches per pairing")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    rng = random.Random(args.seed)
    figures = []
    for size in args.sizes:
        names, results = league(size, args.matches, rng)
        t0 = time.perf_counter()
        compute_standings(names, {}, results)
        seconds = time.perf_counter() - t0
        print(f"{size:>4} entries, {len(results):>6} matches: {seconds:8.2f} s")
        figures.append({"entries": size, "matches": len(results), "seconds": round(seconds, 3)})
    print(json.dumps({"bench": "standings", "matches_per_pairing": args.matches, "figures": figures}))


if __name__ == "__main__":
    main()
