"""mus_core: the vocabulary of Mus, shared by the arena's engine and the bot SDK.

Standard library only. It holds each concept of the game once: cards
(:mod:`~mus_core.cards`), actions and the shapes of legal actions
(:mod:`~mus_core.actions`), the rules variant (:mod:`~mus_core.rules`), hand evaluation
(:mod:`~mus_core.evaluate`), the enums, events and results of a hand
(:mod:`~mus_core.events`) and the errors (:mod:`~mus_core.errors`). The rules engine
(:mod:`mus_core.state`, the arena's referee) plays with these values and the SDK (``mus_sdk``) hands the same
values to bots, so a card, an action or a hand result is one class on both sides.

Conversions to and from the ``mus.v1`` protobuf messages are not here (this package
imports no protobuf): they are in ``mus_sdk.convert`` and ``mus_sdk.protomap``.
"""

from mus_core._deprecation import module_aliases
from mus_core.actions import (
    FIXED_ACTIONS,
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
    format_legal,
    is_in,
)
from mus_core.cards import (
    CARDS,
    RANK_CHARS,
    SUIT_CHARS,
    Card,
    Rank,
    Suit,
    format_cards,
    parse_cards,
    parse_rank,
)
from mus_core.errors import IllegalActionError, IllegalSignalError, InvalidActionError, MusError
from mus_core.evaluate import HandValue, Pares
from mus_core.events import (
    Declarations,
    Event,
    EventKind,
    HandEnd,
    HandEndKind,
    HandResult,
    Lance,
    LanceOutcome,
    LanceResult,
    LiveBet,
    MatchEndReason,
    Phase,
    Sena,
)
from mus_core.observation import LegalActions, Observation
from mus_core.rules import JuegoReal, MusCorrido, Rules, SignalMode

__all__ = [
    "CARDS", "FIXED_ACTIONS", "MUS", "NO_MUS", "NO_QUEREMOS", "NO_QUIERO", "ORDAGO", "PASO", "QUEREMOS",
    "QUIERO", "RANK_CHARS", "SUIT_CHARS", "Action", "ActionKind", "Card", "Declarations",
    "DiscardRange", "EnvidoRange", "Event", "EventKind", "HandEnd", "HandEndKind", "HandResult",
    "HandValue", "IllegalActionError", "IllegalSignalError", "InvalidActionError", "JuegoReal", "Lance",
    "LanceOutcome", "LanceResult", "LegalAction", "LegalActions", "LiveBet", "MatchEndReason", "MusCorrido", "MusError", "Observation",
    "Pares", "Phase", "Rank", "Rules", "Sena", "SignalMode", "Suit", "discard", "envido",
    "format_cards", "format_legal", "is_in", "parse_cards", "parse_rank",
]

_former = module_aliases(__name__, {"DiscardChoice": (DiscardRange, "DiscardRange"), "HandEval": (HandValue, "HandValue")})


def __getattr__(name: str) -> object:
    """Former names, each with a ``DeprecationWarning``: ``DiscardChoice`` is
    :class:`DiscardRange`, ``HandEval`` is :class:`HandValue`."""
    return _former(name)
