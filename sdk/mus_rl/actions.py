"""A fixed discrete action space for Mus: 32 indices, each one concrete engine action.

The engine's legal actions are shapes (an envido of any amount, a discard of any subset);
learning algorithms want a fixed list. The list here:

=========  ==========================================================
index      action
=========  ==========================================================
0, 1       ``mus``, ``no-mus``
2 .. 16    ``discard``: index ``1 + mask``, bit ``i`` of ``mask`` (1..15) = the
           ``i``-th card of the seat's hand sorted (the hand's order in
           ``Observation.cards``)
17 .. 22   ``paso``, ``quiero``, ``no-quiero``, ``ordago``, ``queremos``,
           ``no-queremos``
23 .. 31   ``envido 2`` .. ``envido 10`` (stones added)
=========  ==========================================================

Envidos above 10 stones are left out (the rules set no maximum; random play in the
engine uses the same cap), so this space covers every decision of the game except the
size of very large raises. Señas are not actions here (docs/rl.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from mus_core.actions import (
    MUS,
    NO_MUS,
    NO_QUEREMOS,
    NO_QUIERO,
    ORDAGO,
    PASO,
    QUEREMOS,
    QUIERO,
    Action,
    ActionKind,
    DiscardRange,
    EnvidoRange,
    LegalAction,
    discard,
    envido,
)
from mus_core.cards import Card

NUM_ACTIONS = 32
"""Size of the discrete action space."""
DISCARD_BASE = 2
"""Index of the discard of mask 1 (``discard`` of mask ``m`` is ``DISCARD_BASE - 1 + m``)."""
ENVIDO_BASE = 23
"""Index of ``envido 2``."""
MAX_ENVIDO = 10
"""Largest envido amount in the space."""

_FIXED: tuple[Action, ...] = (MUS, NO_MUS, PASO, QUIERO, NO_QUIERO, ORDAGO, QUEREMOS, NO_QUEREMOS)
_FIXED_INDEX: dict[ActionKind, int] = {
    ActionKind.MUS: 0,
    ActionKind.NO_MUS: 1,
    ActionKind.PASO: 17,
    ActionKind.QUIERO: 18,
    ActionKind.NO_QUIERO: 19,
    ActionKind.ORDAGO: 20,
    ActionKind.QUEREMOS: 21,
    ActionKind.NO_QUEREMOS: 22,
}
_BY_INDEX: dict[int, Action] = {i: a for a in _FIXED for k, i in _FIXED_INDEX.items() if a.kind is k}
_ENVIDOS: tuple[Action, ...] = tuple(envido(n) for n in range(2, MAX_ENVIDO + 1))

def _name(index: int) -> str:
    if index in _BY_INDEX:
        return str(_BY_INDEX[index])
    if index >= ENVIDO_BASE:
        return f"envido {index - ENVIDO_BASE + 2}"
    mask = index - DISCARD_BASE + 1
    return "discard " + "".join("x" if mask >> i & 1 else "." for i in range(4))


ACTION_NAMES: tuple[str, ...] = tuple(_name(i) for i in range(NUM_ACTIONS))
"""A short name per index (a discard as ``x`` for each thrown card of the sorted hand: ``discard x..x``)."""


def to_action(index: int, cards: Sequence[Card]) -> Action:
    """The engine action of ``index`` for a seat holding ``cards`` (sorted, as in a view).

    Raises:
        ValueError: the index is out of range.
    """
    if index in _BY_INDEX:
        return _BY_INDEX[index]
    if ENVIDO_BASE <= index < NUM_ACTIONS:
        return _ENVIDOS[index - ENVIDO_BASE]
    if DISCARD_BASE <= index < ENVIDO_BASE - 6:
        mask = index - DISCARD_BASE + 1
        return discard(c for i, c in enumerate(cards) if mask >> i & 1)
    raise ValueError(f"no action {index!r}: the space has {NUM_ACTIONS} (0..{NUM_ACTIONS - 1})")


def to_index(action: Action, cards: Sequence[Card]) -> int:
    """The index of ``action`` for a seat holding ``cards``; envidos above the cap map to
    ``envido 10``.

    Raises:
        ValueError: a discard of cards not in ``cards``.
    """
    kind = action.kind
    if kind is ActionKind.ENVIDO:
        return ENVIDO_BASE + min(max(action.amount, 2), MAX_ENVIDO) - 2
    if kind is ActionKind.DISCARD:
        mask = 0
        for c in action.cards:
            if c not in cards:
                raise ValueError(f"discard of {c} not in the hand")
            mask |= 1 << list(cards).index(c)
        return DISCARD_BASE - 1 + mask
    return _FIXED_INDEX[kind]


_LEGAL_CACHE: dict[tuple[LegalAction, ...], list[int]] = {}


def legal_indices(legal: Sequence[LegalAction], cards: Sequence[Card]) -> list[int]:
    """The indices legal now, ascending, from the engine's ``legal_actions()`` (a new list)."""
    key = tuple(legal)
    if len(key) == 1 and isinstance(key[0], DiscardRange):
        # The discard masks depend on the counts and the hand's size, not on the cards.
        entry = key[0]
        key = (DiscardRange((), entry.min_count, entry.max_count), len(cards))  # type: ignore[assignment]
    hit = _LEGAL_CACHE.get(key)
    if hit is None:
        hit = _LEGAL_CACHE[key] = _legal_indices(legal, cards)
    return list(hit)


def _legal_indices(legal: Sequence[LegalAction], cards: Sequence[Card]) -> list[int]:
    out: list[int] = []
    for entry in legal:
        if isinstance(entry, Action):
            out.append(_FIXED_INDEX[entry.kind])
        elif isinstance(entry, EnvidoRange):
            top = MAX_ENVIDO if entry.max_amount is None else min(entry.max_amount, MAX_ENVIDO)
            out.extend(range(ENVIDO_BASE + entry.min_amount - 2, ENVIDO_BASE + top - 1))
        elif isinstance(entry, DiscardRange):
            n = len(cards)
            for mask in range(1, 1 << n):
                if entry.min_count <= mask.bit_count() <= entry.max_count:
                    out.append(DISCARD_BASE - 1 + mask)
    out.sort()
    return out
