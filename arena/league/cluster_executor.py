"""The driver's side of a Ray league's matches (:mod:`arena.league.cluster`): each match
sent as one Ray task with only what it needs, its result (the hand log's bytes, the
outcome, the bots' output) written into the league's own folder, and the cluster's faults
told apart from the bots'.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from arena.driver.match import MatchConfig
from arena.league import bundle
from arena.league.cluster_worker import MatchTask, WorkerResult, WorkerUnfit, play_match_task
from arena.league.executor import ClusterFault, ClusterStatus
from arena.league.schedule import ScheduledMatch
from arena.remote.manifest import BotManifest, Limits
from arena.runner.match import MatchOutcome, Seating

if TYPE_CHECKING:
    from arena.league.cluster import RayCluster

log = structlog.get_logger()

STATUS_PERIOD_S = 1.0
"""How often the driver asks Ray for its nodes (progress display, matches in flight)."""


class RayExecutor:
    """Plays each match as a Ray task; lands the hand log and the bot logs in the
    driver's folder when the match comes back."""

    def __init__(self, cluster: RayCluster, out_dir: Path, jobs: int | None, reuse: bool,
                 max_process_matches: int, bots_dir: Path | None = None) -> None:
        self.cluster, self.out_dir, self.jobs = cluster, out_dir, jobs
        self.bots_dir = bots_dir or out_dir / "bots"
        """Where the bots' output lands (a ladder's is ``botlogs/``)."""
        self.reuse, self.max_process_matches = reuse, max_process_matches
        settings = cluster.settings
        options: dict[str, Any] = {"num_cpus": cluster.cpus_per_match, "max_retries": settings.max_retries,
                                   "retry_exceptions": False}
        self.remote = cluster.ray.remote(play_match_task).options(**options)
        self.running: dict[Future[Any], Any] = {}
        self._status: ClusterStatus | None = None
        self._status_at = -math.inf
        self._nodes_seen: set[str] = set()

    def _refresh(self) -> ClusterStatus:
        now = time.monotonic()
        if self._status is None or now - self._status_at >= STATUS_PERIOD_S:
            nodes = self.cluster.nodes()
            ids = {n["NodeID"] for n in nodes}
            for lost in sorted(self._nodes_seen - ids):
                log.warning("cluster.node_lost", node=lost[:8],
                            detail="its matches are played again on other nodes (max_retries)")
            self._nodes_seen = ids
            self._status = ClusterStatus(len(nodes), sum(n["Resources"]["CPU"] for n in nodes), len(self.running),
                                         self.cluster.capacity(nodes))
            self._status_at = now
        return dataclasses.replace(self._status, running=len(self.running))

    def capacity(self) -> int:
        """As many matches as the nodes hold, plus one waiting per node (at least one, so
        that an autoscaler sees a demand), capped by ``--jobs``.

        The waiting match starts the moment a slot frees, on the worker process that
        played the last one (Ray keeps a worker leased while tasks of the same shape
        wait): no round trip to the driver between matches, and the same process pool.
        """
        status = self._refresh()
        room = max(1, status.capacity + status.nodes)
        return min(room, self.jobs) if self.jobs else room

    def submit(self, m: ScheduledMatch) -> Future[Any]:
        """Start the task of ``m`` (only its own seed goes with it)."""
        config = self.cluster.config
        specs, names = config.seats(m.team0, m.team1)
        keys: list[tuple[object, ...]] = []
        digests: list[str] = []
        seat_bots: list[int] = []
        bundles: list[tuple[str, str]] = []
        terms: list[tuple[Limits, tuple[str, ...]]] = []
        for spec in specs:
            b = self._bundle(spec)
            assert isinstance(spec, BotManifest)  # a cluster league ships bot folders only
            key = (b.digest, spec.limits, spec.inherit_env)
            if key not in keys:
                keys.append(key)
                digests.append(b.digest)
                bundles.append((b.digest, b.manifest))
                terms.append((spec.limits, spec.inherit_env))
            seat_bots.append(keys.index(key))
        match = MatchConfig(rules=config.rules, seed=m.seed, match_id=m.match_id, decision_ms=config.decision_ms,
                            time_bank_ms=config.time_bank_ms, max_faults=config.max_faults)
        task = MatchTask(match, names, tuple(bundles), tuple(seat_bots), tuple(terms), config.runtime, config.sandbox,
                         self.reuse, self.max_process_matches)
        ref = self.remote.remote(task, [self.cluster.refs[d] for d in digests])
        fut: Future[Any] = ref.future()
        self.running[fut] = ref
        return fut

    def _bundle(self, spec: Any) -> bundle.BotBundle:
        for entry in self.cluster.config.entries:
            if entry.spec is spec:
                return self.cluster.bundles[entry.name]
        raise KeyError(getattr(spec, "name", spec))

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        """Write the match's hand log (whole, fsync'd) and its bots' logs in the
        driver's folder; the outcome, as a local match's.

        Raises:
            ClusterFault: the node could not play it, or Ray lost it more often than it
                retries.
            OSError: writing here failed.
        """
        self.running.pop(fut, None)
        ray = self.cluster.ray
        try:
            res: WorkerResult = fut.result()
        except Exception as exc:
            cause = getattr(exc, "cause", None) or exc
            if isinstance(cause, WorkerUnfit):
                raise ClusterFault(str(cause)) from None
            if isinstance(exc, ray.exceptions.RayTaskError):
                if isinstance(cause, OSError):
                    raise ClusterFault(f"match {m.match_id}: its worker could not write its files: {cause}") from None
                raise RuntimeError(f"match {m.match_id} failed on its worker: {cause!r}") from None
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ClusterFault(
                f"match {m.match_id} was lost by the cluster {self.cluster.settings.max_retries + 1} times "
                f"({type(exc).__name__}: {first})") from None
        bots = self.bots_dir
        log_path = self.out_dir / "logs" / f"{m.match_id}.jsonl"
        swap = _PathSwap(res.bots_dir, str(bots))
        tmp = log_path.with_name(f".{log_path.name}.tmp")
        with open(tmp, "wb") as f:
            f.write(swap.json_bytes(res.log))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, log_path)
        for name, data in res.bot_logs.items():
            with open(bots / name, "ab") as f:
                f.write(data)
        result = dataclasses.replace(res.result, detail=swap.text(res.result.detail))
        log.debug("cluster.match_landed", match_id=m.match_id, node=res.node, play_s=round(res.play_s, 3),
                  task_s=round(res.task_s, 3))
        return MatchOutcome(res.match_id, Seating(res.seating), result, log_path, swap.text(res.start_error),
                            res.start_failed, tuple(bots / n if n else None for n in res.stderr_names))

    def status(self) -> ClusterStatus:
        """The nodes alive, their CPUs, the matches in flight."""
        return self._refresh()

    def close(self) -> None:
        """Cancel what still runs (the league was interrupted): its worker processes are
        killed, and their bots with them (parent-death signal)."""
        for ref in self.running.values():
            with contextlib.suppress(Exception):
                self.cluster.ray.cancel(ref, force=True)
        self.running.clear()


@dataclass(frozen=True)
class _PathSwap:
    """Replaces the worker's bot-log folder by the driver's in what a match wrote (the
    start errors name a bot's stderr log)."""

    old: str
    new: str

    def text(self, value: str) -> str:
        return value.replace(self.old, self.new) if value else value

    def json_bytes(self, data: bytes) -> bytes:
        old, new = json.dumps(self.old)[1:-1].encode(), json.dumps(self.new)[1:-1].encode()
        return data.replace(old, new)
