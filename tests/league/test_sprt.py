"""The SPRT of ``mus sprt`` (arena/league/sprt.py), validated by simulation.

Pair outcomes are drawn from a trinomial with a given Elo and a given correlation of the
twins (negative: twins split, as when card luck decides; positive: they agree, as
when one bot wins some deals whichever side it plays). Over 1,000 simulated tests at
elo0 and 1,000 at elo1 per setting, the measured error rates must stay within 1.5× of
alpha and beta, and the test must not be trivially conservative (it does decide both
ways). Seeded; the LLR of each count triple is memoized, as every test walks the same
lattice.
"""

from __future__ import annotations

import functools
import math
import random
import re
from pathlib import Path

import pytest

from arena.league.sprt import (
    PairTracker,
    SprtParams,
    Verdict,
    elo_to_score,
    estimate,
    llr,
    pair_score,
    run_sprt,
    score_to_elo,
)


def pair_distribution(elo: float, rho: float) -> tuple[float, float, float]:
    """P(pair score 0, ½, 1) when NEW wins a match with probability L(elo) and the twins'
    results have correlation ``rho``; the mean pair score is L(elo) whatever ``rho``."""
    p = elo_to_score(elo)
    c = rho * p * (1 - p)
    probs = ((1 - p) ** 2 + c, 2 * p * (1 - p) - 2 * c, p * p + c)
    assert all(q >= 0 for q in probs), (elo, rho)
    return probs


def simulate(params: SprtParams, elo: float, rho: float, tests: int, seed: int) -> tuple[float, float]:
    """The fraction of ``tests`` simulated SPRTs that accept H1, and their mean length in pairs."""
    accepted, length, _ = simulate_capped(params, elo, rho, tests, seed, max_pairs=None)
    return accepted, length


def simulate_capped(params: SprtParams, elo: float, rho: float, tests: int, seed: int,
                    max_pairs: int | None) -> tuple[float, float, float]:
    """As :func:`simulate`, each test stopped without a verdict after ``max_pairs`` pairs
    (as ``mus sprt --max-pairs``; None: never): the fraction that accept H1, the mean
    length in pairs (a stopped test counts its ``max_pairs``), the fraction stopped."""
    rng = random.Random(seed)
    p0, p1, _ = pair_distribution(elo, rho)

    @functools.cache
    def llr_of(a: int, b: int, c: int) -> float:
        return llr({0.0: a, 0.5: b, 1.0: c}, params)

    accepted = 0
    length = 0
    capped = 0
    cap = math.inf if max_pairs is None else max_pairs
    for _ in range(tests):
        k = [0, 0, 0]
        n = 0
        while True:
            u = rng.random()
            k[0 if u < p0 else 1 if u < p0 + p1 else 2] += 1
            n += 1
            verdict = params.verdict(llr_of(*k))
            if verdict is not Verdict.CONTINUE or n >= cap:
                break
        accepted += verdict is Verdict.H1
        capped += verdict is Verdict.CONTINUE
        length += n
    return accepted / tests, length / tests, capped / tests


@pytest.mark.parametrize(("elo0", "elo1", "alpha", "beta", "rho"), [
    (0.0, 80.0, 0.05, 0.05, 0.0),      # independent twins
    (0.0, 60.0, 0.05, 0.05, -0.5),     # twins that split (luck decides): shorter tests
    (-20.0, 60.0, 0.05, 0.10, 0.4),    # twins that agree: a test counting matches as independent would err more
])
def test_error_rates_by_simulation(elo0: float, elo1: float, alpha: float, beta: float, rho: float) -> None:
    params = SprtParams(elo0, elo1, alpha, beta)
    false_positive, len0 = simulate(params, elo0, rho, 1000, seed=11)
    true_positive, len1 = simulate(params, elo1, rho, 1000, seed=12)
    false_negative = 1 - true_positive
    assert false_positive <= 1.5 * alpha, (false_positive, alpha)
    assert false_negative <= 1.5 * beta, (false_negative, beta)
    # Not trivially safe: the errors it makes are of the size asked for, not far below.
    assert false_positive >= alpha / 3 and false_negative >= beta / 3, (false_positive, false_negative)
    assert len0 > 5 and len1 > 5


def test_split_twins_make_shorter_tests() -> None:
    """What duplicate buys: at the same Elo, twins that split need fewer pairs."""
    params = SprtParams(0.0, 80.0)
    _, independent = simulate(params, 40.0, 0.0, 200, seed=3)
    _, split = simulate(params, 40.0, -0.6, 200, seed=3)
    assert split < 0.7 * independent, (split, independent)


def test_llr_signs_and_bounds() -> None:
    params = SprtParams(0.0, 20.0, 0.05, 0.05)
    assert params.lower == pytest.approx(math.log(0.05 / 0.95))
    assert params.upper == pytest.approx(math.log(0.95 / 0.05))
    assert llr({0.0: 10, 0.5: 30, 1.0: 40}, params) > 0  # NEW scores 0.69: for H1
    assert llr({0.0: 40, 0.5: 30, 1.0: 10}, params) < 0
    assert llr({}, params) == pytest.approx(0.0, abs=1e-3)  # nothing seen, nothing said
    # Halfway between the hypotheses' scores the evidence is balanced.
    mid = elo_to_score(10.0)
    n = 1000
    counts = {1.0: n * mid, 0.0: n * (1 - mid)}
    assert abs(llr(counts, params)) < 0.05


def test_run_stops_at_first_crossing() -> None:
    params = SprtParams(0.0, 200.0, 0.05, 0.05)
    state = run_sprt(params, [1.0] * 50)
    assert state.verdict is Verdict.H1
    assert state.decided_at is not None and state.decided_at == state.pairs < 50
    assert state.llr >= params.upper
    state0 = run_sprt(params, [0.0] * 50)
    assert state0.verdict is Verdict.H0
    assert run_sprt(params, [0.5, 0.5]).verdict is Verdict.CONTINUE


def test_estimate_is_honest_at_a_perfect_score() -> None:
    est = estimate({1.0: 3})
    assert math.isfinite(est.elo) and est.elo > 0
    assert est.elo_low < 50 and 400 < est.elo_high < math.inf  # three pairs won prove little
    assert 0.5 < est.los < 1.0
    big = estimate({1.0: 300, 0.5: 300, 0.0: 300})
    assert big.elo == pytest.approx(0.0, abs=1e-9)
    assert -40 < big.elo_low < 0 < big.elo_high < 40
    assert big.los == pytest.approx(0.5)


def test_elo_score_round_trip_and_pair_score() -> None:
    for elo in (-300.0, -5.0, 0.0, 17.0, 400.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert elo_to_score(400.0) == pytest.approx(10 / 11)
    assert pair_score([1, 0]) == 0.5
    with pytest.raises(ValueError):
        pair_score([1])


def test_params_checked() -> None:
    for bad in (SprtParams(5, 5), SprtParams(0, 10, 0.0, 0.05), SprtParams(0, 10, 0.6, 0.5), SprtParams(0, math.inf)):
        with pytest.raises(ValueError):
            bad.check()
    SprtParams().check()


def test_tracker_takes_pairs_in_deal_order_whatever_finishes_first() -> None:
    """The verdict depends on the seed only: matches finishing in another order (parallel
    jobs) give the same pairs, counts and decision point; void pairs are skipped."""
    params = SprtParams(0.0, 150.0, 0.05, 0.05)
    rng = random.Random(4)
    matches = []
    for deal in range(40):
        if deal == 3:
            matches += [(deal, 0, None), (deal, 1, 1.0)]  # a bot did not start: void
        else:
            matches += [(deal, twin, float(rng.random() < 0.75)) for twin in (0, 1)]

    def run(order: list[tuple[int, int, float | None]]) -> tuple[dict[float, int], float, int | None, int]:
        tracker = PairTracker(params, 40)
        for deal, twin, score in order:
            tracker.add(deal, twin, score)
        return dict(tracker.counts), tracker.llr, tracker.decided_at, tracker.void

    in_order = run(matches)
    assert in_order[2] is not None and in_order[3] == 1  # decided, one void pair skipped
    shuffled = list(matches)
    random.Random(5).shuffle(shuffled)
    assert run(shuffled) == in_order
    # A pair waits for its twin: the second twin of deal 0 missing, nothing is counted.
    tracker = PairTracker(params, 40)
    assert tracker.add(1, 0, 1.0) == [] and tracker.add(1, 1, 1.0) == [] and tracker.add(0, 0, 1.0) == []
    assert tracker.add(0, 1, 0.0) == [(0, 0.5), (1, 1.0)]
    assert not tracker.exhausted


def test_documented_defaults_at_elo_10_include_the_cap() -> None:
    """docs/league.md's table at the defaults (elo1 = 20, at most 3,000 pairs): at a true
    Elo of 10, halfway between the hypotheses, tests are longest and some reach the cap
    with no verdict. The row quoted there must agree with a seeded simulation that stops
    at the cap, as ``mus sprt`` does (it quoted 1,415 pairs, from tests never stopped),
    and the share of tests stopped at the cap must be said."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "league.md").read_text()
    row = re.search(r"^\| 10 \| ([0-9.]+), ([0-9,]+), ([0-9.]+)% at the cap \|", doc, re.M)
    assert row, "docs/league.md: the elo 10 row must give P(H1), mean pairs and the share stopped at the cap"
    p_h1, pairs, capped = float(row[1]), int(row[2].replace(",", "")), float(row[3]) / 100
    tests = 150
    sim_h1, sim_pairs, sim_capped = simulate_capped(SprtParams(), 10.0, 0.0, tests, seed=10, max_pairs=3000)
    # Tolerances: about 3 standard errors of a 150-test simulation (lengths vary by ~900 pairs).
    assert abs(sim_pairs - pairs) < 3 * 900 / math.sqrt(tests), (sim_pairs, pairs)
    assert abs(sim_capped - capped) < 3 * math.sqrt(0.08 * 0.92 / tests), (sim_capped, capped)
    assert abs(sim_h1 - p_h1) < 3 * math.sqrt(0.25 / tests), (sim_h1, p_h1)
