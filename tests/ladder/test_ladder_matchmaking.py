"""Matchmaking: new versions first, close and uncertain pairs before settled ones; when a run stops."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from arena.cli.ladder import parse_until
from arena.ladder.matchmaking import NEW_MATCHES, Estimate, narrow_enough, plan_pairs, round_robin_pairs


def settled(rating: float, width: float = 120.0, matches: int = 60) -> Estimate:
    return Estimate(rating, rating - width / 2, rating + width / 2, matches)


def test_a_new_version_is_paired_first_against_close_opponents() -> None:
    field = {"a.v1": settled(1300), "b.v1": settled(1500), "c.v1": settled(1700), "d.v1": settled(1900),
             "b.v2": Estimate(1500, 1000, 2000, 0)}
    pairs = plan_pairs(field, NEW_MATCHES)
    assert all("b.v2" in p for p in pairs), pairs  # every unit until it has played its first matches
    opponents = Counter(a if b == "b.v2" else b for a, b in pairs)
    assert opponents.most_common(1)[0][0] in ("b.v1", "a.v1", "c.v1")  # not the far 1900
    assert "d.v1" not in opponents or opponents["d.v1"] < opponents.most_common(1)[0][1]


def test_a_settled_field_spends_its_matches_on_neighbours_still_in_doubt() -> None:
    # a < b far apart and settled; c and d close with wide intervals: their order is in doubt.
    field = {"a": settled(1100), "b": settled(1500), "c": settled(1700), "d": settled(1740), "e": settled(2100)}
    met = {("a", "b"): 40, ("b", "c"): 40, ("c", "d"): 4, ("d", "e"): 40, ("a", "e"): 40}
    pairs = plan_pairs(field, 8, 1, met)
    assert Counter(pairs).most_common(1)[0][0] == ("c", "d")
    assert ("a", "e") not in pairs and ("a", "b") not in pairs


def test_a_batch_spreads_over_the_pairs_in_doubt() -> None:
    field = {n: settled(1500 + 10 * i, 200) for i, n in enumerate("abcdef")}
    pairs = plan_pairs(field, 12, 1, {("a", "b"): 10, ("c", "d"): 10, ("e", "f"): 10})
    assert len(set(pairs)) >= 6  # not the same pair twelve times
    assert {("a", "b"), ("c", "d"), ("e", "f")}.isdisjoint(pairs[:3])  # those that never met first
    assert all(c <= 6 for c in Counter(x for p in pairs for x in p).values())


def test_limits() -> None:
    assert plan_pairs({"a": settled(1500)}, 4) == []
    assert narrow_enough({"a": settled(1500, 100), "b": settled(1600, 90)}, 100)
    assert not narrow_enough({"a": settled(1500, 100), "b": settled(1600, 140)}, 100)
    assert not narrow_enough({"a": Estimate(1500, 1490, 1510, 0)}, 100)  # never played
    assert round_robin_pairs(["a", "b", "c"], 2, 4) == [("b", "c"), ("a", "b"), ("a", "c"), ("b", "c")]


def test_until_accepts_a_duration_a_time_of_day_or_a_date() -> None:
    now = dt.datetime(2026, 12, 4, 22, 0).timestamp()
    assert parse_until("90m", now) == now + 5400 and parse_until("2d", now) == now + 2 * 86400
    assert parse_until("07:30", now) == dt.datetime(2026, 12, 5, 7, 30).timestamp()  # the next 07:30
    assert parse_until("23:00", now) == dt.datetime(2026, 12, 4, 23, 0).timestamp()
    assert parse_until("2026-12-06T08:00", now) == dt.datetime(2026, 12, 6, 8, 0).timestamp()
    for bad in ("soon", "25:00", "7h30"):
        with pytest.raises(ValueError):
            parse_until(bad, now)
