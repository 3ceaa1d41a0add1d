"""Coverage of the standings' 95% intervals for entries of known, unequal strength.

    python bench/rating_coverage.py [--leagues 1000] [--sizes 2 4 10 20] [--seed 1]

Part (c) of ``bench/stats_validation.py``, on its own because it needs no bot: each
league is simulated in-process from **known true ratings**, so thousands of leagues cost
seconds, and rated by :func:`arena.league.standings.compute_standings` (the product's
own path: records, deal pairs, dispersion, intervals). For every entry it counts the
leagues whose interval holds that entry's true rating (true ratings are centred on 1500,
as the standings are), and the leagues where all of them hold together.

Designs:

- ``plain``: every match an independent draw with P(A wins) = 1 / (1 + 10^((R_B − R_A)/400));
- ``duplicate, luck``: the twins of a deal share the cards with the teams exchanged: each
  twin is won when a normal "how the cards fell" variable is below the quantile that gives
  that probability, the two variables correlated by −0.71 (equals split 3 pairs in 4, as
  rulebot against noisy rulebot does; a lopsided pairing can split little, whatever the
  cards: the weaker side wins at most a twin);
- ``duplicate, agree``: correlation +0.45 (equals split 1 pair in 3, as when a bot's own
  choices decide a deal whichever side it plays).

The marginal probability of every match is exactly the Bradley–Terry one, so the true
ratings are the model's. Prints a table and, as its last line, a JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.league.standings import compute_standings  # noqa: E402

SCENARIOS: dict[str, tuple[float, ...]] = {
    "equal": (0.0, 0.0, 0.0, 0.0),
    "spread": (330.0, 200.0, -170.0, -360.0),
}
"""True ratings (Elo, centred) of four entries: equals, and a league like rulebot, two
noisy rulebots and random (the strongest beats the weakest 97% of the time)."""
DESIGNS: dict[str, float | None] = {"plain": None, "duplicate, luck": -0.71, "duplicate, agree": 0.45}
"""Correlation of the twins' latent "cards" variables (None: plain league, no twins)."""
SIZES = (2, 4, 10, 20)


def _quantile(p: float) -> float:
    """The standard normal's p-quantile (statistics.NormalDist, clamped away from 0 and 1)."""
    return statistics.NormalDist().inv_cdf(min(max(p, 1e-12), 1.0 - 1e-12))


def league(rng: random.Random, true: Sequence[float], size: int, rho: float | None) -> list[dict[str, Any]]:
    """One round robin's result records, ``size`` matches per pairing (pairs of twins when
    ``rho`` is not None, each deal its own ``deal``; otherwise every match its own)."""
    names = [chr(ord("a") + i) for i in range(len(true))]
    recs: list[dict[str, Any]] = []
    for i, x in enumerate(names):
        for j in range(i + 1, len(names)):
            y = names[j]
            p = 1.0 / (1.0 + 10.0 ** ((true[j] - true[i]) / 400.0))
            q = _quantile(p)
            for d in range(size // 2 if rho is not None else size):
                if rho is None:
                    wins = [rng.random() < p]
                else:
                    z1 = rng.gauss(0.0, 1.0)
                    z2 = rho * z1 + math.sqrt(1.0 - rho * rho) * rng.gauss(0.0, 1.0)
                    wins = [z1 < q, z2 < q]
                for twin, won in enumerate(wins):
                    k = 2 * d + twin if rho is not None else d
                    t0, t1 = (x, y) if k % 2 == 0 else (y, x)
                    x_side = 0 if t0 == x else 1
                    recs.append({"match_id": f"{x}--{y}--{k:03d}", "team0": t0, "team1": t1,
                                 "deal": d if rho is not None else 1000 * (i * 10 + j) + k,
                                 "winner_team": x_side if won else 1 - x_side})
    return recs


def cell(true: Sequence[float], size: int, rho: float | None, leagues: int, seed: str) -> dict[str, Any]:
    """Coverage per entry, of all entries at once, mean width and mean rating error per entry."""
    rng = random.Random(seed)
    names = [chr(ord("a") + i) for i in range(len(true))]
    held = [0] * len(true)
    together = 0
    widths = [0.0] * len(true)
    errors = [0.0] * len(true)
    for _ in range(leagues):
        rows = {e.name: e for e in compute_standings(names, {}, league(rng, true, size, rho)).entries}
        ok = True
        for i, n in enumerate(names):
            e, t = rows[n], 1500.0 + true[i]
            inside = e.rating_low <= t <= e.rating_high
            held[i] += inside
            ok &= inside
            widths[i] += e.rating_high - e.rating_low
            errors[i] += e.rating - t
        together += ok
    return {"coverage": [round(h / leagues, 3) for h in held], "all": round(together / leagues, 3),
            "width": [round(w / leagues) for w in widths], "error": [round(x / leagues) for x in errors]}


def run(leagues: int, sizes: Sequence[int], seed: int) -> list[dict[str, Any]]:
    """Every scenario × design × size."""
    rows = []
    for scenario, true in SCENARIOS.items():
        for design, rho in DESIGNS.items():
            for size in sizes:
                out = cell(true, size, rho, leagues, f"{seed}:{scenario}:{design}:{size}")
                rows.append({"scenario": scenario, "design": design, "matches_per_pairing": size,
                             "leagues": leagues, **out})
    return rows


def print_table(rows: Sequence[dict[str, Any]]) -> None:
    """The rows of :func:`run` as a readable table (entries strongest first)."""
    print(f"{'scenario':<8} {'design':<17} {'m/p':>3}  {'coverage per entry (strongest first)':<36} {'all':>5}  "
          f"{'mean error (Elo)':<22} width")
    for r in rows:
        order = sorted(range(len(r["coverage"])), key=lambda i: -SCENARIOS[r["scenario"]][i])
        cov = " ".join(f"{r['coverage'][i]:.3f}" for i in order)
        err = " ".join(f"{r['error'][i]:+4d}" for i in order)
        wid = " ".join(f"{r['width'][i]:d}" for i in order)
        print(f"{r['scenario']:<8} {r['design']:<17} {r['matches_per_pairing']:>3}  {cov:<36} {r['all']:>5.3f}  "
              f"{err:<22} {wid}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--leagues", type=int, default=1000)
    ap.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = run(args.leagues, args.sizes, args.seed)
    print_table(rows)
    print(json.dumps({"bench": "rating_coverage", "leagues": args.leagues, "seed": args.seed,
                      "seconds": round(time.perf_counter() - t0), "rows": rows}))


if __name__ == "__main__":
    main()
