"""Matchmaking against a plain round robin: matches until the ranking is right, 95% of the time.

    python bench/ladder.py [--entries 8] [--spacing 100] [--trials 100] [--batch 8] [--seed 1]

A field of simulated entries of known strength (Elo ``0, spacing, 2·spacing, …``): a
match between two of them is a coin weighted by the rating model's expected score
(cheap: no game is played). Two ways to spend matches, each in batches of ``--batch``:

* **ladder**: :func:`arena.ladder.matchmaking.plan_pairs` on the standings after each
  batch (the league's rating model, :func:`arena.league.standings.compute_standings`,
  as ``mus ladder run`` does);
* **round robin**: every pair in turn, cycle after cycle (seats alternating).

After each batch both rank the field by the same standings. The figure: the fewest
matches N at which the ranking is entirely right in at least 95% of the trials (and
stays so at every later checkpoint), for each way, and their ratio. Prints the machine,
a line per way and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402

from arena.ladder.matchmaking import estimates, plan_pairs, round_robin_pairs  # noqa: E402
from arena.league.standings import SCALE, Standings, compute_standings  # noqa: E402

Planner = Callable[[Standings, list[str], int, int], list[tuple[str, str]]]


def ladder_planner(standings: Standings, names: list[str], played: int, batch: int) -> list[tuple[str, str]]:
    return plan_pairs(estimates(standings, names), batch)


def round_robin_planner(standings: Standings, names: list[str], played: int, batch: int) -> list[tuple[str, str]]:
    return round_robin_pairs(names, played, batch)


def trial(truth: dict[str, float], planner: Planner, batch: int, checkpoints: int,
          rng: random.Random) -> list[bool]:
    """One simulated ladder: whether the ranking is right after each batch."""
    names = sorted(truth)
    right_order = sorted(names, key=lambda n: -truth[n])
    results: list[dict[str, Any]] = []
    standings = compute_standings(names, {}, results)
    right = []
    for _ in range(checkpoints):
        for a, b in planner(standings, names, len(results), batch):
            pair_played = sum(1 for r in results if {r["team0"], r["team1"]} == {a, b})
            t0, t1 = (a, b) if pair_played % 2 == 0 else (b, a)
            p = 1.0 / (1.0 + math.exp(-(truth[t0] - truth[t1]) / SCALE))
            results.append({"match_id": f"m{len(results):06d}", "team0": t0, "team1": t1,
                            "winner_team": 0 if rng.random() < p else 1, "deal": len(results)})
        standings = compute_standings(names, {}, results)
        right.append([e.name for e in standings.entries] == right_order)
    return right


def matches_to_95(rights: list[list[bool]], batch: int) -> int | None:
    """The fewest matches from which the ranking is right in ≥ 95% of the trials at every checkpoint."""
    n = len(rights[0])
    good = [sum(r[k] for r in rights) / len(rights) >= 0.95 for k in range(n)]
    for k in range(n):
        if all(good[k:]):
            return (k + 1) * batch
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=8)
    ap.add_argument("--spacing", type=float, default=100.0, help="Elo between neighbours")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--batch", type=int, default=8, help="matches between two rankings")
    ap.add_argument("--max-matches", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    truth = {f"e{i:02d}": i * args.spacing for i in range(args.entries)}
    checkpoints = args.max_matches // args.batch
    figures: dict[str, Any] = {}
    for way, planner in (("ladder", ladder_planner), ("round_robin", round_robin_planner)):
        rng = random.Random(args.seed)
        rights = [trial(truth, planner, args.batch, checkpoints, rng) for _ in range(args.trials)]
        n95 = matches_to_95(rights, args.batch)
        final = sum(r[-1] for r in rights) / args.trials
        figures[way] = {"matches_to_95": n95, "right_at_end": final}
        print(f"{way:>12}: ranking right in 95% of {args.trials} trials from "
              f"{n95 if n95 is not None else f'> {args.max_matches}'} matches (right at {args.max_matches}: {final:.0%})")
    lad, rr = figures["ladder"]["matches_to_95"], figures["round_robin"]["matches_to_95"]
    ratio = rr / lad if lad and rr else None
    print(f"round robin / ladder: {ratio:.2f}x" if ratio else "ratio: not reached within --max-matches")
    print(json.dumps({"bench": "ladder", "entries": args.entries, "spacing": args.spacing, "trials": args.trials,
                      "batch": args.batch, "seed": args.seed, "figures": figures, "ratio": ratio}))


if __name__ == "__main__":
    main()
