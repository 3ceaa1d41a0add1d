"""Typed errors of the game: what the engine raises on a bad action or seña."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mus_core.actions import Action, LegalAction


class MusError(ValueError):
    """Base class of every error the engine raises."""


class InvalidActionError(MusError):
    """Raised when an action is malformed (not an action of the game at all)."""


class IllegalActionError(MusError):
    """Raised when an action is not legal in the current state.

    The state is left unchanged. ``seat`` is the seat that tried it (``None`` when the
    game is over), ``action`` the action, ``legal`` what that seat could have done.
    """

    def __init__(
        self, seat: int | None, action: Action | object, legal: tuple[LegalAction, ...], why: str = ""
    ) -> None:
        self.seat = seat
        self.action = action
        self.legal = legal
        from mus_core.actions import format_legal  # actions imports nothing of errors: no cycle

        legal_text = format_legal(legal) or "nothing (no seat is to act)"
        who = f"S{seat}" if seat is not None else "nobody"
        reason = f" ({why})" if why else ""
        super().__init__(f"illegal action for {who}: {action}{reason}; legal: {legal_text}")


class IllegalSignalError(MusError):
    """Raised when a seña is not allowed: wrong time, untruthful, or señas are off."""
