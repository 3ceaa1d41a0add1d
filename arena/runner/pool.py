"""Bot processes kept alive across the matches of a league (issue 17).

Starting a Python bot (an interpreter importing gRPC and protobuf, the handshake, then
its shutdown) costs about a second; a light match plays in a fraction of that. A
:class:`ProcessPool` keeps the processes of finished matches and gives them the next
matches of the same entry, each match on a new ``Play`` stream that begins with its
``match_start`` (the protocol's match boundary: docs/protocol.md §8).

What reuse must not change, and how the pool keeps it:

* **No bot plays a deal it has seen.** A match's deals come only from its seed, so each
  process keeps the set of seeds it has played, and :meth:`ProcessPool.acquire` never
  gives it a match with one of them: it picks another idle process, or starts a new one.
  The check raises (not an ``assert``, which ``python -O`` would drop), so no caller can
  bypass it. In a plain league every match has its own seed; in a duplicate league a
  process plays each deal once, so an entry needs a few more processes (about one team
  per twin and opponent), and a process that has played every deal its entry has left
  (``useful``) is stopped at once.
* **A fault stays in its match.** A process is given back only after a clean match: no
  fault of its seat, still alive, its stream ended by the bot after reading everything
  (``RemoteBot.ended_cleanly``). Anything else stops it (the next match starts a new
  one; the fault is in the match's results). After ``max_matches`` matches a process is
  replaced too, to bound what a bot leaks.
* **A process plays for one entry only.** Processes are pooled per entry (and bot, and
  CPU set): what a bot carries from one match to the next only ever reaches its own
  entry's matches, and a strict sandbox's private ``/tmp`` is never shared with another
  entry.
* **An idle process cannot touch the matches being played.** Between its matches it is
  frozen (its control group's freezer where it has one, else SIGSTOP to its process group
  and every process below it) and woken when it is given a match, so it cannot use the
  CPU the running matches need.

Each pool belongs to one thread: a :class:`~arena.remote.client.RemoteBot`'s channel is
bound to the event loop of the thread that made it (``thread_loop()``), so a league
keeps one pool per worker thread and closes it in that thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import structlog

from arena.remote.client import RemoteBot, close_bots
from arena.remote.manifest import BotManifest

log = structlog.get_logger()

T = TypeVar("T")

MAX_MATCHES = 1000
"""Matches a process plays before it is replaced (bounds what a leaking bot can leak)."""

MAX_IDLE = 12
"""Idle processes a pool keeps at most (all entries together); beyond, the one idle the
longest is stopped. A plain league needs one team per entry; a duplicate one more."""

PoolKey = tuple[str, str, str]
"""What makes two processes interchangeable: the entry they play for, the bot's name
and manifest, and the CPUs they were started on."""


class DealSeenError(RuntimeError):
    """A process was about to be given a deal (match seed) it has already played."""


def pool_key(entry: str, spec: BotManifest) -> PoolKey:
    """The pool key of a process of ``spec`` playing for ``entry``."""
    return (entry, spec.name, str(spec.source))


@dataclass(eq=False)
class Lease:
    """One process given to one seat of one match."""

    bot: RemoteBot
    key: PoolKey
    origin: str
    """The label (``<match>.s<seat>``) of the seat it was started for: its stdout and
    stderr are in ``bots/<origin>.std{out,err}.log`` for as long as it lives."""
    started: bool
    """Started for this match (False: kept from an earlier one)."""
    why: str
    """Why it was started, or ``reused``."""
    matches: int = 1
    """Matches this process has been given, this one included."""
    seeds: set[int] = field(default_factory=set)
    """The match seeds (deals) it has been given."""

    def header(self) -> dict[str, Any]:
        """How the seat's process was obtained, for the hand log's header."""
        return {"started": self.started, "match_number": self.matches, "first_seat": self.origin, "why": self.why}


def fresh_header(why: str, label: str) -> dict[str, Any]:
    """The hand log's ``process`` of a seat whose process was started for the match and
    is stopped after it (never pooled)."""
    return {"started": True, "match_number": 1, "first_seat": label, "why": why}


class ProcessPool:
    """Idle bot processes of one thread, per :data:`PoolKey`.

    ``useful(key, seeds)``: whether a process that has played ``seeds`` may still get a
    match (False: it has seen every deal its entry has left, and is stopped at once);
    None: always.
    """

    def __init__(
        self,
        log_dir: Path,
        *,
        start_timeout_s: float = 10.0,
        sandbox: str = "default",
        max_matches: int = MAX_MATCHES,
        max_idle: int = MAX_IDLE,
        useful: Callable[[PoolKey, frozenset[int]], bool] | None = None,
    ) -> None:
        if max_matches < 1 or max_idle < 0:
            raise ValueError("max_matches must be >= 1 and max_idle >= 0")
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.sandbox = sandbox
        self.max_matches = max_matches
        self.max_idle = max_idle
        self.useful = useful
        self._idle: list[Lease] = []
        """Idle processes, the one idle the longest first."""
        self._owner = threading.get_ident()
        self.started = 0
        """Processes started through this pool (a count for benchmarks and tests)."""
        self.reused = 0
        """Matches given to a process kept from an earlier match."""

    def _check_thread(self) -> None:
        if threading.get_ident() != self._owner:
            raise RuntimeError("a ProcessPool is used only by the thread that made it (its bots' event loop)")

    def acquire(self, entry: str, spec: BotManifest, seed: int, label: str) -> Lease:
        """A process for a seat of ``entry`` in the match of ``seed``: an idle one that has
        not played ``seed``, else a new one (created, not started: the caller launches
        and connects it, as it does a match's own processes).

        Raises:
            DealSeenError: never, unless this code is broken: the last check before a
                process is given a match.
        """
        self._check_thread()
        key = pool_key(entry, spec)
        why = "no idle process"
        for lease in list(self._idle):
            if lease.key != key:
                continue
            if not lease.bot.is_dead() and seed not in lease.seeds:
                self._idle.remove(lease)
                _freeze(lease.bot, False)
                lease.started, lease.why = False, "reused"
                lease.matches += 1
                self.reused += 1
                return self._give(lease, seed)
            if lease.bot.is_dead():  # died while idle (killed from outside): replace it
                self._idle.remove(lease)
                self._stop([(lease, "died while idle")])
            else:
                why = "every idle process has played this deal"
        bot = RemoteBot(spec, self.log_dir, label, start_timeout_s=self.start_timeout_s,
                        sandbox=self.sandbox)
        self.started += 1
        return self._give(Lease(bot, key, label, True, why), seed)

    @staticmethod
    def _give(lease: Lease, seed: int) -> Lease:
        # The one place a process is given a match: a seed it has played is refused here,
        # whatever the caller did.
        if seed in lease.seeds:
            raise DealSeenError(f"process of {lease.origin} has already played the deal of seed {seed:#x}")
        lease.seeds.add(seed)
        return lease

    def release(self, lease: Lease, fault: str | None) -> None:
        """Take back a process after its match (:meth:`release_all` of one)."""
        self.release_all([(lease, fault)])

    def release_all(self, given: Sequence[tuple[Lease, str | None]], also: Sequence[RemoteBot] = ()) -> None:
        """Take back the processes of a match's seats. ``fault``: why a process must not
        play again (its seat faulted, its stream did not end cleanly, …), None after a
        clean match. A process is stopped if ``fault``, if it is dead, if it has played
        ``max_matches`` matches, or if it is of no more use (``useful``); otherwise it is
        frozen and kept. The processes to stop, and ``also`` (the match's bots that were
        never pooled), are stopped together: a bot that will not exit delays the next
        match by one grace period, however many seats it held."""
        self._check_thread()
        doomed: list[tuple[Lease, str]] = []
        try:
            for lease, fault in given:
                try:
                    if fault is None and lease.bot.is_dead():
                        fault = "its process exited"
                    if fault is not None:
                        log.info("pool.replaced", process=lease.origin, matches=lease.matches, why=fault)
                        doomed.append((lease, fault))
                    elif lease.matches >= self.max_matches:
                        doomed.append((lease, f"played {lease.matches} matches (the limit)"))
                    elif self.useful is not None and not self.useful(lease.key, frozenset(lease.seeds)):
                        doomed.append((lease, "has played every deal its entry has left"))
                    else:
                        _freeze(lease.bot, True)
                        self._idle.append(lease)
                except Exception as exc:  # one process misjudged must not leave the others running
                    log.warning("pool.release_failed", process=lease.origin, error=repr(exc))
                    doomed.append((lease, f"the pool could not judge it: {exc!r}"))
            while len(self._idle) > self.max_idle:
                doomed.append((self._idle.pop(0), "idle the longest, over the pool's limit"))
        finally:
            self._stop(doomed, also)

    def idle(self) -> int:
        """Processes kept, idle."""
        return len(self._idle)

    def close(self) -> None:
        """Stop every idle process, all at once (the league ended, was interrupted, or failed)."""
        self._check_thread()
        doomed = [(lease, "the league ended") for lease in self._idle]
        self._idle.clear()
        self._stop(doomed)

    @staticmethod
    def _stop(doomed: Sequence[tuple[Lease, str]], also: Sequence[RemoteBot] = ()) -> None:
        for lease, why in doomed:
            # Woken first: a stopped process would not answer Shutdown, and SIGTERM waits
            # for a stopped process to be continued.
            _freeze(lease.bot, False)
            log.debug("pool.stop", process=lease.origin, matches=lease.matches, why=why)
        close_bots([*(lease.bot for lease, _ in doomed), *also])  # failures are logged there


def _freeze(bot: RemoteBot, freeze: bool) -> None:
    """Freeze or wake every process of ``bot`` (its cgroup's freezer where it has one,
    else SIGSTOP or SIGCONT: :meth:`BotProcess.freeze`)."""
    if bot.process is not None:
        if freeze:
            bot.process.freeze()
        else:
            bot.process.thaw()


class PoolWorkers:
    """``jobs`` threads that play matches, each with its own :class:`ProcessPool` (made
    and closed in that thread, whose event loop its bots' channels are bound to).

    :meth:`submit` queues a call ``fn(pool, *args)`` and returns its future, as a
    ``ThreadPoolExecutor`` would; :meth:`shutdown` lets queued calls run (unless they
    were cancelled), then each thread closes its pool and ends.
    """

    def __init__(self, jobs: int, make_pool: Callable[[], ProcessPool | None]) -> None:
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = \
            queue.SimpleQueue()
        self._make_pool = make_pool
        self._threads = [threading.Thread(target=self._work, name=f"league-job-{i}", daemon=True)
                         for i in range(jobs)]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue ``fn(pool, *args)`` for the next free thread."""
        fut: Future[T] = Future()
        self._queue.put((fut, fn, args))
        return fut

    def _work(self) -> None:
        pool: ProcessPool | None = None
        try:
            pool = self._make_pool()
            while (item := self._queue.get()) is not None:
                fut, fn, args = item
                if not fut.set_running_or_notify_cancel():
                    continue
                try:
                    fut.set_result(fn(pool, *args))
                except BaseException as exc:  # handed to the caller, as an executor does
                    fut.set_exception(exc)
        finally:
            if pool is not None:
                pool.close()

    def shutdown(self) -> None:
        """Wait for the queued calls, then for every thread to close its pool."""
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join()

    def __enter__(self) -> PoolWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
