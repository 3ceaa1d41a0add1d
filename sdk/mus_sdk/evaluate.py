"""Hand evaluation for bot authors: the same semantics as the referee (docs/rules.md §1, §4).

Standard library only; this module imports nothing else, not even the rest of the SDK.
Cards are ``int`` 0..39 (``rank * 4 + suit``, natural rank 0 = as .. 9 = rey), so
:class:`mus_sdk.Card` values and the arena engine's cards both work. Every function
takes ``kings=8`` (a 3 plays as a rey and a 2 as an as, the default) or ``kings=4``.

All comparison keys are ``int`` where **higher is better**; equal keys are a tie, which
the player closer to mano wins (:func:`lance_winner` applies that rule). The unpaired
cards never count in pares (no kickers, docs/rules.md §4.3).

Everything is precomputed at import over the 715 rank multisets of a 4-card hand, so a
call costs a few additions and one dict lookup.

>>> from mus_sdk.types import parse_cards
>>> hand = parse_cards("Ro 3c Co Ab")          # R R C A with 8 kings: 31, par of reyes
>>> evaluate(hand).total, evaluate(hand).pares, evaluate(hand).juego_value
(31, <Pares.PAR: 1>, 3)
"""

from __future__ import annotations

import bisect
import enum
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "JUEGO_ORDER",
    "HandValue",
    "Pares",
    "chica_key",
    "effective_ranks",
    "evaluate",
    "grande_key",
    "has_juego",
    "is_real",
    "juego_key",
    "juego_rank",
    "juego_value",
    "lance_key",
    "lance_winner",
    "pares",
    "pares_key",
    "pares_value",
    "punto",
    "strength",
    "total",
]

# Natural rank indices (same as mus_sdk.Rank).
_AS, _DOS, _TRES, _SIETE, _SOTA, _CABALLO, _REY = 0, 1, 2, 6, 7, 8, 9

# Lance numbers (same as mus_sdk.Lance).
_GRANDE, _CHICA, _PARES, _JUEGO, _PUNTO = range(5)

_POINTS_4 = (1, 2, 3, 4, 5, 6, 7, 10, 10, 10)
"""Juego/punto points per natural rank with 4 kings (3 and 2 keep their value)."""
_POINTS_8 = (1, 1, 10, 4, 5, 6, 7, 10, 10, 10)
"""With 8 kings every 3 is worth 10 (a rey) and every 2 is worth 1 (an as)."""
_EFFECTIVE_8 = (_AS, _AS, _REY, 3, 4, 5, 6, _SOTA, _CABALLO, _REY)
"""Effective rank per natural rank with 8 kings: 3 -> rey, 2 -> as."""

JUEGO_ORDER: tuple[int, ...] = (31, 32, 40, 37, 36, 35, 34, 33)
"""Juego totals from best to worst (docs/rules.md §4.4)."""

_JUEGO_RANK = {t: len(JUEGO_ORDER) - i for i, t in enumerate(JUEGO_ORDER)}


class Pares(enum.IntEnum):
    """Pares categories; the value is the stones each holder scores (docs/rules.md §7.1)."""

    NONE = 0
    """No two cards of the same (effective) rank."""
    PAR = 1
    """One pair."""
    MEDIAS = 2
    """Three of a kind."""
    DUPLES = 3
    """Two pairs, or four of a kind."""


@dataclass(frozen=True, slots=True)
class HandValue:
    """Everything about a 4-card hand for the four lances. Keys: higher is better."""

    grande_key: int
    """Grande: effective ranks high to low, compared card by card."""
    chica_key: int
    """Chica: effective ranks low to high, the lower card at the first difference wins."""
    pares: Pares
    """Pares category."""
    pares_key: int
    """Pares: category, then the higher pair, then the lower pair; 0 without pares."""
    total: int
    """Points total (juego / punto)."""
    juego_rank: int
    """Position of ``total`` in :data:`JUEGO_ORDER`: 8 for 31 .. 1 for 33; 0 without juego."""

    @property
    def has_juego(self) -> bool:
        """Whether the total is 31 or more."""
        return self.total >= 31

    @property
    def has_pares(self) -> bool:
        """Whether the hand has pares."""
        return self.pares is not Pares.NONE

    @property
    def pares_value(self) -> int:
        """Stones this hand's pares score: 0, 1, 2 or 3."""
        return int(self.pares)

    @property
    def juego_value(self) -> int:
        """Stones this hand's juego scores: 3 for 31, 2 for another juego, 0 without."""
        return 0 if self.total < 31 else 3 if self.total == 31 else 2

    @property
    def punto(self) -> int:
        """The punto total (meaningful when nobody has juego): 30 best .. 4 worst."""
        return self.total


def _compute(ranks: Sequence[int], kings: int) -> HandValue:
    eff = [(_EFFECTIVE_8[r] if kings == 8 else r) for r in ranks]
    points = _POINTS_8 if kings == 8 else _POINTS_4
    high = sorted(eff, reverse=True)
    low = sorted(eff)
    grande = high[0] * 1000 + high[1] * 100 + high[2] * 10 + high[3]
    chica = 9999 - (low[0] * 1000 + low[1] * 100 + low[2] * 10 + low[3])
    counts: dict[int, int] = {}
    for r in eff:
        counts[r] = counts.get(r, 0) + 1
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    trio = [r for r, n in counts.items() if n == 3]
    quad = [r for r, n in counts.items() if n == 4]
    if quad:
        cat, hi, lo = Pares.DUPLES, quad[0], quad[0]
    elif len(pairs) == 2:
        cat, hi, lo = Pares.DUPLES, pairs[0], pairs[1]
    elif trio:
        cat, hi, lo = Pares.MEDIAS, trio[0], 0
    elif pairs:
        cat, hi, lo = Pares.PAR, pairs[0], 0
    else:
        cat, hi, lo = Pares.NONE, 0, 0
    pkey = 0 if cat is Pares.NONE else int(cat) * 100 + hi * 10 + lo
    tot = sum(points[r] for r in ranks)
    return HandValue(grande, chica, cat, pkey, tot, _JUEGO_RANK.get(tot, 0))


# Multiset key of a hand: 3 bits per natural rank (a count of 0..4), summed per card, so
# the key needs no sorting and is the same for any order of the cards.
_WEIGHT: tuple[int, ...] = tuple(1 << (3 * (c >> 2)) for c in range(40))
_TABLES: dict[int, dict[int, HandValue]] = {8: {}, 4: {}}
# Number of physical 4-card hands per multiset (4 suits per rank), for strength().
_COMBOS: dict[int, int] = {}
for _ranks in itertools.combinations_with_replacement(range(10), 4):
    _k = sum(1 << (3 * r) for r in _ranks)
    _COMBOS[_k] = math.prod(math.comb(4, _ranks.count(r)) for r in set(_ranks))
    for _kings in (8, 4):
        _TABLES[_kings][_k] = _compute(_ranks, _kings)
del _ranks, _k, _kings


def evaluate(cards: Iterable[int], kings: int = 8) -> HandValue:
    """The :class:`HandValue` of a 4-card hand.

    Raises:
        ValueError: not exactly 4 cards, a card outside 0..39, or ``kings`` not 8 or 4.
    """
    key = 0
    n = 0
    try:
        for c in cards:
            key += _WEIGHT[c]
            n += 1
    except (IndexError, TypeError):
        raise ValueError(f"cards must be ints 0..39, got {cards!r}") from None
    if n != 4:
        raise ValueError(f"a hand has 4 cards, got {n}")
    try:
        return _TABLES[kings][key]
    except KeyError:
        raise ValueError(f"kings must be 8 or 4, not {kings!r}") from None


def effective_ranks(cards: Iterable[int], kings: int = 8) -> tuple[int, ...]:
    """Effective rank indices high to low (with 8 kings a 3 is 9 = rey and a 2 is 0 = as)."""
    ranks = [c >> 2 for c in cards]
    if kings == 8:
        ranks = [_EFFECTIVE_8[r] for r in ranks]
    return tuple(sorted(ranks, reverse=True))


def grande_key(cards: Iterable[int], kings: int = 8) -> int:
    """Grande comparison key (higher is better)."""
    return evaluate(cards, kings).grande_key


def chica_key(cards: Iterable[int], kings: int = 8) -> int:
    """Chica comparison key (higher is better, i.e. lower cards)."""
    return evaluate(cards, kings).chica_key


def pares(cards: Iterable[int], kings: int = 8) -> Pares:
    """Pares category: NONE, PAR, MEDIAS or DUPLES."""
    return evaluate(cards, kings).pares


def pares_key(cards: Iterable[int], kings: int = 8) -> int:
    """Pares comparison key (higher is better; 0 without pares)."""
    return evaluate(cards, kings).pares_key


def pares_value(cards: Iterable[int], kings: int = 8) -> int:
    """Stones the hand's pares score: 0, 1 (par), 2 (medias) or 3 (duples)."""
    return int(evaluate(cards, kings).pares)


def total(cards: Iterable[int], kings: int = 8) -> int:
    """The points total used by juego and punto."""
    return evaluate(cards, kings).total


def has_juego(cards: Iterable[int], kings: int = 8) -> bool:
    """Whether the hand has juego (total >= 31)."""
    return evaluate(cards, kings).total >= 31


def juego_rank(total_points: int) -> int:
    """Position of a total in :data:`JUEGO_ORDER`: 8 for 31, 7 for 32, 6 for 40 .. 1 for 33; 0 below 31."""
    return _JUEGO_RANK.get(total_points, 0)


def juego_value(cards: Iterable[int], kings: int = 8) -> int:
    """Stones the hand's juego scores: 3 for 31, 2 for other juego, 0 without juego."""
    return evaluate(cards, kings).juego_value


def punto(cards: Iterable[int], kings: int = 8) -> int:
    """The punto total (30 best .. 4 worst); only played when nobody has juego."""
    return evaluate(cards, kings).total


def _juego_real_name(juego_real: object) -> str:
    return str(getattr(juego_real, "value", juego_real))


def is_real(cards: Iterable[int], kings: int = 8, juego_real: object = "off") -> bool:
    """Whether the hand is a "31 real" under the ``juego_real`` variant (docs/rules.md §4.4).

    ``juego_real`` is a :class:`mus_sdk.JuegoReal` or its value: ``off``,
    ``any_ten_card``, ``figure_no_three`` or ``sota_only``.
    """
    mode = _juego_real_name(juego_real)
    if mode == "off":
        return False
    ranks = sorted(c >> 2 for c in cards)
    if len(ranks) != 4 or ranks.count(_SIETE) != 3:
        return False
    fourth = next(r for r in ranks if r != _SIETE)
    if mode == "sota_only":
        return fourth == _SOTA
    if mode == "figure_no_three":
        return fourth in (_SOTA, _CABALLO, _REY)
    if mode == "any_ten_card":
        return fourth in (_SOTA, _CABALLO, _REY) or (kings == 8 and fourth == _TRES)
    raise ValueError(f"unknown juego_real {juego_real!r}")


def juego_key(cards: Iterable[int], kings: int = 8, juego_real: object = "off") -> int:
    """Juego comparison key: 9 for a 31 real, else :func:`juego_rank` (0 without juego)."""
    cards = tuple(cards)
    if is_real(cards, kings, juego_real):
        return 9
    return evaluate(cards, kings).juego_rank


def lance_key(cards: Iterable[int], lance: int, kings: int = 8, juego_real: object = "off") -> int:
    """The comparison key of a hand for ``lance`` (a :class:`mus_sdk.Lance` or 0..4).

    For pares and juego the key is 0 when the hand has none (it cannot win the lance).
    """
    cards = tuple(cards)
    v = evaluate(cards, kings)
    if lance == _GRANDE:
        return v.grande_key
    if lance == _CHICA:
        return v.chica_key
    if lance == _PARES:
        return v.pares_key
    if lance == _JUEGO:
        return juego_key(cards, kings, juego_real)
    if lance == _PUNTO:
        return v.total
    raise ValueError(f"unknown lance {lance!r}")


def lance_winner(
    hands: Sequence[Iterable[int]], lance: int, mano: int, kings: int = 8, juego_real: object = "off"
) -> int | None:
    """The seat whose hand wins ``lance``; ties go to the seat closest to mano.

    ``hands`` is indexed by seat. Returns ``None`` for pares/juego when nobody has them.
    """
    n = len(hands)
    best_seat: int | None = None
    best_key = 0
    for i in range(n):  # in turn order from mano, so the first of equal keys wins
        seat = (mano + i) % n
        key = lance_key(hands[seat], lance, kings, juego_real)
        if (best_seat is None or key > best_key) and (key > 0 or lance in (_GRANDE, _CHICA, _PUNTO)):
            best_seat, best_key = seat, key
    return best_seat


# strength(): for each kings and lance, the sorted keys of all 91,390 physical hands with
# cumulative counts, so a lookup is one bisect.
_STRENGTH: dict[tuple[int, int], tuple[list[int], list[int]]] = {}


def _strength_table(kings: int, lance: int) -> tuple[list[int], list[int]]:
    table = _STRENGTH.get((kings, lance))
    if table is None:
        weights: dict[int, int] = {}
        for key, value in _TABLES[kings].items():
            k = (value.grande_key, value.chica_key, value.pares_key, value.juego_rank, value.total)[lance]
            weights[k] = weights.get(k, 0) + _COMBOS[key]
        keys = sorted(weights)
        cumulative = list(itertools.accumulate(weights[k] for k in keys))
        table = _STRENGTH[(kings, lance)] = (keys, cumulative)
    return table


def strength(cards: Iterable[int], lance: int, kings: int = 8, *, among_holders: bool = False) -> float:
    """Fraction of all 4-card hands this hand beats on ``lance``, counting ties as half.

    A quick, position-free strength in [0, 1] for heuristics; the deck is treated as
    full (your own cards are not removed). For pares and juego, hands without them have
    key 0; with ``among_holders=True`` they are left out, which gives the strength
    among the hands that can bet that lance (a hand without them gets 0.0).
    """
    v = evaluate(cards, kings)
    k = (v.grande_key, v.chica_key, v.pares_key, v.juego_rank, v.total)[lance]
    keys, cumulative = _strength_table(kings, lance)
    i = bisect.bisect_left(keys, k)
    below = cumulative[i - 1] if i > 0 else 0
    tie = (cumulative[i] - below) if i < len(keys) and keys[i] == k else 0
    everyone = cumulative[-1]
    if among_holders and lance in (_PARES, _JUEGO):
        if k == 0:
            return 0.0
        none = cumulative[0] if keys[0] == 0 else 0
        return (below - none + tie / 2) / (everyone - none)
    return (below + tie / 2) / everyone
