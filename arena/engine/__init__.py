"""The pure rules engine of Mus: standard library only; no I/O, clock or logging.

Public API::

    from arena.engine import MusState, Rules, Action, Card
"""

from arena.engine.actions import (
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
    EnvidoRange,
    LegalAction,
    discard,
    envido,
    is_in,
)
from arena.engine.cards import CARDS, Card, format_cards, parse_cards, parse_rank
from arena.engine.errors import IllegalActionError, IllegalSignalError, InvalidActionError, MusError
from arena.engine.evaluate import HandEval, evaluate
from arena.engine.events import Event, EventKind, HandResult, Lance, LanceOutcome, LanceResult, Phase, Sena
from arena.engine.rules import JuegoReal, MusCorrido, Rules, SignalMode
from arena.engine.state import LiveBet, MusState, SeatView

__all__ = [
    "CARDS", "MUS", "NO_MUS", "NO_QUEREMOS", "NO_QUIERO", "ORDAGO", "PASO", "QUEREMOS", "QUIERO",
    "Action", "ActionKind", "Card", "DiscardChoice", "EnvidoRange", "Event", "EventKind",
    "HandEval", "HandResult", "IllegalActionError", "IllegalSignalError", "InvalidActionError",
    "JuegoReal", "Lance", "LanceOutcome", "LanceResult", "LegalAction", "LiveBet", "MusCorrido",
    "MusError", "MusState", "Phase", "Rules", "SeatView", "Sena", "SignalMode", "discard",
    "envido", "evaluate", "format_cards", "is_in", "parse_cards", "parse_rank",
]
