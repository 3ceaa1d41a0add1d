"""The ladder bench's real-bot fields (bench/ladder.py, bench/_rulebot_field.py): the
check that says whether a bank describes its field (each pair's luck against the gaps,
and how far the pairs are from one number per entry), and the entries' specs. The
figures of docs/ladder.md rest on both."""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from mus_core import Rules
from mus_sdk import Action, ActionKind, Bot, Observation

from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.referee.player import SyncAdapter

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import _rulebot_field as field  # noqa: E402
import ladder  # noqa: E402


def tally_of(p: dict[tuple[str, str], float], n: int, seed: int) -> ladder.Tally:
    """``n`` matches per pair, ``p[(a, b)]`` a's chance to win."""
    names = sorted({x for pair in p for x in pair})
    tally = ladder.Tally(names)
    rng = random.Random(seed)
    for (a, b), chance in p.items():
        for i in range(n):
            t0, t1, q = (a, b, chance) if i % 2 == 0 else (b, a, 1 - chance)
            tally.add(t0, t1, 0 if rng.random() < q else 1)
    return tally


def check(p: dict[tuple[str, str], float], n: int, seed: int = 1) -> dict[str, float]:
    tally = tally_of(p, n, seed)
    names = sorted(tally.index)
    fit = ladder.posterior_mode(names, tally)
    return ladder.bank_check(sorted(names, key=lambda e: -fit[e]), tally, fit)


def model(elos: dict[str, float]) -> dict[tuple[str, str], float]:
    return {(a, b): 1 / (1 + math.exp(-(elos[a] - elos[b]) / ladder.SCALE))
            for a in elos for b in elos if a < b}


def test_a_field_of_one_number_each_passes() -> None:
    got = check(model({"a": 0, "b": 60, "c": 120, "d": 200, "e": 330}), 2000)
    assert 0.2 < got["chi2_per_pair"] < 2.5, got
    assert got["tau_elo"] < 12, got
    # 2,000 matches per pair near 50-80%: about 2/sqrt(2000 p(1-p)) log-odds, 8-11 Elo.
    assert 7 < got["pair_sd_elo"] < 13, got


def test_a_small_bank_knows_its_pairs_worse() -> None:
    small = check(model({"a": 0, "b": 60, "c": 120}), 200)
    large = check(model({"a": 0, "b": 60, "c": 120}), 8000)
    assert small["pair_sd_elo"] > 5 * large["pair_sd_elo"], (small, large)


def test_a_non_transitive_field_fails() -> None:
    # Rock, paper, scissors with a fourth entry every one beats: no rating describes it.
    p = {("a", "b"): 0.8, ("b", "c"): 0.8, ("a", "c"): 0.2, ("a", "d"): 0.7, ("b", "d"): 0.7, ("c", "d"): 0.7}
    got = check(p, 2000)
    assert got["chi2_per_pair"] > 20 and got["tau_elo"] > 100, got


def test_specs() -> None:
    assert field.parse("n0.30") == ("rulebot", 0.3)
    assert field.parse("passive@0.2") == ("passive", 0.2)
    assert field.parse("trivial") == ("trivial", 0.0)
    with pytest.raises(ValueError, match="unknown bot kind 'bogus'"):
        field.parse("bogus@0.1")


def test_matches_replay() -> None:
    rules = {"target_points": 10, "games_to_win": 1}
    seeds = field.pair_seeds(1, "caller@0.1", "passive", 6)
    first = [field.play("caller@0.1", "passive", s, rules) for s in seeds]
    assert first == [field.play("caller@0.1", "passive", s, rules) for s in seeds]
    assert set(first) <= {0, 1}


def kinds_played(cls: type[Bot], seeds: list[int]) -> Counter[ActionKind]:
    """The kinds of action four ``cls`` bots chose in a match of each seed."""
    seen: Counter[ActionKind] = Counter()

    class Recorder(cls):  # type: ignore[valid-type,misc]
        def decide(self, obs: Observation) -> Action:
            action: Action = super().decide(obs)
            seen[action.kind] += 1
            return action

    for seed in seeds:
        players = [SyncAdapter(InProcessBot(Recorder())) for _ in range(4)]
        play_match(players, MatchConfig(rules=Rules(target_points=30, games_to_win=1), seed=seed, match_id="t"))
    return seen


def test_passive_never_bets_and_caller_never_declines() -> None:
    seeds = list(range(1, 5))
    rulebot = kinds_played(field.RuleBot, seeds)
    assert rulebot[ActionKind.ENVIDO] and rulebot[ActionKind.NO_QUIERO]  # what the variants take away
    passive = kinds_played(field.PassiveBot, seeds)
    assert not passive[ActionKind.ENVIDO] and not passive[ActionKind.ORDAGO] and passive[ActionKind.PASO]
    caller = kinds_played(field.CallerBot, seeds)
    assert not caller[ActionKind.NO_QUIERO] and not caller[ActionKind.NO_QUEREMOS] and caller[ActionKind.QUIERO]
