"""The league loop: plays the pending matches on an executor (this machine's worker
threads or referee processes, or a cluster), records each in ``results.jsonl`` as it
ends, and writes the standings (:func:`write_standings`).

:func:`arena.league.runner.run_league` prepares the folder and runs this loop with the
folder's lock held.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any

import structlog

from arena.driver.match import MatchConfig
from arena.league.breaker import StartBreaker
from arena.league.config import LeagueConfig
from arena.league.executor import ClusterFault, ClusterStatus, CpuUse, MatchExecutor
from arena.league.order import StreamFeed, deal_streams
from arena.league.procs import ProcessExecutor
from arena.league.results_file import LeagueError, ResultsWriter
from arena.league.schedule import ScheduledMatch, schedule
from arena.league.secret import LeagueSecret
from arena.league.standings import Standings, compute_standings
from arena.remote import sandbox
from arena.runner.match import MatchOutcome, Seating, run_match
from arena.runner.pool import MAX_IDLE, PoolKey, ProcessPool

log = structlog.get_logger()


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


class LeagueLoop:
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
        # The entries a referee's pool keeps idle processes for: a match takes a team of
        # players / 2 processes per entry, and a duplicate deal's twin other ones.
        per_entry = config.rules.players // 2 * (2 if config.duplicate else 1)
        self.resident = max(2, MAX_IDLE // per_entry)

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
            # Pairings dealt whole to the referees, in an order that reuses their processes.
            # One stream where the executor cannot send a stream to one referee (a Ray
            # cluster places each task itself): the matches in flight then share few
            # pairings, and so few entries, whichever node plays them.
            local = executor if isinstance(executor, ProcessExecutor) else None
            streams = deal_streams(self.pending, local.streams() if local else 1, self.resident)
            if local is not None:
                local.follow(streams)
            to_play = StreamFeed(streams)
            running: dict[Future[Any], ScheduledMatch] = {}
            try:
                while to_play or running:
                    while to_play and len(running) < executor.capacity() and not self.stop.is_set():
                        m = to_play.take(running.values())
                        if not self.breaker.skip(m):
                            running[executor.submit(m)] = m
                    if not running and (self.stop.is_set() or not to_play):
                        break
                    if running:
                        finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                    else:
                        # Nothing running and no room (a cluster without nodes): wait for one.
                        # Not with wait(), which returns at once for no futures: a spin.
                        finished = set()
                        self.stop.wait(0.5)
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
                 reason=outcome.result.reason.value, hands=outcome.result.hands)
        if self.on_match is not None:
            self.on_match(outcome, len(self.results), self.total)


def write_standings(config: LeagueConfig, out_dir: Path, results: list[dict[str, Any]], *,
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
