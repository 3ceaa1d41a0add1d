"""The schedule of a round-robin league: every pair of entries, seats swapped, duplicate deals.

Each unordered pair of entries plays ``matches_per_pairing`` matches. Match ``k`` of a
pair puts the first entry at the even seats when ``k`` is even and at the odd seats
when ``k`` is odd, so both teams sit both ways. In **duplicate** mode matches ``2d`` and
``2d + 1`` share one deal seed (the deal of every hand depends only on the seed and the
hand number), so each team plays the other's cards; and deal ``d`` uses the same seed
in every pairing, so all entries meet the same luck.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from arena.league.config import LeagueConfig


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the league."""

    match_id: str
    team0: str
    """Entry at the even seats."""
    team1: str
    """Entry at the odd seats."""
    seed: int
    deal: int
    """Index of the deal sequence (equal seeds share it)."""


def derive_seed(league_seed: int, *parts: object) -> int:
    """A 63-bit seed from the league seed and a label (stable across runs and machines)."""
    text = ":".join(str(p) for p in (league_seed, *parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def schedule(config: LeagueConfig) -> list[ScheduledMatch]:
    """Every match of the league, in a fixed order."""
    out: list[ScheduledMatch] = []
    names = [e.name for e in config.entries]
    for pi, (a, b) in enumerate(itertools.combinations(names, 2)):
        for k in range(config.matches_per_pairing):
            if config.duplicate:
                deal = k // 2
                seed = derive_seed(config.seed, "deal", deal)
            else:
                deal = k
                seed = derive_seed(config.seed, "pair", a, b, k)
            t0, t1 = (a, b) if k % 2 == 0 else (b, a)
            out.append(ScheduledMatch(f"{a}--{b}--{k:03d}", t0, t1, seed, deal))
        del pi
    return out
