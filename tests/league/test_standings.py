"""Unit tests of the standings (arena/league/standings.py) and of the schedule
(arena/league/schedule.py)."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.league.config import Entry, LeagueConfig, LeagueConfigError, load_league
from arena.league.schedule import derive_seed, schedule
from arena.league.standings import SCALE, Match, compute_standings, fit_ratings
from arena.remote.manifest import BotAddress

# --- fit_ratings -------------------------------------------------------------------------------


def games(a: str, b: str, wins: int, losses: int) -> list[Match]:
    """``wins`` matches won and ``losses`` lost by a team of two ``a`` against two ``b``."""
    won: Match = ((a, a), (b, b), 1.0)
    lost: Match = ((a, a), (b, b), 0.0)
    return [won] * wins + [lost] * losses


def test_stronger_entry_gets_higher_rating() -> None:
    r = fit_ratings(["a", "b"], games("a", "b", 8, 2))
    assert r["a"] > r["b"]
    r3 = fit_ratings(["a", "b", "c"], games("a", "b", 7, 3) + games("b", "c", 7, 3) + games("a", "c", 8, 2))
    assert r3["a"] > r3["b"] > r3["c"]


def test_symmetric_results_give_equal_ratings() -> None:
    r = fit_ratings(["a", "b"], games("a", "b", 5, 5))
    assert r["a"] == pytest.approx(r["b"], abs=1e-6)
    r3 = fit_ratings(["a", "b", "c"], games("a", "b", 3, 3) + games("b", "c", 2, 2) + games("c", "a", 4, 4))
    assert max(r3.values()) - min(r3.values()) == pytest.approx(0, abs=1e-6)


def test_unplayed_and_swapped_sides_do_not_matter() -> None:
    """Winning as team 0 or as team 1 counts the same."""
    as_team0 = fit_ratings(["a", "b"], games("a", "b", 6, 2))
    as_team1 = fit_ratings(["a", "b"], [(("b", "b"), ("a", "a"), 1.0 - s) for *_, s in games("a", "b", 6, 2)])
    assert as_team0 == pytest.approx(as_team1, abs=1e-9)


def test_ratings_follow_the_elo_scale() -> None:
    """With many matches (the prior negligible), winning 3 of 4 is 400·log10(3) ≈ 191 points."""
    r = fit_ratings(["a", "b"], games("a", "b", 300, 100))
    assert (r["a"] - r["b"]) * SCALE == pytest.approx(400 * math.log10(3), abs=2.0)


def test_mixed_pairs() -> None:
    """A mixed team rates as the mean of its members: a always beats c, c always beats b,
    and the pair (a, b) is even with c, so a > c > b."""
    matches = games("a", "c", 9, 1) + games("b", "c", 1, 9) + [(("a", "b"), ("c", "c"), s) for s in (1.0, 0.0) * 5]
    r = fit_ratings(["a", "b", "c"], matches)
    assert r["a"] > r["c"] > r["b"]
    assert (r["a"] + r["b"]) / 2 == pytest.approx(r["c"], abs=0.35)


def test_undefeated_entry_has_a_finite_rating() -> None:
    r = fit_ratings(["a", "b"], games("a", "b", 30, 0))
    assert all(math.isfinite(v) for v in r.values())
    assert r["a"] > r["b"]
    st = compute_standings(["a", "b"], {"a": ("a", "a"), "b": ("b", "b")}, results("a", "b", 30, 0), seed=1)
    for e in st.entries:
        assert all(math.isfinite(x) for x in (e.rating, e.rating_low, e.rating_high))


# --- compute_standings -------------------------------------------------------------------------


def result(team0: str, team1: str, winner: int | None, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"team0": team0, "team1": team1, "winner_team": winner, "games_won": [0, 0],
                           "stones": [0, 0], "hands": 0, "faults": []}
    rec.update(extra)
    return rec


def results(a: str, b: str, wins: int, losses: int) -> list[dict[str, Any]]:
    """Matches of a against b, seats alternating as in a league."""
    out = []
    for i, won in enumerate([True] * wins + [False] * losses):
        t0, t1 = (a, b) if i % 2 == 0 else (b, a)
        out.append(result(t0, t1, (0 if t0 == a else 1) if won else (1 if t0 == a else 0)))
    return out


PLAIN = {n: (n, n) for n in "abc"}


def test_counts_stones_faults_and_crosstable() -> None:
    recs = [
        result("a", "b", 0, games_won=[2, 1], stones=[95, 70], hands=12, faults=[{"seat": 1}, {"seat": 3}]),
        result("b", "a", 0, games_won=[2, 0], stones=[80, 20], hands=8),
        result("a", "c", None, stones=[5, 0], hands=1, faults=[{"seat": 0}]),
        result("c", "b", 1, games_won=[0, 2], stones=[10, 80], hands=6),
    ]
    st = compute_standings(["a", "b", "c"], PLAIN, recs, seed=3)
    row = {e.name: e for e in st.entries}
    a, b, c = row["a"], row["b"], row["c"]
    assert (a.matches, a.wins, a.losses, a.aborted) == (3, 1, 1, 1)
    assert (b.matches, b.wins, b.losses, b.aborted) == (3, 2, 1, 0)
    assert (c.matches, c.wins, c.losses, c.aborted) == (2, 0, 1, 1)
    assert (a.games_won, a.games_lost) == (2, 3)
    assert (a.stones_for, a.stones_against, a.hands) == (95 + 20 + 5, 70 + 80 + 0, 21)
    assert a.stones_per_hand == pytest.approx((120 - 150) / 21)
    assert (a.faults, b.faults, c.faults) == (1, 2, 0)
    assert st.cross == {"a": {"b": 1, "c": 0}, "b": {"a": 1, "c": 1}, "c": {"a": 0, "b": 0}}
    assert [e.name for e in st.entries] == sorted(row, key=lambda n: -row[n].rating)


def test_no_results() -> None:
    """Nothing played: every entry at 1500, with the prior's interval (two virtual wins and
    two losses each against a 1500 opponent: ±250 with two entries), wider than any
    interval after one decided match."""
    st = compute_standings(["a", "b"], PLAIN, [], seed=0)
    one = compute_standings(["a", "b"], PLAIN, results("a", "b", 1, 0), seed=0)
    widest_after_one = max(e.rating_high - e.rating_low for e in one.entries)
    for e in st.entries:
        assert e.rating == 1500 and e.matches == 0
        assert e.rating_low < 1260 and e.rating_high > 1740
        assert e.rating_high - 1500 == pytest.approx(1500 - e.rating_low)
        assert e.rating_high - e.rating_low > widest_after_one


def test_confidence_interval_contains_the_rating() -> None:
    rng = random.Random(5)
    for trial in range(15):
        names = ["a", "b", "c"][: rng.choice([2, 3])]
        recs = []
        for _ in range(rng.randrange(1, 14)):
            t0, t1 = rng.sample(names, 2)
            recs.append(result(t0, t1, rng.choice([0, 1, 0, 1, None])))
        st = compute_standings(names, PLAIN, recs, seed=trial)
        for e in st.entries:
            assert e.rating_low <= e.rating <= e.rating_high, (trial, e)


def test_stronger_entry_ranks_first_with_its_interval_above() -> None:
    recs = results("a", "b", 9, 1) + results("b", "c", 9, 1) + results("a", "c", 10, 0)
    st = compute_standings(["c", "b", "a"], PLAIN, recs, seed=9)
    assert [e.name for e in st.entries] == ["a", "b", "c"]
    row = {e.name: e for e in st.entries}
    assert row["a"].rating_low > row["c"].rating_high


def test_mixed_pair_entry_is_rated_on_its_own_results() -> None:
    """A mixed pair of the league's only two bots was always 1500 (the mean of two ratings
    centred on 1500): an undefeated pair must rank first, a winless one last."""
    members = {"a": ("a", "a"), "b": ("b", "b"), "ab": ("a", "b")}
    recs = results("a", "b", 6, 2) + results("ab", "b", 8, 0) + results("ab", "a", 8, 0)
    st = compute_standings(["a", "b", "ab"], members, recs, seed=2)
    assert [e.name for e in st.entries] == ["ab", "a", "b"]
    row = {e.name: e for e in st.entries}
    assert row["ab"].rating_low > 1500
    assert row["ab"].matches == 16
    losing = results("ab", "b", 0, 8) + results("ab", "a", 0, 8) + results("a", "b", 4, 4)
    assert compute_standings(["a", "b", "ab"], members, losing, seed=2).entries[-1].name == "ab"


def test_standings_do_not_depend_on_the_order_of_results() -> None:
    """results.jsonl lists matches in the order they finished, which varies with --jobs and
    with --resume; the same matches must give the same standings (the bootstrap interval
    included), or the same seed does not reproduce the league."""
    recs = results("a", "b", 5, 3) + results("b", "c", 4, 4) + results("a", "c", 6, 2)
    base = compute_standings(["a", "b", "c"], PLAIN, recs, seed=7).to_json()
    shuffled = list(recs)
    random.Random(1).shuffle(shuffled)
    for order in (list(reversed(recs)), shuffled):
        assert compute_standings(["a", "b", "c"], PLAIN, order, seed=7).to_json() == base


def test_standings_are_reproducible() -> None:
    recs = results("a", "b", 5, 3) + results("b", "c", 4, 4)
    one = compute_standings(["a", "b", "c"], PLAIN, recs, seed=7)
    assert one.to_json() == compute_standings(["a", "b", "c"], PLAIN, recs, seed=7).to_json()
    assert one.to_csv() == compute_standings(["a", "b", "c"], PLAIN, recs, seed=7).to_csv()


# --- schedule ----------------------------------------------------------------------------------


def league(names: str = "abcd", *, seed: int = 1, per_pairing: int = 2, duplicate: bool = False) -> LeagueConfig:
    entries = tuple(Entry(n, spec=BotAddress(n, "127.0.0.1:1")) for n in names)
    return LeagueConfig(name="t", entries=entries, seed=seed, matches_per_pairing=per_pairing, duplicate=duplicate)


@pytest.mark.parametrize("duplicate", [False, True])
@pytest.mark.parametrize("per_pairing", [2, 4])
def test_round_robin_covers_every_pair(per_pairing: int, duplicate: bool) -> None:
    cfg = league("abcd", per_pairing=per_pairing, duplicate=duplicate)
    ms = schedule(cfg)
    assert len(ms) == 6 * per_pairing
    assert len({m.match_id for m in ms}) == len(ms)
    pairs = Counter(frozenset((m.team0, m.team1)) for m in ms)
    assert pairs == {frozenset(p): per_pairing for p in itertools.combinations("abcd", 2)}
    assert all(m.team0 != m.team1 for m in ms)


def test_seats_swapped_between_consecutive_matches() -> None:
    ms = schedule(league("abc", per_pairing=4))
    for a, b in itertools.combinations("abc", 2):
        mine = [m for m in ms if {m.team0, m.team1} == {a, b}]
        for m0, m1 in itertools.pairwise(mine):
            assert (m0.team0, m0.team1) == (m1.team1, m1.team0)
        assert Counter(m.team0 for m in mine) == {a: 2, b: 2}


def test_duplicate_seeds() -> None:
    """Matches 2d and 2d+1 of a pairing share deal d's seed; deal d has one seed in every
    pairing; different deals have different seeds."""
    ms = schedule(league("abcd", per_pairing=6, duplicate=True))
    by_pair: dict[frozenset[str], list[Any]] = {}
    for m in ms:
        by_pair.setdefault(frozenset((m.team0, m.team1)), []).append(m)
    for mine in by_pair.values():
        for d in range(3):
            m0, m1 = mine[2 * d], mine[2 * d + 1]
            assert m0.seed == m1.seed and m0.deal == m1.deal == d
            assert (m0.team0, m0.team1) == (m1.team1, m1.team0)
    seeds = {d: {m.seed for m in ms if m.deal == d} for d in range(3)}
    assert all(len(s) == 1 for s in seeds.values())
    assert len(set.union(*seeds.values())) == 3


def test_non_duplicate_seeds_all_differ() -> None:
    ms = schedule(league("abcd", per_pairing=4))
    assert len({m.seed for m in ms}) == len(ms)


def test_league_seed_changes_every_deal() -> None:
    for duplicate in (False, True):
        one = schedule(league(seed=1, duplicate=duplicate))
        two = schedule(league(seed=2, duplicate=duplicate))
        assert [m.match_id for m in one] == [m.match_id for m in two]
        assert all(x.seed != y.seed for x, y in zip(one, two, strict=True))
        assert schedule(league(seed=1, duplicate=duplicate)) == one


def test_derive_seed_is_stable() -> None:
    """Fixed values: a league must reproduce across runs, machines and Python versions
    (no hash randomisation). The values are those of the documented derivation (BLAKE2b
    keyed with the league seed's 32 bytes, over the label, 16 bytes), computed here
    again; the literal pins deal 0 of seed 2026 (the demo league's seed until it drew a secret)."""

    def documented(seed: int, *parts: object) -> int:
        label = ":".join(str(p) for p in parts).encode()
        return int.from_bytes(hashlib.blake2b(label, key=seed.to_bytes(32, "big"), digest_size=16).digest(), "big")

    assert derive_seed(2026, "deal", 0) == 231037437566122360496300104224530825274
    for seed, parts in ((2026, ("deal", 0)), (11, ("deal", 0)), (0, ("pair", "a", "b", 0)), (2**256 - 1, ("deal", 3))):
        assert derive_seed(seed, *parts) == documented(seed, *parts)
    values = {derive_seed(s, "deal", d) for s in range(20) for d in range(20)}
    assert len(values) == 400
    assert all(0 <= v < 2**128 for v in values)
    assert max(values) >= 2**120  # 128-bit seeds, not 63-bit ones


@pytest.mark.parametrize("bad", [-1, 2**256, True])
def test_derive_seed_refuses_non_seeds(bad: int) -> None:
    with pytest.raises(ValueError, match="league seed must be"):
        derive_seed(bad, "deal", 0)


def test_schedule_needs_a_seed_or_the_secret() -> None:
    """A league file without a seed gets its match seeds from the secret drawn for the run."""
    cfg = LeagueConfig(name="t", entries=league().entries)
    with pytest.raises(ValueError, match="no seed"):
        schedule(cfg)
    assert schedule(cfg, 5) == schedule(league(seed=5))


def test_duplicate_with_odd_matches_per_pairing_is_rejected(tmp_path: Path) -> None:
    """Duplicate mode plays every deal twice, teams exchanged; with an odd number of matches
    per pairing the last deal would be played once, so luck would not cancel. The league
    file should be refused (field matches_per_pairing)."""
    bots = Path(__file__).resolve().parents[2] / "bots"
    path = tmp_path / "odd.toml"
    path.write_text(
        'name = "odd"\nmatches_per_pairing = 3\nduplicate = true\n\n'
        f'[[entry]]\nname = "a"\nbot = "{bots / "random"}"\n\n[[entry]]\nname = "b"\nbot = "{bots / "rulebot"}"\n'
    )
    with pytest.raises(LeagueConfigError, match="matches_per_pairing"):
        load_league(path)
