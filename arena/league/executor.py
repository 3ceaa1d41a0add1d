"""Where a league's matches are played: on this machine's worker threads
(:class:`LocalExecutor`) or on a Ray cluster (:class:`arena.league.cluster_executor.RayExecutor`).

The league loop (:mod:`arena.league.loop`) is the same for both: it submits matches
while the executor has room, and records each finished match itself (results.jsonl,
standings, resume); an executor only plays matches and hands back their outcome, the
hand log already in the league's ``logs/``.
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

from arena.league.schedule import ScheduledMatch
from arena.runner.match import MatchOutcome
from arena.runner.pool import PoolWorkers, ProcessPool


class ClusterFault(RuntimeError):
    """The cluster, not a bot, failed: a node that cannot run a bot, a match lost more
    times than Ray retries it. The league stops (the matches recorded are kept) with this
    message, and continues with ``--resume`` once the cluster is fixed.

    Local referee worker processes that keep dying stop the league the same way
    (:mod:`arena.league.procs`), with their own ``fix``."""

    def __init__(self, message: str, fix: str = "fix the cluster") -> None:
        super().__init__(message)
        self.fix = fix
        """What the user should do before ``--resume``."""


@dataclass(frozen=True)
class ClusterStatus:
    """What the progress display shows of a cluster."""

    nodes: int
    """Nodes alive that can play a match."""
    cpus: float
    """Their CPUs."""
    running: int
    """Matches submitted and not yet recorded (playing, or waiting for a node)."""
    capacity: int
    """Matches the cluster can play at once."""


@dataclass(frozen=True)
class CpuUse:
    """CPU seconds a league's run used on this machine, split by who used them."""

    referee_s: float
    """The arena's processes: the league loop and the referees."""
    bots_s: float
    """The bot processes."""


def own_cpu() -> float:
    """CPU seconds this process has used (user and system, every thread)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def children_cpu() -> float:
    """CPU seconds this process's ended (and waited for) descendants used."""
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done.ru_utime + done.ru_stime


class MatchExecutor(Protocol):
    """Plays matches for the league loop."""

    def capacity(self) -> int:
        """Matches to keep in flight now (0: wait, e.g. a cluster without nodes)."""
        ...

    def submit(self, m: ScheduledMatch) -> Future[Any]:
        """Start playing ``m``."""
        ...

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        """The outcome of a finished ``fut``, its hand log in the league's ``logs/``.

        Raises:
            OSError: writing on this machine failed (a full disk).
            ClusterFault: the cluster failed; stop the league.
            Exception: the match failed (anything else: logged, not recorded).
        """
        ...

    def status(self) -> ClusterStatus | None:
        """The cluster's state for the progress display; None when local."""
        ...

    def close(self) -> None:
        """Wait for (or abandon) what runs, and release everything."""
        ...


class LocalExecutor:
    """``jobs`` worker threads of this machine, each with its process pool
    (:class:`~arena.runner.pool.PoolWorkers`)."""

    def __init__(self, jobs: int, play: Callable[[ProcessPool | None, ScheduledMatch], MatchOutcome],
                 make_pool: Callable[[], ProcessPool | None]) -> None:
        self._jobs, self._play = jobs, play
        self._workers = PoolWorkers(jobs, make_pool)
        self._since = own_cpu(), children_cpu()

    def capacity(self) -> int:
        """The number of jobs."""
        return self._jobs

    def submit(self, m: ScheduledMatch) -> Future[MatchOutcome]:
        """Queue ``m`` for the next free thread."""
        return self._workers.submit(self._play, m)

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        """The match's outcome (``run_match`` wrote the hand log in place)."""
        result: MatchOutcome = fut.result()
        return result

    def status(self) -> ClusterStatus | None:
        """None: no cluster."""
        return None

    def close(self) -> None:
        """Let queued matches run (unless cancelled); each thread closes its pool."""
        self._workers.shutdown()

    def cpu_use(self) -> CpuUse:
        """CPU seconds since the executor started (call after :meth:`close`): this
        process's as the referee's, its ended children's (the bots') as the bots'."""
        return CpuUse(own_cpu() - self._since[0], children_cpu() - self._since[1])
