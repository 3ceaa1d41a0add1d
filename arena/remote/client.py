"""A seat played by a bot over gRPC: one bidirectional ``Play`` stream per match.

:class:`RemoteBot` satisfies the referee's ``Player`` protocol with ``async`` methods on
``grpc.aio``: the referee's coroutine writes each request on the stream itself and a
reader task queues the answers, so a decision costs no thread hand-off on the arena's
side (docs/performance.md, "The client"). A decision is asked in two phases,
:meth:`RemoteBot.send` then :meth:`RemoteBot.receive`, which waits for the answer naming
its request id until the deadline. Everything a bot can do wrong
becomes a :class:`~arena.referee.player.BotFault`: no answer in time (TIMEOUT), a dead
process or stream (CRASH), an unreadable answer (MALFORMED), another request's id
(WRONG_REQUEST), and the bot's own report that it failed, a ``BotError`` answer
(BOT_ERROR, at once; :func:`~arena.remote.untrusted.error_report` makes what it says printable and short).
A late answer to an earlier, timed-out request is discarded, and so is
an answer to a request that was already charged as WRONG_REQUEST.

What a hostile bot cannot do (issue 14, points 7 and 8):

* **Get its stream torn down by a deadline.** A decision's deadline never cancels a
  write in flight: grpc.aio cancels the whole RPC when a write is cancelled, and the
  seat would then be a CRASH for the rest of the match. A write is only given up after
  :attr:`RemoteBot.write_timeout_s` (the bot stopped reading its stream: flow control
  blocks the write); the stream is then dead, rightly.
* **Be charged for the arena's own stalls.** Deadlines and write timeouts move later by
  the time the arena's loop did not run (SIGSTOP, a paused VM, a long GC), as measured
  by the loop's :class:`~arena.referee.eventloop.StallMeter`.
* **Fill the arena's memory.** The stream's reader counts what it reads against a flood
  (:mod:`arena.remote.inbox`); a bot that floods its stream loses it, and its
  decisions are CRASH faults.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import structlog
from mus.v1 import bot_service_pb2 as svc
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import handshake

from arena.engine import HandResult
from arena.referee.eventloop import StallMeter, stall_meter, thread_loop
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
from arena.remote.encoder import EncodedRequest, RequestEncoder
from arena.remote.inbox import BOT_CLOSED, CLOSED, MAX_MESSAGE_BYTES, Inbox
from arena.remote.manifest import BotAddress, BotManifest, BotSpec
from arena.remote.process import BotProcess, BotStartError
from arena.remote.untrusted import error_report, printable
from arena.wire import convert as wire

log = structlog.get_logger()

_PLAY_METHOD = "/mus.v1.BotService/Play"
END_GRACE_S = 2.0
"""After the match end, how long a bot has to read everything and end its side of the stream."""
SHUTDOWN_TIMEOUT_S = 1.0
"""How long a bot has to answer ``Shutdown``."""
SHUTDOWN_GRACE_S = 2.0
"""How long a bot that answered ``Shutdown`` has to exit before SIGTERM (then SIGKILL)."""
_STOPPER = ThreadPoolExecutor(max_workers=256, thread_name_prefix="mus-bot-stop")
"""Where bot processes are waited for as they stop: many at once (:func:`close_bots`), so
that n bots that will not exit cost one grace period, not n."""

WRITE_TIMEOUT_S = 5.0
"""How long a write to a bot may stay blocked (HTTP/2 flow control: the bot does not read
its stream) before the stream is dead; the arena's own stalls are not counted. A write
blocked past a decision's deadline makes that decision wait for it, up to this long,
once per match at most: a seat whose stream is dead is a CRASH at once."""

_STOPPED_READING = "the bot stopped reading its stream"
_CANCELLED_UNDER_WRITE = "stream cancelled during a write"


class RemoteBot(PipelinedPlayer):
    """A bot process (or a bot at an address) playing one seat.

    :meth:`connect` and :meth:`close` are plain methods (they run on this thread's
    event loop, :func:`~arena.referee.eventloop.thread_loop`); the Player methods are
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
        self.spec = spec
        self.sandbox = sandbox
        """The isolation profile of the bot's process (:mod:`arena.remote.sandbox`)."""
        self.name = spec.name
        self.label = label
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.unix_socket = unix_socket
        """Whether the bot is offered a private unix socket directory (else it binds TCP);
        always under the strict sandbox."""
        self.max_message_bytes = max_message_bytes
        self.process: BotProcess | None = None
        self.info: svc.GetInfoResponse | None = None
        self._channel: Any = None
        self._stub: Any = None
        self._call: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._recv: Inbox | None = None
        self._stream_dead: str | None = None
        self._encoder = RequestEncoder()
        self._asked: Turn | None = None
        """The turn sent and not received yet."""
        self._cancelling = 0
        self._late_ok: set[int] = set()
        # The decision deadline's watchdog (see _watch): one timer per deadline period
        # rather than one per decision.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._watch_at = 0.0
        self._deadline: float | None = None
        self._waiting: asyncio.Task[Any] | None = None
        self._timed_out = False
        # Stalls of the arena (see arena.referee.eventloop.StallMeter): the loop's meter,
        # and its total when the wait the watchdog guards began.
        self._stalls: StallMeter | None = None
        self._stall0 = 0.0
        self._write_from: float | None = None
        """Loop time at which the write in flight began (None: no write in flight)."""
        self.write_timeout_s = WRITE_TIMEOUT_S
        """How long a write may stay blocked before the stream is dead (see WRITE_TIMEOUT_S)."""
        # What the stream's reader counts against a flood (see the module docstring).
        self.ended_cleanly = False
        """Whether the last match's stream ended with the bot closing its side after
        reading everything (set by ``end_match``)."""
        self._frozen = False
        """Stopped (SIGSTOP) between its decisions: see :meth:`_freeze`."""
        self._closing = False
        """Being closed: never frozen again (a match task left behind by Ctrl-C may still
        end a decision)."""

    @classmethod
    def over_channel(cls, channel: Any, info: svc.GetInfoResponse, spec: BotAddress, label: str = "") -> RemoteBot:
        """A seat over a channel that is already open, with ``info`` as its ``GetInfo``
        answer: an in-memory channel in tests (tests/remote/fake_transport.py)."""
        bot = cls(spec, Path(), label or spec.name)
        bot._channel = channel
        bot.info = info
        return bot

    @property
    def channel(self) -> Any:
        """The gRPC channel to the bot (None before :meth:`connect`)."""
        return self._channel

    def __repr__(self) -> str:
        return f"<RemoteBot {self.label} {self.name} pid={self.process.pid if self.process else None}>"

    # ------------------------------------------------------------------ lifecycle

    def connect(self, info_timeout_s: float = 5.0) -> svc.GetInfoResponse:
        """Start the process (for a manifest), connect, and ask ``GetInfo`` (readiness).

        Raises:
            BotStartError: the bot did not start, or does not answer ``GetInfo``.
        """
        return thread_loop().run_until_complete(self._connect(info_timeout_s))

    def launch(self) -> None:
        """Start the bot's process without waiting for it (several bots start at once);
        :meth:`connect` then waits. Nothing to do for a bot at an address.

        Raises:
            BotStartError: the command cannot be run.
        """
        if isinstance(self.spec, BotManifest) and self.process is None:
            process = BotProcess(self.spec, self.log_dir, self.label, sandbox=self.sandbox,
                                 unix_socket=self.unix_socket)
            process.spawn()
            self.process = process

    async def _connect(self, info_timeout_s: float) -> svc.GetInfoResponse:
        if isinstance(self.spec, BotManifest):
            self.launch()
            assert self.process is not None
            self.process.wait_announce(self.start_timeout_s)
            assert self.process.target is not None
            target = self.process.target
        else:
            assert isinstance(self.spec, BotAddress)
            target = self.spec.target
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
            ("grpc.enable_http_proxy", 0),
        ]
        tls = self.spec.tls if isinstance(self.spec, BotAddress) else None
        if tls is None:
            self._channel = grpc.aio.insecure_channel(target, options=options)
        else:
            creds = grpc.ssl_channel_credentials(
                root_certificates=tls.ca.read_bytes(),
                private_key=tls.key.read_bytes() if tls.key else None,
                certificate_chain=tls.cert.read_bytes() if tls.cert else None,
            )
            if tls.server_name:
                options.append(("grpc.ssl_target_name_override", tls.server_name))
            self._channel = grpc.aio.secure_channel(target, creds, options=options)
        self._stub = svc_grpc.BotServiceStub(self._channel)  # type: ignore[no-untyped-call]
        call = self._stub.GetInfo(
            svc.GetInfoRequest(protocol_versions=list(handshake.SUPPORTED_APP_PROTOCOL_VERSIONS)),
            timeout=info_timeout_s,
            wait_for_ready=True,
        )
        try:
            self.info = await self._until_exit(call)
        except (grpc.RpcError, BotStartError) as exc:
            process = self.process
            why = f"does not answer GetInfo: {exc.code().name}" if isinstance(exc, grpc.RpcError) else str(exc)
            await self._close()
            tail = process.stderr_text() if process is not None else ""  # stderr head and tail, made printable
            raise BotStartError(f"bot {self.name} at {printable(target, 200)} {why}{tail}") from None
        if isinstance(self.spec, BotAddress) and self.info.name:
            self.info.name = printable(self.info.name, 100)  # shown in standings and on the console
            self.name = self.info.name
        if self.info.version:
            self.info.version = printable(self.info.version, 100)
        return self.info

    async def _until_exit(self, call: Any) -> Any:
        """The answer of ``call``, unless the bot's process exits first: then a
        BotStartError with its exit code at once (a dead bot is not waited for until
        the readiness timeout)."""
        if self.process is None:
            return await call
        task = asyncio.ensure_future(call)
        while True:
            done, _ = await asyncio.wait({task}, timeout=0.05)
            if done:
                return task.result()
            if not self.process.alive():
                task.cancel()
                code = self.process.proc.returncode if self.process.proc else None
                raise BotStartError(f"exited with code {code} before answering GetInfo")

    def close(self) -> None:
        """End the stream, ask the bot to shut down, and stop its process. Idempotent."""
        loop = thread_loop()
        if loop.is_running():  # called from inside a coroutine: schedule, don't block
            loop.create_task(self._close())
        else:
            loop.run_until_complete(self._close())

    async def _close(self) -> None:
        self._closing = True
        self._wake()
        await self._end_stream()
        agreed = False
        if self._stub is not None and self.process is not None and self.process.alive():
            try:
                await self._stub.Shutdown(svc.ShutdownRequest(), timeout=SHUTDOWN_TIMEOUT_S)
                agreed = True
            except (TimeoutError, grpc.RpcError):
                pass
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
            self._stub = None
        if self.process is not None:
            # A bot that answered Shutdown gets the grace period to exit; one that did not
            # answer it (it hung, or refused) would only make the league wait longer.
            grace = SHUTDOWN_GRACE_S if agreed else 0.0
            await asyncio.get_running_loop().run_in_executor(_STOPPER, self.process.stop, grace)

    async def _end_stream(self) -> None:
        # A decision still waiting (the bot closed from inside the loop) keeps its
        # deadline: the watchdog still times it out.
        if self._watchdog is not None and self._waiting is None:
            self._watchdog.cancel()
            self._watchdog = None
        call, reader = self._call, self._reader
        self._call = self._reader = None
        if call is not None:
            open_before = self._stream_dead is None
            try:
                await asyncio.wait_for(call.done_writing(), 1.0)
                # Cancelling at once would drop what is still in flight (the match end,
                # the last hand end): let the bot read it all and end its side first.
                # A quick bot may have ended its side already while done_writing ran.
                if reader is not None and open_before:
                    if self._stream_dead is None:
                        await asyncio.wait_for(asyncio.shield(reader), END_GRACE_S)
                    # The bot read everything and closed its side: a clean end.
                    self.ended_cleanly = self._stream_dead == BOT_CLOSED
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # this task's cancellation, not gRPC's (a call cancelled under it)
            except Exception:
                pass
            call.cancel()
        if reader is not None:
            reader.cancel()
            try:
                await reader
            except (asyncio.CancelledError, Exception):
                pass  # not KeyboardInterrupt: Ctrl-C (or SIGTERM) landing here must still stop the command

    # ------------------------------------------------------------------ the stream

    def _ended_because(self, why: str) -> None:
        """The reader's news: the stream ended (the bot closed it, broke it, or flooded it).
        The first reason stands: a stream the arena gave up on (a write blocked too long)
        and then cancelled is not "cancelled" but what made the arena give it up."""
        self._stream_dead = self._stream_dead or why

    async def _write(self, msg: svc.PlayRequest | bytes) -> None:
        """Write one notification (match start, hand end, match end). A broken stream,
        or a write blocked for :attr:`write_timeout_s` (the bot stopped reading: flow
        control), marks the stream dead; the arena's stalls do not count (the watchdog
        guards the write, as a decision's)."""
        if self._call is None or self._stream_dead is not None or self._loop is None or self._stalls is None:
            return
        task = asyncio.current_task()
        assert task is not None
        cancelling = task.cancelling()
        stalls = self._stalls
        now = self._loop.time()
        self._deadline, self._waiting, self._timed_out = None, task, False
        self._stall0 = stalls.hold()
        self._write_from = now
        if self._watchdog is None or self._watch_at > now + self.write_timeout_s:
            self._arm(now + self.write_timeout_s)
        try:
            await self._call.write(msg if isinstance(msg, bytes) else msg.SerializeToString())
        except asyncio.CancelledError:
            if task.cancelling() == cancelling:
                # Not this task's cancellation: gRPC's, the call being cancelled under
                # the write (the reader cancels a flooded stream).
                self._stream_dead = self._stream_dead or _CANCELLED_UNDER_WRITE
            # The watchdog gave the write up (the stream is marked dead), unless the
            # cancellation came from outside.
            elif not self._timed_out or task.uncancel() > cancelling:
                raise
        except Exception as exc:
            self._stream_dead = self._stream_dead or f"stream broken on write: {type(exc).__name__}"
        finally:
            self._write_from = self._waiting = None
            stalls.release()

    # ------------------------------------------------------------------ Player protocol

    async def start_match(self, info: MatchStartInfo) -> None:
        """Open this match's stream and send the match start."""
        await self._end_stream()
        self._stream_dead = None
        self.ended_cleanly = False
        self._late_ok = set()
        self._encoder.start_match(info.match_id, info.rules)
        if self._channel is None:
            self._stream_dead = "not connected"
            return
        # Requests go out as bytes (arena.remote.encoder); answers come in as
        # bytes too, counted by the reader (floods) and parsed by the decision taking them.
        self._call = self._channel.stream_stream(_PLAY_METHOD, request_serializer=None, response_deserializer=None)()
        self._loop = asyncio.get_running_loop()
        self._stalls = stall_meter(self._loop)
        self._recv = Inbox(self._loop)
        self._reader = self._loop.create_task(
            self._recv.read_from(self._call, self.max_message_bytes, self._ended_because))
        msg = svc.PlayRequest()
        msg.match_start.CopyFrom(
            wire.match_start_pb(info.match_id, info.seat, info.rules, info.seat_names, info.decision_ms, info.time_bank_ms)
        )
        await self._write(msg)
        self._freeze()

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
        raised by :meth:`receive`. The deadline never cancels the write (see :meth:`_watch`)."""
        self._asked = turn
        if self._stream_dead is not None or self._recv is None or self._loop is None or self._stalls is None:
            return  # not woken: a bot whose stream is dead gets no more time to run
        self._wake()  # before the deadline's clock starts, and credited: the arena's time, not the bot's
        now = self._loop.time()
        deadline = now + turn.timing.deadline_s
        task = asyncio.current_task()
        assert task is not None
        self._cancelling = task.cancelling()
        self._deadline, self._waiting, self._timed_out = deadline, task, False
        self._stall0 = self._stalls.hold()
        if self._watchdog is None or self._watch_at > deadline:
            self._arm(deadline)
        self._recv.sent += 1  # one answer owed (the reader's flood count)
        self._encoder.sent(request)
        self._write_from = now
        try:
            await self._call.write(request.data)
        except asyncio.CancelledError:
            if task.cancelling() == self._cancelling:
                # gRPC's own, not this task's (as in _write): the stream is dead, and
                # receive() says so at once.
                self._stream_dead = self._stream_dead or _CANCELLED_UNDER_WRITE
                self._recv.put(CLOSED)
            elif not self._timed_out or task.uncancel() > self._cancelling:
                self._end_wait()
                raise
            # The deadline passed while the request was being written: receive() says so.
        except Exception as exc:
            self._stream_dead = self._stream_dead or f"stream broken on write: {type(exc).__name__}"
        finally:
            self._write_from = None

    def has_answer(self) -> bool:
        """Whether something was read from the bot since :meth:`send` (the driver then
        has no time to prepare anything)."""
        return self._recv is not None and bool(self._recv.items)

    async def receive(self, turn: Turn) -> Decision:
        """The answer to ``turn`` (just sent with :meth:`send`), within its deadline.

        Raises:
            BotFault: no answer in time, a dead bot or stream, an unreadable answer, an
                answer to another request, or the bot's own error report.
        """
        if self._asked is not turn:
            raise RuntimeError("receive() must follow send() of the same turn")
        self._asked = None
        if self._waiting is None:  # send() found the stream dead
            raise BotFault(FaultKind.CRASH, self._crash_detail())
        task = self._waiting
        recv = self._recv
        assert recv is not None
        inbox = recv.items
        request_id = turn.request_id
        try:
            if self._timed_out:  # the deadline passed while the request was being written
                raise self._timeout(request_id, turn.timing)
            while True:
                response = inbox.popleft() if inbox else await recv.get()
                decision = self._check_response(response, request_id)
                if decision is not None:
                    return decision
        except asyncio.CancelledError:
            # Cancelled from outside (the match is being stopped), alone or in the same
            # loop turn as the timeout: the outside cancellation wins.
            if not self._timed_out or task.uncancel() > self._cancelling:
                raise
            raise self._timeout(request_id, turn.timing) from None
        finally:
            self._end_wait()
            self._freeze()

    def _freeze(self) -> None:
        """Under the strict sandbox a bot process runs only while it is asked: it is
        stopped (every process of it: its control group's freezer where it has one, else
        SIGSTOP, see :meth:`BotProcess.freeze`) after its match start and each of its
        decisions, and woken for the next, for the match's end and to be closed. So no bot can use the CPU while another decides (slowing it down), and
        partners cannot signal each other by running at the same time (CPU load,
        timing). What reaches a frozen bot (a hand's end) waits in its stream."""
        if self.sandbox == "strict" and self.process is not None and not self._frozen and not self._closing:
            self._signal(freeze=True)
            self._frozen = True

    def _wake(self) -> None:
        if self._frozen and self.process is not None:
            self._signal(freeze=False)
        self._frozen = False

    def _signal(self, freeze: bool) -> None:
        """Freeze or wake every process of the bot; the time it takes is credited to the
        decision waiting (if any) as the arena's, not the bot's."""
        assert self.process is not None
        t0 = time.perf_counter()
        if freeze:
            self.process.freeze()
        else:
            self.process.thaw()
        if self._stalls is not None:
            self._stalls.credit(time.perf_counter() - t0)

    def _end_wait(self) -> None:
        """The decision's wait is over: its deadline no longer applies."""
        self._deadline = self._waiting = None
        if self._stalls is not None:
            self._stalls.release()

    def _timeout(self, request_id: int, timing: DecisionTiming) -> BotFault:
        """The TIMEOUT fault of ``request_id``, whose late answer is then discarded."""
        self._late_ok.add(request_id)
        detail = f"no answer within {timing.deadline_s * 1000:.0f} ms"
        if self._stream_dead == _STOPPED_READING:
            detail += f"; {_STOPPED_READING} (a write blocked for {self.write_timeout_s:g} s)"
        return BotFault(FaultKind.TIMEOUT, detail)

    def _arm(self, when: float) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        assert self._loop is not None
        self._watch_at = when
        self._watchdog = self._loop.call_at(when, self._watch)

    def _watch(self) -> None:
        """The deadline watchdog: ends the wait for a decision past its deadline, and a
        write blocked past :attr:`write_timeout_s`.

        One timer serves many decisions rather than an ``asyncio.timeout`` each
        (docs/performance.md, "The client"): deadlines only move later from one
        decision to the next, so when the timer fires early for the current decision,
        it re-arms itself for that decision's deadline.

        Both limits move later by the arena's stalls since the wait began (the loop's
        :class:`~arena.referee.eventloop.StallMeter`; a timer firing late after a stall
        is how the meter sees one the heartbeat has not seen yet). A deadline that
        passes while the request is still being written only marks the decision timed
        out: cancelling a write in flight would cancel the stream (grpc.aio), and a
        timeout must never cost the seat its stream. The decision raises TIMEOUT once
        the write is done; only a write blocked past its own limit is cancelled, and
        the stream with it (the bot stopped reading: it is dead).
        """
        self._watchdog = None
        task = self._waiting
        if task is None or self._loop is None or self._stalls is None:
            return  # nothing waiting: the next wait arms a new timer
        credit = self._stalls.check() - self._stall0
        now = max(self._loop.time(), self._watch_at)
        write_from = self._write_from
        give_up = float("inf")
        if write_from is not None:
            give_up = write_from + self.write_timeout_s + credit
            if give_up <= now:
                self._stream_dead = _STOPPED_READING
                self._timed_out = True
                task.cancel()
                return
        deadline = self._deadline
        if deadline is not None and not self._timed_out:
            deadline += credit
            if deadline > now:
                self._arm(min(deadline, give_up))  # armed for an earlier deadline, or a stall
                return
            self._timed_out = True
            if write_from is None:
                task.cancel()
                return
        if write_from is not None:
            self._arm(give_up)  # the write still in flight: its own limit

    def _check_response(self, response: Any, request_id: int) -> Decision | None:
        """The decision in ``response``, None for a stale answer to skip, or a fault."""
        recv = self._recv
        assert recv is not None
        if response is CLOSED:
            recv.put(CLOSED)  # keep the stream marked closed for later calls
            raise BotFault(FaultKind.CRASH, self._crash_detail())
        recv.nbytes -= len(response)
        try:
            message = svc.PlayResponse.FromString(response)
        except Exception:  # protobuf's DecodeError: not a PlayResponse at all
            raise BotFault(FaultKind.MALFORMED, f"the answer does not parse ({len(response)} bytes)") from None
        which = message.WhichOneof("message")
        if which == "decision":
            d = message.decision
        elif which == "error":
            d = message.error  # "I failed": charged below, once its id is checked
        else:
            raise BotFault(FaultKind.MALFORMED, "the answer holds no decision")
        if d.request_id != request_id:
            if d.request_id in self._late_ok:
                self._late_ok.discard(d.request_id)  # a late answer to a timed-out request
                return None
            # The bot may still answer this request: that answer will be stale too.
            self._late_ok.add(request_id)
            raise BotFault(FaultKind.WRONG_REQUEST, f"answered request {d.request_id}, asked {request_id}")
        if which == "error":
            raise BotFault(FaultKind.BOT_ERROR, error_report(d.error_type, d.message, d.traceback))
        try:
            action = wire.action_from_pb(d.action)
            sena = wire.sena_from_pb(d.sena) if d.HasField("sena") else None
        except wire.WireError as exc:
            raise BotFault(FaultKind.MALFORMED, str(exc)) from None
        return Decision(action, sena)

    def _crash_detail(self) -> str:
        detail = self._stream_dead or "stream closed"
        if self.process is not None and not self.process.alive():
            code = self.process.proc.returncode if self.process.proc else None
            detail = f"process exited with code {code}; {detail}"
        return detail

    async def hand_end(self, result: HandResult) -> None:
        """Send the end-of-hand notification (unless the bot asked to skip them); the
        games won are the engine's, on the result (0–0 again after a vaca)."""
        if self.info is not None and self.info.skip_hand_ends:
            return
        await self._write(wire.hand_end_request_bytes(result))

    async def end_match(self, info: MatchEndInfo) -> None:
        """Send the match end and close the stream."""
        self._wake()
        if self._recv is not None:
            self._recv.ended = True  # the reader discards what comes from now on
        msg = svc.PlayRequest()
        msg.match_end.CopyFrom(wire.match_end_pb(info.winner_team, info.games_won, info.reason, info.detail,
                                                 info.vacas_won))
        await self._write(msg)
        await self._end_stream()

    async def request_shutdown(self, timeout_s: float = 2.0) -> None:
        """Call the bot's ``Shutdown`` RPC (and nothing else: the process is not stopped).

        Raises:
            grpc.RpcError: the call failed or timed out.
        """
        if self._stub is None:
            raise RuntimeError("not connected")
        self._wake()
        await self._stub.Shutdown(svc.ShutdownRequest(), timeout=timeout_s)

    def is_dead(self) -> bool:
        """Whether the bot's process has exited (it is restarted before the next match)."""
        return self.process is not None and not self.process.alive()


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
