"""The referee's polling event loop (arena/referee/eventloop.py): it finds what is ready
without sleeping, keeps every timeout, and polls only during a match, while one thread
referees, on a machine with CPUs to spare."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from arena.referee import eventloop
from arena.referee.eventloop import (
    MAX_SPIN_US,
    SpinningSelector,
    new_event_loop,
    refereeing,
    thread_loop,
)


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the polling steps (each reads the clock once): 0 means the wait blocked at once."""
    calls = [0]
    clock = eventloop._clock

    def counting() -> float:
        calls[0] += 1
        return clock()

    monkeypatch.setattr(eventloop, "_clock", counting)
    return calls


def _selector(spin_s: float, sock: socket.socket) -> SpinningSelector:
    sel = SpinningSelector(spin_s)
    sel.register(sock, 1)  # EVENT_READ
    return sel


def test_an_event_during_the_window_is_found_by_polling(pair: tuple[socket.socket, socket.socket], polls: list[int]) -> None:
    a, b = pair
    sel = _selector(0.5, a)
    threading.Timer(0.02, b.send, args=(b"x",)).start()
    t0 = time.perf_counter()
    ready = sel.select(5.0)
    assert [key.fileobj for key, _ in ready] == [a]
    assert time.perf_counter() - t0 < 0.4
    assert polls[0] > 1  # found while polling, not after blocking


def test_a_wait_past_the_window_blocks_and_keeps_its_timeout(pair: tuple[socket.socket, socket.socket]) -> None:
    a, _ = pair
    sel = _selector(0.03, a)
    t0 = time.perf_counter()
    assert sel.select(0.06) == []
    waited = time.perf_counter() - t0
    # The blocking part gets what the polling left of the timeout, not all of it again
    # (which would make it 0.09 s).
    assert 0.055 <= waited < 0.08, waited


def test_a_timer_due_within_the_window_ends_the_polling(pair: tuple[socket.socket, socket.socket]) -> None:
    a, _ = pair
    sel = _selector(0.05, a)
    t0 = time.perf_counter()
    assert sel.select(0.005) == []
    assert 0.005 <= time.perf_counter() - t0 < 0.04  # the timer's timeout, not the window


def test_a_zero_timeout_or_window_never_polls(pair: tuple[socket.socket, socket.socket], polls: list[int]) -> None:
    a, _ = pair
    assert _selector(0.01, a).select(0) == []
    assert _selector(0.0, a).select(0.001) == []
    disabled = _selector(0.01, a)
    disabled.enabled = False
    assert disabled.select(0.001) == []
    assert polls[0] == 0


def test_timers_fire_on_time_on_a_polling_loop(polls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eventloop, "PROCESS_CPUS", 2)
    loop = new_event_loop(200)
    try:
        async def late_by() -> float:
            fired = loop.create_future()
            t0 = loop.time()
            loop.call_later(0.02, lambda: fired.set_result(loop.time()))
            return await fired - t0 - 0.02

        assert 0 <= loop.run_until_complete(late_by()) < 0.015
        assert polls[0] > 0
    finally:
        loop.close()


def test_the_thread_loop_polls_only_while_refereeing(polls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eventloop, "PROCESS_CPUS", 2)  # whatever machine the tests run on

    def run() -> None:
        loop = thread_loop()
        loop.run_until_complete(asyncio.sleep(0.002))
        assert polls[0] == 0  # outside a match: a plain loop
        with refereeing(300):
            loop.run_until_complete(asyncio.sleep(0.002))
        assert polls[0] > 0
        polls[0] = 0
        loop.run_until_complete(asyncio.sleep(0.002))
        assert polls[0] == 0  # and plain again after it
        loop.close()

    _in_thread(run)


def test_two_threads_refereeing_do_not_poll(polls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """With two matches refereed at once, both sleep at once: a polling thread would
    keep taking back the interpreter lock the other needs."""
    monkeypatch.setattr(eventloop, "PROCESS_CPUS", 2)
    other_in = threading.Event()
    done = threading.Event()

    def other() -> None:
        with refereeing(300):
            other_in.set()
            done.wait(5)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert other_in.wait(5)
        _in_thread(_referee_a_short_wait)
        assert polls[0] == 0
    finally:
        done.set()
        t.join()
    assert eventloop._refereeing == 0


def test_a_process_with_one_cpu_does_not_poll(polls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """On one CPU, the polling referee would hold the CPU its bot needs to answer."""
    monkeypatch.setattr(eventloop, "PROCESS_CPUS", 1)
    _in_thread(_referee_a_short_wait)
    assert polls[0] == 0


@pytest.mark.parametrize("bad", [-1, MAX_SPIN_US + 1])
def test_a_bad_window_is_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="polling window"):
        new_event_loop(bad)
    with pytest.raises(ValueError, match="polling window"):
        with refereeing(bad):
            pass
    assert eventloop._refereeing == 0


def _referee_a_short_wait() -> None:
    """Wait 5 ms on this thread's loop inside ``refereeing(300)``, then close the loop."""
    loop = thread_loop()
    with refereeing(300):
        loop.run_until_complete(asyncio.sleep(0.005))
    loop.close()


def _in_thread(fn: Callable[[], None]) -> None:
    """Run ``fn`` on a fresh thread (its own thread_loop), re-raising its failure here."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            fn()
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    t = threading.Thread(target=target)
    t.start()
    t.join(10)
    if errors:
        raise errors[0]
