"""Uniform random legal play: for demos, benchmarks and property tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mus_core.actions import Action, DiscardRange, EnvidoRange, LegalAction, discard, envido

MAX_RANDOM_ENVIDO = 10
"""Random envidos add 2..10 stones (the rules set no maximum; random play needs one)."""


def random_action(rng: random.Random, legal: Sequence[LegalAction]) -> Action:
    """Pick a legal-action entry uniformly, then a uniform parameter for it.

    An :class:`EnvidoRange` gives an amount in ``min..min(max, 10)``; a
    :class:`DiscardRange` a uniform count in its range, then uniform cards.
    """
    entry = legal[int(rng.random() * len(legal))]
    if isinstance(entry, Action):
        return entry
    if isinstance(entry, EnvidoRange):
        top = MAX_RANDOM_ENVIDO if entry.max_amount is None else min(entry.max_amount, MAX_RANDOM_ENVIDO)
        return envido(rng.randint(entry.min_amount, max(entry.min_amount, top)))
    assert isinstance(entry, DiscardRange)
    k = rng.randint(entry.min_count, min(entry.max_count, len(entry.cards)))
    return discard(rng.sample(entry.cards, k))
