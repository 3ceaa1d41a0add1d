"""Hand evaluation for every lance, precomputed over the rank multisets (docs/rules.md §1, §4).

A hand's evaluation depends only on the multiset of its four natural ranks, of which
there are 715; :func:`table` builds, once per (kings, juego_real), a dict from a hand's
rank code (see :func:`rank_code`) to a :class:`HandEval`. Every strength is an ``int``
where *bigger is better*, so a lance is decided by a strict ``>`` scan from mano, which
gives ties to the seat nearest mano (§4).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from arena.engine.cards import AS, CABALLO, DOS, REY, SIETE, SOTA, TRES
from arena.engine.rules import JuegoReal

PARES_NONE, PARES_PAR, PARES_MEDIAS, PARES_DUPLES = 0, 1, 2, 3
"""Pares categories; the value of each category equals its number (§7.1)."""

# Juego order 31 > 32 > 40 > 37 > 36 > 35 > 34 > 33 (§4.4); 9 is reserved for 31 real.
_JUEGO_ORDER = {31: 8, 32: 7, 40: 6, 37: 5, 36: 4, 35: 3, 34: 2, 33: 1}
JUEGO_REAL_STRENGTH = 9

RANK_BITS = tuple(1 << (3 * (c >> 2)) for c in range(40))
"""Per card number, its contribution to :func:`rank_code`."""


def rank_code(cards: Sequence[int]) -> int:
    """A key for a hand's multiset of natural ranks: 3 bits of count per rank."""
    return sum(RANK_BITS[c] for c in cards)


class HandEval(NamedTuple):
    """Everything the lances need to know about one four-card hand."""

    grande: int
    """Grande strength (bigger wins)."""
    chica: int
    """Chica strength (bigger wins, i.e. lower cards)."""
    pares: int
    """Pares strength (0 = no pares; bigger wins)."""
    pares_kind: int
    """PARES_NONE / PARES_PAR / PARES_MEDIAS / PARES_DUPLES; also its value in stones."""
    juego: int
    """Juego strength (0 = no juego; bigger wins; 9 = 31 real)."""
    juego_value: int
    """Stones the juego is worth: 3 for 31, 2 for any other juego, 0 without juego."""
    total: int
    """Point total (juego/punto)."""
    kings: int
    """Number of kings (with 8 kings, 3s included)."""
    aces: int
    """Number of aces (with 8 kings, 2s included)."""


def effective_rank(rank: int, kings: int) -> int:
    """The rank a card plays as: with 8 kings a 3 is a king and a 2 an ace (§1.2)."""
    if kings == 8:
        if rank == TRES:
            return REY
        if rank == DOS:
            return AS
    return rank


def point_value(rank: int, kings: int) -> int:
    """Points of a card for juego and punto (§1.2, §1.3)."""
    rank = effective_rank(rank, kings)
    return 10 if rank >= SOTA else rank + 1


def evaluate_ranks(ranks: Sequence[int], kings: int, juego_real: JuegoReal) -> HandEval:
    """Evaluate a hand given by its four natural ranks (slow path; see :func:`table`)."""
    eff = sorted((effective_rank(r, kings) for r in ranks), reverse=True)
    grande = eff[0] * 1000 + eff[1] * 100 + eff[2] * 10 + eff[3]
    low = eff[::-1]
    chica = sum((9 - r) * 10 ** (3 - i) for i, r in enumerate(low))
    counts: dict[int, int] = {}
    for r in eff:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items() if n >= 2), key=lambda x: -x[1])
    if len(groups) == 2 or (groups and groups[0][0] == 4):
        # Two pairs, or four of a kind = duples of that rank twice (§4.3).
        high = groups[0][1]
        lowp = groups[1][1] if len(groups) == 2 else high
        kind, pares = PARES_DUPLES, 300 + high * 10 + lowp
    elif groups and groups[0][0] == 3:
        kind, pares = PARES_MEDIAS, 200 + groups[0][1] * 10
    elif groups:
        kind, pares = PARES_PAR, 100 + groups[0][1] * 10
    else:
        kind, pares = PARES_NONE, 0
    total = sum(point_value(r, kings) for r in ranks)
    juego = _JUEGO_ORDER.get(total, 0)
    if total == 31 and _is_real(ranks, kings, juego_real):
        juego = JUEGO_REAL_STRENGTH
    juego_value = 0 if juego == 0 else (3 if total == 31 else 2)
    return HandEval(
        grande=grande,
        chica=chica,
        pares=pares,
        pares_kind=kind,
        juego=juego,
        juego_value=juego_value,
        total=total,
        kings=eff.count(REY),
        aces=eff.count(AS),
    )


def _is_real(ranks: Sequence[int], kings: int, juego_real: JuegoReal) -> bool:
    """31 real: three 7s plus a qualifying ten-point card (§4.4)."""
    if juego_real is JuegoReal.OFF or list(ranks).count(SIETE) != 3:
        return False
    fourth = next(r for r in ranks if r != SIETE)
    if juego_real is JuegoReal.SOTA_ONLY:
        return fourth == SOTA
    if juego_real is JuegoReal.FIGURE_NO_THREE:
        return fourth in (SOTA, CABALLO, REY)
    return fourth in (SOTA, CABALLO, REY) or (kings == 8 and fourth == TRES)


@cache
def table(kings: int, juego_real: JuegoReal) -> dict[int, HandEval]:
    """The evaluation of every rank multiset, keyed by :func:`rank_code`."""
    out: dict[int, HandEval] = {}
    for ranks in itertools.combinations_with_replacement(range(10), 4):
        code = sum(1 << (3 * r) for r in ranks)
        out[code] = evaluate_ranks(ranks, kings, juego_real)
    return out


def evaluate(cards: Sequence[int], kings: int = 8, juego_real: JuegoReal = JuegoReal.OFF) -> HandEval:
    """Evaluate four cards (card numbers or :class:`~arena.engine.cards.Card`)."""
    return table(kings, juego_real)[rank_code(cards)]
