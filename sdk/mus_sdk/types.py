"""The typed values a bot sees and returns: cards, actions, observations, results.

Bot authors never touch protobuf: :mod:`mus_sdk.convert` turns wire messages into these
frozen values and back. The game's vocabulary (cards, actions, the enums, rules, events,
hand results) is :mod:`mus_core`, the package the arena's rules engine plays with too:
a card, an action or a hand result is the same class on both sides, which is what lets
the arena run a :class:`~mus_sdk.Bot` in-process without gRPC. So are
:class:`Observation` and :class:`LegalActions` (:mod:`mus_core.observation`): what a bot
receives is what the engine's ``MusState.view`` makes. This module adds what only a bot
needs: the action helpers, the lazily converted history and the match notifications. The SDK imports nothing from the arena.

Seats are numbered in turn order; teams alternate (``team = seat % 2``); points are
stones (piedras).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

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
)
from mus_core.cards import CARDS, RANK_CHARS, SUIT_CHARS, Card, Rank, Suit, format_cards, parse_cards
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
from mus_core.observation import LegalActions, Observation, partners_of
from mus_core.rules import JuegoReal, MusCorrido, Rules, SignalMode

__all__ = [
    "CARDS", "FIXED_ACTIONS", "MUS", "NO_MUS", "NO_QUEREMOS", "NO_QUIERO", "ORDAGO", "PASO", "QUEREMOS",
    "QUIERO", "RANK_CHARS", "SUIT_CHARS", "Action", "ActionKind", "BotInfo", "Card", "Declarations",
    "DiscardRange", "EnvidoRange", "Event", "EventKind", "HandEnd", "HandEndKind", "HandResult",
    "JuegoReal", "Lance", "LanceOutcome", "LanceResult", "LazyHistory", "LegalAction",
    "LegalActions", "LiveBet", "MatchEnd", "MatchEndReason", "MatchInfo", "MusCorrido",
    "Observation", "Phase", "Rank", "Rules", "Sena", "SignalMode", "Suit", "discard", "envido",
    "format_cards", "mus", "no_mus", "no_queremos", "no_quiero", "ordago", "parse_cards", "partners_of",
    "paso", "queremos", "quiero",
]

# --------------------------------------------------------------------------- action helpers


def mus() -> Action:
    """Say "mus": ask for a discard round."""
    return MUS


def no_mus() -> Action:
    """Say "no hay mus": cut the mus and start the lances."""
    return NO_MUS


def paso() -> Action:
    """Pass ("paso") before any bet; you stay in the lance."""
    return PASO


def quiero() -> Action:
    """Accept the live bet."""
    return QUIERO


def no_quiero() -> Action:
    """Decline the live bet; you are out of this lance."""
    return NO_QUIERO


def ordago() -> Action:
    """Bet the whole game."""
    return ORDAGO


def queremos() -> Action:
    """Accept for the whole team (only with ``rules.plural_answers_bind_partner``)."""
    return QUEREMOS


def no_queremos() -> Action:
    """Decline for the whole team (only with ``rules.plural_answers_bind_partner``)."""
    return NO_QUEREMOS


# --------------------------------------------------------------------------- history


class LazyHistory(Sequence[Event]):
    """A sequence of events converted from the wire on first use.

    Most decisions never look at the history, so converting it eagerly would be wasted
    work on the hot path. Behaves as a read-only tuple of :class:`Event`.
    """

    __slots__ = ("_convert", "_events", "_source")

    def __init__(self, source: Sequence[Any], convert: Callable[[Any], Event]) -> None:
        self._source = source
        self._convert = convert
        self._events: tuple[Event, ...] | None = None

    def _all(self) -> tuple[Event, ...]:
        if self._events is None:
            self._events = tuple(self._convert(e) for e in self._source)
        return self._events

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | Sequence[Event]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._source)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"LazyHistory({list(self._all())!r})"


# --------------------------------------------------------------------------- match notifications


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The start of a match, as seen from your seat."""

    match_id: str
    """Id of the match."""
    seat: int
    """Your seat."""
    partners: tuple[int, ...]
    """Your partners' seats."""
    num_seats: int
    """Seats at the table."""
    rules: Rules
    """The rules variant."""
    scores: tuple[int, ...] = (0, 0)
    """Team scores at the start."""
    games_won: tuple[int, ...] = (0, 0)
    """Games won by each team at the start."""
    time_bank_ms: int = 0
    """Your time bank for the match, in milliseconds (0 = none)."""
    decision_deadline_ms: int = 0
    """Default deadline of one decision, in milliseconds."""
    protocol_version: int = 1
    """App protocol version in use."""
    seat_names: tuple[str, ...] = ()
    """Names of the bots in each seat, if the arena shares them."""

    @property
    def team(self) -> int:
        """Your team."""
        return self.seat % 2

    @property
    def partner(self) -> int | None:
        """Your partner's seat (the first one), or ``None``."""
        return self.partners[0] if self.partners else None


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The end of a match, as a bot is told it (``on_match_end``; ``mus.v1.MatchEnd``)."""

    games_won: tuple[int, ...]
    """Games won by each team."""
    winner_team: int | None
    """The winning team, or ``None`` if aborted without winner."""
    reason: MatchEndReason
    """Why it ended."""
    detail: str = ""
    """Human-readable details."""
    vacas_won: tuple[int, ...] = (0, 0)
    """Vacas won by each team."""


_former = module_aliases(__name__, {
    # The arena's ``MatchResult`` is the referee's record of a whole match, another thing.
    "MatchResult": (MatchEnd, "MatchEnd"),
    # The engine, the proto and the logs say ``HandResult``.
    "HandSummary": (HandResult, "HandResult"),
})


def __getattr__(name: str) -> object:
    """Former names, with a ``DeprecationWarning``: ``MatchResult`` is :class:`MatchEnd`,
    ``HandSummary`` is :class:`~mus_core.events.HandResult`."""
    return _former(name)


@dataclass(frozen=True, slots=True)
class BotInfo:
    """What a bot says about itself in ``GetInfo``."""

    name: str
    """Display name."""
    version: str = "0.0.0"
    """The bot's version, free form."""
    author: str = ""
    """Who wrote it."""
