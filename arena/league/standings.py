"""Standings of a league: counts, stones, a Bradley–Terry rating with a bootstrap 95% CI, a crosstable.

The rating model: a team's strength is the mean of its members' ratings (so explicit
mixed pairs are handled, and a team of two instances of one entry is just that entry),
and P(team A wins a match) = 1 / (1 + 10^((R_B - R_A) / 400)). Ratings are fit by
maximum likelihood with a weak prior (every entry also drew one virtual match against
a 0-rated opponent, which keeps an undefeated entry finite) and shown as Elo-like
numbers centred on 1500. The 95% interval is the 2.5–97.5 percentile of the ratings
refit on matches resampled with replacement (a bootstrap, seeded).
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

SCALE = 400.0 / math.log(10.0)
BOOTSTRAP = 200


@dataclass
class EntryStanding:
    """One line of the standings."""

    name: str
    matches: int = 0
    wins: int = 0
    losses: int = 0
    aborted: int = 0
    games_won: int = 0
    games_lost: int = 0
    stones_for: int = 0
    stones_against: int = 0
    hands: int = 0
    faults: int = 0
    rating: float = 1500.0
    rating_low: float = 1500.0
    rating_high: float = 1500.0

    @property
    def stones_per_hand(self) -> float:
        """Net stones per hand played: (for − against) / hands."""
        return (self.stones_for - self.stones_against) / self.hands if self.hands else 0.0


@dataclass
class Standings:
    """The whole table plus the crosstable ``cross[a][b]`` = match wins of a against b."""

    entries: list[EntryStanding]
    cross: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As plain JSON values (standings.json)."""
        rows = []
        for e in self.entries:
            row = asdict(e)
            row["stones_per_hand"] = round(e.stones_per_hand, 4)
            for k in ("rating", "rating_low", "rating_high"):
                row[k] = round(row[k], 1)
            rows.append(row)
        return {"standings": rows, "crosstable": self.cross}

    def to_csv(self) -> str:
        """One row per entry (standings.csv)."""
        buf = io.StringIO()
        cols = ["rank", "name", "rating", "rating_low", "rating_high", "matches", "wins", "losses", "aborted",
                "games_won", "games_lost", "stones_for", "stones_against", "stones_per_hand", "hands", "faults"]
        w = csv.writer(buf)
        w.writerow(cols)
        for i, e in enumerate(self.entries, start=1):
            w.writerow([i, e.name, f"{e.rating:.1f}", f"{e.rating_low:.1f}", f"{e.rating_high:.1f}", e.matches,
                        e.wins, e.losses, e.aborted, e.games_won, e.games_lost, e.stones_for, e.stones_against,
                        f"{e.stones_per_hand:.4f}", e.hands, e.faults])
        return buf.getvalue()


Match = tuple[tuple[str, ...], tuple[str, ...], float]
"""(members of team 0, members of team 1, score of team 0: 1 win, 0 loss)."""


def fit_ratings(names: Sequence[str], matches: Sequence[Match], iterations: int = 500) -> dict[str, float]:
    """Maximum-likelihood ratings (natural log-odds units), by minorise-maximise steps.

    Each step divides the gradient by a fixed upper bound of the curvature (p(1-p) <= 1/4),
    which never overshoots: the likelihood rises at every step, whatever the data.
    """
    index = {n: i for i, n in enumerate(names)}
    coefs: list[tuple[list[tuple[int, float]], float]] = []
    bound = [0.25] * len(names)  # the prior's curvature bound
    for t0, t1, s in matches:
        c: dict[int, float] = {}
        for m in t0:
            c[index[m]] = c.get(index[m], 0.0) + 1.0 / len(t0)
        for m in t1:
            c[index[m]] = c.get(index[m], 0.0) - 1.0 / len(t1)
        items = [(i, v) for i, v in c.items() if v]
        coefs.append((items, s))
        for i, v in items:
            bound[i] += 0.25 * v * v
    r = [0.0] * len(names)
    for _ in range(iterations):
        grad = [0.0] * len(names)
        for items, s in coefs:
            d = sum(r[i] * v for i, v in items)
            p = 1.0 / (1.0 + math.exp(-d))
            for i, v in items:
                grad[i] += v * (s - p)
        delta = 0.0
        for i in range(len(names)):
            # The prior: one virtual draw against a 0-rated opponent.
            g = grad[i] + 0.5 - 1.0 / (1.0 + math.exp(-r[i]))
            step = g / bound[i]
            r[i] += step
            delta = max(delta, abs(step))
        if delta < 1e-6:
            break
    mean = sum(r) / len(r) if r else 0.0
    return {n: r[i] - mean for n, i in index.items()}


def compute_standings(
    names: Sequence[str],
    members: dict[str, tuple[str, str]],
    results: Sequence[dict[str, Any]],
    seed: int = 0,
) -> Standings:
    """Standings from result records (lines of results.jsonl: ``team0``, ``team1`` and the match result)."""
    # Resample in a canonical order (by match id when present): results.jsonl lists matches
    # in the order they finished, which varies with --jobs and --resume.
    results = sorted(results, key=lambda r: (str(r.get("match_id", "")), json.dumps(r, sort_keys=True)))
    table = {n: EntryStanding(n) for n in names}
    cross: dict[str, dict[str, int]] = {a: {b: 0 for b in names if b != a} for a in names}
    rated: list[Match] = []
    base_names = sorted({m for n in names for m in members.get(n, (n, n))})
    for rec in results:
        t = (rec["team0"], rec["team1"])
        winner = rec.get("winner_team")
        games = rec.get("games_won", [0, 0])
        stones = rec.get("stones", [0, 0])
        faults = [0, 0]
        for f in rec.get("faults", []):
            faults[f["seat"] & 1] += 1
        for side in (0, 1):
            e = table[t[side]]
            e.matches += 1
            if winner is None:
                e.aborted += 1
            elif winner == side:
                e.wins += 1
                cross[t[side]][t[1 - side]] += 1
            else:
                e.losses += 1
            e.games_won += games[side]
            e.games_lost += games[1 - side]
            e.stones_for += stones[side]
            e.stones_against += stones[1 - side]
            e.hands += rec.get("hands", 0)
            e.faults += faults[side]
        if winner is not None:
            rated.append((members.get(t[0], (t[0], t[0])), members.get(t[1], (t[1], t[1])), 1.0 if winner == 0 else 0.0))
    # Entries that are pairs are rated through their members; a pair's own rating is its members' mean.
    point = fit_ratings(base_names, rated)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(BOOTSTRAP if rated else 0):
        boot = [rated[rng.randrange(len(rated))] for _ in rated]
        fit = fit_ratings(base_names, boot, iterations=200)
        for n in names:
            ms = members.get(n, (n, n))
            samples[n].append(sum(fit[m] for m in ms) / len(ms))
    for n in names:
        ms = members.get(n, (n, n))
        e = table[n]
        e.rating = 1500 + SCALE * sum(point[m] for m in ms) / len(ms)
        if samples[n]:
            s = sorted(samples[n])
            e.rating_low = 1500 + SCALE * s[int(0.025 * (len(s) - 1))]
            e.rating_high = 1500 + SCALE * s[math.ceil(0.975 * (len(s) - 1))]
        else:
            e.rating_low = e.rating_high = e.rating
    ordered = sorted(table.values(), key=lambda e: (-e.rating, -e.wins, e.name))
    return Standings(ordered, cross)

