"""Standings of a league: counts, stones, a Bradley–Terry rating with a 95% interval, a crosstable.

The rating model: every entry is one player, a plain entry and an explicit mixed pair
alike, and P(entry A wins a match against B) = 1 / (1 + 10^((R_B - R_A) / 400)).
A mixed pair is rated on its own results: its two bots do not share their conventions,
so it is not the mean of its members (rated that way, a pair of the league's only two
bots was always 1500, whatever it did). Ratings are the maximum of the likelihood times
a prior: every entry also played :data:`PRIOR_MATCHES` virtual matches against a
0-rated opponent, winning half (two wins and two losses), which keeps an undefeated
entry finite and small samples modest. They are shown as Elo-like numbers centred on 1500.

The 95% interval is a **profile likelihood** interval: the ratings at which the best
log posterior with that entry's rating held fixed (every other rating free) lies
z²/2 below the maximum. Unlike the normal approximation (rating ± 1.96 standard errors
from the curvature at the maximum, used before), it follows the posterior's shape: a
perfect score's likelihood keeps rising, ever more slowly, toward higher ratings, so
its interval reaches far up and not far down, and a record unlikely enough between
equals excludes 1500 (6 wins of 6 do; the normal approximation saw a flat top there and
an interval wide on both sides, which held 1500 in 99.5% of four-entry self-play
leagues at 2 matches per pairing where 95% was meant: now 96.9%, exactly).

In a duplicate league the unit is the **deal pair**: the two twins of a deal (the same
cards, the teams exchanging seats) are not independent. When the cards decide, twins
split, and the pair's result varies less than two independent matches' would; when a
bot wins some deals whichever side it plays, they agree, and it varies more. The
ratings are fitted on the matches as before, and the interval's z²/2 is multiplied by
the league's **dispersion** of pair results (quasi-likelihood), estimated
from how often twins split against how often independent twins would, and shrunk toward
1 by a prior worth :data:`DISPERSION_PRIOR_SPLITS` expected splits, so that a handful of
pairs cannot claim a precision they have not shown (:func:`pair_dispersion`;
docs/league.md, "Standings").

Stones: a game won by an accepted órdago ends with the winner short of the target, so
the scoreboard (``raw_stones_*``) credits the winner less than the game was worth and
leaves the loser what it scored; between a bot that accepts órdagos with strong hands
and one that calls them at random, the entry that wins nearly every match showed fewer
net stones. ``stones_for`` / ``stones_against`` count such a game as won with the stones
the winner needed to finish it (its score brought up to the target), so they agree with
who wins games.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field
from operator import mul
from typing import Any

from arena.engine import Rules
from arena.league.runmatch import start_failed_seats

DISPERSION_PRIOR_SPLITS = 4.0
"""Weight of the prior belief that twins are independent (dispersion 1), in splits
expected under independence (two equal entries expect one per two pairs): with few
pairs the interval stays near that of independent matches; with many, the observed
dispersion wins (0.54 after 100 pairs of equals that split three times in four)."""
PRIOR_MATCHES = 4.0
"""Virtual matches (half won, half lost) each entry played against a 0-rated opponent:
two wins and two losses, as the Agresti–Coull interval adds two successes and two
failures to a proportion. One virtual match (half a win, half a loss), the normal
approximation's prior, was too weak for the likelihood interval: between two equal
entries it excluded 1500 at 4–0 and 0–4 (which happen 1 time in 8), so its coverage
fell to 87.5% at 4 matches; with four it stays at 93% or more for every number of
matches from 2 to 20 (tests/league/test_standings_intervals.py)."""
SCALE = 400.0 / math.log(10.0)
"""Elo points per natural log-odds unit."""
Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile."""


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
    """Stones scored, a game won by órdago counted as the stones needed to finish it."""
    stones_against: int = 0
    """The opponents' ``stones_for``."""
    raw_stones_for: int = 0
    """Stones on the scoreboard (the sum of each hand's gain, as ``stones`` in results.jsonl)."""
    raw_stones_against: int = 0
    hands: int = 0
    faults: int = 0
    start_failures: int = 0
    """Matches in which the entry's bot (one of its processes) failed to start: its
    team forfeited them. Not in ``faults``, which the referee counts during play."""
    rating: float = 1500.0
    rating_low: float = 1500.0
    rating_high: float = 1500.0

    @property
    def stones_per_hand(self) -> float:
        """Net stones per hand played: (for − against) / hands."""
        return (self.stones_for - self.stones_against) / self.hands if self.hands else 0.0

    @property
    def raw_stones_per_hand(self) -> float:
        """Net scoreboard stones per hand: (raw for − raw against) / hands."""
        return (self.raw_stones_for - self.raw_stones_against) / self.hands if self.hands else 0.0


@dataclass
class Standings:
    """The whole table plus the crosstable ``cross[a][b]`` = match wins of a against b."""

    entries: list[EntryStanding]
    cross: dict[str, dict[str, int]] = field(default_factory=dict)
    stones_unadjusted: int = 0
    """Matches whose record lacks ``games`` (written before results.jsonl carried it):
    their órdago games cannot be found, so their raw stones are counted."""
    deal_pairs: int = 0
    """Deal pairs (both twins decided): the unit of the intervals in a duplicate league."""
    dispersion: float = 1.0
    """How much the deal pairs' results vary against independent twins (below 1: twins
    split, the intervals are narrower than matches counted as independent would give)."""

    def to_json(self) -> dict[str, Any]:
        """As plain JSON values (standings.json)."""
        rows = []
        for e in self.entries:
            row = asdict(e)
            row["stones_per_hand"] = round(e.stones_per_hand, 4)
            row["raw_stones_per_hand"] = round(e.raw_stones_per_hand, 4)
            for k in ("rating", "rating_low", "rating_high"):
                row[k] = round(row[k], 1)
            rows.append(row)
        return {"standings": rows, "crosstable": self.cross, "stones_unadjusted": self.stones_unadjusted,
                "deal_pairs": self.deal_pairs, "dispersion": round(self.dispersion, 4)}

    def to_csv(self) -> str:
        """One row per entry (standings.csv)."""
        buf = io.StringIO()
        cols = ["rank", "name", "rating", "rating_low", "rating_high", "matches", "wins", "losses", "aborted",
                "games_won", "games_lost", "stones_for", "stones_against", "stones_per_hand", "hands", "faults",
                "raw_stones_for", "raw_stones_against", "raw_stones_per_hand", "start_failures"]
        w = csv.writer(buf)
        w.writerow(cols)
        for i, e in enumerate(self.entries, start=1):
            w.writerow([i, e.name, f"{e.rating:.1f}", f"{e.rating_low:.1f}", f"{e.rating_high:.1f}", e.matches,
                        e.wins, e.losses, e.aborted, e.games_won, e.games_lost, e.stones_for, e.stones_against,
                        f"{e.stones_per_hand:.4f}", e.hands, e.faults, e.raw_stones_for, e.raw_stones_against,
                        f"{e.raw_stones_per_hand:.4f}", e.start_failures])
        return buf.getvalue()


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
    """The dispersion the intervals were scaled by (1: matches independent)."""


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


def _log_posterior(r: Sequence[float], groups: _Groups) -> float:
    total = PRIOR_MATCHES * sum(0.5 * (_log_sigmoid(x) + _log_sigmoid(-x)) for x in r)  # the virtual draws
    for items, (wins, count) in groups:
        d = sum(r[i] * v for i, v in items)
        total += wins * _log_sigmoid(d) + (count - wins) * _log_sigmoid(-d)
    return total


def _derivatives(r: Sequence[float], groups: _Groups) -> tuple[list[float], list[list[float]]]:
    """Gradient and negated Hessian of the log posterior."""
    k = len(r)
    grad = [PRIOR_MATCHES * (0.5 - _sigmoid(x)) for x in r]
    info = [[0.0] * k for _ in range(k)]
    for i, x in enumerate(r):
        p = _sigmoid(x)
        info[i][i] = PRIOR_MATCHES * p * (1.0 - p)
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


def _gradient_at(r: Sequence[float], groups: _Groups, i: int) -> float:
    """The gradient's ``i``-th component alone (the profile's slope needs no more than
    that: :func:`_derivatives` without the Hessian nor the other components)."""
    grad = PRIOR_MATCHES * (0.5 - _sigmoid(r[i]))
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
           groups: _Groups, iterations: int) -> tuple[list[float], float]:
    """Maximise the log posterior at ``expand(u)`` over ``u`` by damped Newton steps (each
    halved until the posterior does not fall: it is concave, so this converges whatever
    the data). ``reduce`` maps the gradient and negated Hessian in r to those in u."""
    current = _log_posterior(expand(u), groups)
    for _ in range(iterations):
        if not u:
            break
        grad, info = reduce(*_derivatives(expand(u), groups))
        step = _cholesky_solve(_cholesky(info), grad)
        if sum(g * x for g, x in zip(grad, step, strict=True)) < 1e-12 * (1.0 + abs(current)):
            break  # at the top: the step would gain less than the sum's rounding can show
        t = 1.0
        while True:
            cand = [x + t * s for x, s in zip(u, step, strict=True)]
            value = _log_posterior(expand(cand), groups)
            if value >= current or t < 1e-9:
                break
            t /= 2
        moved = max(abs(t * s) for s in step)
        u, current = cand, value
        if moved < 1e-10:
            break
    return u, current


def _profile_bounds(r_hat: list[float], top: float, groups: _Groups, i: int, crit: float,
                    guess: float, iterations: int) -> tuple[float, float]:
    """The two centred ratings c of player ``i`` at which the profile log posterior (its
    maximum over the other ratings with r_i − mean(r) = c) lies ``crit`` below the top.

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

    bounds = []
    for side in (-1.0, 1.0):
        u = [r_hat[j] for j in others]
        c = c_hat + side * max(guess, 1e-3)
        for _ in range(60):
            u, value = _climb(u, make(c), reduce, groups, iterations)
            gap = top - value - crit  # convex in c, rising away from c_hat
            slope = -side * _gradient_at(make(c)(u), groups, i) * scale  # d(top − value)/d|c − c_hat|
            if slope <= 1e-12:
                c += side * max(abs(c - c_hat), 1.0)  # flat here: go further out
                continue
            step = gap / slope
            c -= side * step
            if side * (c - c_hat) <= 0:
                c = c_hat + side * 1e-6  # never cross the maximum
            if abs(step) < 1e-7:
                break
        bounds.append(c)
    return bounds[0], bounds[1]


def fit_rating_model(names: Sequence[str], matches: Sequence[Match], iterations: int = 100,
                     clusters: Sequence[Hashable | None] | None = None) -> RatingFit:
    """Posterior-mode ratings and their 95% intervals (natural log-odds units).

    A team's strength is the mean of its members' ratings. Matches between the same
    teams are pooled (wins and count are all the likelihood needs), then damped Newton
    steps climb the log posterior, which is concave.

    The interval of a rating is a **profile likelihood** one: the centred ratings c at
    which the best log posterior with that rating fixed (the others free) lies
    z²/2 · dispersion below the maximum (z the normal's 97.5% point). Unlike rating ±
    z standard errors it follows the posterior's shape: at a perfect score the
    likelihood rises ever more slowly with the rating (the normal approximation then
    saw a flat top and a wide interval around it), so the interval reaches far up
    but not far down.

    ``clusters`` (one per match; None for a match on its own) names each match's deal
    pair: two matches of one cluster between the same teams are twins, and the
    intervals are scaled by the pairs' dispersion (:func:`pair_dispersion`, as the
    deviance is in quasi-likelihood); otherwise every match counts as independent.
    """
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    pooled: dict[tuple[tuple[int, float], ...], list[float]] = {}
    oriented: list[tuple[tuple[tuple[int, float], ...], float]] = []
    """Each match as (its pair of teams in one orientation, that orientation's score); empty key: none."""
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
        if not key:
            continue  # a team against itself tells nothing
        acc = pooled.setdefault(key, [0.0, 0.0])
        acc[0] += s
        acc[1] += 1.0
    groups = [(key, (acc[0], acc[1])) for key, acc in sorted(pooled.items())]

    def identity(g: list[float], h: list[list[float]]) -> tuple[list[float], list[list[float]]]:
        return g, h

    r, top = _climb([0.0] * k, list, identity, groups, iterations)
    pairs, dispersion = pair_dispersion(r, oriented, clusters, k)
    mean = sum(r) / k if k else 0.0
    rating = {n: r[i] - mean for n, i in index.items()}
    if k < 2:
        return RatingFit(rating, dict(rating), dict(rating), pairs, dispersion)
    # The normal approximation's half-widths, as Newton's first guess for each bound.
    factor = _cholesky(_derivatives(r, groups)[1])
    cov = [_cholesky_solve(factor, [float(i == j) for j in range(k)]) for i in range(k)]
    row_sums = [sum(row) for row in cov]
    grand = sum(row_sums)
    crit = Z95 * Z95 / 2.0 * dispersion
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    for n, i in index.items():
        # Var(r_i − mean r) = C_ii − (2/k) Σ_j C_ij + (1/k²) Σ_jl C_jl.
        se = math.sqrt(max(cov[i][i] - 2.0 * row_sums[i] / k + grand / (k * k), 0.0))
        low[n], high[n] = _profile_bounds(r, top, groups, i, crit, Z95 * se * math.sqrt(dispersion), iterations)
    return RatingFit(rating, low, high, pairs, dispersion)


_Oriented = Sequence[tuple[tuple[tuple[int, float], ...], float]]


def _pair_members(oriented: _Oriented, clusters: Sequence[Hashable | None] | None
                  ) -> list[tuple[tuple[tuple[int, float], ...], float]]:
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


def pair_dispersion(r: Sequence[float], oriented: _Oriented, clusters: Sequence[Hashable | None] | None,
                    k: int) -> tuple[int, float]:
    """(deal pairs, dispersion) at the ratings ``r``: how much more (over 1) or less (under
    1) a pair's wins vary than those of two independent matches.

    For twins each won with probability p and correlated by ρ, the variance of the pair's
    wins is 2p(1 − p)(1 + ρ) and the probability that they split 2p(1 − p)(1 − ρ): so
    the dispersion 1 + ρ is 2 − splits / expected splits, the expected ones summed over
    the pairs under independence at the fitted ratings. Shrunk toward 1 by a prior of
    :data:`DISPERSION_PRIOR_SPLITS` expected splits, all seen: 2 − (S + m) / (E + m).
    The evidence about the twins is in their splits: between unequal entries few are
    expected, so a one-sided record (every pair won twice) leaves the dispersion near 1
    (Pearson's statistic, tried first, read such a record as twins that split and
    narrowed the interval of a perfect score). Kept within [1/50, 2]. ``k`` is unused
    (the prior, not a degrees-of-freedom count, guards small samples)."""
    del k
    members = _pair_members(oriented, clusters)
    pairs = len(members) // 2
    if not pairs:
        return 0, 1.0
    splits = 0.0
    expected = 0.0
    for (key, s1), (_, s2) in zip(members[0::2], members[1::2], strict=True):
        p = _sigmoid(sum(r[i] * v for i, v in key))
        expected += 2.0 * p * (1.0 - p)
        splits += s1 + s2 == 1.0
    m = DISPERSION_PRIOR_SPLITS
    return pairs, min(max(2.0 - (splits + m) / (expected + m), 0.02), 2.0)


def fit_ratings(names: Sequence[str], matches: Sequence[Match], iterations: int = 100) -> dict[str, float]:
    """Posterior-mode ratings (natural log-odds units, centred): see :func:`fit_rating_model`."""
    return fit_rating_model(names, matches, iterations).rating


def effective_stones(rec: dict[str, Any], target_points: int) -> tuple[int, int] | None:
    """Stones of each team in a result record, each game won below the target (by an
    accepted órdago) counted as the stones the winner needed to finish it.

    None when the record has no ``games`` (per game: ``winner``, final ``scores``).
    """
    games = rec.get("games")
    if games is None:
        return None
    stones = list(rec.get("stones", [0, 0]))
    for g in games:
        w = g.get("winner")
        if w is not None:
            stones[w] += max(0, target_points - g["scores"][w])
    return stones[0], stones[1]


def compute_standings(
    names: Sequence[str],
    members: dict[str, tuple[str, str]],
    results: Sequence[dict[str, Any]],
    seed: int = 0,
    *,
    target_points: int | None = None,
) -> Standings:
    """Standings from result records (lines of results.jsonl: ``team0``, ``team1`` and the match result).

    ``members`` and ``seed`` are accepted for the callers' sake and unused: every entry,
    a pair too, is rated as one player, and the interval is computed, not sampled.
    ``target_points`` is the league's ``[rules]`` target (default: the rules' default),
    used to complete the games won by órdago.
    """
    del members, seed
    target = Rules().target_points if target_points is None else target_points
    # A canonical order (by match id when present): results.jsonl lists matches in the
    # order they finished, which varies with --jobs and --resume, and float sums must not.
    results = sorted(results, key=lambda r: (str(r.get("match_id", "")), json.dumps(r, sort_keys=True)))
    table = {n: EntryStanding(n) for n in names}
    cross: dict[str, dict[str, int]] = {a: {b: 0 for b in names if b != a} for a in names}
    rated: list[Match] = []
    clusters: list[Hashable | None] = []
    """Each rated match's deal pair: its two entries and its deal (in a duplicate league
    the twins of a deal share it; in a plain one every match has a deal of its own)."""
    unadjusted = 0
    for rec in results:
        t = (rec["team0"], rec["team1"])
        winner = rec.get("winner_team")
        games = rec.get("games_won", [0, 0])
        raw = rec.get("stones", [0, 0])
        eff = effective_stones(rec, target)
        if eff is None:
            unadjusted += 1
            eff = (raw[0], raw[1])
        faults = [0, 0]
        for f in rec.get("faults", []):
            faults[f["seat"] & 1] += 1
        not_started = {seat & 1 for seat in start_failed_seats(rec)}
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
            e.stones_for += eff[side]
            e.stones_against += eff[1 - side]
            e.raw_stones_for += raw[side]
            e.raw_stones_against += raw[1 - side]
            e.hands += rec.get("hands", 0)
            e.faults += faults[side]
            e.start_failures += side in not_started
        if winner is not None:
            rated.append(((t[0],), (t[1],), 1.0 if winner == 0 else 0.0))
            clusters.append((min(t), max(t), rec["deal"]) if rec.get("deal") is not None else None)
    fit = fit_rating_model(list(names), rated, clusters=clusters)
    for n in names:
        e = table[n]
        e.rating = 1500 + SCALE * fit.rating[n]
        e.rating_low, e.rating_high = 1500 + SCALE * fit.low[n], 1500 + SCALE * fit.high[n]
    ordered = sorted(table.values(), key=lambda e: (-e.rating, -e.wins, e.name))
    return Standings(ordered, cross, unadjusted, fit.pairs, fit.dispersion)
