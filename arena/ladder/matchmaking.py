"""Matchmaking: the next pairings, chosen where a match tells the most about the ranking.

Each active version has a rating and a 95% interval (the league's model:
:func:`arena.league.standings.compute_standings`). For a candidate pair the score is

    ambiguity × (variance of their rating difference removed by one more unit)

in natural log-odds units: the variance of the difference ``v = se_a² + se_b²`` (each
``se`` read off its interval), the information of a unit of ``m`` matches
``m·p(1 − p)`` (``p`` the expected score: close ratings inform most), the variance it
removes ``v²·I / (1 + v·I)``, and the ambiguity ``exp(−d² / 2v)`` (``d`` the rating
difference): a pair whose order is already clear (far apart, narrow intervals) gets
almost nothing. A version with fewer than :data:`NEW_MATCHES` matches is paired first
(new versions first), against the opponents that score best for it.

A batch is chosen greedily: the best pair, then its two versions' variances are
lowered as if the unit had been played, and so on; so a batch spreads over the pairs
that need it rather than repeating one. A **unit** is one match, or with duplicate
deals the two twins of a deal (the same cards, the teams exchanging seats).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.league.standings import SCALE, Z95, Standings

NEW_MATCHES = 6
"""Matches a version plays before it is paired by score alone."""
_NEW_BONUS = 1e6
_MIN_VAR = 1e-6


@dataclass(frozen=True)
class Estimate:
    """What matchmaking knows of a version: its rating and 95% interval (Elo), its matches."""

    rating: float
    low: float
    high: float
    matches: int

    @property
    def variance(self) -> float:
        """The rating's variance in natural log-odds units, read off its interval."""
        se = (self.high - self.low) / (2 * Z95) / SCALE
        return max(se * se, _MIN_VAR)


def estimates(standings: Standings, names: Sequence[str]) -> dict[str, Estimate]:
    """The estimates of ``names`` from the standings (a name not in them: a new version at 1500)."""
    rows = {e.name: e for e in standings.entries}
    out = {}
    for n in names:
        e = rows.get(n)
        out[n] = (Estimate(e.rating, e.rating_low, e.rating_high, e.matches) if e is not None
                  else Estimate(1500.0, 1000.0, 2000.0, 0))
    return out


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def pair_score(a: Estimate, b: Estimate, var_a: float, var_b: float, per_unit: int) -> float:
    """How much a unit of ``per_unit`` matches between ``a`` and ``b`` tells about their order."""
    d = (a.rating - b.rating) / SCALE
    p = _sigmoid(d)
    info = per_unit * p * (1.0 - p)
    v = var_a + var_b
    removed = v * v * info / (1.0 + v * info)
    return math.exp(-d * d / (2.0 * v)) * removed


def plan_pairs(field: Mapping[str, Estimate], units: int, per_unit: int = 1) -> list[tuple[str, str]]:
    """The pairs of the next ``units`` units, best first (each pair in name order)."""
    names = sorted(field)
    if len(names) < 2:
        return []
    var = {n: field[n].variance for n in names}
    played = {n: field[n].matches for n in names}
    out: list[tuple[str, str]] = []
    for _ in range(units):
        best: tuple[float, str, str] | None = None
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                score = pair_score(field[a], field[b], var[a], var[b], per_unit)
                if min(played[a], played[b]) < NEW_MATCHES:
                    score += _NEW_BONUS * (NEW_MATCHES - min(played[a], played[b]))
                if best is None or score > best[0]:
                    best = (score, a, b)
        assert best is not None
        _, a, b = best
        out.append((a, b))
        p = _sigmoid((field[a].rating - field[b].rating) / SCALE)
        for n in (a, b):
            var[n] = 1.0 / (1.0 / var[n] + per_unit * p * (1.0 - p))
            played[n] += per_unit
    return out


def narrow_enough(field: Mapping[str, Estimate], width: float) -> bool:
    """Every version's 95% interval is at most ``width`` Elo wide (and it has played)."""
    return bool(field) and all(e.matches > 0 and e.high - e.low <= width for e in field.values())


def round_robin_pairs(names: Sequence[str], start: int, count: int) -> list[tuple[str, str]]:
    """``count`` pairs of a plain round robin, cycling through every pair of ``names``
    from the ``start``-th (the baseline matchmaking is measured against)."""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return [pairs[(start + k) % len(pairs)] for k in range(count)] if pairs else []
