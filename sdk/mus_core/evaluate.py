"""Hand evaluation for every lance, precomputed over the rank multisets (docs/rules.md §1, §4).

The one evaluator of the project: the engine decides lances with it and bots read it
(``mus_sdk.evaluate`` is this module). Cards are ``int`` 0..39 (``rank * 4 + suit``,
natural rank 0 = as .. 9 = rey), so :class:`~mus_core.cards.Card` values and plain ints
both work. Every function takes ``kings=8`` (a 3 plays as a rey and a 2 as an as, the
default) or ``kings=4``.

A hand's evaluation depends only on the multiset of its four natural ranks, of which
there are 715; :func:`table` builds, once per (kings, juego_real), a dict from a hand's
rank code (see :func:`rank_code`) to a :class:`HandValue`. Every key is an ``int`` where
*higher is better*, so a lance is decided by a strict ``>`` scan from mano, which gives
ties to the seat nearest mano (:func:`lance_winner`). The unpaired cards never count in
pares (no kickers, docs/rules.md §4.3).

>>> from mus_core.cards import parse_cards
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
from functools import cache
from typing import NamedTuple

from mus_core._deprecation import module_aliases
from mus_core.cards import AS, CABALLO, DOS, REY, SIETE, SOTA, TRES
from mus_core.rules import JuegoReal

__all__ = [
    "JUEGO_ORDER",
    "JUEGO_REAL_STRENGTH",
    "PARES_DUPLES",
    "PARES_MEDIAS",
    "PARES_NONE",
    "PARES_PAR",
    "RANK_BITS",
    "HandValue",
    "Pares",
    "chica_key",
    "effective_rank",
    "effective_ranks",
    "evaluate",
    "evaluate_ranks",
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
    "point_value",
    "punto",
    "rank_code",
    "strength",
    "table",
    "total",
]

# Lance numbers (the values of mus_core.events.Lance, which imports this module's users).
_GRANDE, _CHICA, _PARES, _JUEGO, _PUNTO = range(5)


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


PARES_NONE, PARES_PAR, PARES_MEDIAS, PARES_DUPLES = Pares

JUEGO_ORDER: tuple[int, ...] = (31, 32, 40, 37, 36, 35, 34, 33)
"""Juego totals from best to worst (docs/rules.md §4.4)."""

_JUEGO_RANK = {t: len(JUEGO_ORDER) - i for i, t in enumerate(JUEGO_ORDER)}
JUEGO_REAL_STRENGTH = 9
"""The juego key of a 31 real (above every other juego, 8 for 31 .. 1 for 33)."""

RANK_BITS = tuple(1 << (3 * (c >> 2)) for c in range(40))
"""Per card number, its contribution to :func:`rank_code`: 3 bits of count per natural
rank, so the code needs no sorting and is the same for any order of the cards."""


class HandValue(NamedTuple):
    """Everything the lances need to know about one four-card hand. Keys: higher is better.

    A named tuple: the engine reads it in its inner loop (by position, too).
    """

    grande_key: int
    """Grande: effective ranks high to low, compared card by card."""
    chica_key: int
    """Chica: effective ranks low to high, the lower card at the first difference wins."""
    pares_key: int
    """Pares: category, then the higher pair, then the lower pair; 0 without pares."""
    pares: Pares
    """Pares category; its value is the stones the hand's pares score."""
    juego_key: int
    """Juego: :data:`JUEGO_REAL_STRENGTH` for a 31 real, else the place of ``total`` in
    :data:`JUEGO_ORDER` (8 for 31 .. 1 for 33); 0 without juego."""
    juego_value: int
    """Stones the juego scores: 3 for 31, 2 for another juego, 0 without juego."""
    total: int
    """Points total (juego / punto)."""
    kings: int
    """Number of kings (with 8 kings, 3s included)."""
    aces: int
    """Number of aces (with 8 kings, 2s included)."""

    @property
    def juego_rank(self) -> int:
        """Place of ``total`` in :data:`JUEGO_ORDER`: 8 for 31 .. 1 for 33; 0 without juego."""
        return _JUEGO_RANK.get(self.total, 0)

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
    def punto(self) -> int:
        """The punto total (meaningful when nobody has juego): 30 best .. 4 worst."""
        return self.total


_former = module_aliases(__name__, {"HandEval": (HandValue, "HandValue")})


def __getattr__(name: str) -> object:
    """Former names, with a ``DeprecationWarning``: ``HandEval`` is :class:`HandValue`."""
    return _former(name)


def rank_code(cards: Iterable[int]) -> int:
    """A key for a hand's multiset of natural ranks: 3 bits of count per rank."""
    return sum(RANK_BITS[c] for c in cards)


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


def evaluate_ranks(ranks: Sequence[int], kings: int, juego_real: JuegoReal = JuegoReal.OFF) -> HandValue:
    """Evaluate a hand given by its four natural ranks (slow path; see :func:`table`)."""
    eff = sorted((effective_rank(r, kings) for r in ranks), reverse=True)
    grande = eff[0] * 1000 + eff[1] * 100 + eff[2] * 10 + eff[3]
    chica = 9999 - (eff[3] * 1000 + eff[2] * 100 + eff[1] * 10 + eff[0])
    counts: dict[int, int] = {}
    for r in eff:
        counts[r] = counts.get(r, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items() if n >= 2), key=lambda x: -x[1])
    if len(groups) == 2 or (groups and groups[0][0] == 4):
        # Two pairs, or four of a kind = duples of that rank twice (§4.3).
        high = groups[0][1]
        low = groups[1][1] if len(groups) == 2 else high
        kind, key = Pares.DUPLES, high * 10 + low
    elif groups and groups[0][0] == 3:
        kind, key = Pares.MEDIAS, groups[0][1] * 10
    elif groups:
        kind, key = Pares.PAR, groups[0][1] * 10
    else:
        kind, key = Pares.NONE, 0
    pares_key = 0 if kind is Pares.NONE else kind * 100 + key
    total_points = sum(point_value(r, kings) for r in ranks)
    juego = _JUEGO_RANK.get(total_points, 0)
    if total_points == 31 and _is_real(ranks, kings, juego_real):
        juego = JUEGO_REAL_STRENGTH
    value = 0 if juego == 0 else (3 if total_points == 31 else 2)
    return HandValue(grande, chica, pares_key, kind, juego, value, total_points, eff.count(REY), eff.count(AS))


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
def table(kings: int, juego_real: JuegoReal = JuegoReal.OFF) -> dict[int, HandValue]:
    """The evaluation of every rank multiset, keyed by :func:`rank_code`.

    Raises:
        ValueError: ``kings`` is not 8 or 4.
    """
    if kings not in (8, 4):
        raise ValueError(f"kings must be 8 or 4, not {kings!r}")
    out: dict[int, HandValue] = {}
    for ranks in itertools.combinations_with_replacement(range(10), 4):
        out[sum(1 << (3 * r) for r in ranks)] = evaluate_ranks(ranks, kings, juego_real)
    return out


def _juego_real(value: object) -> JuegoReal:
    """A :class:`JuegoReal` from a member or its value (``"off"``, ``"sota_only"``...)."""
    return value if isinstance(value, JuegoReal) else JuegoReal(str(value))


def evaluate(cards: Iterable[int], kings: int = 8, juego_real: object = JuegoReal.OFF) -> HandValue:
    """The :class:`HandValue` of a 4-card hand.

    ``juego_real`` is a :class:`~mus_core.rules.JuegoReal` or its value; it only changes
    ``juego_key`` (a 31 real beats every other 31).

    Raises:
        ValueError: not exactly 4 cards, a card outside 0..39, or ``kings`` not 8 or 4.
    """
    key = 0
    n = 0
    try:
        for c in cards:
            if c < 0:
                raise IndexError
            key += RANK_BITS[c]
            n += 1
    except (IndexError, TypeError):
        raise ValueError(f"cards must be ints 0..39, got {cards!r}") from None
    if n != 4:
        raise ValueError(f"a hand has 4 cards, got {n}")
    return table(kings, _juego_real(juego_real))[key]


def effective_ranks(cards: Iterable[int], kings: int = 8) -> tuple[int, ...]:
    """Effective rank indices high to low (with 8 kings a 3 is 9 = rey and a 2 is 0 = as)."""
    return tuple(sorted((effective_rank(c >> 2, kings) for c in cards), reverse=True))


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


def is_real(cards: Iterable[int], kings: int = 8, juego_real: object = "off") -> bool:
    """Whether the hand is a "31 real" under the ``juego_real`` variant (docs/rules.md §4.4).

    ``juego_real`` is a :class:`~mus_core.rules.JuegoReal` or its value: ``off``,
    ``any_ten_card``, ``figure_no_three`` or ``sota_only``.

    Raises:
        ValueError: an unknown ``juego_real``.
    """
    try:
        mode = _juego_real(juego_real)
    except ValueError:
        raise ValueError(f"unknown juego_real {juego_real!r}") from None
    return evaluate(cards, kings, mode).juego_key == JUEGO_REAL_STRENGTH


def juego_key(cards: Iterable[int], kings: int = 8, juego_real: object = "off") -> int:
    """Juego comparison key: 9 for a 31 real, else :func:`juego_rank` (0 without juego)."""
    return evaluate(cards, kings, juego_real).juego_key


def lance_key(cards: Iterable[int], lance: int, kings: int = 8, juego_real: object = "off") -> int:
    """The comparison key of a hand for ``lance`` (a :class:`~mus_core.events.Lance` or 0..4).

    For pares and juego the key is 0 when the hand has none (it cannot win the lance).

    Raises:
        ValueError: an unknown lance.
    """
    if not 0 <= lance <= _PUNTO:
        raise ValueError(f"unknown lance {lance!r}")
    return evaluate(cards, kings, juego_real)[_KEY_FIELD[lance]]


_KEY_FIELD = (0, 1, 2, 4, 6)
"""Per lance, the position in :class:`HandValue` of the key that decides it."""


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


def _physical_hands(code: int) -> int:
    """Number of physical 4-card hands (4 suits per rank) of a rank code."""
    return math.prod(math.comb(4, (code >> (3 * r)) & 7) for r in range(10))


def _strength_table(kings: int, lance: int) -> tuple[list[int], list[int]]:
    found = _STRENGTH.get((kings, lance))
    if found is None:
        weights: dict[int, int] = {}
        field = _KEY_FIELD[lance] if lance != _JUEGO else None
        for code, value in table(kings).items():
            k = value.juego_rank if field is None else value[field]
            weights[k] = weights.get(k, 0) + _physical_hands(code)
        keys = sorted(weights)
        cumulative = list(itertools.accumulate(weights[k] for k in keys))
        found = _STRENGTH[(kings, lance)] = (keys, cumulative)
    return found


def strength(cards: Iterable[int], lance: int, kings: int = 8, *, among_holders: bool = False) -> float:
    """Fraction of all 4-card hands this hand beats on ``lance``, counting ties as half.

    A quick, position-free strength in [0, 1] for heuristics; the deck is treated as
    full (your own cards are not removed). For pares and juego, hands without them have
    key 0; with ``among_holders=True`` they are left out, which gives the strength
    among the hands that can bet that lance (a hand without them gets 0.0).
    """
    v = evaluate(cards, kings)
    k = v.juego_rank if lance == _JUEGO else v[_KEY_FIELD[lance]]
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
