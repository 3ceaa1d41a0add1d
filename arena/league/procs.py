"""A local league's matches refereed in worker processes (issue 30): ``--jobs N`` plays
N matches on up to N cores.

One Python process refereeing every match in flight (worker threads) holds one core and
one GIL, however many the machine has. :class:`ProcessExecutor` starts ``jobs`` referee
worker processes instead (``spawn``: a fresh interpreter, never a ``fork`` of the
threaded arena), each with its own bot-process pool (:mod:`arena.runner.pool`), and
gives each one match at a time; the league loop (:mod:`arena.league.loop`) stays in
the arena's process and alone writes ``results.jsonl`` and the standings, exactly as
with threads. Each worker writes its match's hand log into the league's ``logs/`` and
its bots' output into ``bots/``, as a thread does.

What the workers are given, and how:

* **Only what a match needs, over their pipe.** The configuration without the user's
  seed, and each match (its own seed) as it is given: never the league's secret nor the
  results key, and nothing in a worker's command line or environment (which ``ps`` and
  ``/proc`` show to other processes).
* **Their life is the league's.** A worker ignores SIGINT (Ctrl-C reaches the whole
  terminal's process group: the parent decides), stops its bots and exits on SIGTERM
  (sent by the parent when the league is interrupted), and is killed by the kernel if
  the arena dies (``PR_SET_PDEATHSIG``); its bots die with it (their own death signal).
* **A worker that dies loses its match, not the league.** The match is played again
  from its start (same seed) by a new worker; a match whose worker dies twice stops the
  league cleanly (the matches recorded are kept; ``--resume`` continues).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import Future
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import structlog

from arena.league.executor import ClusterFault, ClusterStatus, CpuUse, own_cpu
from arena.league.order import affinity, remember
from arena.league.procs_worker import WorkerSetup
from arena.league.schedule import ScheduledMatch
from arena.runner.match import MatchOutcome
from arena.runtime.cpus import worker_cpus

log = structlog.get_logger()

MAX_ATTEMPTS = 2
"""Times a match is given to a worker: once, and once more if its worker died."""

MAX_IDLE_DEATHS = 3
"""Workers that may die before their first match (cannot start) before the league stops."""

CLOSE_GRACE_S = 15.0
"""How long a worker has to stop its bots and exit at the league's end, before SIGKILL."""

QUEUED_PER_WORKER = 2
"""Matches the league loop keeps submitted per worker (:meth:`ProcessExecutor.capacity`)."""

WORKER_FIX = "find why the referee worker died (its stderr is above)"


class _Worker:
    """One referee worker process, as the executor sees it: ``python -m
    arena.league.procs_worker FD``, its end of a socket pair the only thing it is given on its
    command line; the setup follows over the socket."""

    def __init__(self, setup: WorkerSetup, number: int, stream: int) -> None:
        """``setup`` is this worker's own (its ``cpu`` set by the executor)."""
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        # The arena as this process imported it (a checkout on sys.path, say), first.
        env["PYTHONPATH"] = os.pathsep.join([_ARENA_ROOT, *filter(None, [env.get("PYTHONPATH")])])
        with theirs:
            self.process = subprocess.Popen([sys.executable, "-m", "arena.league.procs_worker", str(theirs.fileno())],
                                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=env,
                                            process_group=0)  # not in the terminal's group: Ctrl-C is the parent's
        self.conn = Connection(ours.detach())
        with contextlib.suppress(OSError):  # died at once: the serving loop sees its socket close
            self.conn.send(setup)
        self.number = number
        self.stream = stream
        """Its share of the league's matches (:meth:`ProcessExecutor.follow`); a worker
        that replaces a dead one takes over its stream."""
        self.job: tuple[ScheduledMatch, Future[Any]] | None = None
        self.played = 0
        self.recent: list[str] = []
        """The entries of its last matches, the latest last: those its pool likely holds
        idle processes for (:func:`arena.league.order.affinity`)."""
        self.last_seed: int | None = None
        """The deal seed of its last match: the processes that played it may not play its
        twin (the same seed), so a twin is no nearer to it than any match."""

    def is_alive(self) -> bool:
        return self.process.poll() is None


_ARENA_ROOT = str(Path(__file__).resolve().parents[2])


class ProcessExecutor:
    """``jobs`` referee worker processes of this machine (:mod:`arena.league.procs`)."""

    def __init__(self, jobs: int, setup: WorkerSetup, resident: int = 6) -> None:
        self._jobs, self._setup, self._resident = jobs, setup, resident
        self._lock = threading.Lock()
        self._queue: deque[tuple[ScheduledMatch, Future[Any], bool]] = deque()
        """Matches to give a worker: (match, its future, played again after its worker died)."""
        self._attempts: dict[str, int] = {}
        self._idle_deaths = 0
        self._closing = False
        self._abandon = False
        self._started = 0
        self._cpu = [0.0, 0.0]
        self._wake_r, self._wake_w = os.pipe()
        self._stream_of: dict[str, int] = {}
        self._pins = worker_cpus(jobs)
        self._workers = [self._start_worker(i) for i in range(jobs)]
        self._since = own_cpu()
        self._thread = threading.Thread(target=self._serve, name="league-referees", daemon=True)
        self._thread.start()

    def _start_worker(self, stream: int) -> _Worker:
        self._started += 1
        cpu = None if self._pins is None else self._pins[stream % len(self._pins)]  # a replacement: the same CPU
        return _Worker(replace(self._setup, cpu=cpu), self._started, stream)

    def capacity(self) -> int:
        """Two matches per worker: the one it plays and its next, queued here, given to
        it the moment it reports (by the serving thread, without a round trip through
        the league loop: on a busy machine each wake-up on that path costs milliseconds)."""
        return self._jobs * QUEUED_PER_WORKER

    def streams(self) -> int:
        """The referee workers: one stream of :func:`arena.league.order.deal_streams` each."""
        return self._jobs

    def follow(self, streams: list[list[ScheduledMatch]]) -> None:
        """Give worker ``i`` the matches of ``streams[i]`` first (its pool holds their
        entries' processes)."""
        with self._lock:
            self._stream_of = {m.match_id: i for i, s in enumerate(streams) for m in s}

    def submit(self, m: ScheduledMatch) -> Future[Any]:
        """Queue ``m`` for the next idle worker."""
        fut: Future[Any] = Future()
        with self._lock:
            self._queue.append((m, fut, False))
        os.write(self._wake_w, b"x")
        return fut

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        """The match's outcome (its worker wrote the hand log in place)."""
        result: MatchOutcome = fut.result()
        return result

    def status(self) -> ClusterStatus | None:
        """None: no cluster."""
        return None

    def pids(self) -> list[int]:
        """The workers' process ids (tests, benchmarks)."""
        return [w.process.pid for w in self._workers]

    # The serving thread: the only one that talks to the workers.

    def _serve(self) -> None:
        try:
            self._serve_until_closed()
        except Exception as exc:  # never leave the league loop waiting on futures nobody serves
            log.error("league.referees_failed", error=repr(exc))
            with self._lock:
                self._fail_all(f"the arena lost its referee workers ({exc!r})")
                for w in self._workers:
                    if w.job is not None and not w.job[1].done():
                        w.job[1].set_exception(ClusterFault(f"match {w.job[0].match_id}: the arena lost its "
                                                            f"referee workers ({exc!r})", fix=WORKER_FIX))
                    w.job = None
        self._shutdown()

    def _serve_until_closed(self) -> None:
        while True:
            with self._lock:
                if self._closing:
                    break
                self._dispatch()
            ready = wait([self._wake_r, *(w.conn for w in self._workers)], timeout=1.0)
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            for w in list(self._workers):
                if w.conn in ready:
                    self._service(w)

    def _dispatch(self) -> None:
        # Two passes: each idle worker first takes a match of its own stream (or one to
        # play again), then any; in one pass a worker early in the list, with nothing of
        # its own queued, could take the one match queued for another idle worker.
        for own_only in (True, False):
            for w in self._workers:
                self._fill(w, own_only)

    def _fill(self, w: _Worker, own_only: bool) -> None:
        """Give idle ``w`` its next match, if one is queued for it (``own_only``: of its
        own stream or to play again)."""
        while w.job is None and self._queue:
            picked = self._take(w, own_only)
            if picked is None:
                return
            m, fut, again = picked
            if not again and not fut.set_running_or_notify_cancel():
                continue  # cancelled (the league was interrupted)
            self._attempts[m.match_id] = self._attempts.get(m.match_id, 0) + 1
            try:
                w.conn.send(m)
            except OSError:
                self._queue.appendleft((m, fut, True))  # its worker is dead: _service replaces it
                self._attempts[m.match_id] -= 1
                return
            w.job = (m, fut)
            w.last_seed = m.seed
            remember(w.recent, (m.team0, m.team1), self._resident)

    def _take(self, w: _Worker, own_only: bool = False) -> tuple[ScheduledMatch, Future[Any], bool] | None:
        """The queued match for ``w``: one to play again first, else the first of its
        stream, else (unless ``own_only``: then None) the first of those with the most
        of their two entries among its recent ones (:func:`~arena.league.order.affinity`:
        its pool likely holds idle processes for them), a twin of its last match counting
        none (the processes that played a deal may not play it again)."""
        for i, (_, _, again) in enumerate(self._queue):
            if again:
                item = self._queue[i]
                del self._queue[i]
                return item
        best, score = 0, -1
        for i, (m, _, _) in enumerate(self._queue):
            if self._stream_of.get(m.match_id) == w.stream:
                s = 3
            else:
                s = 0 if m.seed == w.last_seed else affinity(m, w.recent)
            if s > score:
                best, score = i, s
                if s == 3:
                    break
        if own_only and score < 3:
            return None
        item = self._queue[best]
        del self._queue[best]
        return item

    def _service(self, w: _Worker) -> None:
        try:
            while w.conn.poll():
                kind, value = w.conn.recv()
                if kind == "cpu":
                    continue
                assert w.job is not None, "a reply without a match"
                (_, fut), w.job = w.job, None
                w.played += 1
                if kind == "ok":
                    fut.set_result(value)
                else:
                    fut.set_exception(value)
        except (EOFError, OSError):
            self._lost(w)  # its end of the socket closed: the worker died

    def _lost(self, w: _Worker) -> None:
        """A worker died: play its match again elsewhere (once), and replace it."""
        w.process.wait()
        with self._lock:
            if self._closing:
                return
            self._workers.remove(w)
            w.conn.close()
            code = w.process.returncode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            if w.job is None and w.played == 0:
                self._idle_deaths += 1
            if w.job is not None:
                m, fut = w.job
                if self._attempts.get(m.match_id, 0) < MAX_ATTEMPTS:
                    log.warning("league.referee_died", match_id=m.match_id, how=how,
                                detail="the match is played again from its start")
                    self._queue.appendleft((m, fut, True))
                else:
                    fut.set_exception(ClusterFault(
                        f"match {m.match_id}: its referee worker process died {MAX_ATTEMPTS} times ({how})",
                        fix=WORKER_FIX))
            if self._idle_deaths >= MAX_IDLE_DEATHS:
                self._fail_all(f"referee worker processes die before their first match ({how})")
                return
            self._workers.append(self._start_worker(w.stream))

    def _fail_all(self, why: str) -> None:
        self._jobs = 0
        for m, fut, again in self._queue:
            if again or fut.set_running_or_notify_cancel():
                fut.set_exception(ClusterFault(f"match {m.match_id}: {why}", fix=WORKER_FIX))
        self._queue.clear()

    def close(self) -> None:
        """Stop the workers: at the league's end each stops its pool's processes and exits;
        if matches are still running (the league was interrupted) each is sent SIGTERM,
        stops its bots and exits at once. A worker that does not exit is killed."""
        with self._lock:
            self._closing = True
            self._abandon = any(w.job is not None for w in self._workers)
            for _, fut, again in self._queue:
                if again:
                    fut.set_exception(ClusterFault("the league stopped before the match was played again"))
                else:
                    fut.cancel()
            self._queue.clear()
        os.write(self._wake_w, b"x")
        self._thread.join()  # it stops the workers (_shutdown)
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)

    def _shutdown(self) -> None:
        """Stop every worker, from the serving thread: a worker it started dies when the
        thread that started it ends (PR_SET_PDEATHSIG), so the thread outlives them."""
        abandon = self._abandon
        for w in self._workers:
            if abandon:
                with contextlib.suppress(OSError):
                    w.process.terminate()
            else:
                with contextlib.suppress(OSError):
                    w.conn.send(None)
        for w in self._workers:
            try:
                w.process.wait(CLOSE_GRACE_S if not abandon else 5.0)
            except subprocess.TimeoutExpired:
                log.warning("league.referee_killed", pid=w.process.pid, detail="it did not exit in time")
                w.process.kill()
                w.process.wait()
            with contextlib.suppress(EOFError, OSError):
                while w.conn.poll():
                    kind, value = w.conn.recv()
                    if kind == "cpu":
                        self._cpu[0] += value.referee_s
                        self._cpu[1] += value.bots_s
            w.conn.close()

    def cpu_use(self) -> CpuUse:
        """CPU seconds since the executor started (call after :meth:`close`): this
        process's and the workers' as the referees', the workers' children as the bots'
        (a worker killed before it could report is missing)."""
        now = own_cpu()
        return CpuUse(now - self._since + self._cpu[0], self._cpu[1])
