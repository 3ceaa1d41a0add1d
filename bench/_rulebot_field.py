"""A field of bots of known strength playing real games, in-process.

An entry is named by its spec: ``n0.30`` is rulebot (bots/rulebot) that, at each
decision, plays a uniformly random legal action with probability 0.30 (as bots/random
does) and rulebot's action otherwise: the more noise, the weaker (``n1.00`` is the
random bot). ``KIND`` or ``KIND@NOISE`` names a bot of another kind, with that noise:

* ``rulebot``: as ``n0.00``;
* ``trivial``: bench/bots/trivial (cuts the mus, passes, declines every bet);
* ``learned``: bots/learned (the policy of ``python -m mus_rl.train``, greedy);
* ``passive``: rulebot that never bets: its envidos and órdagos become paso, or quiero
  when answering;
* ``caller``: rulebot that never declines a bet: its no-quiero becomes quiero.

Matches are played by the arena's referee (:func:`arena.driver.match.play_match`) with
the bots in this process (:class:`arena.players.InProcessBot`, through the same message
conversion as over gRPC), no bot process and no network.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sdk"))

from mus_core import Rules  # noqa: E402
from mus_sdk import Action, ActionKind, Bot, HandResult, MatchEnd, MatchInfo, Observation  # noqa: E402

from arena.driver.match import MatchConfig, play_match  # noqa: E402
from arena.players.inprocess import InProcessBot  # noqa: E402
from arena.referee.player import SyncAdapter  # noqa: E402

NOISES = (0.0, 0.1, 0.2, 0.3, 0.45, 0.6)
"""The default field: six entries, from rulebot itself to one random decision in 1.7
(more noise barely weakens it: ``n0.60`` against the random bot wins 52%)."""


def _load(path: Path, attribute: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"bench_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attribute)


RuleBot: type[Bot] = _load(ROOT / "bots" / "rulebot" / "bot.py", "RuleBot")
_BETS = (ActionKind.ENVIDO, ActionKind.ORDAGO)
_DECLINES = {ActionKind.NO_QUIERO: ActionKind.QUIERO, ActionKind.NO_QUEREMOS: ActionKind.QUEREMOS}


class PassiveBot(RuleBot):  # type: ignore[valid-type,misc]
    """rulebot that never bets: paso where it would open, quiero where it would raise."""

    def decide(self, obs: Observation) -> Action:
        action: Action = super().decide(obs)
        if action.kind in _BETS:
            for kind in (ActionKind.PASO, ActionKind.QUIERO, ActionKind.QUEREMOS):
                if obs.legal_actions.can(kind):
                    return _fixed(obs, kind)
        return action


class CallerBot(RuleBot):  # type: ignore[valid-type,misc]
    """rulebot that never declines a bet."""

    def decide(self, obs: Observation) -> Action:
        action: Action = super().decide(obs)
        accept = _DECLINES.get(action.kind)
        return _fixed(obs, accept) if accept is not None and obs.legal_actions.can(accept) else action


def _fixed(obs: Observation, kind: ActionKind) -> Action:
    return next(a for a in obs.legal_actions.fixed if a.kind is kind)


def _learned() -> Bot:
    from mus_rl.policy import LinearPolicy, PolicyBot

    return PolicyBot(LinearPolicy.load(ROOT / "bots" / "learned" / "weights.npz"))


KINDS: dict[str, Callable[[], Bot]] = {
    "rulebot": RuleBot,
    "trivial": _load(ROOT / "bench" / "bots" / "trivial" / "bot.py", "TrivialBot"),
    "learned": _learned,
    "passive": PassiveBot,
    "caller": CallerBot,
}


class Noisy(Bot):
    """``bot``, with a random legal action instead of its own with probability ``noise``
    (its draws seeded by ``key``, the match and the seat: a match replays identically)."""

    def __init__(self, bot: Bot, noise: float, key: str) -> None:
        self.bot = bot
        self.noise = noise
        self.key = key
        self.rng = random.Random(0)

    def on_match_start(self, match: MatchInfo) -> None:
        self.bot.on_match_start(match)
        self.rng = random.Random(f"{self.key}:{match.match_id}:{match.seat}")

    def decide(self, obs: Observation) -> Action:
        if self.rng.random() < self.noise:
            return obs.legal_actions.sample(self.rng)
        action: Action = self.bot.decide(obs)
        return action

    def on_hand_end(self, summary: HandResult) -> None:
        self.bot.on_hand_end(summary)

    def on_match_end(self, result: MatchEnd) -> None:
        self.bot.on_match_end(result)


def name(noise: float) -> str:
    """The entry of a noise level: rulebot with that noise."""
    return f"n{noise:.2f}"


def parse(spec: str) -> tuple[str, float]:
    """An entry's kind and noise (``n0.30``: rulebot, 0.30; ``KIND@NOISE``; ``KIND``: no noise)."""
    if spec.startswith("n") and spec[1:].replace(".", "", 1).isdigit():
        return "rulebot", float(spec[1:])
    kind, _, noise = spec.partition("@")
    if kind not in KINDS:
        raise ValueError(f"unknown bot kind {kind!r} in {spec!r}: one of {', '.join(KINDS)}")
    return kind, float(noise) if noise else 0.0


def make_bot(spec: str) -> Bot:
    """The bot of an entry."""
    kind, noise = parse(spec)
    bot = KINDS[kind]()
    if not noise:
        return bot
    # rulebot's noise draws are keyed by the noise alone, as banks played before other kinds were.
    return Noisy(bot, noise, str(noise) if kind == "rulebot" else spec)


def play(spec0: str, spec1: str, seed: int, rules: dict[str, int]) -> int:
    """The winning team of one match: team 0 (seats 0 and 2) ``spec0``, team 1 ``spec1``."""
    players = [SyncAdapter(InProcessBot(make_bot(spec0 if seat % 2 == 0 else spec1))) for seat in range(4)]
    result = play_match(players, MatchConfig(rules=Rules(**rules), seed=seed, match_id=f"b{seed}"))
    return int(result.winner_team) if result.winner_team is not None else -1


def _play_many(args: tuple[str, str, list[int], dict[str, int]]) -> list[int]:
    spec0, spec1, seeds, rules = args
    return [play(spec0, spec1, s, rules) for s in seeds]


def pair_seeds(seed: int, a: str, b: str, n: int) -> list[int]:
    """The deal seeds of (a, b)'s matches, a as team 0: the pair's own, whatever the field."""
    rng = random.Random(f"{seed}:{a}|{b}")
    return [rng.getrandbits(63) for _ in range(n)]


def play_bank(entries: tuple[str, ...], per_seating: int, seed: int, jobs: int, rules: dict[str, int],
              known: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """``per_seating`` matches of every ordered pair (a, b) of ``entries`` (specs), a as
    team 0: their winners (those of ``known``, a bank of the same seed, rules and size,
    are not played again)."""
    known = known or {}
    pairs = [(a, b) for a in entries for b in entries if a != b]
    work = [(a, b, pair_seeds(seed, a, b, per_seating), rules) for a, b in pairs if f"{a}|{b}" not in known]
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        winners = list(pool.map(_play_many, work))
    games = {**known, **{f"{a}|{b}": w for (a, b, _, _), w in zip(work, winners, strict=True)}}
    return {"format": 2, "entries": list(entries), "per_seating": per_seating, "seed": seed, "rules": rules,
            "games": {f"{a}|{b}": games[f"{a}|{b}"] for a, b in pairs}}


def load_or_play(path: Path | None, entries: tuple[str, ...], per_seating: int, seed: int, jobs: int,
                 rules: dict[str, int]) -> dict[str, Any]:
    """The bank asked for: the pairs the bank in ``path`` has (of the same seed, rules and
    size), the others played; written back to ``path``."""
    for spec in entries:
        parse(spec)  # an unknown kind fails here, not in a worker process
    known: dict[str, list[int]] = {}
    if path is not None and path.is_file():
        old: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if (old.get("format"), old["per_seating"], old["seed"], old["rules"]) == (2, per_seating, seed, rules):
            known = old["games"]
    bank = play_bank(entries, per_seating, seed, jobs, rules, known)
    if path is not None:  # every pair played so far, in this field or not: the next field reuses them
        path.write_text(json.dumps({**bank, "games": {**known, **bank["games"]}}), encoding="utf-8")
    return bank


def win_rates(games: dict[str, list[int]], order: list[str]) -> dict[tuple[str, str], float]:
    """Per unordered pair (in ``order``: the stronger first), the first one's share of
    wins in the bank ``games``, both seatings."""
    out = {}
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            ab, ba = games[f"{a}|{b}"], games[f"{b}|{a}"]
            wins = sum(w == 0 for w in ab) + sum(w == 1 for w in ba)
            out[(a, b)] = wins / (len(ab) + len(ba))
    return out
