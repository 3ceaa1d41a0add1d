"""What the referee needs from a player, and the faults a player can commit.

A :class:`Player` is anything that can take a seat: a bot process over gRPC
(``arena.remote``), an SDK bot in-process (``arena.players``), or a test double. Its
methods are coroutines, awaited by the driver (:mod:`arena.driver.match`) on its event
loop. A player written with plain methods (in-process bots, a human at a terminal) is a
:class:`SyncPlayer` and takes a seat through :class:`SyncAdapter`, as python-chess's
``SimpleEngine`` wraps its async core the other way round. A seat behind a transport
that can be asked in two phases is a :class:`PipelinedPlayer` (by inheritance: the
driver asks ``isinstance``, never which methods an object happens to have). The
referee never imports transports; they implement these classes.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass, field
from typing import Any, Protocol

from mus_core import Action, HandResult, MatchEndReason, Observation, Rules, Sena


class FaultKind(enum.Enum):
    """What a player did wrong. Every fault gets the same outcome: see :mod:`arena.referee.policy`."""

    TIMEOUT = "timeout"
    """No answer within the decision's deadline (or the time bank ran out)."""
    CRASH = "crash"
    """The bot process died or the connection was lost."""
    MALFORMED = "malformed"
    """The answer could not be read (no action set, a bad card, garbage)."""
    WRONG_REQUEST = "wrong_request"
    """The answer named another request id than the one asked."""
    ILLEGAL_ACTION = "illegal_action"
    """The action is not among the legal actions (includes out-of-range bets)."""
    ILLEGAL_SENA = "illegal_sena"
    """The seña is not allowed (untrue, wrong time, señas off); the action still counts."""
    BOT_ERROR = "bot_error"
    """The bot's own code failed: it answered with a ``BotError`` (a bot over gRPC, e.g.
    the Python SDK's when ``decide()`` raised), or it raised (in-process bots)."""


class BotFault(Exception):
    """Raised by a :class:`Player` when it cannot produce a valid answer."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Decision:
    """A player's answer: an action and, optionally, a seña given with it."""

    action: Action
    sena: Sena | None = None


@dataclass(frozen=True, slots=True)
class MatchStartInfo:
    """What every seat is told when the match starts."""

    match_id: str
    seat: int
    rules: Rules
    seat_names: tuple[str, ...]
    decision_ms: int
    time_bank_ms: int


@dataclass(frozen=True, slots=True)
class MatchEndInfo:
    """What every seat is told when the match ends."""

    winner_team: int | None
    games_won: tuple[int, int]
    reason: MatchEndReason
    """Why: the SDK's own enum (``mus_core.events``), as the wire's ``MatchEnd`` carries it."""
    detail: str = ""
    vacas_won: tuple[int, int] = (0, 0)
    """Vacas won by each team, as the engine counted them."""


@dataclass(slots=True)
class DecisionTiming:
    """The time budget for one decision, in seconds."""

    deadline_s: float
    bank_left_s: float


@dataclass(frozen=True, slots=True, eq=False)
class Turn:
    """One decision to ask: the seat, the request's id (1, 2, … over the match), what
    the seat may see, and its time. Compared by identity: a predicted turn is the very
    object :attr:`~arena.referee.session.MatchSession.turn` gives when the prediction
    comes true."""

    seat: int
    request_id: int
    view: Observation
    timing: DecisionTiming


class Player(Protocol):
    """A seat at the table, as the driver awaits it. ``decide`` may raise
    :class:`BotFault`; a notification may raise anything (the referee logs it and
    otherwise ignores it)."""

    name: str

    async def start_match(self, info: MatchStartInfo) -> None:
        """Called once before the first decision."""

    async def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """Return the seat's decision for ``view`` within ``timing.deadline_s`` seconds."""
        ...

    async def hand_end(self, result: HandResult) -> None:
        """Called after every hand with the revealed hands and the itemised result."""

    async def end_match(self, info: MatchEndInfo) -> None:
        """Called once when the match is over."""


class SyncPlayer(Protocol):
    """A seat written with plain methods (an in-process bot, a human at a terminal, a
    test double): the same methods as :class:`Player`, not coroutines. It takes a seat
    wrapped in a :class:`SyncAdapter`."""

    name: str

    def start_match(self, info: MatchStartInfo) -> None:
        """Called once before the first decision."""

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """Return the seat's decision for ``view`` within ``timing.deadline_s`` seconds."""
        ...

    def hand_end(self, result: HandResult) -> None:
        """Called after every hand with the revealed hands and the itemised result."""

    def end_match(self, info: MatchEndInfo) -> None:
        """Called once when the match is over."""


class SyncAdapter:
    """A :class:`SyncPlayer` as a :class:`Player`.

    Its methods run on the event loop's thread and block the loop while they run: the
    time a decision takes is the seat's own, so the driver does not run the arena's
    stall meter around it (a long ``decide`` is not the arena stalling)."""

    __slots__ = ("name", "player")

    def __init__(self, player: SyncPlayer) -> None:
        self.player = player
        """The wrapped player."""
        self.name = player.name

    def __repr__(self) -> str:
        return f"SyncAdapter({self.player!r})"

    async def start_match(self, info: MatchStartInfo) -> None:
        """The player's ``start_match``."""
        self.player.start_match(info)

    async def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """The player's ``decide``."""
        return self.player.decide(view, request_id, timing)

    async def hand_end(self, result: HandResult) -> None:
        """The player's ``hand_end``."""
        self.player.hand_end(result)

    async def end_match(self, info: MatchEndInfo) -> None:
        """The player's ``end_match``."""
        self.player.end_match(info)


class PipelinedPlayer(abc.ABC):
    """A seat behind a transport (a bot over gRPC): a decision is asked in two phases,
    so that the driver can prepare the next request while the bot thinks (see
    "Pipelining" in :mod:`arena.referee.session`). The driver awaits :meth:`send` and
    then :meth:`receive` for the same turn, on the same task; in between it may call
    :meth:`has_answer` and another seat's :meth:`encode`. A :class:`Player` too: its
    :meth:`decide` is the two phases in a row."""

    name: str

    @abc.abstractmethod
    async def start_match(self, info: MatchStartInfo) -> None:
        """Called once before the first decision."""

    @abc.abstractmethod
    def encode(self, turn: Turn) -> Any:
        """The request for ``turn``; it may never be sent."""

    @abc.abstractmethod
    async def send(self, turn: Turn, request: Any) -> None:
        """Send ``request`` (built by :meth:`encode` for ``turn``); the decision's
        deadline starts. Never raises a fault (:meth:`receive` does)."""

    @abc.abstractmethod
    def has_answer(self) -> bool:
        """Whether an answer is already waiting (nothing left to prepare for)."""

    @abc.abstractmethod
    async def receive(self, turn: Turn) -> Decision:
        """The answer to ``turn``, within its deadline; raises :class:`BotFault`."""

    async def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        """:meth:`send` then :meth:`receive` (for callers that ask one decision at a
        time, such as ``mus check``)."""
        turn = Turn(view.seat, request_id, view, timing)
        await self.send(turn, self.encode(turn))
        return await self.receive(turn)

    @abc.abstractmethod
    async def hand_end(self, result: HandResult) -> None:
        """Called after every hand with the revealed hands and the itemised result."""

    @abc.abstractmethod
    async def end_match(self, info: MatchEndInfo) -> None:
        """Called once when the match is over."""


@dataclass
class FaultRecord:
    """One fault, as the hand log and the match result keep it."""

    seat: int
    kind: FaultKind
    detail: str
    game: int
    hand: int
    request_id: int

    def to_json(self) -> dict[str, object]:
        """As plain JSON values."""
        return {
            "seat": self.seat, "kind": self.kind.value, "detail": self.detail,
            "game": self.game, "hand": self.hand, "request_id": self.request_id,
        }


@dataclass
class SeatStats:
    """Per-seat counters for a match."""

    decisions: int = 0
    time_used_s: float = 0.0
    max_decision_s: float = 0.0
    faults: list[FaultRecord] = field(default_factory=list)
    prepared: int = 0
    """Decisions whose request the driver built ahead, while another seat thought (a
    count for benchmarks and tests; not in the match's JSON result)."""
