"""The match driver: plays a :class:`~arena.referee.session.MatchSession` with players.

:func:`play_match` asks each turn's seat for a decision, measures its time, and tells
the session the answer or the fault; the session does the rest (rules, fault policy,
records). It never raises because of a player; every finished hand is handed to
``on_hand`` (the hand log) as soon as it is over.

Every seat is a :class:`~arena.referee.player.Player`, whose methods are coroutines
(an in-process player with plain methods is wrapped in a
:class:`~arena.referee.player.SyncAdapter`). A
:class:`~arena.referee.player.PipelinedPlayer` (a bot over gRPC) is asked in two phases.
Between sending a pipelined seat its request and receiving the answer, if the answer is
not there yet, the driver guesses the answer (the one the seat gave last time for the
same legal actions), asks the session what turn would follow
(:meth:`~arena.referee.session.MatchSession.predict`) and has that turn's player encode
its request; if the guess comes true, the prepared request goes out at once. The
match is the same either way, request for request (tests play both); only the time
differs (docs/performance.md, "Preparing ahead").
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from mus_core import Action, LegalAction

from arena.referee.player import (
    BotFault,
    Decision,
    FaultKind,
    FaultRecord,
    PipelinedPlayer,
    Player,
    SyncAdapter,
    Turn,
)
from arena.referee.session import (
    Faulted,
    HandEnded,
    HandStopped,
    MatchConfig,
    MatchResult,
    MatchSession,
    SessionEvent,
    games_record,
)
from arena.runtime.eventloop import DEFAULT_POLL_US, refereeing, stall_meter, thread_loop

__all__ = [
    "HandSink", "MatchConfig", "MatchResult", "games_record", "play_match", "play_match_async",
]

HandSink = Callable[[dict[str, Any]], None]
"""Receives one JSON-ready record per finished hand."""

NotifyErrorSink = Callable[[str, int, BaseException], None]
"""Receives a notification that failed: the method, the seat, the exception."""

GUESSES_PER_SEAT = 1024
"""Situations remembered per seat for guessing its next answer (discards hold the
seat's cards, so they rarely repeat: the memory is cleared when full)."""


def play_match(
    players: Sequence[Player],
    config: MatchConfig,
    on_hand: HandSink | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    on_notify_error: NotifyErrorSink | None = None,
    clock: Callable[[], float] = time.perf_counter,
    *,
    poll_us: int = DEFAULT_POLL_US,
) -> MatchResult:
    """Play one match on this thread's event loop; see :func:`play_match_async`.

    ``poll_us``: how long the loop polls for an answer before it sleeps, in
    microseconds (0: never); see :mod:`arena.runtime.eventloop`. (``mus match`` and
    leagues run :func:`play_match_async` inside :meth:`arena.runtime.settings.Runtime.refereeing`.)

    Raises:
        ValueError: a bad ``poll_us``, or not one player per seat.
    """
    with refereeing(poll_us):
        return thread_loop().run_until_complete(
            play_match_async(players, config, on_hand, on_fault, on_notify_error, clock)
        )


async def play_match_async(
    players: Sequence[Player],
    config: MatchConfig,
    on_hand: HandSink | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    on_notify_error: NotifyErrorSink | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> MatchResult:
    """Play one match; return its result. Never raises because of a player.

    ``players[s]`` takes seat ``s``. ``on_hand`` receives each finished hand's record
    (deal, every step with its time and fault, itemised result) the moment it ends, and,
    when a forfeit stops the match in the middle of a hand, that hand's record marked
    unfinished: every hand in which a decision was asked is recorded.

    A decision's time excludes the arena's own stalls (the process stopped, a paused
    VM: see :class:`~arena.runtime.eventloop.StallMeter`), measured while a player that
    awaits is awaited: a stall is neither a timeout nor charged to the seat's bank.

    Raises:
        ValueError: not one player per seat.
        TypeError: a player whose ``decide`` is not a coroutine function (one written with
            plain methods takes its seat as ``SyncAdapter(player)``): awaited, each of its
            answers would be a fault, and the match a forfeit that says nothing of the bot.
    """
    for seat, p in enumerate(players):
        if not inspect.iscoroutinefunction(getattr(p, "decide", None)):
            raise TypeError(f"seat {seat}: {p!r} is not a Player (its decide is not async): "
                            "seat a player with plain methods as SyncAdapter(player)")
    session = MatchSession(config, [p.name for p in players])
    notify_error = on_notify_error or _ignore
    await _notify_all([p.start_match for p in players], [session.start_info(seat) for seat in range(len(players))],
                      notify_error)
    driver = _Driver(players, config.prepare_ahead, clock)
    while (turn := session.turn) is not None:
        outcome = await driver.ask(turn, session)
        if isinstance(outcome, Decision):
            session.answer(outcome, driver.elapsed_s)
            driver.remember(turn, outcome.action)
        else:
            session.fault(outcome.kind, outcome.detail, driver.elapsed_s)
        await _deliver(session.events(), players, on_hand, on_fault, notify_error)
    result = session.result()
    for seat, n in enumerate(driver.prepared_used):
        result.seats[seat].prepared = n
    end = session.end_info()
    await _notify_all([p.end_match for p in players], [end] * len(players), notify_error)
    return result


class _Driver:
    """Asks players for decisions and times them; guesses answers for pipelining."""

    def __init__(self, players: Sequence[Player], prepare_ahead: bool, clock: Callable[[], float]) -> None:
        self.players = players
        self.pipes = [p if isinstance(p, PipelinedPlayer) else None for p in players]
        # Who awaits: the stall meter runs around their decisions only. A sync player's
        # decide blocks the loop itself: that is the player's own time.
        self.awaits = [not isinstance(p, SyncAdapter) for p in players]
        self.guesses: list[dict[tuple[LegalAction, ...], Action]] | None = (
            [{} for _ in players] if prepare_ahead else None)
        self.clock = clock
        self.stalls = stall_meter(asyncio.get_running_loop())
        self.prepared: tuple[Turn, Any] | None = None
        self.prepared_used = [0] * len(players)
        self.elapsed_s = 0.0
        """The time of the last decision asked, the arena's stalls left out."""

    async def ask(self, turn: Turn, session: MatchSession) -> Decision | BotFault:
        """The decision of ``turn``'s seat, or the fault it committed (timed in :attr:`elapsed_s`)."""
        stalls = self.stalls
        held = self.awaits[turn.seat]
        t0 = self.clock()
        stalled0 = stalls.hold() if held else stalls.stalled_s
        try:
            try:
                pipe = self.pipes[turn.seat]
                if pipe is not None:
                    return await self._pipelined(pipe, turn, session)
                return await self.players[turn.seat].decide(turn.view, turn.request_id, turn.timing)
            finally:
                if held:
                    stalls.release()
                self.elapsed_s = self.clock() - t0 - (stalls.stalled_s - stalled0)
        except BotFault as exc:
            return exc
        except Exception as exc:  # a bug in a player adapter must not stop the match
            return BotFault(FaultKind.BOT_ERROR, f"{type(exc).__name__}: {exc}")

    async def _pipelined(self, pipe: PipelinedPlayer, turn: Turn, session: MatchSession) -> Decision:
        prepared, self.prepared = self.prepared, None
        if prepared is not None and prepared[0] is turn:
            request = prepared[1]
            self.prepared_used[turn.seat] += 1
        else:
            request = pipe.encode(turn)
        await pipe.send(turn, request)
        if self.guesses is not None and not pipe.has_answer():
            self.prepared = self._prepare(turn, session)
        return await pipe.receive(turn)

    def _prepare(self, turn: Turn, session: MatchSession) -> tuple[Turn, Any] | None:
        """The next turn and its encoded request, if this seat answers as it did last
        time in the same situation; None if there is no guess or nothing to prepare."""
        assert self.guesses is not None
        guess = self.guesses[turn.seat].get(turn.view.legal_actions.entries)
        if guess is None:
            return None
        try:
            nxt = session.predict(guess)
            pipe = self.pipes[nxt.seat] if nxt is not None else None
            if nxt is None or pipe is None:
                return None
            return nxt, pipe.encode(nxt)
        except Exception:  # the driver's own work for later must never hurt the decision
            return None

    def remember(self, turn: Turn, action: Action) -> None:
        """The seat answered ``action`` in ``turn``'s situation: the next guess there."""
        if self.guesses is not None:
            seen = self.guesses[turn.seat]
            if len(seen) >= GUESSES_PER_SEAT:
                seen.clear()
            seen[turn.view.legal_actions.entries] = action


async def _deliver(events: list[SessionEvent], players: Sequence[Player], on_hand: HandSink | None,
                   on_fault: Callable[[FaultRecord], None] | None, notify_error: NotifyErrorSink) -> None:
    """Hand the session's events to the sinks and the seats, in order."""
    for event in events:
        if isinstance(event, Faulted):
            if on_fault is not None:
                on_fault(event.fault)
        elif isinstance(event, HandEnded):
            if on_hand is not None:
                on_hand(event.record)
            for seat, p in enumerate(players):
                await _notify(p.hand_end, event.result, seat, notify_error)
        elif isinstance(event, HandStopped) and on_hand is not None:
            on_hand(event.record)


_Told = TypeVar("_Told")


async def _notify_all(methods: Sequence[Callable[[_Told], Awaitable[None]]], args: Sequence[_Told],
                      notify_error: NotifyErrorSink) -> None:
    """Tell every seat at once (``args[s]`` to seat ``s``): the match start opens each
    bot's stream and the match end waits for each bot to close it, a round trip or
    more per seat; side by side they overlap instead of adding up (issue 30: about 8 ms
    of a league's 115 ms per match went to them in turn). Each seat's messages stay in
    order: a seat is told one thing at a time."""
    await asyncio.gather(*(_notify(m, arg, seat, notify_error)
                           for seat, (m, arg) in enumerate(zip(methods, args, strict=True))))


async def _notify(method: Callable[[_Told], Awaitable[None]], arg: _Told, seat: int,
                  notify_error: NotifyErrorSink) -> None:
    """Await one notification of a seat; what it raises goes to ``notify_error`` with
    the method's name."""
    try:
        await method(arg)
    except Exception as exc:  # a notification must never stop the match
        notify_error(getattr(method, "__name__", "notification"), seat, exc)


def _ignore(method: str, seat: int, exc: BaseException) -> None:
    """The default notification-error sink."""
