"""The schedule of a round-robin league: every pair of entries, seats swapped, duplicate deals.

Each unordered pair of entries plays ``matches_per_pairing`` matches. Match ``k`` of a
pair puts the first entry at the even seats when ``k`` is even and at the odd seats
when ``k`` is odd, so both teams sit both ways. In **duplicate** mode matches ``2d`` and
``2d + 1`` share one deal seed, so in every hand both reach each team holds the cards
the other team held in the twin (the engine deals hand ``k`` from the seed and ``k``
alone, to the same seats' parity whatever was played before); and deal ``d`` uses the
same seed in every pairing, so all entries meet the same luck. Under ``mus_corrido`` a
cut can make the other team mano in one twin: the cards are the same, the positions
then not (:func:`duplicate_caveat`, docs/league.md).

Match seeds are 128-bit values of a keyed hash of the league secret (BLAKE2b keyed with
it): one match's seed, even known, says nothing about the secret or the other seeds.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from mus_core import MusCorrido

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
    """A 128-bit seed: BLAKE2b keyed with the league seed (its 32 bytes), over the label
    ``parts`` joined by ``:`` (stable across runs, machines and Python versions).

    Raises:
        ValueError: ``league_seed`` is not an integer in ``0 <= seed < 2**256``.
    """
    if not isinstance(league_seed, int) or isinstance(league_seed, bool) or not 0 <= league_seed < 1 << 256:
        raise ValueError(f"league seed must be an integer with 0 <= seed < 2**256, not {league_seed!r}")
    label = ":".join(str(p) for p in parts).encode()
    digest = hashlib.blake2b(label, key=league_seed.to_bytes(32, "big"), digest_size=16).digest()
    return int.from_bytes(digest, "big")


def duplicate_caveat(config: LeagueConfig) -> str | None:
    """What duplicate deals cannot promise under this league's rules, for a warning at
    the league's start; None when the twins of each deal play every hand they both
    reach with the same cards in the same places (always, without ``mus_corrido``)."""
    if not config.duplicate or config.rules.mus_corrido is MusCorrido.OFF:
        return None
    return (f"duplicate with mus_corrido = {config.rules.mus_corrido.value}: each team still gets, in every hand, "
            "the cards the other team had in the twin match, but once a cut (or an all-mus round) has moved "
            "the mano differently in the two twins, the other team may be mano there: the same cards, not the "
            "same positions (docs/league.md, Duplicate)")


def schedule(config: LeagueConfig, secret: int | None = None) -> list[ScheduledMatch]:
    """Every match of the league, in a fixed order; the seeds derive from ``secret``
    (by default the league file's seed).

    Raises:
        ValueError: no secret, and the league file gives no seed (a league run draws one:
            :func:`arena.league.runner.run_league`).
    """
    league_seed = config.seed if secret is None else secret
    if league_seed is None:
        raise ValueError("the league has no seed: pass the secret drawn for its run")
    out: list[ScheduledMatch] = []
    names = [e.name for e in config.entries]
    for pi, (a, b) in enumerate(itertools.combinations(names, 2)):
        for k in range(config.matches_per_pairing):
            if config.duplicate:
                deal = k // 2
                seed = derive_seed(league_seed, "deal", deal)
            else:
                deal = k
                seed = derive_seed(league_seed, "pair", a, b, k)
            t0, t1 = (a, b) if k % 2 == 0 else (b, a)
            out.append(ScheduledMatch(f"{a}--{b}--{k:03d}", t0, t1, seed, deal))
        del pi
    return out
