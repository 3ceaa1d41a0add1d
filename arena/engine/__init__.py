"""The pure rules engine of Mus: standard library and :mod:`mus_core` only; no I/O, clock or logging.

The game's vocabulary (cards, actions, rules, evaluation, events, results, errors) and the
match state machine (:class:`MusState`, in :mod:`mus_core.state`) are :mod:`mus_core`,
shipped with the bot SDK so that a bot's forward model is the referee's engine itself;
this package re-exports them, so both import paths name the same classes.

Public API::

    from arena.engine import MusState, Rules, Action, Card
"""

from mus_core import *  # noqa: F403  (the vocabulary, re-exported whole)
from mus_core import __all__ as _core_names
from mus_core.evaluate import evaluate
from mus_core.state import SEED_LIMIT, MusState, Observation

__all__ = [*_core_names, "SEED_LIMIT", "MusState", "Observation", "evaluate"]
