"""The referee's polling event loop (arena/runtime/eventloop.py): it finds what is ready
without sleeping, keeps every timeout, and polls only during a match, while one match
is refereed, on a machine with CPUs to spare.

The selector's arithmetic is checked with a fake clock and a record of the timeouts it
passes to the platform's selector, so no assertion depends on how busy the machine is.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import selectors
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mus_core import Rules
from mus_core.random_play import random_action

from arena.driver.match import MatchConfig, play_match_async
from arena.referee.player import Decision
from arena.runtime import cpus, eventloop
from arena.runtime.eventloop import MAX_POLL_US, SpinningSelector, new_event_loop, refereeing, thread_loop
from arena.runtime.settings import Runtime

BASE: Any = SpinningSelector.__mro__[1]  # the platform's selector class, whose select() does the waiting


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """Every timeout the platform's selector is called with, in order (0: a poll)."""
    calls: list[float | None] = []
    real = BASE.select

    def recording(self: Any, timeout: float | None = None) -> Any:
        calls.append(timeout)
        return real(self, timeout)

    monkeypatch.setattr(BASE, "select", recording)
    return calls


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock that moves 1 ms each time the selector reads it."""
    now = [100.0]

    def clock() -> float:
        now[0] += 0.001
        return now[0]

    monkeypatch.setattr(eventloop, "_clock", clock)
    return now


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the polling steps (each reads the clock once): 0 means no wait polled."""
    calls = [0]
    clock = eventloop._clock

    def counting() -> float:
        calls[0] += 1
        return clock()

    monkeypatch.setattr(eventloop, "_clock", counting)
    return calls


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever machine the tests run on, the process may use two CPUs."""
    monkeypatch.setattr(eventloop, "process_cpus", lambda: 2)


def _selector(spin_s: float, sock: socket.socket) -> SpinningSelector:
    sel = SpinningSelector(spin_s)
    sel.register(sock, selectors.EVENT_READ)
    return sel


def test_an_event_during_the_window_is_found_without_blocking(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None]
) -> None:
    a, b = pair
    sel = _selector(10.0, a)  # a window far longer than the event takes to come
    timer = threading.Timer(0.02, b.send, args=(b"x",))
    timer.start()
    try:
        ready = sel.select(30.0)
    finally:
        timer.join()
        sel.close()
    assert [key.fileobj for key, _ in ready] == [a]
    assert len(waits) > 1 and set(waits) == {0}  # only polls: the selector never blocked


def test_a_wait_past_the_window_blocks_for_what_is_left_of_its_timeout(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None], fake_clock: list[float]
) -> None:
    a, _ = pair
    sel = _selector(0.030, a)
    assert sel.select(0.060) == []
    sel.close()
    *polled, blocked = waits
    assert polled and set(polled) == {0}
    # 30 ms polled (by the fake clock), so 30 ms left: not the whole 60 ms again.
    assert blocked == pytest.approx(0.030, abs=0.0015)


def test_polls_that_keep_missing_stop_until_a_probe_finds_an_answer(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None], fake_clock: list[float]
) -> None:
    """On a loaded machine answers come after the window: the selector stops polling
    (a spinning referee would take the CPU a bot needs), probes one wait in
    PROBE_EVERY, and polls again once the probes find their answers."""
    a, b = pair
    sel = _selector(0.003, a)

    def polled(n: int, ready: bool) -> int:
        """How many of ``n`` waits polled."""
        count = 0
        for _ in range(n):
            waits.clear()
            if ready:
                b.send(b"x")
            assert bool(sel.select(0.004)) == ready
            if ready:
                a.recv(1)
            count += 0 in waits
        return count

    assert polled(6, ready=False) == 6  # each missed: the score falls below PAYS
    assert sel.score < eventloop.PAYS
    assert polled(2 * eventloop.PROBE_EVERY, ready=False) == 2  # probes only
    # Answers come at once now: the probes find them, and after a few the selector polls again.
    assert polled(4 * eventloop.PROBE_EVERY, ready=True) > 4
    assert sel.score >= eventloop.PAYS
    assert polled(4, ready=True) == 4
    sel.close()


def test_a_wait_without_timeout_polls_then_blocks_without_one(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None], fake_clock: list[float]
) -> None:
    a, b = pair
    sel = _selector(0.005, a)
    b.send(b"x")  # ready before the wait: found by the first poll
    assert sel.select(None)
    assert waits == [0]
    a.recv(1)
    waits.clear()
    timer = threading.Timer(0.05, b.send, args=(b"y",))
    timer.start()
    assert sel.select(None)  # the fake clock ends the window at once; then it blocks
    timer.join()
    sel.close()
    assert waits[-1] is None and set(waits[:-1]) == {0}


def test_a_timer_due_within_the_window_ends_the_polling(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None], fake_clock: list[float]
) -> None:
    a, _ = pair
    sel = _selector(0.050, a)
    assert sel.select(0.005) == []
    sel.close()
    # Polls until the timer is due (5 ms of the fake clock), then one last poll: never
    # the whole 50 ms window, and never a blocking wait past the timer.
    assert set(waits) == {0}
    assert 4 <= len(waits) <= 7


def test_a_zero_timeout_or_window_never_polls(
    pair: tuple[socket.socket, socket.socket], waits: list[float | None], polls: list[int]
) -> None:
    a, _ = pair
    zero_timeout, zero_window, disabled = _selector(0.01, a), _selector(0.0, a), _selector(0.01, a)
    disabled.enabled = False
    assert zero_timeout.select(0) == []
    assert zero_window.select(0.001) == []
    assert disabled.select(0.001) == []
    for sel in (zero_timeout, zero_window, disabled):
        sel.close()
    assert polls[0] == 0
    assert waits == [0, 0.001, 0.001]  # each passed straight to the platform's selector


def test_timers_fire_on_a_polling_loop(polls: list[int], two_cpus: None) -> None:
    """A timer due after the window still fires, after the loop polled and then slept."""
    loop = new_event_loop(200)
    try:
        async def fired() -> bool:
            done = loop.create_future()
            loop.call_later(0.02, done.set_result, True)
            return await asyncio.wait_for(done, 5.0)

        assert loop.run_until_complete(fired())
        assert polls[0] > 0
    finally:
        loop.close()


def test_the_thread_loop_polls_only_while_refereeing(polls: list[int], two_cpus: None) -> None:
    def run() -> None:
        loop = thread_loop()
        try:
            loop.run_until_complete(asyncio.sleep(0.02))
            assert polls[0] == 0  # outside a match: a plain loop
            with refereeing(300):
                loop.run_until_complete(asyncio.sleep(0.02))
            assert polls[0] > 0
            polls[0] = 0
            loop.run_until_complete(asyncio.sleep(0.02))
            assert polls[0] == 0  # and plain again after it
        finally:
            loop.close()

    _in_thread(run)


class _AwaitingPlayer:
    """An in-process random player that takes ``delay_s`` per decision, awaiting the
    loop as a remote bot's answer would."""

    def __init__(self, seat: int, delay_s: float = 0.02) -> None:
        self.name = f"p{seat}"
        self.rng = random.Random(seat)
        self.delay_s = delay_s

    async def start_match(self, info: Any) -> None:
        pass

    async def hand_end(self, result: Any) -> None:
        pass

    async def end_match(self, info: Any) -> None:
        pass

    async def decide(self, view: Any, request_id: int, timing: Any) -> Decision:
        await asyncio.sleep(self.delay_s)
        return Decision(random_action(self.rng, view.legal_actions))


def _play_one_hand(poll_us: int) -> None:
    players = [_AwaitingPlayer(s) for s in range(4)]
    config = MatchConfig(rules=Rules(), seed=3, match_id="poll", max_hands=1)
    with Runtime(poll_us=poll_us).refereeing() as loop:
        assert loop is thread_loop()
        loop.run_until_complete(play_match_async(players, config))
    thread_loop().close()


def test_a_match_under_a_runtime_polls_with_its_window(polls: list[int], two_cpus: None) -> None:
    _in_thread(lambda: _play_one_hand(500))
    assert polls[0] > 0
    polls[0] = 0
    _in_thread(lambda: _play_one_hand(0))
    assert polls[0] == 0
    assert eventloop._refereeing == 0


def test_a_runtime_refuses_a_bad_window_when_built() -> None:
    with pytest.raises(ValueError, match="poll_us: the polling window"):
        Runtime(poll_us=-1)
    assert eventloop._refereeing == 0


def test_two_matches_refereed_at_once_do_not_poll(polls: list[int], two_cpus: None) -> None:
    """With two matches refereed at once, both sleep at once: a polling thread would
    keep taking back the interpreter lock the other needs."""
    other_in = threading.Event()
    done = threading.Event()

    def other() -> None:
        with refereeing(300):
            other_in.set()
            done.wait(10)
        thread_loop().close()

    t = threading.Thread(target=other, daemon=True)
    t.start()
    try:
        assert other_in.wait(10)
        _in_thread(_referee_a_short_wait)
        assert polls[0] == 0
    finally:
        done.set()
        t.join(10)
    assert not t.is_alive()
    assert eventloop._refereeing == 0


def test_a_process_with_one_cpu_does_not_poll(polls: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """On one CPU, the polling referee would hold the CPU its bot needs to answer."""
    monkeypatch.setattr(eventloop, "process_cpus", lambda: 1)
    _in_thread(_referee_a_short_wait)
    assert polls[0] == 0


@pytest.mark.parametrize(("cpus", "referees", "polled"), [(2, 1, True), (2, 2, False), (16, 8, True), (16, 9, False)])
def test_a_league_worker_polls_only_with_two_cpus_per_match(polls: list[int], monkeypatch: pytest.MonkeyPatch,
                                                             cpus: int, referees: int, polled: bool) -> None:
    """A league's referee worker processes (issue 30): a referee polls only if each match
    refereed on the machine at once has two CPUs, else its polling takes a bot's CPU."""
    monkeypatch.setattr(eventloop, "process_cpus", lambda: cpus)
    monkeypatch.setattr(eventloop, "_machine_referees", 1)
    eventloop.share_cpus_with(referees)
    _in_thread(_referee_a_short_wait)
    assert (polls[0] > 0) is polled


@pytest.mark.parametrize("bad", [-1, MAX_POLL_US + 1, True, 0.5])
def test_a_bad_window_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="polling window"):
        new_event_loop(bad)
    with pytest.raises(ValueError, match="polling window"):
        with refereeing(bad):
            pass
    assert eventloop._refereeing == 0


def test_the_window_reaches_the_hand_log_header(tmp_path: Path) -> None:
    """run_match records its runtime as the header's ``run`` (a timing field: untimed()
    drops it)."""
    from arena.records.handlog import untimed
    from arena.runner.match import Seating, run_match

    headers = []
    for poll in (0, 350):
        players = [_AwaitingPlayer(s, 0.0) for s in range(4)]
        config = MatchConfig(rules=Rules(), seed=5, match_id=f"m{poll}", max_hands=1)
        outcome = run_match([], Seating(("r", "r", "r", "r")), config, tmp_path, players=players,
                            runtime=Runtime(poll_us=poll))
        header = json.loads(outcome.log_path.read_text().splitlines()[0])
        assert header["run"] == {"poll_us": poll, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}
        headers.append(untimed({k: v for k, v in header.items() if k != "match_id"}))
    assert headers[0] == headers[1]


def _referee_a_short_wait() -> None:
    """Wait 20 ms on this thread's loop inside ``refereeing(300)``, then close the loop."""
    loop = thread_loop()
    try:
        with refereeing(300):
            loop.run_until_complete(asyncio.sleep(0.02))
    finally:
        loop.close()


def _in_thread(fn: Callable[[], None]) -> None:
    """Run ``fn`` on a fresh thread (its own thread_loop); re-raise its failure here,
    and fail if it does not finish."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            fn()
        except BaseException as exc:  # reported to the test thread
            errors.append(exc)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), f"{fn} did not finish"
    if errors:
        raise errors[0]


# --- the CPUs a process may use: affinity and cgroup quota ----------------------------------------


def _fake_proc(tmp_path: Path, mounts: list[str], cgroup: str) -> Path:
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "mountinfo").write_text("\n".join(mounts) + "\n")
    (proc / "cgroup").write_text(cgroup)
    return proc


def _write(folder: Path, **files: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text + "\n")


def test_a_cgroup_v2_quota_is_the_smallest_on_the_way_up(tmp_path: Path) -> None:
    cg = tmp_path / "cg2"
    _write(cg, cpu_max="max 100000")  # the root: no quota
    _write(cg / "league", cpu_max="100000 100000")  # one CPU for the whole league
    _write(cg / "league" / "arena", cpu_max="150000 100000")
    proc = _fake_proc(tmp_path, [f"30 23 0:26 / {cg} rw - cgroup2 cgroup2 rw"], "0::/league/arena\n")
    assert cpus.cgroup_cpu_limit(proc) == 1.0
    assert cpus._process_cpus(proc) == 1  # so the referee does not poll


def test_a_cgroup_v1_quota_and_no_quota(tmp_path: Path) -> None:
    cg = tmp_path / "cpu"
    _write(cg / "docker" / "c1", cpu_cfs_quota_us="250000", cpu_cfs_period_us="100000")
    mounts = [
        f"31 23 0:28 / {tmp_path} rw - tmpfs tmpfs rw",
        f"32 31 0:29 / {cg} rw - cgroup cgroup rw,cpu,cpuacct",
        f"33 31 0:30 / {tmp_path / 'memory'} rw - cgroup cgroup rw,memory",
    ]
    proc = _fake_proc(tmp_path, mounts, "4:memory:/docker/c1\n1:cpu,cpuacct:/docker/c1\n0::/\n")
    assert cpus.cgroup_cpu_limit(proc) == 2.5
    _write(cg / "docker" / "c1", cpu_cfs_quota_us="-1", cpu_cfs_period_us="100000")
    assert cpus.cgroup_cpu_limit(proc) is None


def test_a_namespaced_container_reads_its_own_root(tmp_path: Path) -> None:
    """Inside a cgroup namespace the process sits at "/" of a mount whose root is "/"."""
    cg = tmp_path / "cg2"
    _write(cg, cpu_max="50000 100000")
    proc = _fake_proc(tmp_path, [f"30 23 0:26 / {cg} rw - cgroup2 cgroup2 rw"], "0::/\n")
    assert cpus.cgroup_cpu_limit(proc) == 0.5
    assert cpus._process_cpus(proc) == 1


def test_no_cgroup_information_means_no_limit(tmp_path: Path) -> None:
    assert cpus.cgroup_cpu_limit(tmp_path / "nowhere") is None
    proc = _fake_proc(tmp_path, ["garbage", f"30 23 0:26 / {tmp_path} rw - cgroup2 cgroup2 rw"], "0::/x\n")
    assert cpus.cgroup_cpu_limit(proc) is None  # no cpu.max files: unlimited


def test_importing_the_loop_module_reads_nothing() -> None:
    """The CPUs the process may use (affinity, cgroup quota) are read when a match first
    needs them, not when the transport imports the module."""
    import subprocess
    import sys

    code = "import arena.runtime.eventloop as e; print(e.process_cpus.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "0"
