"""An in-memory ``Play`` stream: a bot as a Python function, with no process and no socket.

Shipped with the arena for bot and arena authors' tests (docs/architecture.md, "Testing
without processes"): of the referee's drivers and of
:class:`~arena.remote.client.RemoteBot` itself (deadlines, late and stale answers,
garbage, floods, a stream that closes), as python-chess ships a mock transport for its
engine tests::

    bot = fake_bot("first", simple)                  # answers simple_action
    result = play_match([fake_bot(f"s{s}", simple) for s in range(4)], config)

The bot's side is a function ``respond(request) -> Reply | None`` called with each
decision request (a ``mus.v1.DecisionRequest``); its :class:`Reply` says what bytes to
send back and after how long. Everything the arena wrote is kept, parsed, in
:attr:`FakeChannel.requests`. Only :class:`RemoteBot`'s stream is faked: what is
tested is the arena's own code, from the driver down to the bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc  # type: ignore[import-untyped]
from mus.v1 import bot_service_pb2 as svc
from mus.v1 import game_pb2 as pb

from arena.remote.client import RemoteBot
from arena.remote.manifest import BotAddress

_CANCELLED = object()
"""Queued by :meth:`FakeCall.cancel`: the read that takes it raises."""


@dataclass(frozen=True)
class Reply:
    """What a fake bot sends for one request: ``messages`` (serialized ``PlayResponse``
    messages, or any bytes: garbage is a test too), after ``delay_s`` seconds."""

    messages: Sequence[bytes] = ()
    delay_s: float = 0.0


Respond = Callable[[svc.DecisionRequest], Reply | None]
"""A fake bot's policy: the reply to a decision request (None: no answer, ever)."""


def decision(request_id: int, action: pb.Action, sena: int | None = None) -> bytes:
    """A serialized ``PlayResponse`` answering ``request_id`` with ``action`` (and a seña)."""
    msg = svc.PlayResponse()
    msg.decision.request_id = request_id
    msg.decision.action.CopyFrom(action)
    if sena is not None:
        msg.decision.sena = sena  # type: ignore[assignment]
    return msg.SerializeToString()  # type: ignore[no-any-return]


PASSIVE = ("no_mus", "paso", "no_quiero", "no_queremos")


def simple_action(request: svc.DecisionRequest) -> pb.Action:
    """A simple legal answer to ``request``, the same for the same request: mus in the
    first discard round and the first card as the discard; in the lances an envido of the
    smallest amount on every third request id, else the passive answer (paso, no
    quiero), else the first legal action."""
    entries = {e.WhichOneof("kind"): e for e in request.legal_actions}
    out = pb.Action()
    if "mus" in entries and request.discard_round == 0:
        out.mus.SetInParent()
    elif "discard" in entries:
        choice = entries["discard"].discard
        out.discard.cards.extend(choice.cards[:max(1, choice.min_count)])
    elif "envido" in entries and request.request_id % 3 == 0:
        out.envido.amount = entries["envido"].envido.min_amount
    else:
        kind = next((k for k in PASSIVE if k in entries), request.legal_actions[0].WhichOneof("kind"))
        getattr(out, kind).SetInParent()
    return out


def simple(request: svc.DecisionRequest) -> Reply:
    """A policy: answer :func:`simple_action` at once."""
    return Reply([decision(request.request_id, simple_action(request))])


@dataclass
class FakeChannel:
    """A gRPC channel whose ``Play`` streams are served by ``respond``, in this process."""

    respond: Respond
    requests: list[svc.PlayRequest] = field(default_factory=list)
    """Every message the arena wrote on this channel's streams, parsed, in order."""
    closed: bool = False

    def stream_stream(self, method: str, request_serializer: Any = None,
                      response_deserializer: Any = None) -> Callable[[], FakeCall]:
        """The ``Play`` method (bytes in, bytes out: the arena serializes itself)."""
        return lambda: FakeCall(self)

    async def close(self) -> None:
        """Close the channel (its streams end)."""
        self.closed = True


class FakeCall:
    """One ``Play`` stream: the arena writes requests, the fake bot's replies are read."""

    def __init__(self, channel: FakeChannel) -> None:
        self._channel = channel
        self._loop = asyncio.get_running_loop()
        self._inbox: asyncio.Queue[Any] = asyncio.Queue()
        self._pending = 0
        self._closing = False
        self.cancelled = False

    async def write(self, data: bytes) -> None:
        """The arena's request: answered by the fake bot's policy."""
        if self.cancelled:
            raise grpc.aio.AioRpcError(grpc.StatusCode.CANCELLED, None, None, "the stream was cancelled")
        msg = svc.PlayRequest.FromString(data)
        self._channel.requests.append(msg)
        if msg.WhichOneof("message") != "decision_request":
            return
        reply = self._channel.respond(msg.decision_request)
        if reply is None:
            return
        self._pending += 1
        self._loop.call_later(reply.delay_s, self._deliver, reply.messages)

    def _deliver(self, messages: Sequence[bytes]) -> None:
        self._pending -= 1
        for m in messages:
            self._inbox.put_nowait(m)
        if self._closing and not self._pending:
            self._inbox.put_nowait(grpc.aio.EOF)

    async def read(self) -> Any:
        """The bot's next message, or ``grpc.aio.EOF`` once it closed its side; raises
        as gRPC does once the stream is cancelled."""
        item = await self._inbox.get()
        if item is _CANCELLED:
            raise asyncio.CancelledError  # what grpc.aio raises for a read on a locally cancelled call
        return item

    async def done_writing(self) -> None:
        """The arena ended its side: the bot ends its own once its replies are out."""
        self._closing = True
        if not self._pending:
            self._inbox.put_nowait(grpc.aio.EOF)

    def cancel(self) -> bool:
        """Drop the stream (a read waiting, or the next one, raises)."""
        if not self.cancelled:
            self._inbox.put_nowait(_CANCELLED)
        self.cancelled = True
        return True


def fake_bot(name: str, respond: Respond, *, skip_hand_ends: bool = False) -> RemoteBot:
    """A :class:`RemoteBot` connected to a :class:`FakeChannel` served by ``respond``
    (its channel: ``bot.channel``)."""
    channel = FakeChannel(respond)
    info = svc.GetInfoResponse(name=name, version="fake", skip_hand_ends=skip_hand_ends)
    return RemoteBot.over_channel(channel, info, BotAddress(name, "fake:0"))
