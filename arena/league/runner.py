"""Run a league: the schedule in parallel jobs, one hand log per match, resumable.

The output folder and its secret are :mod:`arena.league.folder`'s; the loop that plays
the matches and records them, :mod:`arena.league.loop`'s. ``resume=True`` checks every
line of ``results.jsonl`` (one line per finished match, fsync'd as each match ends,
each line bound to the league by a MAC) and plays only the matches not in it; an
interrupted match is replayed from its start with the same seed, so nothing is counted
twice.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from arena.league.config import LeagueConfig
from arena.league.executor import ClusterStatus, CpuUse, LocalExecutor, MatchExecutor
from arena.league.folder import league_identity, league_lock, make_folder, prepare_output
from arena.league.loop import LeagueLoop, write_standings
from arena.league.procs import ProcessExecutor
from arena.league.procs_worker import worker_setup
from arena.league.results_file import RESULTS_FILE, ResultsWriter, read_results
from arena.league.results_file import (
    LeagueError as LeagueError,  # re-exported: the league's error, raised from here too
)
from arena.league.schedule import duplicate_caveat
from arena.league.secret import LeagueSecret
from arena.league.standings import Standings
from arena.remote import sandbox
from arena.runner.match import MatchOutcome, seat_start_errors, start_failed_seats
from arena.runner.pool import MAX_MATCHES
from arena.runtime.cpus import league_jobs

log = structlog.get_logger()


@dataclass(frozen=True)
class StartFailure:
    """An entry whose bot failed to start in some of its matches (its team forfeited them)."""

    entry: str
    failed: int
    """Its matches in which a process of its bot failed to start."""
    matches: int
    """Its matches in the results."""
    match_id: str
    """The first match (in results order: as they finished) in which it failed."""
    error: str
    """That match's error for the entry's first failed seat: the bot's exit code (or
    what went wrong) and the first and last lines of its stderr, naming its log file."""

    @property
    def never_started(self) -> bool:
        """It failed to start in every one of its matches."""
        return self.failed == self.matches


def start_failures(results: list[dict[str, Any]]) -> list[StartFailure]:
    """The entries that failed to start in at least one of ``results`` (records of
    results.jsonl, in the order the matches finished), in the order they first failed."""
    matches: dict[str, int] = {}
    failed: dict[str, int] = {}
    first: dict[str, tuple[str, str]] = {}
    for rec in results:
        teams = (rec["team0"], rec["team1"])
        for entry in teams:
            matches[entry] = matches.get(entry, 0) + 1
        errors = seat_start_errors(rec)
        for side in sorted({seat & 1 for seat in start_failed_seats(rec)}):
            entry = teams[side]
            failed[entry] = failed.get(entry, 0) + 1
            seat = min(seat for seat in start_failed_seats(rec) if seat & 1 == side)
            first.setdefault(entry, (str(rec.get("match_id", "")), errors.get(seat, rec.get("start_error") or "")))
    return [StartFailure(entry, failed[entry], matches[entry], *first[entry]) for entry in first]


@dataclass
class LeagueRun:
    """What a league run produced."""

    out_dir: Path
    standings: Standings
    results: list[dict[str, Any]]
    played_now: int
    interrupted: bool = False
    secret: LeagueSecret | None = None
    failed: tuple[tuple[str, str], ...] = ()
    """Matches the arena could not play (a defect of the arena, not a bot's fault: those
    are recorded as faults): ``(match_id, error)``. They are not recorded, the others
    are; ``--resume`` plays them again."""
    not_tried: tuple[dict[str, Any], ...] = ()
    """Matches not tried because an entry's bot did not start in several matches in a
    row (:mod:`arena.league.breaker`): counted in the standings as start failures, not
    saved in results.jsonl (``--resume`` plays them)."""
    cpu: CpuUse | None = None
    """The CPU seconds of this run on this machine, the arena's and the bots' (None: on
    a cluster)."""

    @property
    def start_failures(self) -> list[StartFailure]:
        """The entries whose bot failed to start in some match of the league (resumed
        results and matches not tried included)."""
        return start_failures(self.results + list(self.not_tried))


def run_league(
    config: LeagueConfig,
    out_dir: Path,
    *,
    jobs: int | None = None,
    resume: bool = False,
    on_match: Callable[[MatchOutcome, int, int], None] | None = None,
    stop: threading.Event | None = None,
    on_secret: Callable[[LeagueSecret], None] | None = None,
    on_start: Callable[[int, list[dict[str, Any]]], None] | None = None,
    reuse_processes: bool = True,
    max_process_matches: int = MAX_MATCHES,
    on_cluster: Callable[[ClusterStatus], None] | None = None,
) -> LeagueRun:
    """Play every scheduled match not yet in ``results.jsonl``; write the standings.

    With ``config.cluster`` the matches are played on a Ray cluster
    (:mod:`arena.league.cluster`; ``jobs`` then caps the matches in flight, by default
    as many as its nodes' CPUs hold) and this process records them as they come back:
    the same files, results and resume as a local league. The bots are packed and the
    cluster reached before anything is written; ``on_cluster(status)`` is called about
    every second with the nodes and the matches in flight.

    ``reuse_processes``: each job keeps the bot processes of its finished matches for
    its next matches of the same entries (:mod:`arena.runner.pool`: never a deal a
    process has played, never after a fault, at most ``max_process_matches`` matches
    each); False (or the configuration's ``fresh_processes``) starts every seat's
    process for its match and stops it after.

    The output folder's lock (:func:`league_lock`) is held from before anything is read
    until the standings are written. ``on_secret(secret)`` is called once the league's
    secret is known (drawn, or read back on resume), so that a caller can tell the user
    the seed after the run even if it is interrupted. ``on_start(total, saved)`` is
    called once the schedule is known, before any match is played, with the number of
    scheduled matches and the results already saved (resuming; else none).
    ``on_match(outcome, done, total)`` is called in this thread after each match is
    saved (``done`` counts the saved matches, resumed ones included). Setting ``stop`` lets running
    matches finish and starts no new one.

    Raises:
        LeagueError: the output folder cannot be used (see :func:`prepare_output`),
            or another run holds its lock.
        SandboxUnavailable: this machine cannot give the configuration's sandbox
            profile (before anything is written).
    """
    sandbox.require(config.sandbox)
    with contextlib.ExitStack() as stack:
        cluster = None
        if config.cluster is not None:
            from arena.league.cluster import open_cluster  # Ray is an optional dependency

            cluster = stack.enter_context(open_cluster(config))
        make_folder(out_dir, resume)
        with league_lock(out_dir):
            config, secret, done_results = prepare_output(out_dir, config, resume)
            if on_secret is not None:
                on_secret(secret)
            reuse = reuse_processes and not config.fresh_processes
            loop = LeagueLoop(config, out_dir, secret, done_results, stop or threading.Event(), on_match,
                               on_start, on_cluster)

            def local() -> MatchExecutor:
                # No more jobs than matches to play; one job referees in this process.
                n = max(1, min(league_jobs(jobs or config.jobs), len(loop.pending)))
                if n == 1:
                    return LocalExecutor(1, loop.play, loop.pool_maker(reuse, max_process_matches))
                setup = worker_setup(config, out_dir, reuse, max_process_matches, loop.entry_seeds, n)
                return ProcessExecutor(n, setup, loop.resident)

            executor = (cluster.executor(out_dir, jobs, reuse, max_process_matches) if cluster is not None
                        else local)
            return _run_locked(loop, executor)


def _run_locked(loop: LeagueLoop, make_executor: Callable[[], MatchExecutor]) -> LeagueRun:
    """The body of :func:`run_league`, with the folder's lock held."""
    config, out_dir, matches = loop.config, loop.out_dir, loop.matches
    caveat = duplicate_caveat(config)
    if caveat is not None:
        log.warning("league.duplicate_caveat", detail=caveat)
    if loop.on_start is not None:
        loop.on_start(len(matches), list(loop.results))
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    writer = ResultsWriter(out_dir / RESULTS_FILE, loop.secret.results_key, league_identity(config, matches))
    try:
        loop.run(writer, make_executor)
    except KeyboardInterrupt:
        # Ctrl-C (or SIGTERM): the standings of what was saved, marked incomplete, so
        # that an interrupted league can be looked at before it is resumed.
        try:
            write_standings(config, out_dir, loop.results, complete=False)
        except LeagueError as exc:
            log.warning("league.partial_standings_failed", error=str(exc))
        raise
    finally:
        writer.close()
    if loop.write_error or loop.cluster_fault:
        try:
            saved = len(read_results(writer.path))
        except (OSError, LeagueError):
            saved = len(loop.results)
        fix = ("free the space (or fix the device)" if loop.write_error else loop.fault_fix)
        raise LeagueError(
            f"{loop.write_error or loop.cluster_fault}. The {saved} matches finished before are saved in "
            f"{writer.path}; {fix} and continue with --resume"
        )
    standings = write_standings(config, out_dir, loop.results + loop.breaker.not_tried,
                                 complete=len(loop.results) == loop.total)
    return LeagueRun(out_dir, standings, loop.results, loop.played,
                     interrupted=loop.stop.is_set() and len(loop.results) < loop.total, secret=loop.secret,
                     failed=tuple(loop.failed), not_tried=tuple(loop.breaker.not_tried), cpu=loop.cpu)


