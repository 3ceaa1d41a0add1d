"""A field of bots of known strength playing real games: rulebot with noise, in-process.

Entry ``n0.30`` is rulebot (bots/rulebot) that, at each decision, plays a uniformly
random legal action with probability 0.30 (as bots/random does) and rulebot's action
otherwise: the more noise, the weaker (``n1.00`` is the random bot). Matches are played
by the arena's referee (:func:`arena.driver.match.play_match`) with the bots in this
process (:class:`arena.players.InProcessBot`, through the same message conversion as
over gRPC), no bot process and no network.

A **bank** of such matches is played once for every ordered pair of entries (each
seating, each match its own deal seed), on ``jobs`` processes; bench/ladder.py's trials
then draw each match they need from the bank of its pair and seating, with
replacement: the outcomes are those of real games (draws of the cards, the bots' real
edges and their non-transitivity, if any), at the cost of playing the bank once.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sdk"))

from mus_core import Rules  # noqa: E402
from mus_sdk import Action, Bot, MatchInfo, Observation  # noqa: E402

from arena.driver.match import MatchConfig, play_match  # noqa: E402
from arena.players.inprocess import InProcessBot  # noqa: E402
from arena.referee.player import SyncAdapter  # noqa: E402

NOISES = (0.0, 0.15, 0.3, 0.45, 0.6, 0.8)
"""The default field: six entries, from rulebot itself to one random decision in 1.25."""


def _rulebot_class() -> type[Bot]:
    path = ROOT / "bots" / "rulebot" / "bot.py"
    spec = importlib.util.spec_from_file_location("bench_rulebot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls: type[Bot] = module.RuleBot
    return cls


RuleBot = _rulebot_class()


class NoisyRuleBot(RuleBot):  # type: ignore[valid-type,misc]
    """rulebot, with a random legal action instead of its own with probability ``noise``
    (its draws seeded by the match and the seat: a match replays identically)."""

    def __init__(self, noise: float) -> None:
        super().__init__()
        self.noise = noise
        self.rng = random.Random(0)

    def on_match_start(self, match: MatchInfo) -> None:
        super().on_match_start(match)
        self.rng = random.Random(f"{self.noise}:{match.match_id}:{match.seat}")

    def decide(self, obs: Observation) -> Action:
        if self.rng.random() < self.noise:
            return obs.legal_actions.sample(self.rng)
        action: Action = super().decide(obs)
        return action


def name(noise: float) -> str:
    """The entry of a noise level."""
    return f"n{noise:.2f}"


def play(noise0: float, noise1: float, seed: int, rules: dict[str, int]) -> int:
    """The winning team of one match: team 0 (seats 0 and 2) ``noise0``, team 1 ``noise1``."""
    players = [SyncAdapter(InProcessBot(NoisyRuleBot(noise0 if seat % 2 == 0 else noise1))) for seat in range(4)]
    result = play_match(players, MatchConfig(rules=Rules(**rules), seed=seed, match_id=f"b{seed}"))
    return int(result.winner_team) if result.winner_team is not None else -1


def _play_many(args: tuple[float, float, list[int], dict[str, int]]) -> list[int]:
    noise0, noise1, seeds, rules = args
    return [play(noise0, noise1, s, rules) for s in seeds]


def pair_seeds(seed: int, a: float, b: float, n: int) -> list[int]:
    """The deal seeds of (a, b)'s matches, a as team 0: the pair's own, whatever the field."""
    rng = random.Random(f"{seed}:{name(a)}|{name(b)}")
    return [rng.getrandbits(63) for _ in range(n)]


def play_bank(noises: tuple[float, ...], per_seating: int, seed: int, jobs: int, rules: dict[str, int],
              known: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """``per_seating`` matches of every ordered pair (a, b), a as team 0: their winners
    (those of ``known``, a bank of the same seed, rules and size, are not played again)."""
    known = known or {}
    pairs = [(a, b) for a in noises for b in noises if a != b]
    work = [(a, b, pair_seeds(seed, a, b, per_seating), rules) for a, b in pairs
            if f"{name(a)}|{name(b)}" not in known]
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        winners = list(pool.map(_play_many, work))
    games = {**known, **{f"{name(a)}|{name(b)}": w for (a, b, _, _), w in zip(work, winners, strict=True)}}
    return {"format": 2, "noises": list(noises), "per_seating": per_seating, "seed": seed, "rules": rules,
            "games": {f"{name(a)}|{name(b)}": games[f"{name(a)}|{name(b)}"] for a, b in pairs}}


def load_or_play(path: Path | None, noises: tuple[float, ...], per_seating: int, seed: int, jobs: int,
                 rules: dict[str, int]) -> dict[str, Any]:
    """The bank asked for: the pairs the bank in ``path`` has (of the same seed, rules and
    size), the others played; written back to ``path``."""
    known: dict[str, list[int]] = {}
    if path is not None and path.is_file():
        old: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if (old.get("format"), old["per_seating"], old["seed"], old["rules"]) == (2, per_seating, seed, rules):
            known = old["games"]
    bank = play_bank(noises, per_seating, seed, jobs, rules, known)
    if path is not None:  # every pair played so far, in this field or not: the next field reuses them
        path.write_text(json.dumps({**bank, "games": {**known, **bank["games"]}}), encoding="utf-8")
    return bank


def win_rates(bank: dict[str, Any]) -> dict[tuple[str, str], float]:
    """Per unordered pair (stronger by noise first), the stronger one's share of wins, both seatings."""
    noises = sorted(bank["noises"])
    out = {}
    for i, a in enumerate(noises):
        for b in noises[i + 1:]:
            ab, ba = bank["games"][f"{name(a)}|{name(b)}"], bank["games"][f"{name(b)}|{name(a)}"]
            wins = sum(w == 0 for w in ab) + sum(w == 1 for w in ba)
            out[(name(a), name(b))] = wins / (len(ab) + len(ba))
    return out
