"""The pure rules engine of Mus: standard library and :mod:`mus_core` only; no I/O, clock or logging.

The game's vocabulary (cards, actions, rules, evaluation, events, results, errors) is
:mod:`mus_core`, shared with the bot SDK; this package adds the match state machine
(:class:`MusState`) and re-exports the vocabulary, so both import paths name the same
classes.

Public API::

    from arena.engine import MusState, Rules, Action, Card
"""

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
    DiscardChoice,
    DiscardRange,
    EnvidoRange,
    LegalAction,
    discard,
    envido,
    format_legal,
    is_in,
)
from mus_core.cards import CARDS, SUIT_CHARS, Card, format_cards, parse_cards, parse_rank
from mus_core.errors import IllegalActionError, IllegalSignalError, InvalidActionError, MusError
from mus_core.evaluate import HandEval, HandValue, evaluate
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
    Phase,
    Sena,
)
from mus_core.rules import JuegoReal, MusCorrido, Rules, SignalMode

from arena.engine.state import SEED_LIMIT, MusState, Observation, SeatView

__all__ = [
    "CARDS", "MUS", "NO_MUS", "NO_QUEREMOS", "NO_QUIERO", "ORDAGO", "PASO", "QUEREMOS", "QUIERO",
    "SEED_LIMIT", "SUIT_CHARS", "Action", "ActionKind", "Card", "Declarations", "DiscardChoice",
    "DiscardRange", "EnvidoRange", "Event", "EventKind", "HandEnd", "HandEndKind", "HandEval", "HandResult",
    "HandValue", "IllegalActionError", "IllegalSignalError", "InvalidActionError", "JuegoReal", "Lance",
    "LanceOutcome", "LanceResult", "LegalAction", "LiveBet", "MusCorrido", "MusError", "MusState", "Observation", "Phase",
    "Rules", "SeatView", "Sena", "SignalMode", "discard", "envido", "evaluate", "format_cards",
    "format_legal", "is_in", "parse_cards", "parse_rank",
]
