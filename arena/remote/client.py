"""A seat played by a bot over gRPC: one bidirectional ``Play`` stream per match.

:class:`RemoteBot` satisfies the referee's ``Player`` protocol with ``async`` methods on
``grpc.aio``: the referee's coroutine writes each request on the stream itself and a
reader task queues the answers, so a decision costs no thread hand-off on the arena's
side (docs/performance.md, "The client"). A decision is asked in two phases,
:meth:`RemoteBot.send` then :meth:`RemoteBot.receive`, which waits for the answer naming
its request id until the deadline. Everything a bot can do wrong becomes a
:class:`~arena.referee.player.BotFault`: no answer in time (TIMEOUT), a dead process or
stream (CRASH), and what :mod:`arena.remote.answers` finds wrong in an answer.

``RemoteBot`` is a facade over the transport's concerns, one module each:

* :mod:`arena.remote.connection`: the process and the (TLS) channel, ``GetInfo``, ``Shutdown``;
* :mod:`arena.remote.stream`: one match's ``Play`` stream, its state and its one write path;
* :mod:`arena.remote.watchdog`: the decision deadline and the write timeout, with the
  arena's stalls credited;
* :mod:`arena.remote.encoder`: the requests as bytes; :mod:`arena.remote.answers`: the answers read;
* :mod:`arena.remote.freezer`: the strict sandbox's freezing between decisions.

:mod:`arena.remote.fake` serves a ``RemoteBot`` from an in-memory stream, for tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import structlog
from mus.v1 import bot_service_pb2 as svc
from mus_core import HandResult

from arena.referee.player import (
    BotFault,
    Decision,
    DecisionTiming,
    FaultKind,
    MatchEndInfo,
    MatchStartInfo,
    PipelinedPlayer,
    Turn,
)
from arena.remote.answers import decision_in
from arena.remote.connection import Connection
from arena.remote.encoder import EncodedRequest, RequestEncoder
from arena.remote.freezer import Freezer
from arena.remote.inbox import CLOSED, MAX_MESSAGE_BYTES
from arena.remote.manifest import BotAddress, BotSpec
from arena.remote.process import BotProcess
from arena.remote.stream import PLAY_METHOD, STOPPED_READING, PlayStream, StreamState
from arena.runtime.eventloop import thread_loop
from arena.wire import convert as wire

log = structlog.get_logger()

WRITE_TIMEOUT_S = 5.0
"""How long a write to a bot may stay blocked (HTTP/2 flow control: the bot does not read
its stream) before the stream is dead; the arena's own stalls are not counted. A write
blocked past a decision's deadline makes that decision wait for it, up to this long,
once per match at most: a seat whose stream is dead is a CRASH at once."""


class RemoteBot(PipelinedPlayer):
    """A bot process (or a bot at an address) playing one seat.

    :meth:`connect` and :meth:`close` are plain methods (they run on this thread's
    event loop, :func:`~arena.runtime.eventloop.thread_loop`); the Player methods are
    coroutines awaited by the referee on that same loop. It is a
    :class:`~arena.referee.player.PipelinedPlayer`: a decision is :meth:`encode`,
    :meth:`send`, then :meth:`receive`, and the driver may prepare the next request in
    between, while the bot thinks.
    """

    def __init__(
        self,
        spec: BotSpec,
        log_dir: Path,
        label: str,
        *,
        start_timeout_s: float = 10.0,
        unix_socket: bool = True,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
        sandbox: str = "default",
    ) -> None:
        self.connection = Connection(spec, log_dir, label, start_timeout_s=start_timeout_s, unix_socket=unix_socket,
                                     max_message_bytes=max_message_bytes, sandbox=sandbox)
        self.write_timeout_s = WRITE_TIMEOUT_S
        """How long a write may stay blocked before the stream is dead (see WRITE_TIMEOUT_S);
        read when a match's stream opens."""
        self._stream = PlayStream()
        """This match's stream (a new one each match)."""
        self._encoder = RequestEncoder()
        self._freezer = Freezer(self.connection)
        self._stale: set[int] = set()
        """Request ids whose answer, if it comes, is skipped (:func:`~arena.remote.answers.decision_in`)."""
        self._asked: Turn | None = None
        """The turn sent and not received yet."""

    @classmethod
    def over_channel(cls, channel: Any, info: svc.GetInfoResponse, spec: BotAddress, label: str = "") -> RemoteBot:
        """A seat over a channel that is already open, with ``info`` as its ``GetInfo``
        answer: an in-memory channel in tests (:mod:`arena.remote.fake`)."""
        bot = cls(spec, Path(), label or spec.name)
        bot.connection.channel = channel
        bot.connection.info = info
        return bot

    # What the league, the CLI and the tests read of a bot: its connection's.
    @property
    def spec(self) -> BotSpec:
        """The bot's manifest or address."""
        return self.connection.spec

    @spec.setter
    def spec(self, spec: BotSpec) -> None:
        self.connection.spec = spec

    @property
    def sandbox(self) -> str:
        """The isolation profile of the bot's process (:mod:`arena.remote.sandbox`)."""
        return self.connection.sandbox

    @sandbox.setter
    def sandbox(self, profile: str) -> None:
        self.connection.sandbox = profile

    @property
    def process(self) -> BotProcess | None:
        """The bot's process (None for a bot at an address, or before :meth:`launch`)."""
        return self.connection.process

    @process.setter
    def process(self, process: BotProcess | None) -> None:
        self.connection.process = process

    @property
    def name(self) -> str:
        """The bot's name: the manifest's, or what a bot at an address says it is."""
        return self.connection.name

    @name.setter
    def name(self, name: str) -> None:  # the Player protocol's name is an attribute
        self.connection.name = name

    @property
    def label(self) -> str:
        """The seat's label in logs and file names."""
        return self.connection.label

    @property
    def log_dir(self) -> Path:
        """Where the bot's stdout and stderr are copied."""
        return self.connection.log_dir

    @property
    def start_timeout_s(self) -> float:
        """How long the bot has to announce its address."""
        return self.connection.start_timeout_s

    @property
    def info(self) -> svc.GetInfoResponse | None:
        """The bot's ``GetInfo`` answer (None before :meth:`connect`)."""
        return self.connection.info

    @property
    def channel(self) -> Any:
        """The gRPC channel to the bot (None before :meth:`connect`)."""
        return self.connection.channel

    @property
    def ended_cleanly(self) -> bool:
        """Whether the last match's stream ended with the bot closing its side after
        reading everything (known after ``end_match``)."""
        return self._stream.ended_cleanly

    def __repr__(self) -> str:
        return f"<RemoteBot {self.label} {self.name} pid={self.process.pid if self.process else None}>"

    # ------------------------------------------------------------------ lifecycle

    def connect(self, info_timeout_s: float = 5.0) -> svc.GetInfoResponse:
        """Start the process (for a manifest), connect, and ask ``GetInfo`` (readiness).

        Raises:
            BotStartError: the bot did not start, or does not answer ``GetInfo``.
        """
        return thread_loop().run_until_complete(self.connection.connect(info_timeout_s))

    def launch(self) -> None:
        """Start the bot's process without waiting for it (several bots start at once);
        :meth:`connect` then waits. Nothing to do for a bot at an address.

        Raises:
            BotStartError: the command cannot be run.
        """
        self.connection.launch()

    def close(self) -> None:
        """End the stream, ask the bot to shut down, and stop its process. Idempotent."""
        loop = thread_loop()
        if loop.is_running():  # called from inside a coroutine: schedule, don't block
            loop.create_task(self._close())
        else:
            loop.run_until_complete(self._close())

    async def _close(self) -> None:
        self._freezer.closing = True
        self._freezer.wake()
        await self._stream.end()
        await self.connection.close()

    def is_dead(self) -> bool:
        """Whether the bot's process has exited (it is restarted before the next match)."""
        return self.process is not None and not self.process.alive()

    async def request_shutdown(self, timeout_s: float = 2.0) -> None:
        """Call the bot's ``Shutdown`` RPC (and nothing else: the process is not stopped).

        Raises:
            RuntimeError: not connected.
            grpc.RpcError: the call failed or timed out.
        """
        if self.channel is None:
            raise RuntimeError("not connected")
        self._freezer.wake()
        await self.connection.request_shutdown(timeout_s)

    # ------------------------------------------------------------------ Player protocol

    async def start_match(self, info: MatchStartInfo) -> None:
        """Open this match's stream and send the match start."""
        await self._stream.end()
        stream = self._stream = PlayStream()
        self._stale = set()
        self._encoder.start_match(info.match_id, info.rules)
        if self.channel is None:
            stream.close_because("not connected")
            return
        # Requests go out as bytes (arena.remote.encoder); answers come in as bytes too,
        # counted by the reader (floods) and parsed by the decision taking them.
        call = self.channel.stream_stream(PLAY_METHOD, request_serializer=None, response_deserializer=None)()
        stream.open(call, self.connection.max_message_bytes, self.write_timeout_s)
        msg = svc.PlayRequest()
        msg.match_start.CopyFrom(
            wire.match_start_pb(info.match_id, info.seat, info.rules, info.seat_names, info.decision_ms, info.time_bank_ms)
        )
        await stream.write(msg.SerializeToString())
        self._freezer.freeze()

    def encode(self, turn: Turn) -> EncodedRequest:
        """The request for ``turn``, ready to :meth:`send` (it may never be sent: a
        driver prepares one for a guessed answer while another seat thinks)."""
        timing = turn.timing
        return self._encoder.encode(turn.view, turn.request_id, int(timing.deadline_s * 1000),
                                    int(timing.bank_left_s * 1000))

    async def send(self, turn: Turn, request: EncodedRequest) -> None:
        """Send ``request`` (:meth:`encode` of ``turn``) and start the decision's clock:
        one deadline covers the write and the wait for the answer (:meth:`receive`,
        which the same task must await next). Never raises a fault: what went wrong is
        raised by :meth:`receive`. The deadline never cancels the write
        (:class:`~arena.remote.watchdog.Watchdog`)."""
        self._asked = turn
        stream = self._stream
        if stream.state is not StreamState.OPEN:
            return  # not woken: a bot whose stream is dead gets no more time to run
        self._freezer.wake()  # before the deadline's clock starts, and credited: the arena's time, not the bot's
        self._encoder.sent(request)
        await stream.write(request.data, turn.timing.deadline_s)

    def has_answer(self) -> bool:
        """Whether something was read from the bot since :meth:`send` (the driver then
        has no time to prepare anything)."""
        inbox = self._stream.inbox
        return inbox is not None and bool(inbox.items)

    async def receive(self, turn: Turn) -> Decision:
        """The answer to ``turn`` (just sent with :meth:`send`), within its deadline.

        Raises:
            BotFault: no answer in time, a dead bot or stream, an unreadable answer, an
                answer to another request, or the bot's own error report.
        """
        if self._asked is not turn:
            raise RuntimeError("receive() must follow send() of the same turn")
        self._asked = None
        stream = self._stream
        dog, inbox = stream.watchdog, stream.inbox
        task = dog.task if dog is not None else None
        if dog is None or task is None or inbox is None:  # send() found the stream dead
            raise BotFault(FaultKind.CRASH, self._crash_detail())
        items = inbox.items
        request_id = turn.request_id
        try:
            if dog.timed_out:  # the deadline passed while the request was being written
                raise self._timeout(request_id, turn.timing)
            while True:
                raw = items.popleft() if items else await inbox.get()
                if raw is CLOSED:
                    inbox.put(CLOSED)  # keep the stream marked closed for later calls
                    raise BotFault(FaultKind.CRASH, self._crash_detail())
                inbox.nbytes -= len(raw)
                decision = decision_in(raw, request_id, self._stale)
                if decision is not None:
                    return decision
        except asyncio.CancelledError:
            # Cancelled from outside (the match is being stopped), alone or in the same
            # loop turn as the timeout: the outside cancellation wins.
            if not dog.owns_cancel(task):
                raise
            raise self._timeout(request_id, turn.timing) from None
        finally:
            dog.end()
            self._freezer.freeze()


    def _timeout(self, request_id: int, timing: DecisionTiming) -> BotFault:
        """The TIMEOUT fault of ``request_id``, whose late answer is then skipped."""
        self._stale.add(request_id)
        detail = f"no answer within {timing.deadline_s * 1000:.0f} ms"
        stream = self._stream
        if stream.state is StreamState.CLOSED and stream.reason == STOPPED_READING:
            detail += f"; {STOPPED_READING} (a write blocked for {self.write_timeout_s:g} s)"
        return BotFault(FaultKind.TIMEOUT, detail)

    def _crash_detail(self) -> str:
        stream = self._stream
        reason = stream.reason if stream.state is StreamState.CLOSED else "stream closed"
        return self.connection.exit_note() + reason

    async def hand_end(self, result: HandResult) -> None:
        """Send the end-of-hand notification (unless the bot asked to skip them); the
        games won are the engine's, on the result (0–0 again after a vaca)."""
        info = self.info
        if info is not None and info.skip_hand_ends:
            return
        await self._stream.write(wire.hand_end_request_bytes(result))

    async def end_match(self, info: MatchEndInfo) -> None:
        """Send the match end and close the stream."""
        self._freezer.wake()
        stream = self._stream
        if stream.inbox is not None:
            stream.inbox.ended = True  # the reader discards what comes from now on
        msg = svc.PlayRequest()
        msg.match_end.CopyFrom(wire.match_end_pb(info.winner_team, info.games_won, info.reason, info.detail,
                                                 info.vacas_won))
        await stream.write(msg.SerializeToString())
        await stream.end()


def close_bots(bots: Iterable[RemoteBot]) -> list[tuple[RemoteBot, BaseException]]:
    """Close several bots at once (:meth:`RemoteBot.close` of each, side by side): a bot
    that will not stop costs the others nothing, and n of them cost one grace period, not n
    (a league's end, or a hostile entry's processes replaced after each match, no longer
    waits for them in turn). Returns the bots whose close failed, with the error."""
    todo = list(bots)
    if not todo:
        return []
    loop = thread_loop()
    if loop.is_running():  # called from inside a coroutine: schedule, don't block
        for bot in todo:
            task = loop.create_task(bot._close())
            _CLOSING.add(task)  # a reference until it is done (the loop keeps only a weak one)
            task.add_done_callback(_CLOSING.discard)
        return []

    async def all_of(bots: list[RemoteBot]) -> list[BaseException | None]:
        return await asyncio.gather(*(bot._close() for bot in bots), return_exceptions=True)

    failed = [(bot, exc) for bot, exc in zip(todo, loop.run_until_complete(all_of(todo)), strict=True)
              if exc is not None]
    # A close may end in CancelledError when a decision's deadline cancelled a write:
    # gRPC then cancels the whole call, and waiting for its reader re-raises that (seen
    # with 1 ms deadlines). The stream is dropped by then, so a second close goes on to
    # Shutdown and stopping the process.
    again = [bot for bot, exc in failed if isinstance(exc, asyncio.CancelledError)]
    failed = [(bot, exc) for bot, exc in failed if not isinstance(exc, asyncio.CancelledError)]
    if again:
        failed += [(bot, exc) for bot, exc in zip(again, loop.run_until_complete(all_of(again)), strict=True)
                   if exc is not None]
    for bot, exc in failed:  # stopping one bot must not stop the others', nor go unsaid
        log.warning("bot.close_failed", bot=bot.label, error=repr(exc))
    return failed


_CLOSING: set[asyncio.Task[None]] = set()
