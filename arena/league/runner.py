"""Run a league: the schedule in parallel jobs, one hand log per match, resumable.

The output folder (private to the arena's user) holds ``secret.json`` (the league's
secret seed and the key of the results' MACs, mode 0600), ``league.json`` (the
configuration, without the secret), ``results.jsonl`` (one line per finished match,
fsync'd as each match ends, each line bound to the league by a MAC),
``logs/<match>.jsonl`` (hand logs), ``bots/`` (each bot process's stdout and stderr)
and, at the end, ``standings.json`` and ``standings.csv``; a run holds an exclusive
lock on the folder. ``resume=True`` checks every line of ``results.jsonl`` and plays only
the matches not in it; an interrupted match is replayed from its start with the same
seed, so nothing is counted twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from arena import boundedjson
from arena.league.breaker import StartBreaker
from arena.league.config import LeagueConfig, parse_seed
from arena.league.cores import league_jobs
from arena.league.executor import ClusterFault, ClusterStatus, CpuUse, LocalExecutor, MatchExecutor
from arena.league.pool import MAX_MATCHES, PoolKey, ProcessPool
from arena.league.procs import ProcessExecutor, worker_setup
from arena.league.results_file import (
    RESULTS_FILE,
    ResultsCheck,
    ResultsWriter,
    canonical,
    read_results,
)
from arena.league.results_file import (
    LeagueError as LeagueError,  # re-exported: the league's error, raised from here too
)
from arena.league.runmatch import MatchOutcome, Seating, run_match, seat_start_errors, start_failed_seats
from arena.league.schedule import ScheduledMatch, duplicate_caveat, schedule
from arena.league.standings import Standings, compute_standings
from arena.referee.match import MatchConfig
from arena.remote import sandbox

SECRET_FILE = "secret.json"
SECRET_BITS = 128
"""Bits of the secret drawn when no seed is given: out of reach of any search."""

log = structlog.get_logger()


@dataclass(frozen=True)
class LeagueSecret:
    """What ``secret.json`` keeps: the league's seed (drawn, or given by the user) and
    the key of the MACs that bind the lines of ``results.jsonl`` to the league."""

    seed: int
    given: bool
    """The user gave the seed (guessable); otherwise it was drawn at random."""
    results_key: bytes

    def to_json(self) -> dict[str, Any]:
        """The content of ``secret.json``."""
        return {"seed": hex(self.seed), "seed_given": self.given, "results_key": self.results_key.hex()}

    @staticmethod
    def draw(config: LeagueConfig) -> LeagueSecret:
        """The config's seed if the user gave one, else a fresh 128-bit secret; a fresh key."""
        given = config.seed is not None
        seed = config.seed if config.seed is not None else secrets.randbits(SECRET_BITS)
        return LeagueSecret(seed, given, secrets.token_bytes(32))


def seed_line(seed: int, where: Path) -> str:
    """The line printed after a run, so that it can be reproduced."""
    return f"seed: {hex(seed)} (reproduce with --seed {hex(seed)}; kept in {where})"


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


def _config_snapshot(config: LeagueConfig) -> dict[str, Any]:
    """league.json: the configuration as run. The seed only when the user gave it (a
    drawn secret stays in secret.json)."""
    return {
        "name": config.name,
        "seed_given": config.seed is not None,
        "seed": config.seed,
        "matches_per_pairing": config.matches_per_pairing,
        "duplicate": config.duplicate,
        "rules": config.rules.to_mapping(),
        "time": {"decision_ms": config.decision_ms, "time_bank_ms": config.time_bank_ms, "max_faults": config.max_faults},
        "run": config.runtime.to_json(),
        "sandbox": sandbox.protections(config.sandbox),
        "fresh_processes": config.fresh_processes,
        "cluster": config.cluster.to_json() if config.cluster is not None else None,
        # The standings' scale ([standings] anchor): what mus report needs to compute them
        # as the league does while it runs (no standings.json yet).
        "standings": {"anchor": config.anchor, "anchor_rating": config.anchor_rating},
        "entries": [
            {"name": e.name, "pair": list(e.pair) if e.pair else None, "bot": getattr(e.spec, "name", None)}
            for e in config.entries
        ],
        "source": str(config.source) if config.source else None,
    }


_IDENTITY_KEYS = ("seed_given", "seed", "matches_per_pairing", "duplicate", "rules", "entries", "time")
"""What a resume checks against league.json, and what the results' MACs bind."""


def league_identity(config: LeagueConfig, matches: list[ScheduledMatch]) -> str:
    """A digest of what makes the league this league: its configuration (as compared on
    resume) and its schedule (every match id with the entry at each side, and its deal)."""
    snap = _config_snapshot(config)
    ident = {k: snap[k] for k in _IDENTITY_KEYS}
    ident["schedule"] = [[m.match_id, m.team0, m.team1, m.deal] for m in matches]
    return hashlib.sha256(canonical(ident)).hexdigest()


def read_secret(out_dir: Path) -> LeagueSecret:
    """The secret of the league in ``out_dir`` (``secret.json``).

    Raises:
        LeagueError: missing, unreadable or malformed.
    """
    path = out_dir / SECRET_FILE
    try:
        data = boundedjson.read_file(path)
        seed = parse_seed(data["seed"])
        given = data["seed_given"]
        key = bytes.fromhex(data["results_key"])
        if not isinstance(given, bool) or len(key) != 32:
            raise ValueError("bad seed_given or results_key")
    except FileNotFoundError:
        raise LeagueError(f"{path}: missing: the league's secret seed and results key are lost, so its "
                          "results cannot be checked nor its matches dealt again; start the league anew in "
                          "another folder") from None
    except OSError as exc:
        raise LeagueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise LeagueError(f"{path}: malformed ({exc}); restore it from a backup, or start the league anew "
                          "in another folder") from None
    return LeagueSecret(seed, given, key)


def _write_secret(out_dir: Path, secret: LeagueSecret) -> None:
    """secret.json, created 0600 (never readable by another user, even for a moment)."""
    fd = os.open(out_dir / SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(secret.to_json(), f, indent=2)
        f.flush()
        # Data and size on disk before any result depends on it (fdatasync: the other
        # metadata need not wait; tests count the fsyncs of logs and results).
        os.fdatasync(f.fileno())


@contextlib.contextmanager
def folder_lock(folder: Path, fail: Callable[[str], Exception], busy: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` itself for the ``with`` block, so that
    taking it adds nothing to the folder (a refused run leaves it as it was). Not
    inherited by bots (close-on-exec), and released by the system if the arena dies.

    Raises:
        Exception: ``fail(message)``: the folder cannot be opened, or another run holds
            the lock (the message then ends with ``busy``).
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise fail(f"{folder}: cannot open the folder to lock it: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise fail(f"{folder}: {busy}") from None
        yield
    finally:
        os.close(fd)


def league_lock(out_dir: Path) -> contextlib.AbstractContextManager[None]:
    """The exclusive lock of the league in ``out_dir`` (:func:`folder_lock`).

    Raises:
        LeagueError: another run holds it, or the folder cannot be opened.
    """
    return folder_lock(out_dir, LeagueError, "another league is running in this folder (it holds the folder's "
                                             "lock); wait until it ends, or choose another --out")


def prepare_output(out_dir: Path, config: LeagueConfig,
                   resume: bool) -> tuple[LeagueConfig, LeagueSecret, list[dict[str, Any]]]:
    """Create (or, resuming, check) the output folder; return the configuration as run,
    the league's secret and the results already there (every line checked:
    :func:`read_results`). Call it with the folder's lock held (:func:`league_lock`).

    Resuming without a seed continues with the seed in ``secret.json`` (drawn, or given
    when the league started); a seed given on resume must be that one.

    Raises:
        LeagueError: the folder exists and is not empty (without resume), cannot be
            written, holds a different league, lacks its secret, or has a bad line in
            results.jsonl (with resume).
    """
    snap = _config_snapshot(config)
    meta = out_dir / "league.json"
    if resume:
        if out_dir.exists() and not out_dir.is_dir():
            raise LeagueError(f"{out_dir}: exists and is not a folder")
        if not meta.exists():
            raise LeagueError(f"{out_dir}: nothing to resume (no league.json); run without --resume")
        try:
            old = boundedjson.read_file(meta)
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            raise LeagueError(f"{meta}: unreadable ({exc}); cannot resume") from None
        secret = read_secret(out_dir)
        if config.seed is None and secret.given:
            config = replace(config, seed=secret.seed)
            snap = _config_snapshot(config)
        for key in _IDENTITY_KEYS:
            if old.get(key) != snap[key]:
                raise LeagueError(resume_mismatch(out_dir, key, old, snap))
        old_profile = (old.get("sandbox") or {}).get("profile", "default")
        if old_profile != config.sandbox:
            raise LeagueError(f"{out_dir}: the league started with sandbox {old_profile!r}, not {config.sandbox!r}: "
                              "every match of a league runs under the same protections; cannot resume")
        if secret.given != (config.seed is not None) or (config.seed is not None and secret.seed != config.seed):
            raise LeagueError(f"{out_dir / SECRET_FILE}: does not match league.json's seed; cannot resume")
        matches = schedule(config, secret.seed)
        check = ResultsCheck(secret.results_key, league_identity(config, matches), {m.match_id: m for m in matches})
        return config, secret, read_results(out_dir / RESULTS_FILE, check)
    if out_dir.exists() and not out_dir.is_dir():
        raise LeagueError(f"{out_dir}: exists and is not a folder; choose another --out")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise LeagueError(f"{out_dir}: exists and is not empty; choose another --out, or add --resume to continue it")
    secret = LeagueSecret.draw(config)
    try:
        (out_dir / "logs").mkdir(parents=True, exist_ok=True)
        # Private to the arena's user: bots run as another user (run_as) cannot read the
        # secret, the logs or the results of a league in progress.
        os.chmod(out_dir, 0o700)
        (out_dir / "bots").mkdir(exist_ok=True)
        _write_secret(out_dir, secret)
        tmp = meta.with_suffix(".tmp")
        tmp.write_text(json.dumps(snap, indent=2), encoding="utf-8")
        os.replace(tmp, meta)
    except OSError as exc:
        raise LeagueError(f"{out_dir}: cannot write: {exc.strerror or exc}") from None
    return config, secret, []


_KEY_WORDS = {"matches_per_pairing": "matches_per_pairing", "duplicate": "duplicate", "rules": "the [rules] table",
              "entries": "the entries ([[entry]]: their names, pairs or bots)",
              "time": "the [time] table (decision_ms, time_bank_ms, max_faults)"}


def resume_mismatch(out_dir: Path, key: str, old: dict[str, Any], now: dict[str, Any]) -> str:
    """Why a resume is refused, in the user's terms: what they gave now (the league file,
    or ``--seed``) against what the league in ``out_dir`` started with, and what to do."""
    if key in ("seed_given", "seed"):
        then = f"seed {hex(old['seed'])}" if old.get("seed_given") and isinstance(old.get("seed"), int) else \
            "a secret seed drawn at random"
        given = f"seed {hex(now['seed'])} (--seed, or the league file's seed)" if now.get("seed_given") else "no seed"
        return (f"{out_dir}: the league started with {then}; this resume gives {given}. A league is resumed with "
                "the seed it started with: leave --seed out (and the league file's seed as it was), or start a new "
                "league in another folder; cannot resume")
    what = _KEY_WORDS.get(key, key)
    return (f"{out_dir}: {what} in the league file differs from when the league started ({out_dir / 'league.json'} "
            "keeps what it started with): resume with the league file as it was, or start the changed league in "
            "another folder; cannot resume")


def _make_folder(out_dir: Path, resume: bool) -> None:
    """The output folder, so that its lock can be taken before anything is read."""
    if resume:
        if not out_dir.is_dir():
            raise LeagueError(f"{out_dir}: nothing to resume (no such folder); run without --resume")
        return
    if out_dir.exists() and not out_dir.is_dir():
        raise LeagueError(f"{out_dir}: exists and is not a folder; choose another --out")
    try:
        out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise LeagueError(f"{out_dir}: cannot create: {exc.strerror or exc}") from None


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
    its next matches of the same entries (:mod:`arena.league.pool`: never a deal a
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
        _make_folder(out_dir, resume)
        with league_lock(out_dir):
            config, secret, done_results = prepare_output(out_dir, config, resume)
            if on_secret is not None:
                on_secret(secret)
            reuse = reuse_processes and not config.fresh_processes
            loop = _LeagueLoop(config, out_dir, secret, done_results, stop or threading.Event(), on_match,
                               on_start, on_cluster)

            def local() -> MatchExecutor:
                # No more jobs than matches to play; one job referees in this process.
                n = max(1, min(league_jobs(jobs or config.jobs), len(loop.pending)))
                if n == 1:
                    return LocalExecutor(1, loop.play, loop.pool_maker(reuse, max_process_matches))
                setup = worker_setup(config, out_dir, reuse, max_process_matches, loop.entry_seeds, n)
                return ProcessExecutor(n, setup)

            executor = (cluster.executor(out_dir, jobs, reuse, max_process_matches) if cluster is not None
                        else local)
            return _run_locked(loop, executor)


def _run_locked(loop: _LeagueLoop, make_executor: Callable[[], MatchExecutor]) -> LeagueRun:
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
            _write_standings(config, out_dir, loop.results, complete=False)
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
    standings = _write_standings(config, out_dir, loop.results + loop.breaker.not_tried,
                                 complete=len(loop.results) == loop.total)
    return LeagueRun(out_dir, standings, loop.results, loop.played,
                     interrupted=loop.stop.is_set() and len(loop.results) < loop.total, secret=loop.secret,
                     failed=tuple(loop.failed), not_tried=tuple(loop.breaker.not_tried), cpu=loop.cpu)


def play_scheduled(config: LeagueConfig, out_dir: Path, proc_pool: ProcessPool | None,
                   m: ScheduledMatch, bots_dir: Path | None = None) -> MatchOutcome:
    """Play match ``m`` of the league in ``out_dir`` with ``proc_pool``'s processes, its
    hand log in ``logs/`` and its bots' output in ``bots_dir`` (by default ``bots/``): the
    same on a worker thread and in a referee worker process."""
    specs, names = config.seats(m.team0, m.team1)  # as many seats as the rules' table
    mc = MatchConfig(
        rules=config.rules, seed=m.seed, match_id=m.match_id, decision_ms=config.decision_ms,
        time_bank_ms=config.time_bank_ms, max_faults=config.max_faults,
    )
    return run_match(specs, Seating(names), mc, out_dir / "logs", bot_log_dir=bots_dir or out_dir / "bots",
                     runtime=config.runtime, sandbox=config.sandbox, pool=proc_pool)


class _LeagueLoop:
    """Plays the pending matches on an executor (this machine's worker threads, or a
    cluster) and records each as it ends."""

    def __init__(self, config: LeagueConfig, out_dir: Path, secret: LeagueSecret, done: list[dict[str, Any]],
                 stop: threading.Event, on_match: Callable[[MatchOutcome, int, int], None] | None,
                 on_start: Callable[[int, list[dict[str, Any]]], None] | None = None,
                 on_cluster: Callable[[ClusterStatus], None] | None = None) -> None:
        self.matches = schedule(config, secret.seed)
        recorded = {r["match_id"] for r in done}
        pending = [m for m in self.matches if m.match_id not in recorded]
        self.config, self.out_dir, self.secret, self.pending, self.results, self.total, self.stop = (
            config, out_dir, secret, pending, list(done), len(self.matches), stop)
        self.on_match, self.on_start, self.on_cluster = on_match, on_start, on_cluster
        self.recorded = recorded
        """Match ids in results.jsonl: a match is recorded once, whatever an executor
        hands back twice (a cluster that retried it)."""
        self.played = 0
        self.write_error = ""
        self.cluster_fault = ""
        self.fault_fix = ""
        self.cpu: CpuUse | None = None
        self.failed: list[tuple[str, str]] = []
        self.breaker = StartBreaker(config)  # stops starting an entry that keeps failing to (this run only)
        # The deals each entry has left to play (pending matches): a pooled process that
        # has played all of them is of no more use (duplicate leagues), and is stopped.
        self.entry_seeds: dict[str, set[int]] = {}
        for m in pending:
            for entry in (m.team0, m.team1):
                self.entry_seeds.setdefault(entry, set()).add(m.seed)

    def _useful(self, key: PoolKey, seeds: frozenset[int]) -> bool:
        return not self.entry_seeds.get(key[0], set()) <= seeds

    def play(self, proc_pool: ProcessPool | None, m: ScheduledMatch) -> MatchOutcome:
        """Play match ``m`` (on a worker thread, with that thread's process pool)."""
        return play_scheduled(self.config, self.out_dir, proc_pool, m)

    def pool_maker(self, reuse_processes: bool, max_process_matches: int) -> Callable[[], ProcessPool | None]:
        """What makes each local job's process pool (None: a process per seat and match)."""

        def make_pool() -> ProcessPool | None:
            if not reuse_processes:
                return None
            return ProcessPool(self.out_dir / "bots", sandbox=self.config.sandbox, max_matches=max_process_matches,
                               useful=self._useful)

        return make_pool

    def run(self, writer: ResultsWriter, make_executor: Callable[[], MatchExecutor]) -> None:
        """Play until every match is recorded, :attr:`stop` is set, or a write fails."""
        executor = make_executor()
        try:
            to_play = list(self.pending)
            running: dict[Future[Any], ScheduledMatch] = {}
            try:
                while to_play or running:
                    while to_play and len(running) < executor.capacity() and not self.stop.is_set():
                        m = to_play.pop(0)
                        if not self.breaker.skip(m):
                            running[executor.submit(m)] = m
                    if not running and (self.stop.is_set() or not to_play):
                        break
                    # Nothing running and no room: a cluster without nodes; wait for one.
                    finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        m = running.pop(fut)
                        if not fut.cancelled():  # a cancelled match never started: --resume plays it
                            self._finished(m, fut, writer, executor)
                    self._drop_given_up(running)
                    if self.stop.is_set() and isinstance(executor, ProcessExecutor):
                        for fut in running:
                            fut.cancel()  # those it holds queued for its workers: a stop starts no new match
                    if self.on_cluster is not None and (status := executor.status()) is not None:
                        self.on_cluster(status)
            except KeyboardInterrupt:
                self.stop.set()
                for fut in running:
                    fut.cancel()
                raise
        finally:
            executor.close()
            cpu_use = getattr(executor, "cpu_use", None)
            self.cpu = cpu_use() if cpu_use is not None else None

    def _drop_given_up(self, running: dict[Future[Any], ScheduledMatch]) -> None:
        """Matches of an entry just given up that the executor holds queued, not started
        (a referee worker process keeps two per worker): cancelled, and not tried as the
        breaker's others, rather than each started and costing the bot's start timeout."""
        if not self.breaker.given_up:
            return
        for fut, m in list(running.items()):
            if (m.team0 in self.breaker.given_up or m.team1 in self.breaker.given_up) and fut.cancel():
                del running[fut]
                self.breaker.skip(m)

    def _finished(self, m: ScheduledMatch, fut: Future[Any], writer: ResultsWriter, executor: MatchExecutor) -> None:
        """Record a match that ended (or log why it did not)."""
        try:
            outcome = executor.outcome(m, fut)
        except ClusterFault as exc:
            self.stop.set()
            self.cluster_fault, self.fault_fix = str(exc), exc.fix
            log.error("league.cluster_fault", match_id=m.match_id, error=str(exc))
            return
        except OSError as exc:
            # A full disk or a failing device: every later match would fail too.
            self.stop.set()
            self.write_error = f"writing the log of {m.match_id} failed: {exc.strerror or exc}"
            log.error("league.write_failed", match_id=m.match_id, error=str(exc))
            return
        except Exception as exc:  # the runner must survive anything a match does
            # The other matches go on; the run then says which failed (LeagueRun.failed).
            self.failed.append((m.match_id, repr(exc)))
            log.error("league.match_failed", match_id=m.match_id, error=repr(exc))
            return
        if m.match_id in self.recorded:
            log.warning("league.duplicate_outcome", match_id=m.match_id)
            return
        rec = {"team0": m.team0, "team1": m.team1, "deal": m.deal, **outcome.to_json()}
        try:
            writer.append(rec)
        except OSError as exc:
            self.stop.set()
            self.write_error = f"writing {writer.path} failed: {exc.strerror or exc}"
            log.error("league.write_failed", path=str(writer.path), error=str(exc))
            return
        self.results.append(rec)
        self.recorded.add(m.match_id)
        self.played += 1
        self.breaker.observe(rec)
        log.info("league.match_finished", match_id=m.match_id, winner=outcome.result.winner_team,
                 reason=outcome.result.reason, hands=outcome.result.hands)
        if self.on_match is not None:
            self.on_match(outcome, len(self.results), self.total)


def _write_standings(config: LeagueConfig, out_dir: Path, results: list[dict[str, Any]], *,
                     complete: bool) -> Standings:
    """standings.json and standings.csv of ``results``; ``complete``: every scheduled
    match is saved (standings.json says so: ``complete``, false after an interruption)."""
    names = [e.name for e in config.entries]
    members = {e.name: config.members(e.name) for e in config.entries}
    # The league's own target: a game won by órdago is completed up to it (not to the
    # rules' default, which a league with target_points = 30 would overshoot).
    standings = compute_standings(names, members, results, target_points=config.rules.target_points,
                                  anchor=config.anchor, anchor_rating=config.anchor_rating)
    doc = {**standings.to_json(), "sandbox": sandbox.protections(config.sandbox), "complete": complete}
    for name, text in (("standings.json", json.dumps(doc, indent=2)), ("standings.csv", standings.to_csv())):
        tmp = out_dir / (name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, out_dir / name)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise LeagueError(f"writing {out_dir / name} failed: {exc.strerror or exc}; the results are in results.jsonl") from None
    return standings
