"""Matchmaking against a plain round robin: matches until the ranking is right, 95% of the time.

    python bench/ladder.py [--entries 8] [--spacing 100 | --ratings ELO ...] [--trials 100] [--batch 8] [--seed 1]
        [--resamples 200]
    python bench/ladder.py --field rulebots [--noises 0 0.1 0.2 0.3 0.45 0.6] [--per-seating 3000]
        [--bank /tmp/bank.json] [--jobs 2] [--trials 100] [--batch 6]
    python bench/ladder.py --field bots --bots trivial rulebot passive@0.3 … [--per-seating 3000] [--bank …]

A field of entries of known strength. ``--field simulated`` (the default): Elo ``0,
spacing, 2·spacing, …``, a match between two of them a coin weighted by the rating
model's expected score (cheap: no game is played). ``--field rulebots``: rulebot with
``--noises`` (the probability of a random legal action at each decision: the more, the
weaker), real games refereed by the arena with the bots in-process, drawn from a bank of
``--per-seating`` matches per pair and seating played first (``bench/_rulebot_field.py``;
``--bank`` keeps it for the next run). ``--field bots``: the same with bots of several
kinds (``--bots trivial rulebot@0.2 learned …``, specs in bench/_rulebot_field.py), whose
order is the whole bank's fit (the round robin's own ranking with every match of the
bank). Two ways to spend matches, each in batches of ``--batch``:

* **ladder**: :func:`arena.ladder.matchmaking.plan_pairs` on the ratings after each
  batch, as ``mus ladder run`` does (the ratings of the league's model; the run takes
  them from :func:`arena.league.standings.compute_standings`, whose intervals cost most
  of the time and which matchmaking does not use: here they are the same ratings,
  computed alone by :func:`posterior_mode`);
* **round robin**: every pair in turn, cycle after cycle (seats alternating).

After each batch both rank the field by those ratings. The figure: the fewest
matches N at which the ranking is entirely right in at least 95% of the trials (and
stays so at every later checkpoint), for each way, and their ratio, each with a 90%
bootstrap interval (``--resamples`` draws of the trials with replacement): the figure
moves a lot with the trials drawn, so use 1,000 trials where a claim rests on it.
Prints the machine, a line per way and a JSON line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402

from arena.ladder.matchmaking import Estimate, plan_pairs, round_robin_pairs  # noqa: E402
from arena.league.standings import PRIOR_MATCHES, SCALE  # noqa: E402


class Tally:
    """The matches of a trial so far, counted as they come (a trial of thousands of
    matches would otherwise count them all again at each of its hundreds of rankings)."""

    def __init__(self, names: list[str]) -> None:
        self.index = {n: i for i, n in enumerate(names)}
        self.wins = [[0.0] * len(names) for _ in names]
        """``wins[a][b]``: the matches ``a`` won against ``b``."""
        self.played: Counter[str] = Counter()
        self.met: dict[tuple[str, str], int] = {}
        """As :func:`arena.ladder.matchmaking.meetings` counts them."""
        self.count = 0

    def add(self, team0: str, team1: str, winner_team: int) -> None:
        a, b = self.index[team0], self.index[team1]
        if winner_team == 0:
            self.wins[a][b] += 1
        else:
            self.wins[b][a] += 1
        self.played.update((team0, team1))
        key = (min(team0, team1), max(team0, team1))
        self.met[key] = self.met.get(key, 0) + 1
        self.count += 1


Planner = Callable[[dict[str, float], list[str], Tally, int], list[tuple[str, str]]]


def ladder_planner(mode: dict[str, float], names: list[str], tally: Tally, batch: int) -> list[tuple[str, str]]:
    """What ``mus ladder run`` plans: :func:`plan_pairs` on the ratings and the matches so
    far (its estimates' intervals are not used by it, only by ``--narrow``)."""
    field = {n: Estimate(1500 + SCALE * mode[n], 0.0, 0.0, tally.played[n]) for n in names}
    return plan_pairs(field, batch, 1, dict(tally.met))


def round_robin_planner(mode: dict[str, float], names: list[str], tally: Tally, batch: int) -> list[tuple[str, str]]:
    return round_robin_pairs(names, tally.count, batch)


def posterior_mode(names: list[str], tally: Tally, iterations: int = 50,
                   start: dict[str, float] | None = None) -> dict[str, float]:
    """The ratings of the standings' model (:mod:`arena.league.standings`: Bradley–Terry,
    each entry with PRIOR_MATCHES virtual draws against a 0-rated one), by Newton steps
    (from ``start``: the last ratings, a few steps away)."""
    k = len(names)
    index = tally.index
    wins = tally.wins
    x = [start[n] for n in names] if start else [0.0] * k
    for _ in range(iterations):
        grad = [PRIOR_MATCHES * (0.5 - sig(v)) for v in x]
        hess = [[0.0] * k for _ in range(k)]
        for i in range(k):
            hess[i][i] = PRIOR_MATCHES * sig(x[i]) * (1 - sig(x[i]))
            for j in range(k):
                n = wins[i][j] + wins[j][i]
                if i == j or not n:
                    continue
                p = sig(x[i] - x[j])
                grad[i] += wins[i][j] - n * p
                hess[i][i] += n * p * (1 - p)
                hess[i][j] -= n * p * (1 - p)
        step = solve(hess, grad)
        x = [v + s for v, s in zip(x, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return {n: x[i] for n, i in index.items()}


def sig(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v))


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination; ``a`` is positive definite)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


Outcome = Callable[[str, str, random.Random], int]
"""The winning team of a match between ``team0`` and ``team1``."""


def coin(truth: dict[str, float]) -> Outcome:
    """A simulated match: a coin weighted by the rating model's expected score."""
    def outcome(t0: str, t1: str, rng: random.Random) -> int:
        p = 1.0 / (1.0 + math.exp(-(truth[t0] - truth[t1]) / SCALE))
        return 0 if rng.random() < p else 1
    return outcome


def from_bank(games: dict[str, list[int]]) -> Outcome:
    """A real match of that seating, drawn from the bank (with replacement)."""
    def outcome(t0: str, t1: str, rng: random.Random) -> int:
        return rng.choice(games[f"{t0}|{t1}"])
    return outcome


def trial(truth: dict[str, float], planner: Planner, batch: int, checkpoints: int,
          rng: random.Random, play: Outcome | None = None) -> list[bool]:
    """One ladder (its matches played by ``play``, by default :func:`coin`): whether the
    ranking is right after each batch."""
    play = play or coin(truth)
    names = sorted(truth)
    right_order = sorted(names, key=lambda n: -truth[n])
    tally = Tally(names)
    mode = posterior_mode(names, tally)
    right = []
    met: Counter[tuple[str, str]] = Counter()
    for _ in range(checkpoints):
        for a, b in planner(mode, names, tally, batch):
            t0, t1 = (a, b) if met[(a, b)] % 2 == 0 else (b, a)
            met[(a, b)] += 1
            winner = play(t0, t1, rng)
            if winner in (0, 1):  # a match without a winner (none in the bank so far) is not rated
                tally.add(t0, t1, winner)
        mode = posterior_mode(names, tally, start=mode)
        right.append(sorted(names, key=lambda n: -mode[n]) == right_order)
    return right


def matches_to_95(rights: list[list[bool]], batch: int) -> int | None:
    """The fewest matches from which the ranking is right in ≥ 95% of the trials at every checkpoint."""
    n = len(rights[0])
    good = [sum(r[k] for r in rights) / len(rights) >= 0.95 for k in range(n)]
    for k in range(n):
        if all(good[k:]):
            return (k + 1) * batch
    return None


def bootstrap_95(rights: list[list[bool]], batch: int, resamples: int, rng: random.Random) -> list[int | None]:
    """:func:`matches_to_95` of ``resamples`` sets of trials drawn with replacement from
    ``rights``: how much the figure owes to which trials happened to be drawn. (The
    figure is where a share of trials crosses 95%, a threshold near the top of a curve
    that flattens there, so a few trials move it far: with 100 trials, two seeds gave
    the same ladder 1,688 and 1,160 matches.)"""
    out = []
    for _ in range(resamples):
        out.append(matches_to_95([rights[rng.randrange(len(rights))] for _ in rights], batch))
    return out


def _interval(values: list[float]) -> tuple[float, float]:
    """The 5th and 95th percentiles of ``values`` (a 90% interval)."""
    ordered = sorted(values)
    return ordered[int(0.05 * (len(ordered) - 1))], ordered[int(0.95 * (len(ordered) - 1))]


def _reached(values: list[int | None], limit: int) -> list[float]:
    """Match counts, a figure not reached within ``limit`` counted as just above it."""
    return [float(limit + 1 if v is None else v) for v in values]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=8)
    ap.add_argument("--spacing", type=float, default=100.0, help="Elo between neighbours")
    ap.add_argument("--ratings", type=float, nargs="+", default=None,
                    help="simulated: each entry's Elo (instead of --entries and --spacing)")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--batch", type=int, default=8, help="matches between two rankings")
    ap.add_argument("--max-matches", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--field", choices=("simulated", "rulebots", "bots"), default="simulated")
    ap.add_argument("--noises", type=float, nargs="+", default=None, help="rulebots: each entry's noise")
    ap.add_argument("--bots", nargs="+", default=[],
                    help="bots: each entry's spec (KIND or KIND@NOISE, bench/_rulebot_field.py)")
    ap.add_argument("--per-seating", type=int, default=3000, help="real bots: bank matches per pair and seating")
    ap.add_argument("--bank", type=Path, default=None, help="real bots: read the bank here if it matches, else write it")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="real bots: processes playing the bank")
    ap.add_argument("--resamples", type=int, default=200,
                    help="bootstrap resamples of the trials for each figure's 90%% interval (0: none)")
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    play: Outcome | None = None
    extra: dict[str, Any] = {}
    if args.field in ("rulebots", "bots"):
        truth, play, extra = bot_field(args)
    else:
        elos = args.ratings if args.ratings is not None else [i * args.spacing for i in range(args.entries)]
        truth = {f"e{i:02d}": elo for i, elo in enumerate(sorted(elos))}
        extra = {"ratings": sorted(elos)}
    checkpoints = args.max_matches // args.batch
    figures: dict[str, Any] = {}
    boots: dict[str, list[int | None]] = {}
    for way, planner in (("ladder", ladder_planner), ("round_robin", round_robin_planner)):
        rng = random.Random(args.seed)
        rights = [trial(truth, planner, args.batch, checkpoints, rng, play) for _ in range(args.trials)]
        n95 = matches_to_95(rights, args.batch)
        final = sum(r[-1] for r in rights) / args.trials
        figures[way] = {"matches_to_95": n95, "right_at_end": final}
        spread = ""
        if args.resamples:
            boots[way] = bootstrap_95(rights, args.batch, args.resamples, random.Random(f"{args.seed}:{way}"))
            lo, hi = _interval(_reached(boots[way], args.max_matches))
            low, high = int(lo), int(hi)
            figures[way]["interval_90"] = [low, high]
            spread = f", 90% bootstrap interval {low}–{high if high <= args.max_matches else f'> {args.max_matches}'}"
        print(f"{way:>12}: ranking right in 95% of {args.trials} trials from "
              f"{n95 if n95 is not None else f'> {args.max_matches}'} matches{spread} "
              f"(right at {args.max_matches}: {final:.0%})")
    lad, rr = figures["ladder"]["matches_to_95"], figures["round_robin"]["matches_to_95"]
    ratio = rr / lad if lad and rr else None
    ratio_interval = None
    if args.resamples and ratio:
        # Each resample pairs a ladder figure with a round-robin one drawn independently.
        ratios = [r / x for x, r in zip(_reached(boots["ladder"], args.max_matches),
                                        _reached(boots["round_robin"], args.max_matches), strict=True)]
        ratio_interval = [round(v, 2) for v in _interval(ratios)]
    print((f"round robin / ladder: {ratio:.2f}x" + (f" (90% bootstrap interval {ratio_interval[0]:.2f}–"
                                                    f"{ratio_interval[1]:.2f}x)" if ratio_interval else ""))
          if ratio else "ratio: not reached within --max-matches")
    print(json.dumps({"bench": "ladder", "field": args.field, "entries": len(truth), "spacing": args.spacing,
                      "trials": args.trials, "batch": args.batch, "seed": args.seed, **extra, "figures": figures,
                      "ratio": ratio, "ratio_interval_90": ratio_interval}))


def bank_check(order: list[str], tally: Tally, fit: dict[str, float]) -> dict[str, float]:
    """How far the bank's pairs are from the model, and how well the bank knows them.

    ``pair_sd_elo``: the typical standard error of a pair's head-to-head rating difference
    in the bank (its matches, both seatings). A trial draws from the bank as if it were
    the world, so each pair's head-to-head in that world is off the whole bank's fit by
    about this much, by the luck of the bank alone: a design that leans on few pairs
    (matchmaking) inherits those errors, one that spreads over every pair (a round robin)
    averages them out. The bank must know its pairs well below the gaps between
    neighbours, or the bench measures the bank. ``chi2_per_pair``: the squared
    deviations of the pairs from the fit, in standard errors, per pair (about 1 where the
    rating model holds); ``tau_elo``: the spread of the pairs' deviations beyond the
    bank's luck (0 where the model holds: one number per entry describes the field)."""
    dev2 = var = chi2 = 0.0
    pairs = 0
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ia, ib = tally.index[a], tally.index[b]
            won, n = tally.wins[ia][ib], tally.wins[ia][ib] + tally.wins[ib][ia]
            if not n:
                continue
            p = min(max(won / n, 0.5 / n), 1 - 0.5 / n)
            v = 1.0 / (n * p * (1 - p))
            d = math.log(p / (1 - p)) - (fit[a] - fit[b])
            dev2, var, chi2, pairs = dev2 + d * d, var + v, chi2 + d * d / v, pairs + 1
    return {"pair_sd_elo": round(SCALE * math.sqrt(var / pairs), 1), "chi2_per_pair": round(chi2 / pairs, 2),
            "tau_elo": round(SCALE * math.sqrt(max(dev2 - var, 0.0) / pairs), 1)}


def bot_field(args: argparse.Namespace) -> tuple[dict[str, float], Outcome, dict[str, Any]]:
    """A field of real bots: its known order, its bank's matches, and what to report of
    the bank (its neighbours' win rates, as Elo). ``rulebots``: rulebot with ``--noises``,
    less noise ranking first. ``bots``: the entries ``--bots``, in the order of the whole
    bank's fit (every pair's matches, both seatings: the round robin's own ranking, as
    it would be with unlimited matches)."""
    import _rulebot_field as field

    if args.field == "rulebots":
        entries = tuple(field.name(n) for n in sorted(args.noises if args.noises is not None else field.NOISES))
    else:
        entries = tuple(dict.fromkeys(args.bots))
        if len(entries) < 2:
            raise SystemExit("--field bots needs at least two entries in --bots")
    rules = {"target_points": 30, "games_to_win": 1}
    started = time.perf_counter()
    bank = field.load_or_play(args.bank, entries, args.per_seating, args.seed, args.jobs, rules)
    print(f"bank: {args.per_seating} matches per pair and seating, {len(entries)} entries, rules {rules} "
          f"({time.perf_counter() - started:.0f} s)")
    extra: dict[str, Any] = {"entries": list(entries), "per_seating": args.per_seating}
    tally = Tally(sorted(entries))
    for key, winners in bank["games"].items():
        t0, t1 = key.split("|")
        for w in winners:
            if w in (0, 1):
                tally.add(t0, t1, w)
    fit = posterior_mode(sorted(entries), tally)
    if args.field == "rulebots":
        order = list(entries)
        truth = {e: -float(i) for i, e in enumerate(order)}  # only the order counts: less noise ranks first
        extra["noises"] = [field.parse(e)[1] for e in entries]
    else:
        order = sorted(entries, key=lambda e: -fit[e])
        truth = {e: SCALE * (fit[e] - fit[order[-1]]) for e in entries}
    extra["fit_elo"] = {e: round(SCALE * (fit[e] - fit[order[-1]])) for e in order}
    print("  the bank's fit (Elo): " + ", ".join(f"{e} {v}" for e, v in extra["fit_elo"].items()))
    rates = field.win_rates(bank["games"], order)
    neighbours = {}
    for key in itertools.pairwise(order):
        p = min(max(rates[key], 1e-3), 1 - 1e-3)
        elo = round(SCALE * math.log(p / (1 - p)))
        neighbours[f"{key[0]}>{key[1]}"] = {"wins": round(rates[key], 3), "elo": elo}
        print(f"  {key[0]} beats {key[1]} in {rates[key]:.1%} of the bank's matches ({elo:+d} Elo)")
    extra["neighbours"] = neighbours
    extra["bank_check"] = bank_check(order, tally, fit)
    print("  " + json.dumps(extra["bank_check"]))
    closest = min(SCALE * (fit[a] - fit[b]) for a, b in itertools.pairwise(order))
    if 4 * extra["bank_check"]["pair_sd_elo"] > closest:
        print(f"  warning: the bank knows each pair to ±{extra['bank_check']['pair_sd_elo']:.0f} Elo, and its closest "
              f"neighbours are {closest:.0f} apart: the figures measure the bank's luck (raise --per-seating)")
    return truth, from_bank(bank["games"]), extra


if __name__ == "__main__":
    main()
