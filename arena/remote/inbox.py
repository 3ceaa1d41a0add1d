"""What one bot sends on its ``Play`` stream: read, counted against a flood, and queued
for the decision that takes it.

A bot owes one answer per request. :meth:`Inbox.read_from` counts what it reads; beyond
:data:`UNSOLICITED_ALLOWANCE` messages more than the answers owed, :data:`STREAM_BUDGET_BYTES`
in the match, or its byte budget read and not yet taken, the bot flooded its stream: the
stream is cancelled, reading stops, what was queued is dropped, and the seat's decisions
are CRASH faults. After the match end nothing is queued: what comes is discarded,
within the same limits. So the arena holds at most the budget plus one message per seat
(docs/reliability.md).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

import grpc  # type: ignore[import-untyped]

MAX_MESSAGE_BYTES = 1024 * 1024
"""Largest message accepted from a bot; a bigger one breaks its stream (a CRASH fault)."""

UNSOLICITED_ALLOWANCE = 8
"""Messages a bot may send on one stream beyond the answers it owes (one per request):
room for a few duplicate answers, each already a fault. One more is a flood."""

INBOX_BUDGET_BYTES = 4 * MAX_MESSAGE_BYTES
"""Bytes a bot's stream may hold read but not yet taken by a decision (never less than
two messages of the bot's size limit); beyond, it flooded its stream."""

STREAM_BUDGET_BYTES = 64 * 1024 * 1024
"""Bytes a bot may send over one match. A real bot's answers are tens of bytes: 10,000
hands take a few MiB. Beyond, it flooded its stream (this bounds the arena's work
parsing a bot's padding, not only its memory)."""

CLOSED = object()
"""Queued when the stream has ended, for whoever waits next."""

BOT_CLOSED = "the bot closed the stream"


class Inbox:
    """The messages read from one stream, waiting for the decision that takes them.

    ``asyncio.Queue`` without what one reader and one waiting decision do not need
    (bounds, putters, ``join``, its loop check on every wait). As with a queue, an item
    stays in ``items`` until it is taken, so a decision cancelled at its deadline never
    loses an answer.
    """

    __slots__ = ("_loop", "_waiter", "ended", "in_bytes", "items", "nbytes", "received", "sent")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._waiter: asyncio.Future[None] | None = None
        self.items: deque[Any] = deque()
        self.nbytes = 0
        """Bytes of the messages in ``items`` (the reader adds, the decision subtracts)."""
        self.sent = 0
        """Requests sent on the stream: one answer owed for each."""
        self.received = 0
        self.in_bytes = 0
        self.ended = False
        """The match is over: what comes now is discarded."""

    def put(self, item: Any) -> None:
        """Queue ``item`` and wake the decision waiting for it, if any."""
        self.items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # cancelled at a deadline: nobody to wake
                waiter.set_result(None)

    async def get(self) -> Any:
        """The oldest item, waiting for one if there is none."""
        items = self.items
        while not items:
            waiter = self._waiter = self._loop.create_future()
            await waiter
        return items.popleft()

    async def read_from(self, call: Any, max_message_bytes: int, on_end: Callable[[str], None]) -> None:
        """Queue the bot's messages (raw bytes: the decision parses them) until the
        stream ends, breaks, or the bot floods it; then tell ``on_end`` why and queue
        :data:`CLOSED`."""
        budget = max(INBOX_BUDGET_BYTES, 2 * max_message_bytes)
        try:
            while True:
                raw = await call.read()
                if raw is grpc.aio.EOF:
                    on_end(BOT_CLOSED)
                    break
                size = len(raw)
                self.received += 1
                self.in_bytes += size
                if (self.received - self.sent > UNSOLICITED_ALLOWANCE or self.in_bytes > STREAM_BUDGET_BYTES
                        or self.nbytes + size > budget):
                    on_end(self._flood_detail(self.nbytes + size, budget))
                    # Stop reading: cancelling the call makes gRPC drop the rest, and
                    # what was queued goes now, not when the match ends.
                    call.cancel()
                    self.items.clear()
                    self.nbytes = 0
                    break
                if self.ended:
                    continue  # after the match end nobody takes anything: discard
                self.nbytes += size
                self.put(raw)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or task.cancelling():
                raise  # the reader itself is being cancelled (the stream is being ended)
            # gRPC's own: the call was cancelled under the read.
            on_end("stream cancelled")
        except grpc.RpcError as exc:
            code = exc.code()
            on_end(f"stream broken: {code.name if code else '?'} {exc.details() or ''}".strip())
        except Exception as exc:
            on_end(f"stream broken: {type(exc).__name__}: {exc}")
        self.put(CLOSED)

    def _flood_detail(self, waiting: int, budget: int) -> str:
        extra = self.received - self.sent
        if extra > UNSOLICITED_ALLOWANCE:
            why = f"{extra} messages more than the answers it owed (allowed: {UNSOLICITED_ALLOWANCE})"
        elif self.in_bytes > STREAM_BUDGET_BYTES:
            why = f"{self.in_bytes} bytes in this match (budget: {STREAM_BUDGET_BYTES})"
        else:
            why = f"{waiting} bytes read and not asked for yet (budget: {budget})"
        return f"the bot flooded its stream: {why}"
