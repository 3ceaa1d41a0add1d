"""The referee's event loops: one per thread, polling briefly before they sleep, and the
stall meter. Nothing runs at import: what the process may use is read when first needed.

Before a refereeing loop blocks in ``select`` it polls with a zero timeout for up to
the runtime's window (:attr:`arena.runtime.settings.Runtime.poll_us`), only during a match, only
while one match of the process is refereed, only when the process may use two CPUs or
more, and only while polling pays (most polls find their answer: not on a loaded
machine). Why, what it costs and the measurements: docs/performance.md, "The referee's
polling".
"""

from __future__ import annotations

import asyncio
import selectors
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from arena.runtime.cpus import polling_has_cpus, process_cpus

DEFAULT_POLL_US = 200
"""How long an idle referee loop polls before it sleeps, in microseconds (0: never).
The kernel's own default for halt polling is the same 200 µs."""

MAX_POLL_US = 10_000
"""The largest window accepted: beyond it, polling is just burning a CPU."""

_clock = time.perf_counter


PAYS = 0.5
"""The share of recent polls that must have found their answer for the loop to keep
polling: below it (a loaded machine, where answers come late and a spinning referee
takes the CPU a bot needs), it sleeps at once, and polls one wait in :data:`PROBE_EVERY`
to notice when polling pays again."""

PROBE_EVERY = 16


class SpinningSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The platform's default selector, polling for up to ``spin_s`` seconds before it
    blocks (see the module docstring), while ``enabled``, while no other match of the
    process is refereed, and while polling pays: :attr:`score`, the share of recent
    polls that found their answer (a moving average over about eight), is at least
    :data:`PAYS`."""

    def __init__(self, spin_s: float = 0.0, enabled: bool = True) -> None:
        super().__init__()
        self.spin_s = spin_s
        self.enabled = enabled
        self.score = 1.0
        self._waits = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """Ready keys, as :meth:`selectors.BaseSelector.select`; polls first (see the class)."""
        spin = self.spin_s
        poll = super().select
        if spin <= 0 or not self.enabled or _refereeing > 1 or (timeout is not None and timeout <= 0):
            return poll(timeout)
        self._waits += 1
        if self.score < PAYS and self._waits % PROBE_EVERY:
            return poll(timeout)
        start = _clock()
        # A timer due within the window ends the polling; what is left to wait is then 0.
        limit = spin if timeout is None else min(spin, timeout)
        end = start + limit
        while True:
            ready = poll(0)
            if ready:
                self.score += (1.0 - self.score) / 8
                return ready
            now = _clock()
            if now >= end:
                break
        if limit == spin:  # the whole window passed without an answer: a poll that did not pay
            self.score -= self.score / 8
        return poll(None if timeout is None else max(0.0, timeout - (now - start)))


def new_event_loop(poll_us: int = DEFAULT_POLL_US) -> asyncio.AbstractEventLoop:
    """A new event loop whose selector polls for ``poll_us`` microseconds before it
    sleeps (0: never), as a referee's does during a match: also outside one, but never
    in a process with one CPU. Benchmarks use it to give a raw baseline the referee's loop.

    Raises:
        ValueError: a bad ``poll_us`` (see :func:`check_poll_us`).
    """
    check_poll_us(poll_us)
    return asyncio.SelectorEventLoop(SpinningSelector(poll_us / 1e6, enabled=process_cpus() >= 2))


def check_poll_us(poll_us: int) -> int:
    """``poll_us`` if it is a valid polling window: a whole number of microseconds from
    0 to :data:`MAX_POLL_US`.

    Raises:
        ValueError: not an integer, negative, or above :data:`MAX_POLL_US`.
    """
    if not isinstance(poll_us, int) or isinstance(poll_us, bool) or not 0 <= poll_us <= MAX_POLL_US:
        raise ValueError(f"the polling window must be a whole number of µs from 0 to {MAX_POLL_US}, not {poll_us!r}")
    return poll_us


_machine_referees = 1
"""Matches refereed at once on this machine by the processes of one league (its
``--jobs``; :func:`share_cpus_with`)."""


def share_cpus_with(referees: int) -> None:
    """Tell this process that ``referees`` matches (itself included) are refereed at once
    on the machine, each in its own process (a league's referee workers): a referee
    polls only if every match can have two CPUs, one for its bots and one for its
    polling; otherwise its polling takes the CPU another match's bots need (issue 30)."""
    global _machine_referees
    _machine_referees = max(1, referees)


_LOOPS = threading.local()
_refereeing = 0
"""How many matches this process is refereeing right now (a thread's nested match counts
too, and also turns the polling off)."""
_refereeing_lock = threading.Lock()


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's long-lived event loop. Remote players bind their gRPC channels to
    it when they connect, so every match a thread referees runs on the same loop.

    Its selector polls only inside :func:`refereeing`; everywhere else it sleeps at
    once, as a plain loop does. It is always asyncio's selector loop around a
    :class:`SpinningSelector`: a loop policy's own loop (uvloop, say) is not used
    (docs/performance.md, "What did not help").
    """
    loop: asyncio.AbstractEventLoop | None = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        selector = SpinningSelector(enabled=False)  # refereeing() turns it on
        loop = asyncio.SelectorEventLoop(selector)
        _LOOPS.loop, _LOOPS.selector = loop, selector
    return loop


@contextmanager
def refereeing(poll_us: int = DEFAULT_POLL_US) -> Iterator[None]:
    """Referee a match on this thread's loop, polling ``poll_us`` microseconds before it
    sleeps, while no other match of the process is being refereed and when the process
    has two CPUs or more (see the module docstring).

    Raises:
        ValueError: a bad ``poll_us`` (see :func:`check_poll_us`).
    """
    global _refereeing
    check_poll_us(poll_us)
    thread_loop()
    selector: SpinningSelector = _LOOPS.selector
    before = selector.spin_s, selector.enabled
    counted = False
    try:
        with _refereeing_lock:
            _refereeing += 1
            counted = True
        # One CPU (per match of the machine): polling would hold the CPU a bot needs (see
        # the module docstring).
        selector.spin_s, selector.enabled, selector.score = poll_us / 1e6, polling_has_cpus(_machine_referees, process_cpus()), 1.0
        yield
    finally:
        selector.spin_s, selector.enabled = before
        if counted:
            with _refereeing_lock:
                _refereeing -= 1


STALL_PERIOD_S = 0.05
"""The stall meter's heartbeat period (only while a bot is awaited)."""

STALL_MIN_GAP_S = 0.15
"""A gap between two heartbeats (or a late timer) longer than this is a stall of the
arena, not scheduling noise: three periods. A shorter stall is charged to the bot, as
any other delay of the arena's below this size is."""

STALL_GRACE_S = 0.25
"""Added to every stall credited: after the arena resumes, what the bot sent while it
was stopped still has to be read (gRPC's poller thread, then this loop)."""


class StallMeter:
    """Measures the time an event loop did not run: the arena process stopped
    (SIGSTOP/SIGCONT), a paused virtual machine, a long garbage collection.

    Why: a deadline measured on the wall clock charges such a stall to the bot the arena
    was waiting on, an innocent seat (issue 14, point 7). So while a bot is awaited
    (between :meth:`hold` and :meth:`release`), a light heartbeat runs on the loop every
    :data:`STALL_PERIOD_S`; a gap between two beats (or between the last beat and a
    timer that fires late, :meth:`check`) longer than :data:`STALL_MIN_GAP_S` means the
    loop did not run: the whole gap, plus :data:`STALL_GRACE_S`, is added to
    :attr:`stalled_s`. A waiting decision's deadline moves later by what
    :attr:`stalled_s` grew since it started, and its measured time shrinks by as much.

    The credit errs for the bot, by at most one period plus the grace per stall. A bot
    cannot earn it: only the arena's loop not running for 0.15 s does, which a bot can
    cause only by stopping or starving the arena's process, which a bot running as the
    same user can do anyway (docs/reliability.md §3).

    The hot path stays cheap: :meth:`hold` and :meth:`release` are a clock read and a
    few attribute updates; the heartbeat is one timer per period, not per decision
    (it stops at a beat that finds nobody holding it, and :meth:`hold` restarts it).
    """

    __slots__ = ("_alive_at", "_beat_handle", "_loop", "_users", "stalled_s")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._users = 0
        self._alive_at = 0.0
        self._beat_handle: asyncio.TimerHandle | None = None
        self.stalled_s = 0.0
        """Stall time credited so far (loop time, seconds); it only grows."""

    def hold(self) -> float:
        """A bot is awaited from now on: run the heartbeat. Returns :attr:`stalled_s`
        (to subtract from its value at :meth:`release`)."""
        if self._users == 0:
            # Whatever the loop did before (between two decisions) is not a stall.
            self._alive_at = self._loop.time()
            if self._beat_handle is None:
                self._beat_handle = self._loop.call_at(self._alive_at + STALL_PERIOD_S, self._beat)
        self._users += 1
        return self.stalled_s

    def release(self) -> float:
        """The bot awaited since :meth:`hold` answered (or failed): counts a stall that
        ended just now and was not seen yet. Returns :attr:`stalled_s`."""
        stalled = self.check()
        self._users -= 1
        return stalled

    def credit(self, seconds: float) -> None:
        """Count ``seconds`` of the arena's own work for a waiting bot as a stall: time
        that is not the bot's (freezing and waking a strict bot's processes, which grows
        with how many it has, 4,096 at most: :func:`arena.remote.process.descendants`)."""
        self.stalled_s += max(seconds, 0.0)

    def check(self) -> float:
        """Count a stall that ended just now (called by timers, which fire late after
        one); returns :attr:`stalled_s`. Outside :meth:`hold` it only returns it."""
        if self._users > 0:
            now = self._loop.time()
            gap = now - self._alive_at
            self._alive_at = now
            if gap > STALL_MIN_GAP_S:
                self.stalled_s += gap + STALL_GRACE_S
        return self.stalled_s

    def _beat(self) -> None:
        self.check()
        if self._users > 0:
            self._beat_handle = self._loop.call_at(self._loop.time() + STALL_PERIOD_S, self._beat)
        else:
            self._beat_handle = None


def stall_meter(loop: asyncio.AbstractEventLoop) -> StallMeter:
    """The :class:`StallMeter` of ``loop`` (one per loop, made on first use): the
    remote players and the referee of a match share it. It is kept on the loop object
    (found by one attribute lookup, and gone with the loop), so the loop must take
    attributes: asyncio's own loops do, and the arena runs on nothing else
    (:func:`thread_loop`, :func:`new_event_loop`)."""
    meter: StallMeter | None = getattr(loop, "_mus_stall_meter", None)
    if meter is None:
        meter = StallMeter(loop)
        loop._mus_stall_meter = meter  # type: ignore[attr-defined]
    return meter
