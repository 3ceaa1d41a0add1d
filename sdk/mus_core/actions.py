"""Actions a seat can take, the shapes of legal actions, and their text notation.

An :class:`Action` is a frozen value: a kind plus, for ``ENVIDO``, the number of stones
it adds, and for ``DISCARD``, the cards thrown away. The fixed actions are module
constants (:data:`PASO`, :data:`QUIERO`, ...); build the others with :func:`envido` and
:func:`discard`.

``ENVIDO`` always carries the stones *added*: as an opening bet ``envido 5`` proposes a
stake of 5; as a raise (``envido más``, ``+k``) it adds ``k`` to the live stake. Both are
at least 2 (docs/rules.md §6.2).

Text notation (:meth:`Action.parse` accepts all forms, ``str()`` gives the first):

===========  =======================================================
``mus``      call mus (want to discard)
``no-mus``   cut the mus ("no hay mus"; also ``corto``, ``nm``)
``discard Ro 7c``   discard those cards (also ``d Ro 7c``)
``paso``     pass (also ``p``)
``envido 5`` bet or raise by 5 (also ``e5``, ``+5``, ``envido``: 2)
``quiero``   accept (also ``q``)
``no-quiero``  decline (also ``nq``)
``ordago``   bet the whole game (also ``órdago``, ``O``)
``queremos`` / ``no-queremos``  plural answers (variant ``plural_answers_bind_partner``)
===========  =======================================================
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from mus_core._deprecation import module_aliases
from mus_core.cards import CARDS, Card, format_cards, parse_cards


class ActionKind(enum.IntEnum):
    """What an action does."""

    MUS = 0
    """Ask for a discard round ("mus")."""
    NO_MUS = 1
    """Cut the mus ("no hay mus"); the lances start."""
    DISCARD = 2
    """Throw away 1 to 4 cards (after everybody said mus)."""
    PASO = 3
    """Pass before any bet in the lance."""
    ENVIDO = 4
    """Bet (opening) or raise, by ``amount`` stones."""
    QUIERO = 5
    """Accept the live bet."""
    NO_QUIERO = 6
    """Decline the live bet; the seat is out of this lance."""
    ORDAGO = 7
    """Bet the whole game, as an opening bet or as a raise."""
    QUEREMOS = 8
    """Accept for the whole team (only with ``plural_answers_bind_partner``)."""
    NO_QUEREMOS = 9
    """Decline for the whole team (only with ``plural_answers_bind_partner``)."""


_NAMES = {
    ActionKind.MUS: "mus",
    ActionKind.NO_MUS: "no-mus",
    ActionKind.DISCARD: "discard",
    ActionKind.PASO: "paso",
    ActionKind.ENVIDO: "envido",
    ActionKind.QUIERO: "quiero",
    ActionKind.NO_QUIERO: "no-quiero",
    ActionKind.ORDAGO: "ordago",
    ActionKind.QUEREMOS: "queremos",
    ActionKind.NO_QUEREMOS: "no-queremos",
}


@dataclass(frozen=True, slots=True)
class Action:
    """One action. Compare with ``==``; the fixed ones are also interned constants."""

    kind: ActionKind
    amount: int = 0
    """Stones added, for ``ENVIDO`` only (>= 2)."""
    cards: tuple[Card, ...] = ()
    """Cards thrown away, for ``DISCARD`` only (sorted, 1 to 4)."""

    def __str__(self) -> str:
        if self.kind is ActionKind.ENVIDO:
            return f"envido {self.amount}"
        if self.kind is ActionKind.DISCARD:
            return f"discard {format_cards(self.cards)}"
        return _NAMES[self.kind]

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Action:
        """Parse an action in any of the notations of this module's table.

        Raises:
            ValueError: the text is not an action.
        """
        raw = text.strip()
        low = raw.lower()
        words = low.split()
        if not words:
            raise ValueError("empty action")
        head = words[0]
        if raw == "O" or low in ("ordago", "órdago"):
            return ORDAGO
        fixed = _FIXED_TEXT.get(low)
        if fixed is not None:
            return fixed
        if head in ("discard", "d"):
            return discard(parse_cards(raw.split()[1:]))
        amount_text: str | None = None
        if head in ("envido", "e") and len(words) <= 2:
            amount_text = words[1] if len(words) == 2 else "2"
            if amount_text in ("más", "mas"):
                amount_text = "2"
        elif len(words) == 1 and head[0] in "e+" and head[1:].isdigit():
            amount_text = head[1:]
        elif len(words) == 2 and words[1] in ("más", "mas") and head.isdigit():
            amount_text = head
        if amount_text is not None and amount_text.isdigit():
            return envido(int(amount_text))
        raise ValueError(
            f"not an action: {text!r} (expected mus, no-mus, discard CARDS, paso, "
            "envido N, quiero, no-quiero, ordago)"
        )


MUS = Action(ActionKind.MUS)
NO_MUS = Action(ActionKind.NO_MUS)
PASO = Action(ActionKind.PASO)
QUIERO = Action(ActionKind.QUIERO)
NO_QUIERO = Action(ActionKind.NO_QUIERO)
ORDAGO = Action(ActionKind.ORDAGO)
QUEREMOS = Action(ActionKind.QUEREMOS)
NO_QUEREMOS = Action(ActionKind.NO_QUEREMOS)

FIXED_ACTIONS: dict[ActionKind, Action] = {
    a.kind: a for a in (MUS, NO_MUS, PASO, QUIERO, NO_QUIERO, ORDAGO, QUEREMOS, NO_QUEREMOS)
}
"""The interned action of every kind that takes no parameter."""

_FIXED_TEXT = {
    "mus": MUS,
    "no-mus": NO_MUS,
    "no mus": NO_MUS,
    "no hay mus": NO_MUS,
    "nm": NO_MUS,
    "corto": NO_MUS,
    "paso": PASO,
    "p": PASO,
    "quiero": QUIERO,
    "q": QUIERO,
    "no-quiero": NO_QUIERO,
    "no quiero": NO_QUIERO,
    "nq": NO_QUIERO,
    "queremos": QUEREMOS,
    "no-queremos": NO_QUEREMOS,
    "no queremos": NO_QUEREMOS,
}

_ENVIDO_CACHE = tuple(Action(ActionKind.ENVIDO, n) for n in range(64))


def envido(amount: int = 2) -> Action:
    """An envido adding ``amount`` stones (an opening bet of ``amount``, or a raise; >= 2)."""
    if 0 <= amount < 64:
        return _ENVIDO_CACHE[amount]
    return Action(ActionKind.ENVIDO, amount)


def discard(cards: Iterable[int]) -> Action:
    """A discard of the given cards (order does not matter)."""
    return Action(ActionKind.DISCARD, 0, tuple(CARDS[c] for c in sorted(cards)))


@dataclass(frozen=True, slots=True)
class EnvidoRange:
    """Legal-action shape: an envido of any amount in ``[min_amount, max_amount]``.

    ``max_amount`` is ``None`` when no ``max_stake`` caps the lance.
    """

    min_amount: int = 2
    """Smallest legal amount, inclusive (>= 2)."""
    max_amount: int | None = None
    """Largest legal amount, inclusive; ``None`` means unbounded."""

    def __contains__(self, action: object) -> bool:
        return (
            isinstance(action, Action)
            and action.kind is ActionKind.ENVIDO
            and action.amount >= self.min_amount
            and (self.max_amount is None or action.amount <= self.max_amount)
        )

    def clamp(self, amount: int) -> int:
        """``amount`` moved into the range."""
        amount = max(amount, self.min_amount)
        return amount if self.max_amount is None else min(amount, self.max_amount)

    def __str__(self) -> str:
        top = "∞" if self.max_amount is None else str(self.max_amount)
        return f"envido {self.min_amount}..{top}"


@dataclass(frozen=True, slots=True)
class DiscardRange:
    """Legal-action shape: discard any ``min_count``..``max_count`` distinct cards of ``cards``."""

    cards: tuple[Card, ...]
    """The cards that may be discarded (the whole hand, sorted)."""
    min_count: int = 1
    """Fewest cards, inclusive."""
    max_count: int = 4
    """Most cards, inclusive."""

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action) or action.kind is not ActionKind.DISCARD:
            return False
        chosen = action.cards
        return (
            self.min_count <= len(chosen) <= self.max_count
            and len(set(chosen)) == len(chosen)
            and all(c in self.cards for c in chosen)
        )

    def options(self) -> list[Action]:
        """Every legal discard, fewest cards first (15 for a 4-card hand)."""
        return [
            discard(combo)
            for n in range(self.min_count, min(self.max_count, len(self.cards)) + 1)
            for combo in itertools.combinations(self.cards, n)
        ]

    def __str__(self) -> str:
        return f"discard {self.min_count}-{self.max_count} of {format_cards(self.cards)}"


LegalAction = Action | EnvidoRange | DiscardRange
"""An entry of ``legal_actions()``: a fixed action, or a shape for a family of actions."""

_former = module_aliases(__name__, {"DiscardChoice": (DiscardRange, "DiscardRange")})


def __getattr__(name: str) -> object:
    """Former names, with a ``DeprecationWarning``: ``DiscardChoice`` is :class:`DiscardRange`."""
    return _former(name)


def is_in(action: Action, legal: Iterable[LegalAction]) -> bool:
    """Whether ``action`` is one of ``legal`` (an equal action or inside a shape)."""
    for entry in legal:
        if entry == action or (not isinstance(entry, Action) and action in entry):
            return True
    return False


def format_legal(legal: Iterable[LegalAction]) -> str:
    """A short human-readable list, used in error messages."""
    return ", ".join(str(a) for a in legal)
