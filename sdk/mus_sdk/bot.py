"""The :class:`Bot` base class: subclass it, override :meth:`Bot.decide`, call ``serve()``.

The same class plays over gRPC (:func:`mus_sdk.serve`) and in-process (the arena calls
the methods directly, with the same typed values), so a bot never knows which one it is
in. All methods are called from one thread at a time for a given match.
"""

from __future__ import annotations

from mus_sdk.types import Action, BotInfo, HandResult, MatchEnd, MatchInfo, Observation, Sena

Decision = Action | tuple[Action, Sena | None]
"""What :meth:`Bot.decide` returns: an action, or an action and a seña to send with it."""


class Bot:
    """Base class of a Mus bot.

    Override :meth:`decide`; the other hooks are optional. Set :attr:`name`,
    :attr:`version` and :attr:`author` as class attributes (or override :meth:`info`).

    Example::

        from mus_sdk import Bot, Observation, ActionKind, paso, serve

        class Passive(Bot):
            name = "passive"

            def decide(self, obs: Observation):
                return obs.legal_actions.fixed[0]

        if __name__ == "__main__":
            serve(Passive())
    """

    name: str = "bot"
    """Display name, reported by ``GetInfo``."""
    version: str = "0.0.0"
    """The bot's version, free form."""
    author: str = ""
    """Who wrote the bot."""

    def info(self) -> BotInfo:
        """Who this bot is; the default reads :attr:`name`, :attr:`version`, :attr:`author`."""
        return BotInfo(self.name, self.version, self.author)

    def on_match_start(self, match: MatchInfo) -> None:
        """Called once at the start of each match, before any decision."""

    def decide(self, obs: Observation) -> Decision:
        """Choose an action for ``obs``; it must be in ``obs.legal_actions``.

        Return an :class:`Action`, or ``(action, sena)`` to give a seña with it (the seña
        must be in ``obs.legal_senas``; ``None`` means none). Raising an exception, or
        taking longer than ``obs.deadline_ms``, is a fault: the arena plays a safe
        default for you and counts the fault against your team.
        """
        raise NotImplementedError(f"{type(self).__name__}.decide() is not implemented")

    def on_hand_end(self, summary: HandResult) -> None:
        """Called after every hand with all cards revealed and the itemised count."""

    def on_match_end(self, result: MatchEnd) -> None:
        """Called once when the match ends (also after a forfeit or an abort)."""


def split_decision(decision: Decision) -> tuple[Action, Sena | None]:
    """Normalise what :meth:`Bot.decide` returned to ``(action, sena or None)``.

    Raises:
        TypeError: the value is neither an :class:`Action` nor ``(Action, Sena | None)``.
    """
    if isinstance(decision, Action):
        return decision, None
    if (
        isinstance(decision, tuple)
        and len(decision) == 2
        and isinstance(decision[0], Action)
        and (decision[1] is None or isinstance(decision[1], Sena))
    ):
        return decision[0], decision[1]
    raise TypeError(f"decide() must return an Action or (Action, Sena | None), not {decision!r}")
