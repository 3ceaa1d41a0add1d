"""One match's ``Play`` stream to a bot: its state, its one write path, its end.

A :class:`PlayStream` goes through the states of :class:`StreamState` once, in order
(a new match opens a new stream)::

    NEW ──open──▶ OPEN ──end──▶ ENDING ──▶ CLOSED
                   └───────── the bot closed, broke or flooded it; a write failed ──▶ CLOSED

Its :attr:`~PlayStream.reason` says why it is CLOSED; the first reason stands (a stream
the arena gave up on, a write blocked too long, and then cancelled is not "cancelled"
but what made the arena give it up).

What a hostile bot cannot do through it (issue 14, points 7 and 8):

* **Get its stream torn down by a deadline.** A decision's deadline never cancels a
  write in flight: grpc.aio cancels the whole RPC when a write is cancelled, and the
  seat would then be a CRASH for the rest of the match. A write is only given up after
  the write timeout (the bot stopped reading its stream: flow control blocks the
  write); the stream is then dead, rightly (:class:`~arena.remote.watchdog.Watchdog`).
* **Be charged for the arena's own stalls** (the watchdog's stall credit).
* **Fill the arena's memory.** The stream's reader counts what it reads against a flood
  (:mod:`arena.remote.inbox`); a bot that floods its stream loses it.
"""

from __future__ import annotations

import asyncio
import enum
from typing import Any

from arena.remote.inbox import BOT_CLOSED, CLOSED, Inbox
from arena.remote.watchdog import Watchdog

PLAY_METHOD = "/mus.v1.BotService/Play"
END_GRACE_S = 2.0
"""After the match end, how long a bot has to read everything and end its side of the stream."""

STOPPED_READING = "the bot stopped reading its stream"
CANCELLED_UNDER_WRITE = "stream cancelled during a write"
NOT_OPENED = "stream closed"
"""The reason of a stream that was never opened (no match started)."""
ENDED_BY_ARENA = "the arena ended the stream"
"""The reason of a stream the arena ended before the bot closed its side."""


class StreamState(enum.Enum):
    """Where a :class:`PlayStream` is in its life."""

    NEW = "new"
    """Not opened yet: nothing can be written."""
    OPEN = "open"
    """Requests and notifications go out, answers come in."""
    ENDING = "ending"
    """The arena ended its side (after the match end): the bot reads the rest and closes its own."""
    CLOSED = "closed"
    """Over; :attr:`PlayStream.reason` says why."""


class PlayStream:
    """One bidirectional ``Play`` call: requests go out as bytes through :meth:`write`
    (the only write), answers come in as bytes into :attr:`inbox` (its reader task
    counts them against a flood); the decision that takes one parses it."""

    def __init__(self) -> None:
        self.state = StreamState.NEW
        self.reason = NOT_OPENED
        """Why the stream is CLOSED (meaningful in that state only)."""
        self.ended_cleanly = False
        """Whether the bot closed its side after reading everything, once the arena ended its own."""
        self.inbox: Inbox | None = None
        self.watchdog: Watchdog | None = None
        self._call: Any = None
        self._reader: asyncio.Task[None] | None = None

    def open(self, call: Any, max_message_bytes: int, write_timeout_s: float) -> None:
        """Start using ``call`` (a ``Play`` call taking and giving bytes): its reader
        starts, and the stream is OPEN."""
        loop = asyncio.get_running_loop()
        self._call = call
        self.inbox = Inbox(loop)
        self.watchdog = Watchdog(loop, write_timeout_s, self._stuck)
        self._reader = loop.create_task(self.inbox.read_from(call, max_message_bytes, self.close_because))
        self.state = StreamState.OPEN

    def close_because(self, why: str) -> None:
        """The stream is over, for reason ``why`` (unless it already was: the first
        reason stands). Called by the reader (the bot closed, broke or flooded it) and
        by the write path."""
        if self.state is not StreamState.CLOSED:
            self.state, self.reason = StreamState.CLOSED, why

    def _stuck(self) -> None:
        self.close_because(STOPPED_READING)

    async def write(self, data: bytes, deadline_s: float | None = None) -> None:
        """Write ``data`` if the stream is OPEN: a decision's request (its answer is
        then owed within ``deadline_s``: the wait goes on until :meth:`Watchdog.end`, by
        the task that takes the answer), or a notification (``deadline_s`` None: the
        wait ends with the write).

        Never raises for the stream's sake: a broken stream, a write blocked past the
        write timeout, or the call cancelled under the write (gRPC's own cancellation)
        close the stream; a decision's deadline passing during the write only marks it
        timed out (the watchdog). Only a cancellation from outside propagates.
        """
        if self.state is not StreamState.OPEN:
            return
        dog, inbox = self.watchdog, self.inbox
        assert dog is not None and inbox is not None
        task = asyncio.current_task()
        assert task is not None
        dog.begin(task, deadline_s)
        if deadline_s is not None:
            inbox.sent += 1  # one answer owed (the reader's flood count)
        try:
            await self._call.write(data)
        except asyncio.CancelledError:
            if task.cancelling() == dog.cancelling:
                # Not this task's cancellation: gRPC's, the call cancelled under the
                # write (the reader cancels a flooded stream). A decision waiting on the
                # inbox learns it at once.
                self.close_because(CANCELLED_UNDER_WRITE)
                inbox.put(CLOSED)
            elif not dog.owns_cancel(task):
                if deadline_s is not None:
                    dog.end()  # the decision is abandoned: no receive() ends its wait
                raise
            # Else the watchdog's: the deadline passed or the write was given up; the
            # decision's receive says so.
        except Exception as exc:
            self.close_because(f"stream broken on write: {type(exc).__name__}")
        finally:
            dog.write_from = None
            if deadline_s is None:
                dog.end()  # a notification's wait ends with its write

    async def end(self) -> None:
        """End the arena's side of the stream, give the bot :data:`END_GRACE_S` to read
        everything and close its own, then drop the call. Idempotent. A decision still
        waiting (the bot closed from inside the loop) keeps its deadline."""
        if self.watchdog is not None:
            self.watchdog.stop_idle()
        call, reader = self._call, self._reader
        self._call = self._reader = None
        was_open = self.state is StreamState.OPEN
        if was_open:
            self.state = StreamState.ENDING
        if call is not None:
            try:
                await asyncio.wait_for(call.done_writing(), 1.0)
                # Cancelling at once would drop what is still in flight (the match end,
                # the last hand end): let the bot read it all and end its side first.
                # A quick bot may have ended its side already while done_writing ran.
                if reader is not None and was_open:
                    if self.state is StreamState.ENDING:
                        await asyncio.wait_for(asyncio.shield(reader), END_GRACE_S)
                    self.ended_cleanly = self.state is StreamState.CLOSED and self.reason == BOT_CLOSED
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # this task's cancellation, not gRPC's (a call cancelled under it)
            except Exception:
                pass
            finally:
                self.close_because(ENDED_BY_ARENA)
            call.cancel()
        if reader is not None:
            reader.cancel()
            try:
                await reader
            except (asyncio.CancelledError, Exception):
                pass  # not KeyboardInterrupt: Ctrl-C (or SIGTERM) landing here must still stop the command
