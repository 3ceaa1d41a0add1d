"""``mus ladder run``: batches of matches chosen by matchmaking, each result saved as it ends.

A batch: the standings of the active versions (the league's rating model), the pairs
matchmaking chooses from them (:mod:`arena.ladder.matchmaking`), those matches
**planned** in the database (ids, teams and seeds) before any is played, then played as
a league's (:mod:`arena.ladder.executors`: ``jobs`` referee worker processes, or a Ray
cluster, under the ladder's sandbox), each result saved in its own transaction as it
ends, and at the end the ratings of every active version saved as the batch's snapshot.

The same secret gives the same matches, seeds and results whatever ``jobs``: a batch's
size depends on the field, not on ``jobs``, and the ratings are computed from the
results in match order, not in the order they ended.

A run killed at any moment loses the matches in flight only: the next run plays every
planned match not yet saved first, with its seed (the same deals; its hand log is
written again), and a saved match is never saved twice. One run at a time holds the
ladder's lock (a ``flock`` on its folder); ``mus ladder add`` and ``retire`` may be used
while it runs: each batch reads the active versions anew.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from arena.ladder.executors import BOT_LOGS, LadderExecutors, ray_cluster
from arena.ladder.folder import Ladder, open_ladder, tree_digest
from arena.ladder.matchmaking import estimates, meetings, narrow_enough, plan_pairs
from arena.ladder.settings import for_match, granted
from arena.ladder.store import LadderError, Version
from arena.league.executor import ClusterFault, MatchExecutor
from arena.league.folder import folder_lock
from arena.league.loop import play_scheduled
from arena.league.schedule import ScheduledMatch, derive_seed
from arena.league.standings import Standings, compute_standings
from arena.remote import sandbox
from arena.remote.manifest import BotSpec, ManifestError, load_spec
from arena.runner.match import MatchOutcome
from arena.runner.pool import ProcessPool
from arena.runtime.cpus import league_jobs

log = structlog.get_logger()


@dataclass(frozen=True)
class Limits:
    """When a run stops (the first reached; none given: when the intervals are narrow)."""

    matches: int | None = None
    """Matches to play in this run (rounded up to whole units)."""
    until: float | None = None
    """A time (``time.time()``) after which no match is started."""
    narrow: float | None = None
    """Stop once every active version's 95% interval is at most this wide (Elo)."""


DEFAULT_NARROW = 200.0
"""The interval width a run without limits stops at."""

MIN_BATCH_UNITS = 4
"""The fewest units a batch plans."""


def batch_units(active: int) -> int:
    """Units a batch plans for ``active`` versions: at least :data:`MIN_BATCH_UNITS`, and
    half the field, so that the standings computed after each batch (which cost about the
    cube of the field) stay a small part of a large field's batch. Not ``jobs``: the same
    ladder must play the same matches whatever ``--jobs`` (a ``--jobs`` above twice this
    leaves workers idle at the end of each batch)."""
    return max(MIN_BATCH_UNITS, -(-active // 2))


@dataclass
class LadderRun:
    """What a run did."""

    played: int = 0
    batches: int = 0
    stopped: str = ""
    """Why it stopped: matches, time, narrow, interrupted, entries (fewer than two active),
    failed (no match of a batch could be played)."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    """Matches the arena could not play (its defect, not a bot's): left planned, played next run."""


def ladder_lock(path: Path) -> contextlib.AbstractContextManager[None]:
    """The ladder's run lock (:func:`arena.league.runner.folder_lock`, as a league's).

    Raises:
        LadderError: another run holds it, or the folder cannot be opened.
    """
    return folder_lock(path, LadderError, "another mus ladder run is running on this ladder (it holds its lock); "
                                          "wait until it ends")


def standings_of(ladder: Ladder, names: list[str], results: list[dict[str, Any]]) -> Standings:
    """The league's standings of ``names``, from the results between two of them."""
    field_ = set(names)
    among = [r for r in results if r["team0"] in field_ and r["team1"] in field_]
    return compute_standings(names, {}, among, target_points=ladder.config.rules.target_points)


def check_snapshots(ladder: Ladder, versions: list[Version]) -> None:
    """Every active version's folder as it was added (its digest).

    Raises:
        LadderError: a snapshot was changed, naming it.
    """
    for v in versions:
        if tree_digest(ladder.path / v.snapshot) != v.digest:
            raise LadderError(f"{ladder.path / v.snapshot}: changed since {v.id} was added (its digest differs): "
                              "a rated version must not change; add the new code as a new version "
                              f"(mus ladder add), and retire {v.entry} or restore the folder")


def run_ladder(path: Path, limits: Limits, *, jobs: int | None = None, stop: threading.Event | None = None,
               on_match: Callable[[dict[str, Any], int], None] | None = None, ray: str | None = None) -> LadderRun:
    """Run the ladder in ``path`` until ``limits`` (or ``stop``): see the module.

    ``jobs``: matches at once (default: the settings' ``jobs``, else one per CPU, as a
    league's: :func:`arena.runtime.cpus.league_jobs`); with ``ray`` (a cluster's address,
    as ``mus league --ray``) the matches are Ray tasks and ``jobs`` caps those in flight
    (default: as many as the cluster holds). ``on_match(record, seq)`` after each saved
    match (in this thread).

    Raises:
        LadderError: not a ladder, another run holds it, a tampered row or snapshot,
            or the database cannot be written.
        SandboxUnavailable: the machine cannot give the ladder's sandbox.
    """
    with ladder_lock(path):
        ladder = open_ladder(path)
        try:
            sandbox.require(ladder.config.sandbox)
            _, bad = ladder.results()
            if bad:
                raise LadderError(f"{path}: {len(bad)} match row(s) fail their check (first: {bad[0].match_id}: "
                                  f"{bad[0].problem}); see mus ladder verify. Nothing was played")
            active = ladder.store.active()
            check_snapshots(ladder, active)
            if ray is None:
                return _Loop(ladder, limits, league_jobs(jobs or ladder.config.jobs), stop, on_match).run()
            loop = _Loop(ladder, limits, jobs or 0, stop, on_match)
            loop.load_specs(active)
            with ray_cluster(ladder, ray, loop.specs) as cluster:
                loop.executors.cluster = cluster
                return loop.run()
        finally:
            ladder.close()


class _Loop:
    """Plans, plays and records batches until a limit."""

    def __init__(self, ladder: Ladder, limits: Limits, jobs: int, stop: threading.Event | None,
                 on_match: Callable[[dict[str, Any], int], None] | None) -> None:
        """``jobs``: matches at once (0: as many as a cluster holds)."""
        self.ladder, self.limits, self.on_match = ladder, limits, on_match
        self.executors = LadderExecutors(ladder, jobs, self.play)
        self.stop = stop or threading.Event()
        self.out = LadderRun()
        self.specs: dict[str, BotSpec] = {}
        self.per_unit = 2 if ladder.config.duplicate else 1
        self._last: tuple[tuple[tuple[str, ...], int], Standings] | None = None
        if limits.matches is None and limits.until is None and limits.narrow is None:
            self.limits = Limits(narrow=DEFAULT_NARROW)

    def load_specs(self, versions: list[Version]) -> None:
        """The bots of ``versions`` (read here, on the thread that owns the database)."""
        for v in versions:
            if v.id not in self.specs:
                try:
                    self.specs[v.id] = granted(self.ladder.config, load_spec(self.ladder.path / v.snapshot))
                except ManifestError as exc:  # GrantError too: a version added before grants were checked
                    raise LadderError(f"{v.id}: its snapshot's manifest cannot be read: {exc}") from None

    def play(self, pool: ProcessPool | None, m: ScheduledMatch) -> MatchOutcome:
        """Play one match on a thread of this process (``jobs`` 1), with its process pool:
        as a referee worker process does (:func:`arena.league.loop.play_scheduled`)."""
        config = for_match(self.ladder.config, {m.team0: self.specs[m.team0], m.team1: self.specs[m.team1]})
        return play_scheduled(config, self.ladder.path, pool, m, self.ladder.path / BOT_LOGS)

    def run(self) -> LadderRun:
        """Batches until a limit is reached; the run's summary."""
        try:
            while not self.out.stopped:
                batch = self._next_batch()
                if batch is None:
                    break
                before = (self.out.played, len(self.out.failed))
                # Every version loaded (a superset of the batch's): the workers need not change next batch.
                self._play_batch(batch, self.executors.for_batch(dict(self.specs), len(batch)))
                if self.out.played == before[0] and len(self.out.failed) > before[1]:
                    self.out.stopped = "failed"  # a batch of defects: trying more would repeat them
                self._snapshot()
        except KeyboardInterrupt:
            self.stop.set()
            raise
        finally:
            self.executors.close()
        return self.out

    def _reason_to_stop(self, field_: dict[str, Any] | None) -> str:
        lim = self.limits
        if self.stop.is_set():
            return "interrupted"
        if lim.matches is not None and self.out.played >= lim.matches:
            return "matches"
        if lim.until is not None and time.time() >= lim.until:
            return "time"
        if lim.narrow is not None and field_ is not None and narrow_enough(field_, lim.narrow):
            return "narrow"
        return ""

    def _next_batch(self) -> list[ScheduledMatch] | None:
        """The planned matches left by an earlier run, else a new batch; None: stop."""
        store = self.ladder.store
        versions = store.active()
        self.load_specs(versions)
        active = {v.id for v in versions}
        failed = {match_id for match_id, _ in self.out.failed}
        pending = [p for p in store.pending() if p["match_id"] not in failed]  # failed ones: the next run
        gone = [p["match_id"] for p in pending if p["team0"] not in active or p["team1"] not in active]
        if gone:
            store.cancel(gone)
        left = [p for p in pending if p["match_id"] not in gone]
        if left and not self._reason_to_stop(None):
            log.info("ladder.resume_planned", matches=len(left))
            return [ScheduledMatch(p["match_id"], p["team0"], p["team1"], p["seed"], p["deal"]) for p in left]
        if len(active) < 2:
            self.out.stopped = self._reason_to_stop(None) or "entries"
            return None
        results = self._results()
        names = sorted(active)
        field_ = estimates(self._standings(names, results), names)
        self.out.stopped = self._reason_to_stop(field_)
        if self.out.stopped:
            return None
        units = batch_units(len(active))
        if self.limits.matches is not None:
            units = min(units, -(-(self.limits.matches - self.out.played) // self.per_unit))
        among = [r for r in results if r["team0"] in active and r["team1"] in active]
        return self._plan(plan_pairs(field_, units, self.per_unit, meetings(among)), results)

    def _plan(self, pairs: list[tuple[str, str]], results: list[dict[str, Any]]) -> list[ScheduledMatch]:
        """Ids, seats and seeds for ``pairs``, recorded as planned."""
        unit, batch = self.ladder.store.counters()
        batch += 1
        met: dict[frozenset[str], int] = {}
        for r in results:
            key = frozenset((r["team0"], r["team1"]))
            met[key] = met.get(key, 0) + 1
        planned: list[list[dict[str, Any]]] = []
        for a, b in pairs:
            unit += 1
            seed = derive_seed(self.ladder.secret.seed, "ladder-unit", unit)
            key = frozenset((a, b))
            first = (a, b) if met.get(key, 0) % 2 == 0 else (b, a)  # seats alternate between meetings
            met[key] = met.get(key, 0) + 1
            seatings = [first, first[::-1]] if self.per_unit == 2 else [first]
            planned.append([{"match_id": f"u{unit:07d}" + ("ab"[k] if self.per_unit == 2 else ""), "unit": unit,
                             "team0": t0, "team1": t1, "seed": seed, "deal": unit}
                            for k, (t0, t1) in enumerate(seatings)])
        self.ladder.store.plan(batch, planned)
        return [ScheduledMatch(m["match_id"], m["team0"], m["team1"], m["seed"], m["deal"])
                for unit_ in planned for m in unit_]

    def _play_batch(self, batch: list[ScheduledMatch], executor: MatchExecutor) -> None:
        to_play = list(batch)
        running: dict[Future[Any], ScheduledMatch] = {}
        try:
            while to_play or running:
                while to_play and len(running) < executor.capacity() and not self._must_stop():
                    m = to_play.pop(0)
                    running[executor.submit(m)] = m
                if not running:
                    if self._must_stop() or not to_play:
                        break
                    time.sleep(0.5)  # no room and nothing running: a cluster without nodes yet; wait for one
                    continue
                finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in finished:
                    m = running.pop(fut)
                    if not fut.cancelled():  # a cancelled match never started: it stays planned
                        self._finished(m, fut, executor)
                if self._must_stop():
                    for fut in running:
                        fut.cancel()  # those an executor holds queued: a stop starts no new match
        except KeyboardInterrupt:
            for fut in running:
                fut.cancel()
            raise

    def _must_stop(self) -> bool:
        return self.stop.is_set() or (self.limits.until is not None and time.time() >= self.limits.until)

    def _finished(self, m: ScheduledMatch, fut: Future[Any], executor: MatchExecutor) -> None:
        try:
            outcome = executor.outcome(m, fut)
        except ClusterFault as exc:  # the cluster's or the referee workers' fault, not the bots'
            self.stop.set()
            raise LadderError(f"{exc}. The matches saved before are kept; {exc.fix} and run again (the matches "
                              "planned are played first)") from None
        except OSError as exc:
            self.stop.set()
            raise LadderError(f"writing the log of {m.match_id} failed: {exc.strerror or exc}; the matches saved "
                              "before are kept; fix it and run again") from None
        except Exception as exc:  # the ladder must survive anything a match does
            self.out.failed.append((m.match_id, repr(exc)))
            log.error("ladder.match_failed", match_id=m.match_id, error=repr(exc))
            return
        rec = {"team0": m.team0, "team1": m.team1, "deal": m.deal, **outcome.to_json(),
               "log": f"logs/{m.match_id}.jsonl"}
        try:
            seq = self.ladder.store.record_match(rec, self.ladder.secret.results_key, self.ladder.identity)
        except sqlite3.Error as exc:
            self.stop.set()
            raise LadderError(f"saving {m.match_id} in the database failed: {exc}; the matches saved before are "
                              "kept; fix it and run again (the match is played again)") from None
        if seq:
            self.out.played += 1
            log.info("ladder.match_saved", match_id=m.match_id, winner=outcome.result.winner_team, seq=seq)
            if self.on_match is not None:
                self.on_match(rec, seq)

    def _results(self) -> list[dict[str, Any]]:
        """The saved results in match order (the ids follow the plan), not in the order
        they ended: the ratings, and so the next pairings, do not depend on which job
        finished first."""
        results, _ = self.ladder.results()
        return sorted(results, key=lambda r: str(r["match_id"]))

    def _standings(self, names: list[str], results: list[dict[str, Any]]) -> Standings:
        """The standings of ``names`` (the last ones again when neither the field nor the
        results changed: the snapshot's are the next batch's, and they cost seconds for a
        large field)."""
        key = (tuple(names), len(results))
        if self._last is None or self._last[0] != key:
            self._last = (key, standings_of(self.ladder, names, results))
        return self._last[1]

    def _snapshot(self) -> None:
        """The ratings of the active versions after this batch."""
        names = sorted(v.id for v in self.ladder.store.active())
        if not names:
            return
        results = self._results()
        st = self._standings(names, results)
        self.ladder.store.snapshot(len(results), [(e.name, e.rating, e.rating_low, e.rating_high, e.matches)
                                                  for e in st.entries])
        self.out.batches += 1
