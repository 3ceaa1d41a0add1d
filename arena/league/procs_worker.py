"""The referee worker processes' side of :mod:`arena.league.procs`: what a worker is given
at its start (:class:`WorkerSetup`, never the league's secret) and what it does
(:func:`worker_main`): play each match its socket brings with its own bot-process pool,
send back the outcome, stop its bots and exit with the league.

Started as ``python -m arena.league.procs_worker FD`` by :class:`arena.league.procs.ProcessExecutor`.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
import threading
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from arena.common.log_setup import LogFormat, configure_logging, current_logging
from arena.league.config import LeagueConfig
from arena.league.executor import CpuUse
from arena.runner.pool import ProcessPool
from arena.runtime.eventloop import share_cpus_with


@dataclass(frozen=True)
class WorkerSetup:
    """What every referee worker gets once, at its start (pickled into its pipe)."""

    config: LeagueConfig
    """The league as run, its ``seed`` removed: the worker deals no match itself."""
    out_dir: Path
    reuse: bool
    max_process_matches: int
    entry_seeds: dict[str, frozenset[int]] | None
    """Per entry, the deals (seeds) it has left to play: a pooled process that has played
    all of them is stopped (the thread pools' ``useful``). None: the matches are not
    known ahead (a ladder's), and a pooled process is kept up to its ``max_matches``."""
    logging: tuple[LogFormat, int] | None
    jobs: int
    """The league's workers: a referee polls only if the machine has CPUs to spare."""
    bots_dir: Path | None = None
    """Where the bots' stdout and stderr go; None: ``out_dir/bots`` (a league's)."""
    cpu: int | None = None
    """The CPU this worker and its bots run on (:func:`arena.runtime.cpus.worker_cpus`),
    set per worker; None: placed by the system."""


def worker_setup(config: LeagueConfig, out_dir: Path, reuse: bool, max_process_matches: int,
                 entry_seeds: dict[str, set[int]] | None, jobs: int, *, bots_dir: Path | None = None) -> WorkerSetup:
    """The setup of a league's (or a ladder's) workers: nothing of its secret (not even a
    seed the user gave)."""
    seeds = None if entry_seeds is None else {entry: frozenset(s) for entry, s in entry_seeds.items()}
    return WorkerSetup(replace(config, seed=None, cluster=None), out_dir, reuse, max_process_matches, seeds,
                       current_logging(), jobs, bots_dir)


def _die_with_parent() -> None:
    """Have the kernel SIGKILL this process when the arena's thread that started it ends
    (Linux; elsewhere the worker ends when its pipe closes, after its match)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the parent died before prctl
        os._exit(1)


def _on_sigterm(signum: int, frame: object) -> None:
    """Stop every bot of this worker, then exit, from a thread: the main thread may hold
    the bot registry's lock at this instant."""
    from arena.remote import machine_view
    from arena.remote.process import stop_all_bots

    def stop() -> None:
        try:
            stop_all_bots()
            machine_view.remove()  # os._exit runs no atexit handler, which would remove it
        finally:
            os._exit(128 + signal.SIGTERM)

    threading.Thread(target=stop, daemon=True).start()


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a RuntimeError naming it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(repr(exc))
    return exc


def worker_main(conn: Connection, setup: WorkerSetup) -> None:
    """A referee worker: play each match the pipe brings, send back its outcome (or its
    exception); at ``None`` or a closed pipe, stop the pool's processes and exit,
    sending the CPU seconds this process and its bots used."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    _die_with_parent()
    if setup.cpu is not None:  # first, before any thread starts: threads and bots inherit it
        with contextlib.suppress(OSError):  # a CPU gone offline: placed by the system
            os.sched_setaffinity(0, {setup.cpu})
    # As the arena logs (warnings and up on stderr when it was never configured: a
    # library caller, a test), never structlog's unconfigured everything-on-stdout.
    configure_logging(*(setup.logging or ("console", 0)))
    share_cpus_with(setup.jobs)
    from arena.league.loop import play_scheduled

    seeds = setup.entry_seeds
    bots_dir = setup.bots_dir or setup.out_dir / "bots"

    def useful(key: tuple[str, str, str], played: frozenset[int]) -> bool:
        return seeds is None or not seeds.get(key[0], frozenset()) <= played

    pool = (ProcessPool(bots_dir, sandbox=setup.config.sandbox,
                        max_matches=setup.max_process_matches, useful=useful) if setup.reuse else None)
    try:
        while True:
            try:
                m = conn.recv()
            except (EOFError, OSError):
                return  # the arena is gone
            if m is None:
                break
            try:
                reply: tuple[str, Any] = ("ok", play_scheduled(setup.config, setup.out_dir, pool, m, bots_dir))
            except Exception as exc:  # handed to the league loop, as a thread's future would
                reply = ("error", _portable(exc))
            conn.send(reply)
    finally:
        if pool is not None:
            pool.close()
    own, bots = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    with contextlib.suppress(OSError):
        conn.send(("cpu", CpuUse(own.ru_utime + own.ru_stime, bots.ru_utime + bots.ru_stime)))


def _main() -> None:
    """``python -m arena.league.procs FD``: a referee worker on the socket ``FD``."""
    conn = Connection(int(sys.argv[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # before the setup: Ctrl-C is the parent's to handle
    try:
        setup = conn.recv()
    except (EOFError, OSError):
        return
    worker_main(conn, setup)


if __name__ == "__main__":
    _main()
