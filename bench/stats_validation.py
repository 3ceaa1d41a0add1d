"""Can the league's statistics be trusted? Two measurements anyone can re-run.

    python bench/stats_validation.py [--deals 500] [--leagues 500] [--jobs 2] [--seed 1]

(a) **What duplicate deals buy.** For each pair of bots (A, B), ``--deals`` deals are
    played twice in this process (SDK bots through :class:`InProcessBot`, no gRPC): A at
    the even seats, then at the odd ones, the same seed (the twins of a duplicate
    league). The standard error of A's net stones per hand (game-completed stones, as
    the standings count them: a ratio, linearised) and of its match score is computed
    twice over the same matches: with the deal pair as the unit, and as if each match
    had had a deal of its own (a plain league of as many matches: the marginal variance
    of a match is the same). The ratio duplicate/plain, with a 95% interval from 400
    bootstrap resamples of the deals, is what duplicate gains (below 1) or loses.

(b) **Coverage of the standings' 95% interval.** Self-play leagues of four equal entries
    (so every entry's true rating is 1500), ``--leagues`` seeded leagues per size (2, 4,
    10, 20 matches per pairing), rated by :func:`arena.league.standings.compute_standings`.
    Matches are not played again for each league: between equal entries a plain match is
    a fair coin by symmetry, exactly, and a duplicate pair is drawn from the twins played
    in (a) for the self-play pairs (A = B: the entry labels flipped at random, which
    symmetry allows), or from a trinomial with a given probability that twins split. The
    coverage of the intervals computed with the deal pair as the unit is shown beside
    that of the same leagues rated as if matches were independent.

(c) **Coverage for entries of known, unequal strength**: ``bench/rating_coverage.py``
    (``--lopsided-leagues`` leagues per row; 0 skips it), simulated in-process from known
    true ratings (no bot plays), strongest and weakest entries included.

Prints the machine, readable tables, then as its last line a JSON object with every
figure. On a 2-core VM with the defaults: a few minutes, and as many for (c).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import rating_coverage  # noqa: E402
from _machine import machine  # noqa: E402
from mus_core import Rules  # noqa: E402
from mus_sdk import Bot, Decision, MatchInfo, Observation  # noqa: E402
from strength import load_bot_class as _load  # noqa: E402

from arena.driver.match import MatchConfig, play_match  # noqa: E402
from arena.league.standings import compute_standings, effective_stones  # noqa: E402
from arena.players.inprocess import InProcessBot  # noqa: E402
from arena.referee.player import SyncAdapter  # noqa: E402

BOTS = HERE.parent / "bots"
PAIRINGS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    # name: (A's team in seat order, B's team)
    "rulebot vs random": (("rulebot", "rulebot"), ("random", "random")),
    "rulebot vs rulebot": (("rulebot", "rulebot"), ("rulebot", "rulebot")),
    "random vs random": (("random", "random"), ("random", "random")),
    "mixed vs mixed": (("rulebot", "random"), ("rulebot", "random")),
    "rulebot vs noisy": (("rulebot", "rulebot"), ("noisy", "noisy")),
    "noisy vs noisy": (("noisy", "noisy"), ("noisy", "noisy")),
}
"""The bot pairs of (a); the self-play ones (A's team is B's) also feed (b). A ``mixed``
team is rulebot and random partners: half its choices are card-aware, half not.
``noisy`` is rulebot playing a random legal action one decision in ten
(:data:`NOISE`): card-aware like a real bot, not deterministic like rulebot."""
NOISE = 0.1


def load_bot_class(directory: Path) -> type[Bot]:
    """The SDK ``Bot`` class of a bundled Python bot (every bot of :data:`PAIRINGS` is one)."""
    cls = _load(directory)
    if cls is None:
        raise SystemExit(f"{directory}: no Python SDK bot")
    return cls
SIZES = (2, 4, 10, 20)
ENTRIES = "abcd"
SPLIT_GRID = (0.3, 0.5, 0.75, 0.9)
"""Synthetic probabilities that a duplicate pair between equals splits (0.5: independent twins;
0.3: twins that agree, as when a bot's own choices win or lose a deal whichever side it plays)."""


class NoisyBot(Bot):
    """rulebot, except that with probability :data:`NOISE` a decision is random's (its
    noise seeded per match and seat, as the random bot's choices are)."""

    name = "noisy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rule = load_bot_class(BOTS / "rulebot")()
        self.random = load_bot_class(BOTS / "random")(seed=seed)  # type: ignore[call-arg]
        self.rng = random.Random(seed)

    def on_match_start(self, match: MatchInfo) -> None:
        self.rng = random.Random(f"noise:{self.seed}:{match.match_id}:{match.seat}")
        self.rule.on_match_start(match)
        self.random.on_match_start(match)

    def decide(self, obs: Observation) -> Decision:
        return (self.random if self.rng.random() < NOISE else self.rule).decide(obs)


@dataclass(frozen=True)
class Played:
    """A match of (a), seen from A: its match score, net stones, hands, how its games ended."""

    win: float
    net: int
    hands: int
    ordago_games: int
    games: int


def play_deals(name: str, deals: Sequence[int], seed: int) -> list[tuple[Played, Played]]:
    """The twins of each deal for the pairing ``name`` (in a worker process)."""
    team_a, team_b = PAIRINGS[name]
    classes: dict[str, type[Bot]] = {n: NoisyBot if n == "noisy" else load_bot_class(BOTS / n)
                                     for n in set(team_a) | set(team_b)}
    out = []
    for d in deals:
        twins = []
        for twin in (0, 1):
            a_parity = twin  # twin 0: A at the even seats; twin 1: at the odd ones
            players = []
            for seat in range(4):
                team = team_a if seat & 1 == a_parity else team_b
                bot_name = team[(seat // 2) % 2]
                cls = classes[bot_name]
                try:
                    bot = cls(seed=seed)  # type: ignore[call-arg]
                except TypeError:
                    bot = cls()
                players.append(SyncAdapter(InProcessBot(bot)))
            deal_seed = seed * 1_000_003 + d
            result = play_match(players, MatchConfig(rules=Rules(), seed=deal_seed, match_id=f"{name}-{d}-{twin}"))
            if result.winner_team is None:
                raise SystemExit(f"{name} deal {d}: no winner ({result.reason.value})")
            rec = result.to_json()
            stones = effective_stones(rec, Rules().target_points) or (rec["stones"][0], rec["stones"][1])
            ended = [g.get("ended_by") or "" for g in rec.get("games", [])]
            twins.append(Played(
                win=1.0 if result.winner_team == a_parity else 0.0,
                net=stones[a_parity] - stones[1 - a_parity],
                hands=result.hands,
                ordago_games=sum(e.startswith("ordago") for e in ended),
                games=len(ended),
            ))
        out.append((twins[0], twins[1]))
    return out


def ratio_se(units: Sequence[tuple[float, float]]) -> float:
    """Standard error of Σy / Σh over independent units (y, h), linearised."""
    n = len(units)
    sy = sum(y for y, _ in units)
    sh = sum(h for _, h in units)
    r = sy / sh
    return math.sqrt(n / (n - 1) * sum((y - r * h) ** 2 for y, h in units)) / sh


def mean_se(values: Sequence[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values))


def se_ratios(pairs: Sequence[tuple[Played, Played]]) -> tuple[float, float]:
    """(stones per hand, match score): SE with deal pairs as the unit over SE as plain matches."""
    matches = [m for p in pairs for m in p]
    plain_st = ratio_se([(m.net, m.hands) for m in matches])
    dup_st = ratio_se([(a.net + b.net, a.hands + b.hands) for a, b in pairs])
    plain_w = mean_se([m.win for m in matches])
    dup_w = mean_se([(a.win + b.win) / 2 for a, b in pairs])
    return dup_st / plain_st if plain_st else math.nan, dup_w / plain_w if plain_w else math.nan


def interval(values: Sequence[float]) -> tuple[float, float]:
    """The 2.5% and 97.5% points of bootstrap values (NaNs dropped)."""
    v = sorted(x for x in values if not math.isnan(x))
    if not v:
        return math.nan, math.nan
    return v[int(0.025 * (len(v) - 1))], v[int(0.975 * (len(v) - 1))]


def part_a(played: dict[str, list[tuple[Played, Played]]], rng: random.Random) -> list[dict[str, Any]]:
    rows = []
    for name, pairs in played.items():
        matches = [m for p in pairs for m in p]
        st, win = se_ratios(pairs)
        boots = [se_ratios([pairs[rng.randrange(len(pairs))] for _ in pairs]) for _ in range(400)]
        st_ci = interval([b[0] for b in boots])
        win_ci = interval([b[1] for b in boots])
        hands = sum(m.hands for m in matches)
        rows.append({
            "pairing": name, "deals": len(pairs), "matches": len(matches),
            "a_win_rate": round(statistics.fmean(m.win for m in matches), 3),
            "a_stones_per_hand": round(sum(m.net for m in matches) / hands, 3),
            "hands_per_match": round(hands / len(matches), 1),
            "ordago_games": round(sum(m.ordago_games for m in matches) / max(1, sum(m.games for m in matches)), 3),
            "split_pairs": round(sum(a.win != b.win for a, b in pairs) / len(pairs), 3),
            "se_ratio_stones": round(st, 3), "se_ratio_stones_ci": [round(x, 3) for x in st_ci],
            "se_ratio_wins": round(win, 3), "se_ratio_wins_ci": [round(x, 3) for x in win_ci],
        })
    return rows


PairDraw = Callable[[random.Random], tuple[float, float]]
"""Draws one duplicate pair between equals: the first entry's scores in its two twins."""


def league_records(rng: random.Random, size: int, draw: PairDraw | None) -> list[dict[str, Any]]:
    """One self-play league's results (``draw`` None: plain, every match a fair coin)."""
    recs: list[dict[str, Any]] = []
    for pi, (x, y) in enumerate((x, y) for i, x in enumerate(ENTRIES) for y in ENTRIES[i + 1:]):
        for d in range(size // 2):
            if draw is None:
                wins = (float(rng.random() < 0.5), float(rng.random() < 0.5))
            else:
                wins = draw(rng)
            for twin, w in enumerate(wins):
                k = 2 * d + twin
                t0, t1 = (x, y) if k % 2 == 0 else (y, x)
                x_side = 0 if t0 == x else 1
                recs.append({"match_id": f"{x}--{y}--{k:03d}", "team0": t0, "team1": t1,
                             "deal": d if draw is not None else 1000 * pi + k,
                             "winner_team": x_side if w else 1 - x_side})
    return recs


def coverage(recs: list[dict[str, Any]], as_pairs: bool) -> tuple[int, float]:
    """(entries whose interval holds 1500, mean width) in one league."""
    if not as_pairs:
        recs = [{**r, "deal": None} for r in recs]
    rows = compute_standings(list(ENTRIES), {}, recs).entries
    held = sum(e.rating_low <= 1500.0 <= e.rating_high for e in rows)
    return held, statistics.fmean(e.rating_high - e.rating_low for e in rows)


def from_pool(pool: Sequence[tuple[Played, Played]]) -> PairDraw:
    def draw(rng: random.Random) -> tuple[float, float]:
        a, b = pool[rng.randrange(len(pool))]
        return (a.win, b.win) if rng.random() < 0.5 else (1.0 - a.win, 1.0 - b.win)
    return draw


def from_split(q: float) -> PairDraw:
    def draw(rng: random.Random) -> tuple[float, float]:
        if rng.random() < q:
            return (1.0, 0.0) if rng.random() < 0.5 else (0.0, 1.0)
        return (1.0, 1.0) if rng.random() < 0.5 else (0.0, 0.0)
    return draw


def part_b(played: dict[str, list[tuple[Played, Played]]], leagues: int, seed: int) -> list[dict[str, Any]]:
    designs: list[tuple[str, PairDraw | None]] = [("plain", None)]
    for name, pairs in played.items():
        if PAIRINGS[name][0] == PAIRINGS[name][1]:
            q = sum(a.win != b.win for a, b in pairs) / len(pairs)
            designs.append((f"duplicate, {name.split(' vs ')[0]} self-play twins (split {q:.2f})", from_pool(pairs)))
    designs += [(f"duplicate, synthetic twins (split {q:.2f})", from_split(q)) for q in SPLIT_GRID]
    rows = []
    for label, draw in designs:
        for size in SIZES:
            rng = random.Random(f"{seed}:{label}:{size}")
            held_pairs = held_indep = 0
            widths_pairs: list[float] = []
            widths_indep: list[float] = []
            for _ in range(leagues):
                recs = league_records(rng, size, draw)
                h, w = coverage(recs, as_pairs=True)
                held_pairs += h
                widths_pairs.append(w)
                if draw is not None:
                    h, w = coverage(recs, as_pairs=False)
                    held_indep += h
                    widths_indep.append(w)
            n = leagues * len(ENTRIES)
            row: dict[str, Any] = {"design": label, "matches_per_pairing": size, "leagues": leagues,
                                   "coverage": round(held_pairs / n, 3), "width": round(statistics.fmean(widths_pairs))}
            if draw is not None:
                row["coverage_as_independent"] = round(held_indep / n, 3)
                row["width_as_independent"] = round(statistics.fmean(widths_indep))
            rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=500, help="deals (twin pairs) per bot pairing in (a)")
    ap.add_argument("--leagues", type=int, default=500, help="self-play leagues per design and size in (b)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes playing (a)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lopsided-leagues", type=int, default=500, help="leagues per row in (c); 0: skip (c)")
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    t0 = time.perf_counter()
    chunks = [(name, list(range(i, min(i + 50, args.deals)))) for name in PAIRINGS for i in range(0, args.deals, 50)]
    played: dict[str, list[tuple[Played, Played]]] = {name: [] for name in PAIRINGS}
    with ProcessPoolExecutor(args.jobs) as ex:
        for (name, _), pairs in zip(chunks, ex.map(play_deals, *zip(*chunks, strict=True),
                                                   [args.seed] * len(chunks)), strict=True):
            played[name] += pairs
    t_play = time.perf_counter() - t0
    a_rows = part_a(played, random.Random(args.seed))
    print(f"\n(a) duplicate against plain, {args.deals} deals each (twins played in-process, {t_play:.0f} s)")
    print(f"{'pairing':<20} {'A wins':>7} {'A st/hand':>9} {'ordago':>7} {'split':>6}  "
          f"{'SE ratio stones/hand':>24}  {'SE ratio match score':>24}")
    for r in a_rows:
        print(f"{r['pairing']:<20} {r['a_win_rate']:>7.3f} {r['a_stones_per_hand']:>9.3f} {r['ordago_games']:>7.3f} "
              f"{r['split_pairs']:>6.3f}  {r['se_ratio_stones']:>6.3f} ({r['se_ratio_stones_ci'][0]:.3f}-"
              f"{r['se_ratio_stones_ci'][1]:.3f})       {r['se_ratio_wins']:>6.3f} ({r['se_ratio_wins_ci'][0]:.3f}-"
              f"{r['se_ratio_wins_ci'][1]:.3f})")
    t1 = time.perf_counter()
    b_rows = part_b(played, args.leagues, args.seed)
    print(f"\n(b) coverage of the 95% interval: {args.leagues} self-play leagues of {len(ENTRIES)} entries per row "
          f"({time.perf_counter() - t1:.0f} s)")
    print(f"{'design':<55} {'matches':>7} {'coverage':>8} {'width':>6}   {'as independent':>14} {'width':>6}")
    for r in b_rows:
        indep = (f"{r['coverage_as_independent']:>14.3f} {r['width_as_independent']:>6}"
                 if "coverage_as_independent" in r else "")
        print(f"{r['design']:<55} {r['matches_per_pairing']:>7} {r['coverage']:>8.3f} {r['width']:>6}   {indep}")
    c_rows = rating_coverage.run(args.lopsided_leagues, rating_coverage.SIZES, args.seed) if args.lopsided_leagues else []
    if c_rows:
        print(f"\n(c) coverage for entries of known strength, {args.lopsided_leagues} leagues per row")
        rating_coverage.print_table(c_rows)
    print(json.dumps({"bench": "stats_validation", "deals": args.deals, "leagues": args.leagues, "seed": args.seed,
                      "seconds": round(time.perf_counter() - t0), "duplicate_se": a_rows, "coverage": b_rows,
                      "coverage_known_strength": c_rows}))


if __name__ == "__main__":
    main()
