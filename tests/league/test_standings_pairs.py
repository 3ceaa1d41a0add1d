"""Standings of a duplicate league with the deal pair as the unit (issue 18, item 4): twins
that split narrow the intervals, twins that agree widen them, a perfect score is not
made more precise, a plain league is rated as before, and over seeded self-play
leagues the intervals hold the truth about 95% of the time."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.league.standings import EntryStanding, compute_standings


def twins(pairs: list[tuple[int, int]], a: str = "a", b: str = "b", *, deal0: int = 0) -> list[dict[str, Any]]:
    """Records of duplicate pairs between a and b: ``(w0, w1)``, a's wins in twin 0 (a at
    the even seats) and twin 1 (a at the odd seats) of each deal."""
    out = []
    for i, (w0, w1) in enumerate(pairs):
        d = deal0 + i
        out.append({"match_id": f"{a}--{b}--{2 * d:03d}", "team0": a, "team1": b, "deal": d,
                    "winner_team": 0 if w0 else 1})
        out.append({"match_id": f"{a}--{b}--{2 * d + 1:03d}", "team0": b, "team1": a, "deal": d,
                    "winner_team": 1 if w1 else 0})
    return out


def row(recs: list[dict[str, Any]], name: str = "a", names: str = "ab") -> EntryStanding:
    return next(e for e in compute_standings(list(names), {}, recs).entries if e.name == name)


def unpaired(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same matches, each as if dealt on its own."""
    return [{**r, "deal": 1000 + i} for i, r in enumerate(recs)]


def width(e: EntryStanding) -> float:
    return float(e.rating_high - e.rating_low)


def test_twins_that_split_narrow_the_interval() -> None:
    recs = twins([(1, 0), (0, 1)] * 10)
    paired, alone = row(recs), row(unpaired(recs))
    assert paired.rating == pytest.approx(alone.rating)  # the fit is the same; its precision is not
    assert width(paired) < 0.6 * width(alone)
    st = compute_standings(["a", "b"], {}, recs)
    assert st.deal_pairs == 20 and st.dispersion < 0.35
    assert st.to_json()["deal_pairs"] == 20


def test_twins_that_agree_widen_the_interval() -> None:
    recs = twins([(1, 1), (0, 0)] * 15)
    assert width(row(recs)) > 1.2 * width(row(unpaired(recs)))


def test_a_perfect_score_is_not_made_more_precise() -> None:
    """Every pair won twice: few splits were expected anyway, so nothing is learnt about
    the twins, and the interval stays as wide as independent matches give."""
    for n in (1, 3, 10, 30):
        recs = twins([(1, 1)] * n)
        assert width(row(recs)) >= 0.99 * width(row(unpaired(recs))), n


def test_few_pairs_are_not_taken_for_certainty() -> None:
    """Two pairs that split say little about the twins: the prior of one expected split
    (a uniform prior on how often twins split) reads them as splitting 3 times in 4, a
    dispersion of 0.5 and an interval about √0.5 as wide as independent matches give, not
    as twins that always split (no prior: dispersion 0.02, 48 Elo wide for 331)."""
    recs = twins([(1, 0), (0, 1)])
    assert compute_standings(["a", "b"], {}, recs).dispersion == pytest.approx(0.5)
    assert width(row(recs)) > 0.65 * width(row(unpaired(recs)))


def test_plain_league_and_records_without_deal_are_rated_as_independent() -> None:
    recs = twins([(1, 0), (1, 1), (0, 1)])
    plain = unpaired(recs)
    no_deal = [{k: v for k, v in r.items() if k != "deal"} for r in recs]
    a, b = compute_standings(["a", "b"], {}, plain), compute_standings(["a", "b"], {}, no_deal)
    assert a.to_json() == b.to_json()
    assert a.deal_pairs == 0 and a.dispersion == 1.0


def test_a_twin_without_a_winner_leaves_its_deal_unpaired() -> None:
    recs = twins([(1, 0)] * 6)
    recs[0]["winner_team"] = None  # aborted
    st = compute_standings(["a", "b"], {}, recs)
    assert st.deal_pairs == 5


def test_coverage_of_seeded_self_play_duplicate_leagues() -> None:
    """Four equal entries, 10 matches per pairing, twins splitting 3 times in 4 (luck
    deciding): the 95% intervals hold 1500 in 93–99% of 150 seeded leagues, and are
    narrower than those of the same matches counted as independent."""
    rng = random.Random(18)
    names = "abcd"
    held = total = 0
    narrower = 0
    for _ in range(150):
        recs: list[dict[str, Any]] = []
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                pairs = []
                for _d in range(5):
                    if rng.random() < 0.75:
                        pairs.append((1, 0) if rng.random() < 0.5 else (0, 1))
                    else:
                        pairs.append((1, 1) if rng.random() < 0.5 else (0, 0))
                recs += twins(pairs, x, y)
        paired = compute_standings(list(names), {}, recs).entries
        alone = {e.name: e for e in compute_standings(list(names), {}, unpaired(recs)).entries}
        for e in paired:
            held += e.rating_low <= 1500 <= e.rating_high
            total += 1
            narrower += width(e) < width(alone[e.name])
    assert 0.93 <= held / total <= 0.99, held / total
    assert narrower / total > 0.9
