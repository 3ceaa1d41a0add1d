"""Cards of the Spanish 40-card deck and their canonical text notation.

A card is an ``int`` from 0 to 39 (a :class:`Card`, an ``int`` subclass, so the engine
can keep hands as plain lists of ints at no cost). ``card = rank * 4 + suit``, where
``rank`` is the :class:`Rank` (natural order, ace lowest; the index in
:data:`RANK_CHARS`) and ``suit`` the :class:`Suit` (the index in :data:`SUIT_CHARS`).

Notation: one rank character and one suit character, e.g. ``Ro`` (rey de oros),
``7c`` (siete de copas), ``Ae`` (as de espadas), ``Sb`` (sota de bastos).

============  =====================================================
rank chars    ``A 2 3 4 5 6 7 S C R`` (as, dos … siete, sota, caballo, rey);
              on input ``1``, ``10``, ``11``, ``12`` are accepted for A, S, C, R
suit chars    ``o`` oros, ``c`` copas, ``e`` espadas, ``b`` bastos
============  =====================================================

``Card.parse(str(card)) == card`` for every card. Suits never matter to the rules
(docs/rules.md §1.1); they exist so that a deal is a real deal of 40 distinct cards.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

RANK_CHARS = "A234567SCR"
"""Rank characters in natural order; the index is the :class:`Rank`."""

SUIT_CHARS = "oceb"
"""Suit characters: oros, copas, espadas, bastos; the index is the :class:`Suit`."""

SUIT_NAMES = ("oros", "copas", "espadas", "bastos")
RANK_NAMES = ("as", "dos", "tres", "cuatro", "cinco", "seis", "siete", "sota", "caballo", "rey")


class Rank(enum.IntEnum):
    """Natural card ranks, lowest to highest. With 8 kings a TRES plays as a REY and a
    DOS as an AS (see :mod:`mus_core.evaluate`)."""

    AS = 0
    DOS = 1
    TRES = 2
    CUATRO = 3
    CINCO = 4
    SEIS = 5
    SIETE = 6
    SOTA = 7
    CABALLO = 8
    REY = 9


class Suit(enum.IntEnum):
    """The four suits. Suits never matter to the rules."""

    OROS = 0
    COPAS = 1
    ESPADAS = 2
    BASTOS = 3


# Ranks as plain ints, for the evaluation tables.
AS, DOS, TRES, CUATRO, CINCO, SEIS, SIETE, SOTA, CABALLO, REY = range(10)

_RANKS = tuple(Rank)
_SUITS = tuple(Suit)
_RANK_ALIASES = {"1": AS, "10": SOTA, "11": CABALLO, "12": REY, "K": REY, "k": REY}


class Card(int):
    """One card of the Spanish deck; an ``int`` 0..39 with a text notation.

    Use :data:`CARDS`, :meth:`Card.of` or :meth:`Card.parse` rather than the
    constructor: the 40 instances are interned, so ``Card.parse("Ro") is CARDS[36]``.
    """

    __slots__ = ()

    @property
    def rank(self) -> Rank:
        """The natural rank, AS (0) to REY (9)."""
        return _RANKS[self >> 2]

    @property
    def suit(self) -> Suit:
        """The suit, OROS (0) to BASTOS (3)."""
        return _SUITS[self & 3]

    def __str__(self) -> str:
        return RANK_CHARS[self >> 2] + SUIT_CHARS[self & 3]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def name(self) -> str:
        """The Spanish name, e.g. ``rey de oros``."""
        return f"{RANK_NAMES[self >> 2]} de {SUIT_NAMES[self & 3]}"

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        """The card of a rank (0..9) and a suit (0..3).

        Raises:
            ValueError: rank or suit out of range.
        """
        if not (0 <= rank < 10 and 0 <= suit < 4):
            raise ValueError(f"no card with rank {rank!r} and suit {suit!r}")
        return CARDS[rank * 4 + suit]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse a card in canonical notation (``Ro``, ``7c``, ``12e``).

        Raises:
            ValueError: the text is not a card.
        """
        text = text.strip()
        if len(text) < 2:
            raise ValueError(f"not a card: {text!r} (expected rank + suit, e.g. 'Ro', '7c')")
        rank = parse_rank(text[:-1])
        suit = SUIT_CHARS.find(text[-1].lower())
        if suit < 0:
            raise ValueError(f"not a card: {text!r} (suit must be one of o c e b)")
        return CARDS[rank * 4 + suit]


def parse_rank(text: str) -> int:
    """Parse a rank character (``R``, ``7``, ``A``; also ``12``, ``1``) to its index.

    Raises:
        ValueError: the text is not a rank.
    """
    if text in _RANK_ALIASES:
        return _RANK_ALIASES[text]
    if len(text) == 1:
        idx = RANK_CHARS.find(text.upper())
        if idx >= 0:
            return idx
    raise ValueError(f"not a rank: {text!r} (expected one of {' '.join(RANK_CHARS)})")


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(40))
"""The 40 cards, indexed by their number."""


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse a space- or comma-separated list of cards, e.g. ``"Ro 7c Ae Sb"``.

    Raises:
        ValueError: an item is not a card.
    """
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return tuple(Card.parse(t) for t in items)


def format_cards(cards: Iterable[int]) -> str:
    """Format cards in canonical notation, separated by spaces."""
    return " ".join(str(CARDS[c]) for c in cards)
