"""Former home of the cards, now in :mod:`mus_core.cards` (kept so that old imports work)."""

from mus_core.cards import CARDS, RANK_CHARS, SUIT_CHARS, Card, format_cards, parse_cards

__all__ = ["CARDS", "RANK_CHARS", "SUIT_CHARS", "Card", "format_cards", "parse_cards"]
