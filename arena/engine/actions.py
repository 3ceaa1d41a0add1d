"""Former home of the actions, now in :mod:`mus_core.actions` (kept so that old imports work)."""

from mus_core.actions import DiscardChoice, DiscardRange, EnvidoRange, LegalAction, format_legal, is_in

__all__ = ["DiscardChoice", "DiscardRange", "EnvidoRange", "LegalAction", "format_legal", "is_in"]
