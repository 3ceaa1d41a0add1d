"""The sequential probability ratio test of ``mus sprt``, on duplicate pairs: pure, no I/O.

The unit of observation is the **duplicate pair**: two matches with the same deals, the
teams exchanging seats. Its score is NEW's mean match score over the two twins, one of
``0``, ``½`` or ``1`` (a Mus match has no draws, so of fishtest's five pentanomial
outcomes only these three occur; any other finite set of scores in [0, 1] works as
well). The twins are not two independent games: when card luck decides, they split
(each team wins with the good cards), so the pair score varies less than two
independent matches would, and a test on pairs needs fewer matches; counting the twins
as independent would get the variance, and so the error rates, wrong.

The test is the generalized SPRT of fishtest (Michel Van den Bergh's formulation):

- H0: NEW's expected score per match is ``s0 = L(elo0)``, H1: ``s1 = L(elo1)``, with
  ``L(elo) = 1 / (1 + 10^(−elo / 400))`` (logistic Elo of a match);
- the log-likelihood ratio is ``N Σ_i p̂_i log(p1_i / p0_i)``, where ``p̂`` is the
  observed distribution of pair scores and ``p_j`` the distribution closest to it
  (maximum likelihood) whose mean is ``s_j``: the variance and the twins' correlation
  are nuisance parameters, estimated from the pairs rather than assumed;
- Wald's bounds: accept H1 when the LLR reaches ``log((1 − β) / α)``, H0 when it falls
  to ``log(β / (1 − α))``. Checked after every pair, these keep the false-positive rate
  below about ``α`` and the false-negative rate below about ``β``
  (``tests/league/test_sprt.py`` measures both over thousands of simulated tests).

Every outcome's count gets a tiny regularization (``1e-3``, as fishtest's) so that the
constrained maximum exists when only one outcome has been seen.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

PAIR_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
"""The possible scores of a duplicate pair of matches (NEW's wins over the two twins / 2)."""
REGULARIZATION = 1e-3
"""Added to every outcome's count before the likelihoods are maximized."""
Z95 = 1.959963984540054


def elo_to_score(elo: float) -> float:
    """Expected match score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (±inf at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


class Verdict(Enum):
    """Where a test stands."""

    CONTINUE = "continue"
    H1 = "H1"
    """NEW is better by elo1 (the LLR reached the upper bound)."""
    H0 = "H0"
    """NEW is not better by elo1, rather within elo0 (the LLR reached the lower bound)."""


@dataclass(frozen=True)
class SprtParams:
    """The hypotheses (Elo of NEW against OLD, per match) and the error rates asked for."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    """Largest probability of accepting H1 when H0 holds (a false positive)."""
    beta: float = 0.05
    """Largest probability of accepting H0 when H1 holds (a false negative)."""

    def check(self) -> None:
        """Raise ValueError when the parameters cannot make a test."""
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0 and self.alpha + self.beta < 1.0):
            raise ValueError(f"alpha and beta must be in (0, 1) with alpha + beta < 1, not {self.alpha}, {self.beta}")
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or self.elo1 <= self.elo0:
            raise ValueError(f"elo1 must be greater than elo0 (both finite), not elo0={self.elo0}, elo1={self.elo1}")
        if max(abs(self.elo0), abs(self.elo1)) >= 2000:
            raise ValueError("elo0 and elo1 must lie within ±2000")

    @property
    def lower(self) -> float:
        """The LLR at which H0 is accepted: log(β / (1 − α))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at which H1 is accepted: log((1 − β) / α)."""
        return math.log((1.0 - self.beta) / self.alpha)

    def verdict(self, llr_value: float) -> Verdict:
        """H1 at or above the upper bound, H0 at or below the lower one, else continue."""
        if llr_value >= self.upper:
            return Verdict.H1
        if llr_value <= self.lower:
            return Verdict.H0
        return Verdict.CONTINUE


def _constrained_lambda(xs: Sequence[float], ps: Sequence[float], mean: float) -> float:
    """The Lagrange multiplier λ of the distribution closest to ``ps`` (on ``xs``) with
    mean ``mean``: q_i = p_i / (1 + λ (x_i − mean)), λ the root of
    Σ p_i (x_i − mean) / (1 + λ (x_i − mean)) = 0, which decreases in λ on the interval
    where every 1 + λ (x_i − mean) is positive. Newton's steps, kept inside the bracket
    by bisection."""
    d = [x - mean for x in xs]
    hi_d, lo_d = max(d), min(d)
    if hi_d <= 0.0 or lo_d >= 0.0:
        raise ValueError(f"mean {mean} is not strictly inside the outcomes' range")
    lo, hi = -1.0 / hi_d, -1.0 / lo_d  # the open interval of admissible λ
    lam = 0.0
    for _ in range(100):
        f = 0.0
        df = 0.0
        for p, di in zip(ps, d, strict=True):
            den = 1.0 + lam * di
            f += p * di / den
            df -= p * di * di / (den * den)
        if f > 0.0:
            lo = lam
        else:
            hi = lam
        step = lam - f / df if df < 0.0 else (lo + hi) / 2
        new = step if lo < step < hi else (lo + hi) / 2
        if abs(new - lam) < 1e-13:
            return new
        lam = new
    return lam


def llr(counts: Mapping[float, float], params: SprtParams) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for the pair scores seen
    (``counts[score]`` = pairs with that score; scores in [0, 1])."""
    xs = sorted(set(PAIR_SCORES) | set(counts))
    reg = [counts.get(x, 0.0) + REGULARIZATION for x in xs]
    n = sum(reg)
    ps = [c / n for c in reg]
    s0, s1 = elo_to_score(params.elo0), elo_to_score(params.elo1)
    lam0 = _constrained_lambda(xs, ps, s0)
    lam1 = _constrained_lambda(xs, ps, s1)
    return n * sum(p * (math.log1p(lam0 * (x - s0)) - math.log1p(lam1 * (x - s1)))
                   for x, p in zip(xs, ps, strict=True))


@dataclass(frozen=True)
class Estimate:
    """NEW's strength against OLD from the pairs seen, per match."""

    pairs: int
    score: float
    """NEW's mean match score, with the two pseudo-pairs (0.5 when no pair was seen)."""
    elo: float
    elo_low: float
    elo_high: float
    """The 95% interval of the Elo difference."""
    los: float
    """Likelihood of superiority: the probability that NEW is stronger (normal approximation)."""


def estimate(counts: Mapping[float, float]) -> Estimate:
    """The Elo difference with its 95% interval and the likelihood of superiority.

    Computed after adding one pseudo-pair scored 0 and one scored 1 (as the
    Agresti–Coull interval adds two pseudo-trials), so that a perfect score or a handful
    of pairs gives a finite estimate and a wide interval instead of one collapsed on the
    observed score; after hundreds of pairs the two pseudo-pairs change nothing visible.
    The standard error is the pairs' own (so it shrinks as much as duplicate deals make
    the twins split); the interval is normal on the log-odds scale (delta method), so it
    stays inside (−inf, inf) and is not cut at a score of 0 or 1.
    """
    n = sum(counts.values())
    total = sum(x * c for x, c in counts.items())
    aug_n = n + 2
    mean = (total + 1.0) / aug_n
    var = (sum(c * (x - mean) ** 2 for x, c in counts.items()) + mean**2 + (1.0 - mean) ** 2) / (aug_n - 1)
    se = math.sqrt(var / aug_n)
    elo = score_to_elo(mean)
    se_elo = 400.0 / math.log(10.0) * se / (mean * (1.0 - mean))
    los = 0.5 * math.erfc(-(mean - 0.5) / (se * math.sqrt(2.0))) if se > 0 else 0.5
    return Estimate(int(n), mean, elo, elo - Z95 * se_elo, elo + Z95 * se_elo, los)


def pair_score(wins_of_new: Iterable[float]) -> float:
    """The score of a duplicate pair: NEW's mean match score over its twins (1 a win, 0 a loss)."""
    scores = list(wins_of_new)
    if len(scores) != 2:
        raise ValueError(f"a duplicate pair has two matches, not {len(scores)}")
    return sum(scores) / 2.0


@dataclass(frozen=True)
class SprtState:
    """A test after some pairs: counts, LLR, verdict, estimate."""

    params: SprtParams
    counts: dict[float, int]
    llr: float
    verdict: Verdict
    decided_at: int | None
    """Pairs after which the verdict was reached (None while the test continues)."""

    @property
    def pairs(self) -> int:
        """Pairs counted."""
        return sum(self.counts.values())

    @property
    def estimate(self) -> Estimate:
        """Elo difference, interval, LOS of the pairs counted."""
        return estimate(self.counts)


def run_sprt(params: SprtParams, scores: Iterable[float]) -> SprtState:
    """The test over pair scores taken in order, checked after each; it stops at the first
    pair where the LLR leaves its bounds (later scores are not counted)."""
    counts: dict[float, int] = {x: 0 for x in PAIR_SCORES}
    value = 0.0
    for n, x in enumerate(scores, start=1):
        counts[x] = counts.get(x, 0) + 1
        value = llr(counts, params)
        verdict = params.verdict(value)
        if verdict is not Verdict.CONTINUE:
            return SprtState(params, counts, value, verdict, n)
    return SprtState(params, counts, value, Verdict.CONTINUE, None)


@dataclass
class PairTracker:
    """Gathers the matches of a test as they finish, in any order, and gives the
    duplicate pairs to the test in deal order.

    The test counts the longest run of whole pairs from deal 0 on, so that its verdict
    depends only on the seed, never on which match of parallel jobs finished first
    (or on how long a match lasted). A pair is **void** when one of its matches has no
    winner that play decided: a bot did not start (its team forfeited), or the match
    was aborted; it is skipped, not scored.
    """

    params: SprtParams
    max_pairs: int
    _matches: dict[int, dict[int, float | None]] = field(default_factory=dict)
    _next: int = 0
    counts: dict[float, int] = field(default_factory=lambda: {x: 0 for x in PAIR_SCORES})
    void: int = 0
    llr: float = 0.0
    verdict: Verdict = Verdict.CONTINUE
    decided_at: int | None = None
    """Deals taken when the verdict was reached."""

    def add(self, deal: int, twin: int, new_score: float | None) -> list[tuple[int, float | None]]:
        """One finished match: its deal, which twin (0 or 1), NEW's score (1 won, 0 lost;
        None: void). Returns the pairs this completed, in order, as (deal, pair score or
        None for a void pair); after the verdict nothing more is counted."""
        self._matches.setdefault(deal, {})[twin] = new_score
        taken: list[tuple[int, float | None]] = []
        while self.verdict is Verdict.CONTINUE and len(self._matches.get(self._next, {})) == 2:
            twins = self._matches.pop(self._next)
            a, b = twins[0], twins[1]
            score = None if a is None or b is None else pair_score((a, b))
            if score is None:
                self.void += 1
            else:
                self.counts[score] = self.counts.get(score, 0) + 1
                self.llr = llr(self.counts, self.params)
                self.verdict = self.params.verdict(self.llr)
            taken.append((self._next, score))
            self._next += 1
            if self.verdict is not Verdict.CONTINUE:
                self.decided_at = self._next
        return taken

    @property
    def pairs(self) -> int:
        """Pairs scored (void ones not included)."""
        return sum(self.counts.values())

    @property
    def deals_done(self) -> int:
        """Deals taken by the test, void ones included."""
        return self._next

    @property
    def exhausted(self) -> bool:
        """Every scheduled deal is taken and no verdict was reached."""
        return self.verdict is Verdict.CONTINUE and self._next >= self.max_pairs

    def estimate(self) -> Estimate:
        """Elo difference, interval and LOS of the pairs scored."""
        return estimate(self.counts)
