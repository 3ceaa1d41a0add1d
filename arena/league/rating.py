"""The rating model of the standings: Bradley–Terry on the Elo scale, a prior, profile
likelihood intervals, and the dispersion of duplicate deal pairs, per pairing.

Every entry is one player and P(A beats B in a match) = 1 / (1 + e^−(r_A − r_B)) (natural
log-odds units here; the standings show them on the Elo scale). Ratings are the maximum
of the likelihood times a prior: each entry also played :data:`PRIOR_MATCHES` virtual
matches against a 0-rated opponent, winning half, which keeps a perfect score finite.

The 95% interval of a rating is a **profile likelihood** interval (the centred ratings
at which the best log posterior with that rating held fixed lies z²/2 below the top):
the bound toward the centre under the rating's prior, the bound away from it under the
much weaker :data:`INTERVAL_PRIOR`. The prior pulls ratings toward the centre, the more
so the fewer the matches and the further the entry (110 Elo for the strongest of four
entries 690 Elo apart at 2 matches per pairing); both bounds under it missed lopsided
entries' true ratings (coverage 0.52–0.93 where 0.95 is meant). The pull (rating minus
the weak prior's rating) is reported.

Duplicate leagues: two twins of a deal (same cards, teams exchanged) are not
independent. The twins' **excess splits** are one league-wide parameter scaled by what
each pairing allows: twins won with probability p can split at most 2·min(p, 1−p)
of the time, so between equals they can split every time and in a pairing won 97% of
the time hardly more than independent ones. Each pairing's log likelihood is divided
by its own dispersion (:func:`pairing_dispersion`; quasi-likelihood): one league-wide
dispersion, set by the close pairings, had narrowed the lopsided ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from operator import mul

DISPERSION_PRIOR_SPLITS = 1.0
"""Prior belief in independent twins, in splits expected under independence: between
equals, 1 is a uniform prior on how often twins split (2 pairs that split: 3 in 4). 4 held
the estimate halfway to 1 at 4–10 matches per pairing (equals held 98% at 10); 0 or ½ let
2 pairs collapse the interval (two entries 200 Elo apart held 84%; 96% with 1)."""
PRIOR_MATCHES = 4.0
"""Virtual matches (two won, two lost, as Agresti–Coull adds) each entry played against a
0-rated opponent: the rating's prior, and that of the inner bounds."""
INTERVAL_PRIOR = 1.5
"""The weak prior of the outer bounds (¾ of a win and of a loss per entry): enough to keep
a perfect score's bound finite. One prior of 1 for both bounds held two equals 87.5% of
the time at 4 matches; of 2 or 2.5, the weakest of four lopsided entries 85–88%."""
SCALE = 400.0 / math.log(10.0)
"""Elo points per natural log-odds unit."""
Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile."""

Match = tuple[tuple[str, ...], tuple[str, ...], float]
"""(members of team 0, members of team 1, score of team 0: 1 win, 0 loss)."""


@dataclass(frozen=True)
class RatingFit:
    """Ratings in natural log-odds units, centred on their mean, with their 95% intervals."""

    rating: dict[str, float]
    low: dict[str, float]
    """Each rating's lower 95% bound (profile likelihood; same units and centring)."""
    high: dict[str, float]
    pairs: int = 0
    """Deal pairs (both twins decided) among the matches."""
    dispersion: float = 1.0
    """The dispersion of a pairing between equals (1: matches independent); a pairing of
    unequal entries gets its own, nearer 1 when the twins split (:func:`pairing_dispersion`)."""
    pull: dict[str, float] = field(default_factory=dict)
    """How far the prior moved each rating: the rating minus that of the weak prior
    (:data:`INTERVAL_PRIOR`); toward the centre, large only at small samples."""


def _log_sigmoid(x: float) -> float:
    """log(1 / (1 + e^-x)), without overflow at either end."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """Lower factor of a symmetric positive definite matrix (the prior makes every
    negated Hessian here one: its diagonal gets at least the prior's curvature), as
    rows of growing length (row i holds columns 0..i): each dot product then runs over
    exactly the columns it needs, in C (``map``), which makes the profile intervals of
    large leagues several times faster than an index loop."""
    low: list[list[float]] = []
    for i, ai in enumerate(a):
        li: list[float] = []
        for j in range(i):
            lj = low[j]
            li.append((ai[j] - sum(map(mul, li, lj))) / lj[j])  # map stops at the shorter: li holds j values
        li.append(math.sqrt(max(ai[i] - sum(map(mul, li, li)), 1e-300)))
        low.append(li)
    return low


def _cholesky_solve(low: list[list[float]], b: Sequence[float]) -> list[float]:
    """x with L Lᵀ x = b (``low`` from :func:`_cholesky`)."""
    n = len(b)
    y: list[float] = []
    for i in range(n):
        li = low[i]
        y.append((b[i] - sum(map(mul, li, y))) / li[i])  # y holds i values: columns 0..i−1
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


_Groups = Sequence[tuple[tuple[tuple[int, float], ...], tuple[float, float]]]
"""Matches pooled by pair of teams: (each player's weight in the difference, (wins, count))."""


def _log_posterior(r: Sequence[float], groups: _Groups, prior: float) -> float:
    total = prior * sum(0.5 * (_log_sigmoid(x) + _log_sigmoid(-x)) for x in r)  # the virtual draws
    for items, (wins, count) in groups:
        d = sum(r[i] * v for i, v in items)
        total += wins * _log_sigmoid(d) + (count - wins) * _log_sigmoid(-d)
    return total


def _derivatives(r: Sequence[float], groups: _Groups, prior: float) -> tuple[list[float], list[list[float]]]:
    """Gradient and negated Hessian of the log posterior."""
    k = len(r)
    grad = [prior * (0.5 - _sigmoid(x)) for x in r]
    info = [[0.0] * k for _ in range(k)]
    for i, x in enumerate(r):
        p = _sigmoid(x)
        info[i][i] = prior * p * (1.0 - p)
    for items, (wins, count) in groups:
        d = 0.0
        for i, v in items:
            d += r[i] * v
        p = _sigmoid(d)
        w = count * p * (1.0 - p)
        g = wins - count * p
        for i, vi in items:
            grad[i] += vi * g
            row = info[i]
            wvi = w * vi
            for j, vj in items:
                row[j] += wvi * vj
    return grad, info


def _gradient_at(r: Sequence[float], groups: _Groups, i: int, prior: float) -> float:
    """The gradient's ``i``-th component alone (the profile's slope needs no more than
    that: :func:`_derivatives` without the Hessian nor the other components)."""
    grad = prior * (0.5 - _sigmoid(r[i]))
    for items, (wins, count) in groups:
        for j, vi in items:
            if j == i:
                d = 0.0
                for m, v in items:
                    d += r[m] * v
                grad += vi * (wins - count * _sigmoid(d))
                break
    return grad


def _climb(u: list[float], expand: Callable[[Sequence[float]], list[float]],
           reduce: Callable[[list[float], list[list[float]]], tuple[list[float], list[list[float]]]],
           groups: _Groups, iterations: int, prior: float) -> tuple[list[float], float]:
    """Maximise the log posterior at ``expand(u)`` over ``u`` by damped Newton steps (each
    halved until the posterior does not fall: it is concave, so this converges whatever
    the data). ``reduce`` maps the gradient and negated Hessian in r to those in u."""
    current = _log_posterior(expand(u), groups, prior)
    for _ in range(iterations):
        if not u:
            break
        grad, info = reduce(*_derivatives(expand(u), groups, prior))
        step = _cholesky_solve(_cholesky(info), grad)
        if sum(g * x for g, x in zip(grad, step, strict=True)) < 1e-12 * (1.0 + abs(current)):
            break  # at the top: the step would gain less than the sum's rounding can show
        t = 1.0
        while True:
            cand = [x + t * s for x, s in zip(u, step, strict=True)]
            value = _log_posterior(expand(cand), groups, prior)
            if value >= current or t < 1e-9:
                break
            t /= 2
        moved = max(abs(t * s) for s in step)
        u, current = cand, value
        if moved < 1e-10:
            break
    return u, current


def _profile_bound(r_hat: list[float], top: float, groups: _Groups, i: int, crit: float,
                   guess: float, iterations: int, prior: float, side: float) -> float:
    """The centred rating c of player ``i`` below (``side`` −1) or above (+1) its maximum
    at which the profile log posterior (its maximum over the other ratings with
    r_i − mean(r) = c) lies ``crit`` below the top.

    The profile is concave in c and its slope is known (envelope theorem: the gradient's
    i-th component times k/(k − 1)), so Newton's method from either side converges
    monotonically once past the root. ``guess`` is a first distance from the maximum
    (the normal approximation's half-width)."""
    k = len(r_hat)
    mean = sum(r_hat) / k
    c_hat = r_hat[i] - mean
    others = [j for j in range(k) if j != i]
    scale = k / (k - 1)

    def make(c: float) -> Callable[[Sequence[float]], list[float]]:
        def expand(u: Sequence[float]) -> list[float]:
            r = [0.0] * k
            for j, x in zip(others, u, strict=True):
                r[j] = x
            r[i] = (k * c + sum(u)) / (k - 1)  # so that r_i − mean(r) = c
            return r
        return expand

    def reduce(g: list[float], h: list[list[float]]) -> tuple[list[float], list[list[float]]]:
        # r = expand(u): ∂r_j/∂u_a = [j = others[a]] + [j = i] / (k − 1).
        e = 1.0 / (k - 1)
        gu = [g[j] + e * g[i] for j in others]
        hu = [[h[a][b] + e * (h[a][i] + h[i][b]) + e * e * h[i][i] for b in others] for a in others]
        return gu, hu

    u = [r_hat[j] for j in others]
    c = c_hat + side * max(guess, 1e-3)
    for _ in range(60):
        u, value = _climb(u, make(c), reduce, groups, iterations, prior)
        gap = top - value - crit  # convex in c, rising away from c_hat
        slope = -side * _gradient_at(make(c)(u), groups, i, prior) * scale  # d(top − value)/d|c − c_hat|
        if slope <= 1e-12:
            c += side * max(abs(c - c_hat), 1.0)  # flat here: go further out
            continue
        step = gap / slope
        c -= side * step
        if side * (c - c_hat) <= 0:
            c = c_hat + side * 1e-6  # never cross the maximum
        if abs(step) < 1e-7:
            break
    return c


_Oriented = Sequence[tuple[tuple[tuple[int, float], ...], float]]
_Key = tuple[tuple[int, float], ...]


def _pool(index: dict[str, int], matches: Sequence[Match]) -> tuple[dict[_Key, list[float]], list[tuple[_Key, float]]]:
    """Matches pooled by pair of teams (wins, count), and each match as (its pair of teams
    in one orientation, that orientation's score; an empty key for a team against itself)."""
    pooled: dict[_Key, list[float]] = {}
    oriented: list[tuple[_Key, float]] = []
    for t0, t1, s in matches:
        c: dict[int, float] = {}
        for m in t0:
            c[index[m]] = c.get(index[m], 0.0) + 1.0 / len(t0)
        for m in t1:
            c[index[m]] = c.get(index[m], 0.0) - 1.0 / len(t1)
        key = tuple(sorted((i, v) for i, v in c.items() if v))
        if key and key[0][1] < 0:
            # One orientation per pair of teams: A beating B as team 0 or as team 1 is the same fact.
            key, s = tuple((i, -v) for i, v in key), 1.0 - s
        oriented.append((key, s))
        if key:  # a team against itself tells nothing
            acc = pooled.setdefault(key, [0.0, 0.0])
            acc[0] += s
            acc[1] += 1.0
    return pooled, oriented


def _identity(g: list[float], h: list[list[float]]) -> tuple[list[float], list[list[float]]]:
    return g, h


def _bounds(r0: list[float], groups: _Groups, prior: float, iterations: int,
            wanted: dict[int, list[float]]) -> tuple[list[float], dict[tuple[int, float], float]]:
    """The posterior mode under ``prior`` (climbed from ``r0``) and the profile bounds
    ``wanted`` under it: for player i, the sides listed (−1 lower, +1 upper), keyed (i, side)."""
    k = len(r0)
    r, top = _climb(list(r0), list, _identity, groups, iterations, prior)
    # The normal approximation's half-widths, as Newton's first guess for each bound.
    factor = _cholesky(_derivatives(r, groups, prior)[1])
    cov = [_cholesky_solve(factor, [float(i == j) for j in range(k)]) for i in range(k)]
    row_sums = [sum(row) for row in cov]
    grand = sum(row_sums)
    crit = Z95 * Z95 / 2.0
    out: dict[tuple[int, float], float] = {}
    for i, sides in wanted.items():
        # Var(r_i − mean r) = C_ii − (2/k) Σ_j C_ij + (1/k²) Σ_jl C_jl.
        se = math.sqrt(max(cov[i][i] - 2.0 * row_sums[i] / k + grand / (k * k), 0.0))
        for side in sides:
            out[i, side] = _profile_bound(r, top, groups, i, crit, Z95 * se, iterations, prior, side)
    return r, out


def fit_rating_model(names: Sequence[str], matches: Sequence[Match], iterations: int = 100,
                     clusters: Sequence[Hashable | None] | None = None) -> RatingFit:
    """Posterior-mode ratings and their 95% intervals (natural log-odds units, centred).

    A team's strength is the mean of its members' ratings. Matches between the same
    teams are pooled (wins and count are all the likelihood needs), then damped Newton
    steps climb the log posterior, which is concave. Each bound of a rating's interval is
    a profile likelihood one: toward the centre under the rating's prior, away from it
    under the weak :data:`INTERVAL_PRIOR` (both, the wider, for a rating at the centre;
    module docstring).

    ``clusters`` (one per match; None for a match on its own) names each match's deal
    pair: two matches of one cluster between the same teams are twins, and each
    pairing's log likelihood is divided by its dispersion (:func:`pairing_dispersion`)
    for the intervals; otherwise every match counts as independent.
    """
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    pooled, oriented = _pool(index, matches)
    groups = [(key, (acc[0], acc[1])) for key, acc in sorted(pooled.items())]
    r, _ = _climb([0.0] * k, list, _identity, groups, iterations, PRIOR_MATCHES)
    pairs, excess = twin_excess(r, oriented, clusters)
    paired = {key for key, _ in _pair_members(oriented, clusters)}
    weighted: _Groups = groups
    if pairs:
        weighted = []
        for key, (wins, count) in groups:
            phi = pairing_dispersion(excess, _sigmoid(sum(r[i] * v for i, v in key))) if key in paired else 1.0
            weighted.append((key, (wins / phi, count / phi)))
    mean = sum(r) / k if k else 0.0
    rating = {n: r[i] - mean for n, i in index.items()}
    dispersion = pairing_dispersion(excess, 0.5)
    if k < 2:
        return RatingFit(rating, dict(rating), dict(rating), pairs, dispersion, dict.fromkeys(rating, 0.0))
    # The prior pulls toward the centre: the bound on that side is the prior's, the outer
    # one the weak prior's (which the pull did not move); at the centre, both.
    inner: dict[int, list[float]] = {}
    outer: dict[int, list[float]] = {}
    for n, i in index.items():
        c = rating[n]
        inner[i] = [-1.0, 1.0] if abs(c) < 1e-9 else [-1.0 if c > 0 else 1.0]
        outer[i] = [-1.0, 1.0] if abs(c) < 1e-9 else [1.0 if c > 0 else -1.0]
    _, found = _bounds(r, weighted, PRIOR_MATCHES, iterations, inner)
    mode, weak = _bounds(r, weighted, INTERVAL_PRIOR, iterations, outer)
    for at, v in weak.items():
        found[at] = v if at not in found else min(v, found[at]) if at[1] < 0 else max(v, found[at])
    low = {n: min(found[i, -1.0], rating[n]) for n, i in index.items()}
    high = {n: max(found[i, 1.0], rating[n]) for n, i in index.items()}
    unpulled = _climb(list(mode), list, _identity, groups, iterations, INTERVAL_PRIOR)[0] if pairs else mode
    m2 = sum(unpulled) / k
    pull = {n: rating[n] - (unpulled[i] - m2) for n, i in index.items()}
    return RatingFit(rating, low, high, pairs, dispersion, pull)


MISFIT_P = 0.001
"""The p-value below which :func:`model_check` says the ratings do not describe the field."""


@dataclass(frozen=True)
class ModelCheck:
    """How well one rating per entry explains every pairing's record: two statistics of
    the same question, each about the degrees of freedom where the ratings explain the
    field, and the larger of their p-values (both must find a misfit)."""

    pearson: float
    """Σ (wins − expected)² / variance over the pairings: calibrated for moderate
    samples, but an upset at a fitted chance very near 0 or 1 can inflate it."""
    deviance: float
    """Twice the log-likelihood ratio of a model with a win rate of its own for every
    pairing: robust to such upsets, but a little large for moderate samples."""
    df: int
    """Pairings minus the ratings' free parameters."""
    p_value: float
    """The larger of the two statistics' chances of being this large if the ratings did
    explain every pairing."""

    @property
    def misfit(self) -> bool:
        """Whether the field departs from the rating model beyond chance (:data:`MISFIT_P`)."""
        return self.p_value < MISFIT_P


def model_check(names: Sequence[str], matches: Sequence[Match], rating: dict[str, float],
                dispersion: float = 1.0) -> ModelCheck | None:
    """Whether one rating per entry explains the records of every pairing: a misfit when
    some entries do better against some opponents than their ratings say (A beats B, B
    beats C, C beats A), where no ranking is right by itself, only the one of who met whom.

    ``rating``: the fitted ratings (natural log-odds), best those of a weak prior (a
    prior's pull toward the centre is a misfit of its own). Twins of deal pairs that agree
    more than independent matches carry less information: both statistics are divided by
    ``dispersion`` when above 1 (:attr:`RatingFit.dispersion`), and left whole when below
    (twins that split), which errs toward saying nothing. None with fewer than three
    degrees of freedom (three entries or fewer: a rating per entry fits them nearly
    exactly).

    Measured on fields of one rating each (simulated, 300 leagues per design; 6 entries
    at 10 matches per pairing, 8 at 40, duplicate with twins agreeing 60% of the time,
    lopsided 4 at 4): the Pearson statistic's p-values are about uniform (a tenth below
    0.1), the deviance's a little small (0.06), and neither design gave a misfit with
    both; tests/league/test_model_check.py.
    """
    index = {n: i for i, n in enumerate(names)}
    pooled, _ = _pool(index, matches)
    played = {i for key in pooled for i, _ in key}
    df = len(pooled) - (len(played) - 1)  # one component assumed: more would only lower the df
    if df < 3:
        return None
    r = [rating[n] for n in names]
    pearson = deviance = 0.0
    for key, (wins, count) in pooled.items():
        p = _sigmoid(sum(r[i] * v for i, v in key))
        expected = count * p
        pearson += (wins - expected) ** 2 / (expected * (1.0 - p))
        deviance += 2.0 * (_xlogx_over(wins, expected) + _xlogx_over(count - wins, count - expected))
    scale = max(1.0, dispersion)
    pearson, deviance = pearson / scale, deviance / scale
    return ModelCheck(pearson, deviance, df, max(chi2_survival(pearson, df), chi2_survival(deviance, df)))


def _xlogx_over(x: float, expected: float) -> float:
    """x·log(x / expected), 0 at x = 0."""
    return x * math.log(x / expected) if x > 0 else 0.0


def chi2_survival(x: float, df: int) -> float:
    """P(χ²_df ≥ x), by the Wilson–Hilferty cube-root normal approximation: at the exact
    0.001 point it gives 0.00113 for df = 3, 0.00107 for 10 and 0.00101 for 100, close
    enough for the one threshold it decides (:data:`MISFIT_P`)."""
    if x <= 0:
        return 1.0
    v = 2.0 / (9.0 * df)
    z = ((x / df) ** (1.0 / 3.0) - (1.0 - v)) / math.sqrt(v)
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _pair_members(oriented: _Oriented, clusters: Sequence[Hashable | None] | None) -> list[tuple[_Key, float]]:
    """The matches that belong to a deal pair: two matches of one cluster, between the
    same two teams (the twins of a deal)."""
    if clusters is None:
        return []
    by_cluster: dict[Hashable, list[int]] = {}
    for j, c in enumerate(clusters):
        if c is not None and oriented[j][0]:
            by_cluster.setdefault(c, []).append(j)
    out = []
    for js in by_cluster.values():
        if len(js) == 2 and oriented[js[0]][0] == oriented[js[1]][0]:
            out += [oriented[j] for j in js]
    return out


def twin_excess(r: Sequence[float], oriented: _Oriented,
                clusters: Sequence[Hashable | None] | None) -> tuple[int, float]:
    """(deal pairs, θ) at the ratings ``r``: θ ≥ 0, the share of the splits that twins
    could make beyond independent ones that they did make; θ < 0, minus the correlation
    of twins that agree.

    Twins each won with probability p and correlated by ρ split with probability
    2p(1 − p)(1 − ρ). Agreeing twins (ρ > 0) can do so at any p; splitting ones only
    down to ρ = −min(p, 1−p) / max(p, 1−p) (the weaker side wins at most one twin), that
    is 2·min(p, 1−p)² extra splits at most. So with S the pairs that split, E the splits
    independent twins would give at the fitted ratings and D the most extra splits:
    θ = (S − E) / (D + m) when S ≥ E, else −(E − S) / (E + m), m =
    :data:`DISPERSION_PRIOR_SPLITS` (a weak prior belief in independent twins). Between
    equals D = E and this is the one dispersion used before (2 − (S + m) / (E + m)).
    Kept within [−1, 0.98]."""
    members = _pair_members(oriented, clusters)
    pairs = len(members) // 2
    if not pairs:
        return 0, 0.0
    splits = expected = room = 0.0
    for (key, s1), (_, s2) in zip(members[0::2], members[1::2], strict=True):
        p = _sigmoid(sum(r[i] * v for i, v in key))
        expected += 2.0 * p * (1.0 - p)
        room += 2.0 * min(p, 1.0 - p) ** 2
        splits += s1 + s2 == 1.0
    m = DISPERSION_PRIOR_SPLITS
    if splits >= expected:
        return pairs, min((splits - expected) / (room + m), 0.98)
    return pairs, -min((expected - splits) / (expected + m), 1.0)


def pairing_dispersion(excess: float, p: float) -> float:
    """The dispersion 1 + ρ of a pairing whose twins are each won with probability ``p``,
    given the league's ``excess`` (:func:`twin_excess`): 1 − θ·min(p, 1−p)/max(p, 1−p)
    for twins that split, 1 − θ (1 + their correlation) for twins that agree."""
    if excess >= 0.0:
        return 1.0 - excess * min(p, 1.0 - p) / max(p, 1.0 - p)
    return 1.0 - excess
