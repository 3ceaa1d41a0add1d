"""The referee's event loops: one per thread, polling briefly before they sleep.

Why poll: a decision's round trip is a chain of wake-ups (the referee's request wakes a
bot; the bot's answer wakes gRPC's poller thread, which wakes the referee's loop). On a
virtual machine whose idle CPUs halt at once (see docs/performance.md, "The machine's
idle policy"), each wake-up of a sleeping thread costs tens of microseconds, and the
referee's is the one we control. So before the loop blocks in ``select``, it polls with
a zero timeout for up to :data:`DEFAULT_SPIN_US` microseconds: a fast bot's answer is
then picked up without the loop ever sleeping. This is the kernel's halt polling, done
in the one thread that benefits. Measured on the 2-vCPU VM, one match of four trivial
SDK bots: ×1.31–1.35 with 200 µs (paired rounds); the raw gRPC baseline gains
×1.12–1.17 from the same loop (``bench/protocol.py`` measures it on both loops and
compares the match with the faster). Where the kernel itself polls idle CPUs, this
gains nothing reliable (docs/performance.md).

What it costs: at most the window's CPU time per wait, so about 200 µs per decision of
a bot that thinks longer (2% of a CPU for a bot that takes 10 ms). The loop polls only
where that is free to spend:

* only during a match (:func:`refereeing`), never while bots start or stop;
* only while one match of the process is refereed: in a league with several jobs, the
  matches' referee threads share Python's lock, and one that polls would keep taking
  it back from the others;
* only when the process may use two CPUs or more: on one CPU, the polling thread holds
  the CPU the bot needs to answer (measured: a match 22% slower).
"""

from __future__ import annotations

import asyncio
import os
import selectors
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_SPIN_US = 200
"""How long an idle referee loop polls before it sleeps, in microseconds (0: never).
The kernel's own default for halt polling is the same 200 µs."""

MAX_SPIN_US = 10_000
"""The largest window accepted: beyond it, polling is just burning a CPU."""

_clock = time.perf_counter


def _process_cpus() -> int:
    """How many CPUs this process may use (its affinity where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


PROCESS_CPUS = _process_cpus()
"""The CPUs the process could use when the arena started (before any thread was pinned
to a CPU of its own: a referee pinned by ``--bot-cpus auto`` still has its bots on another)."""


class SpinningSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The platform's default selector, polling for up to ``spin_s`` seconds before it
    blocks (see the module docstring), while ``enabled`` and while no other match of
    the process is refereed."""

    def __init__(self, spin_s: float = 0.0) -> None:
        super().__init__()
        self.spin_s = spin_s
        self.enabled = True

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """Ready keys, as :meth:`selectors.BaseSelector.select`; polls first (see the class)."""
        spin = self.spin_s
        poll = super().select
        if spin <= 0 or not self.enabled or _refereeing > 1 or (timeout is not None and timeout <= 0):
            return poll(timeout)
        start = _clock()
        # A timer due within the window ends the polling; what is left to wait is then 0.
        end = start + (spin if timeout is None or timeout > spin else timeout)
        while True:
            ready = poll(0)
            if ready:
                return ready
            now = _clock()
            if now >= end:
                break
        return poll(None if timeout is None else max(0.0, timeout - (now - start)))


def new_event_loop(spin_us: int = DEFAULT_SPIN_US) -> asyncio.AbstractEventLoop:
    """A new event loop whose selector polls for ``spin_us`` microseconds before it
    sleeps (0: never), as a referee's does during a match: also outside one, but never
    in a process with one CPU. Benchmarks use it to give a raw baseline the referee's loop.

    Raises:
        ValueError: a bad ``spin_us`` (see :func:`check_spin_us`).
    """
    check_spin_us(spin_us)
    selector = SpinningSelector(spin_us / 1e6)
    selector.enabled = PROCESS_CPUS >= 2
    return asyncio.SelectorEventLoop(selector)


def check_spin_us(spin_us: int) -> int:
    """``spin_us`` if it is a valid polling window: a whole number of microseconds from
    0 to :data:`MAX_SPIN_US`.

    Raises:
        ValueError: not an integer, negative, or above :data:`MAX_SPIN_US`.
    """
    if not isinstance(spin_us, int) or isinstance(spin_us, bool) or not 0 <= spin_us <= MAX_SPIN_US:
        raise ValueError(f"the polling window must be 0 to {MAX_SPIN_US} µs, not {spin_us!r}")
    return spin_us


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
    :class:`SpinningSelector`: a loop policy's own loop (uvloop, say; measured: no
    faster here) is not used.
    """
    loop: asyncio.AbstractEventLoop | None = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        selector = SpinningSelector()
        selector.enabled = False
        loop = asyncio.SelectorEventLoop(selector)
        _LOOPS.loop, _LOOPS.selector = loop, selector
    return loop


@contextmanager
def refereeing(spin_us: int = DEFAULT_SPIN_US) -> Iterator[None]:
    """Referee a match on this thread's loop, polling ``spin_us`` microseconds before it
    sleeps, while no other match of the process is being refereed and when the process
    has two CPUs or more (see the module docstring).

    Raises:
        ValueError: a bad ``spin_us`` (see :func:`check_spin_us`).
    """
    global _refereeing
    check_spin_us(spin_us)
    thread_loop()
    selector: SpinningSelector = _LOOPS.selector
    before = selector.spin_s, selector.enabled
    counted = False
    try:
        with _refereeing_lock:
            _refereeing += 1
            counted = True
        # One CPU: polling would hold the CPU the bot needs (see the module docstring).
        selector.spin_s, selector.enabled = spin_us / 1e6, PROCESS_CPUS >= 2
        yield
    finally:
        selector.spin_s, selector.enabled = before
        if counted:
            with _refereeing_lock:
                _refereeing -= 1
