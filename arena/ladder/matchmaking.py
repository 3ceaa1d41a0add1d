"""Matchmaking: the next pairings, chosen where a match tells the most about the ranking.

Each active version has a rating (the league's model:
:func:`arena.league.standings.compute_standings`). For a candidate pair the score is

    ambiguity × (variance of their rating difference removed by one more unit)

in natural log-odds units: the variance ``v`` of the difference (from the covariance of
the ratings, the inverse of the information of every match played and of the model's
prior: two versions that never met, directly or through common opponents, stay in
doubt however many matches each played), the information of a unit of ``m`` matches
``m·p(1 − p)`` (``p`` the expected score: close ratings inform most), the variance it
removes ``v²·I / (1 + v·I)``, and the ambiguity ``exp(−d² / 2v)`` (``d`` the rating
difference): a pair whose order is already clear (far apart, narrow intervals) gets
almost nothing. A version with fewer than :data:`NEW_MATCHES` matches is paired first
(new versions first), against the opponents that score best for it.

A batch is chosen greedily: the best pair, then the covariance is updated as if the
unit had been played (a rank-one update), and so on; so a batch spreads over the pairs
that need it rather than repeating one. A **unit** is one match, or with duplicate
deals the two twins of a deal (the same cards, the teams exchanging seats).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.league.standings import PRIOR_MATCHES, SCALE, Standings

NEW_MATCHES = 6
"""Matches a version plays before it is paired by score alone."""
_NEW_BONUS = 1e6
_MIN_VAR = 1e-9


@dataclass(frozen=True)
class Estimate:
    """What matchmaking knows of a version: its rating and 95% interval (Elo), its matches."""

    rating: float
    low: float
    high: float
    matches: int


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


def pair_score(d: float, v: float, per_unit: int) -> float:
    """How much a unit of ``per_unit`` matches tells about the order of two versions whose
    rating difference is ``d`` with variance ``v`` (natural log-odds units)."""
    p = _sigmoid(d)
    info = per_unit * p * (1.0 - p)
    removed = v * v * info / (1.0 + v * info)
    return math.exp(-d * d / (2.0 * v)) * removed


def meetings(results: Sequence[Mapping[str, object]]) -> dict[tuple[str, str], int]:
    """How many matches each pair (in name order) has played, from result records."""
    out: dict[tuple[str, str], int] = {}
    for r in results:
        a, b = sorted((str(r["team0"]), str(r["team1"])))
        out[(a, b)] = out.get((a, b), 0) + 1
    return out


def _covariance(names: Sequence[str], field: Mapping[str, Estimate],
                met: Mapping[tuple[str, str], int]) -> list[list[float]]:
    """The ratings' covariance (normal approximation at the current ratings): the inverse
    of the information of every match played, plus the prior's (arena.league.standings)."""
    k = len(names)
    index = {n: i for i, n in enumerate(names)}
    info = [[0.0] * k for _ in range(k)]
    for i in range(k):
        info[i][i] = PRIOR_MATCHES * 0.25
    for (a, b), n in met.items():
        if a in index and b in index:
            i, j = index[a], index[b]
            p = _sigmoid((field[a].rating - field[b].rating) / SCALE)
            w = n * p * (1.0 - p)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
    return _inverse(info)


def _inverse(a: list[list[float]]) -> list[list[float]]:
    """The inverse of a positive definite matrix (Gauss–Jordan, no pivoting needed)."""
    k = len(a)
    m = [row[:] + [float(i == j) for j in range(k)] for i, row in enumerate(a)]
    for c in range(k):
        pivot = m[c][c]
        m[c] = [x / pivot for x in m[c]]
        for r in range(k):
            if r != c and m[r][c]:
                f = m[r][c]
                mc = m[c]
                m[r] = [x - f * y for x, y in zip(m[r], mc, strict=True)]
    return [row[k:] for row in m]


def plan_pairs(field: Mapping[str, Estimate], units: int, per_unit: int = 1,
               met: Mapping[tuple[str, str], int] | None = None) -> list[tuple[str, str]]:
    """The pairs of the next ``units`` units, best first (each pair in name order).
    ``met``: matches each pair has played (:func:`meetings`), which the variance of their
    difference depends on (two versions that never met, directly or through common
    opponents, are in doubt however many matches each has played)."""
    names = sorted(field)
    if len(names) < 2:
        return []
    k = len(names)
    cov = _covariance(names, field, met or {})
    played = {n: field[n].matches for n in names}
    out: list[tuple[str, str]] = []
    for _ in range(units):
        best: tuple[float, int, int] | None = None
        for i in range(k):
            for j in range(i + 1, k):
                a, b = names[i], names[j]
                v = max(cov[i][i] + cov[j][j] - 2.0 * cov[i][j], _MIN_VAR)
                score = pair_score((field[a].rating - field[b].rating) / SCALE, v, per_unit)
                if min(played[a], played[b]) < NEW_MATCHES:
                    score += _NEW_BONUS * (NEW_MATCHES - min(played[a], played[b]))
                if best is None or score > best[0]:
                    best = (score, i, j)
        assert best is not None
        _, i, j = best
        out.append((names[i], names[j]))
        p = _sigmoid((field[names[i]].rating - field[names[j]].rating) / SCALE)
        _add_unit(cov, i, j, per_unit * p * (1.0 - p))
        played[names[i]] += per_unit
        played[names[j]] += per_unit
    return out


def _add_unit(cov: list[list[float]], i: int, j: int, w: float) -> None:
    """The covariance after a unit of information ``w`` about r_i − r_j (Sherman–Morrison)."""
    cu = [row[i] - row[j] for row in cov]
    denom = 1.0 + w * (cu[i] - cu[j])
    for r, row in enumerate(cov):
        f = w * cu[r] / denom
        for c in range(len(row)):
            row[c] -= f * cu[c]


def narrow_enough(field: Mapping[str, Estimate], width: float) -> bool:
    """Every version's 95% interval is at most ``width`` Elo wide (and it has played)."""
    return bool(field) and all(e.matches > 0 and e.high - e.low <= width for e in field.values())


def round_robin_pairs(names: Sequence[str], start: int, count: int) -> list[tuple[str, str]]:
    """``count`` pairs of a plain round robin, cycling through every pair of ``names``
    from the ``start``-th (the baseline matchmaking is measured against)."""
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return [pairs[(start + k) % len(pairs)] for k in range(count)] if pairs else []
