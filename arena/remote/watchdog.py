"""The deadline of the one wait in flight on a bot's ``Play`` stream, and the arena's
stalls credited to it.

A wait is a decision (its request written, then its answer awaited, under one
deadline) or a notification's write (no deadline, only the write timeout). The
:class:`Watchdog` guards it with one timer rather than an ``asyncio.timeout`` each
(docs/performance.md, "The client"): deadlines only move later from one decision to the
next, so a timer that fires early for the current decision re-arms itself for that
decision's deadline.

Both limits move later by the time the arena's loop did not run since the wait began
(SIGSTOP, a paused VM, a long GC: :class:`~arena.runtime.eventloop.StallMeter`), so no
bot is charged for the arena's stalls (issue 14, point 7).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from arena.runtime.eventloop import stall_meter


class Watchdog:
    """One timer for the waits of one stream, one wait at a time.

    :meth:`begin` starts a wait for the current task, :meth:`end` ends it (exactly once
    each). When a limit passes, the watchdog cancels the waiting task and sets
    :attr:`timed_out`; the task then asks :meth:`owns_cancel` whether a
    ``CancelledError`` it caught was the watchdog's (a timeout) or came from outside
    (the match is being stopped: it must propagate).
    """

    __slots__ = ("_loop", "_on_write_stuck", "_stall0", "_stalls", "_timer", "_timer_at", "cancelling",
                 "deadline", "task", "timed_out", "write_from", "write_timeout_s")

    def __init__(self, loop: asyncio.AbstractEventLoop, write_timeout_s: float,
                 on_write_stuck: Callable[[], None]) -> None:
        self._loop = loop
        self._stalls = stall_meter(loop)
        self._on_write_stuck = on_write_stuck
        """Called when a write stayed blocked past :attr:`write_timeout_s` (the bot
        stopped reading its stream): the stream is dead."""
        self.write_timeout_s = write_timeout_s
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._stall0 = 0.0
        """The stall meter's total when the wait began."""
        self.task: asyncio.Task[object] | None = None
        """The task waiting (None: no wait in flight)."""
        self.deadline: float | None = None
        """Loop time at which the decision waiting is late (None: a notification's write)."""
        self.timed_out = False
        self.cancelling = 0
        """``task.cancelling()`` when the wait began: a higher count is a cancellation
        from outside or the watchdog's, an equal one gRPC's own (a call cancelled under it)."""
        self.write_from: float | None = None
        """Loop time at which the write in flight began (None: no write in flight)."""

    @property
    def timer_at(self) -> float | None:
        """When the timer fires next (None: not armed)."""
        return self._timer_at if self._timer is not None else None

    def begin(self, task: asyncio.Task[object], deadline_s: float | None) -> None:
        """A wait starts now with a write: a decision's, late ``deadline_s`` from now, or
        a notification's (None: only the write timeout applies)."""
        now = self._loop.time()
        limit = now + (deadline_s if deadline_s is not None else self.write_timeout_s)
        self.task, self.timed_out, self.cancelling = task, False, task.cancelling()
        self.deadline = limit if deadline_s is not None else None
        self._stall0 = self._stalls.hold()
        self.write_from = now
        if self._timer is None or self._timer_at > limit:
            self._arm(limit)

    def end(self) -> None:
        """The wait is over: its deadline no longer applies."""
        self.deadline = self.task = None
        self.write_from = None
        self._stalls.release()

    def owns_cancel(self, task: asyncio.Task[object]) -> bool:
        """Whether the cancellation ``task`` caught is the watchdog's (then it is taken
        back: the task's next await is not cancelled). A cancellation from outside in the
        same loop turn as the timeout wins: False."""
        return self.timed_out and task.uncancel() <= self.cancelling

    def credit(self, seconds: float) -> None:
        """Count ``seconds`` of the arena's own work (freezing a bot) as a stall."""
        self._stalls.credit(seconds)

    @property
    def stalled_s(self) -> float:
        """The stalls of the loop credited so far (seconds)."""
        return self._stalls.stalled_s

    def stop_idle(self) -> None:
        """Cancel the timer unless a wait is in flight (that one keeps its deadline)."""
        if self._timer is not None and self.task is None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = self._loop.call_at(when, self._watch)

    def _watch(self) -> None:
        """Ends a decision's wait past its deadline, and a write blocked past
        :attr:`write_timeout_s`.

        A deadline that passes while the request is still being written only marks the
        decision timed out: cancelling a write in flight would cancel the stream
        (grpc.aio), and a timeout must never cost the seat its stream. The decision
        raises TIMEOUT once the write is done; only a write blocked past its own limit is
        cancelled, and the stream with it (the bot stopped reading: it is dead).
        """
        self._timer = None
        task = self.task
        if task is None:
            return  # nothing waiting: the next wait arms a new timer
        credit = self._stalls.check() - self._stall0
        now = max(self._loop.time(), self._timer_at)
        write_from = self.write_from
        give_up = float("inf")
        if write_from is not None:
            give_up = write_from + self.write_timeout_s + credit
            if give_up <= now:
                self._on_write_stuck()
                self.timed_out = True
                task.cancel()
                return
        deadline = self.deadline
        if deadline is not None and not self.timed_out:
            deadline += credit
            if deadline > now:
                self._arm(min(deadline, give_up))  # armed for an earlier deadline, or a stall
                return
            self.timed_out = True
            if write_from is None:
                task.cancel()
                return
        if write_from is not None:
            self._arm(give_up)  # the write still in flight: its own limit
