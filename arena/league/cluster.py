"""A league's matches played on a Ray cluster (``mus league --ray``; docs/cluster.md).

The driver (``mus league``) keeps everything it keeps locally: the league's secret, the
results key, ``results.jsonl``, the standings and ``--resume``. Each match is one Ray
task (:func:`~arena.league.cluster_worker.play_match_task`) that gets only what its match needs: its own seed (in its
:class:`~arena.driver.match.MatchConfig`), the rules, the seats' entries and the packed
folders of its bots (:mod:`arena.league.bundle`). The task plays the match on its worker
with :func:`~arena.runner.match.run_match`, exactly as a local job does, in a private
folder of the worker process, and returns the hand log's bytes, the outcome and what the
bots wrote to stdout and stderr; the driver writes them into its own folder and records
the match (:class:`RayExecutor`). A worker never writes into the driver's folder.

Faults of the cluster are not the bots': a task whose node (or worker process) dies is
played again from its start elsewhere by Ray (``max_retries``), and the driver records a
match once, by its id; a node that cannot run a bot (a missing program or library, no
sandbox) stops the league with what it lacks (:class:`~arena.league.executor.ClusterFault`),
never forfeiting the bot's matches.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import structlog

from arena.driver.match import MatchConfig
from arena.league import bundle
from arena.league.cluster_worker import MatchTask, WorkerResult, WorkerUnfit, play_match_task
from arena.league.config import ClusterConfig, LeagueConfig
from arena.league.executor import ClusterFault, ClusterStatus, MatchExecutor
from arena.league.results_file import LeagueError
from arena.league.schedule import ScheduledMatch
from arena.remote.manifest import BotManifest, Limits
from arena.runner.match import MatchOutcome, Seating

log = structlog.get_logger()

RAY_MISSING = "--ray needs Ray, an optional dependency: pip install 'mus-arena[ray]'"

STATUS_PERIOD_S = 1.0
"""How often the driver asks Ray for its nodes (progress display, matches in flight)."""


def import_ray() -> ModuleType:
    """The ``ray`` module.

    Raises:
        LeagueError: Ray is not installed, with the one line saying how to install it.
    """
    # Ray reports usage to its makers unless told not to; the arena sends nothing anywhere.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise LeagueError(RAY_MISSING) from None
    return ray


def ray_available() -> bool:
    """Whether Ray can be imported (``mus league --ray`` checks before anything else)."""
    try:
        import_ray()
    except LeagueError:
        return False
    return True


def _connect(ray: ModuleType, address: str, ship_code: bool) -> None:
    """Connect this process to the cluster at ``address`` (``local``: this machine's Ray
    instance, started if there is none; loopback only, no dashboard). ``ship_code``: the
    job's runtime environment ships the arena's and the SDK's code (Ray accepts local
    folders only for a whole job, not per task)."""
    # The workers' output stays in Ray's logs (what a match tells the user comes back with
    # it), and Ray's own notices below warnings stay off the league's console.
    common: dict[str, Any] = {"log_to_driver": False, "namespace": "mus-arena", "logging_level": logging.WARNING}
    runtime_env: dict[str, Any] = {}
    if ship_code:
        runtime_env["py_modules"] = _shipped_code()
    # The arena's gRPC tuning (arena/remote/grpc_tuning.py) takes effect only if set before
    # grpcio is first imported, and a Ray worker imports it before any task: so it goes
    # into the workers' environment from their start.
    env = {k: os.environ[k] for k in ("GRPC_EXPERIMENTS", "MUS_GRPC_TUNING") if k in os.environ}
    # Ray starts its workers at niceness 15 (to keep its own daemons responsive), and a
    # worker's referee and bots inherit it: on a node with any other work they lose the
    # CPU to it and play slower than a local league, or run out of time. Niceness 0,
    # as Ray gives its own job drivers, makes them the node's equals.
    env["RAY_worker_niceness"] = "0"
    runtime_env["env_vars"] = env
    common["runtime_env"] = runtime_env
    if address == "local":
        # The Ray instances running here, found by their processes: Ray's "auto" trusts the
        # address file of the last `ray start`, and waits minutes on one that has stopped.
        try:
            from ray._private.services import find_gcs_addresses

            running = sorted(find_gcs_addresses())  # type: ignore[no-untyped-call]
        except Exception:  # a private API of Ray's: if it moved, start an instance of our own
            running = []
        if len(running) > 1:
            raise ConnectionError(f"several Ray instances run on this machine ({', '.join(running)}): "
                                  "give one with --ray HOST:PORT")
        if running:
            ray.init(address=running[0], **common)
        else:
            ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1", **common)
    else:
        ray.init(address=address, **common)


def _shipped_code() -> list[str]:
    """The folders of the arena's and the SDK's packages, shipped with every task when
    ``ship_code`` (Ray's ``py_modules``): a worker runs the driver's code and its Python
    bots import the driver's SDK (``PYTHONPATH``)."""
    import mus
    import mus_core
    import mus_sdk

    import arena

    return [str(Path(m.__path__[0])) for m in (arena, mus_sdk, mus_core, mus)]


class RayCluster:
    """The driver's connection to a cluster for one league run, its bots packed and
    stored in the cluster's object store (:func:`open_cluster`)."""

    def __init__(self, ray: ModuleType, config: LeagueConfig, settings: ClusterConfig,
                 bundles: dict[str, bundle.BotBundle]) -> None:
        self.ray, self.config, self.settings = ray, config, settings
        self.bundles = bundles
        """Per bot entry, its packed folder."""
        self.refs = {b.digest: ray.put(b.data) for b in bundles.values()}
        self.cpus_per_match = settings.cpus_per_match(config.rules.players)

    def add_entries(self, config: LeagueConfig) -> None:
        """Play ``config``'s entries from now on: the bots of entries not yet packed are
        packed and stored in the cluster (a ladder's versions added while it runs).

        Raises:
            LeagueError: a bot at an address, or a folder too large to ship.
        """
        new = _pack(config, self.settings, self.bundles)
        for b in new.values():
            if b.digest not in self.refs:
                self.refs[b.digest] = self.ray.put(b.data)
        self.bundles = {**self.bundles, **new}
        self.config = config

    def nodes(self) -> list[dict[str, Any]]:
        """The nodes alive with CPUs."""
        return [n for n in self.ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]

    def capacity(self, nodes: list[dict[str, Any]]) -> int:
        """Matches ``nodes`` play at once."""
        return sum(math.floor(n["Resources"]["CPU"] / self.cpus_per_match + 1e-9) for n in nodes)

    def check(self) -> None:
        """Fit a match to a cluster whose nodes are all smaller than its reservation (a
        laptop, a 2-CPU machine): the reservation is scaled down to the largest node's
        CPUs, and the user told once; a node that will join later is waited for.

        The reservation is an upper bound on what a match uses: fast bots play in turn,
        about one CPU for a whole match (docs/performance.md); a thinking bot then gets
        less than its ``cpus_per_bot`` while it thinks.
        """
        nodes = self.nodes()
        if nodes and self.capacity(nodes) == 0:
            most = max(n["Resources"]["CPU"] for n in nodes)
            s = self.settings
            log.warning("cluster.reservation_scaled", reserved=self.cpus_per_match, largest_node=most,
                        detail=f"a match reserves {self.cpus_per_match:g} CPUs ({self.config.rules.players} bots x "
                               f"cpus_per_bot {s.cpus_per_bot:g} + cpus_per_referee {s.cpus_per_referee:g}) and the "
                               f"largest node has {most:g}: each match reserves {most:g}, one per node at a time "
                               "(larger nodes, or lower cpus_* in [cluster], to say otherwise)")
            self.cpus_per_match = most
        if not nodes:
            log.warning("cluster.no_nodes", detail="no node with CPUs yet: waiting for one to join")

    def executor(self, out_dir: Path, jobs: int | None, reuse: bool,
                 max_process_matches: int) -> Callable[[], MatchExecutor]:
        """What makes the league loop's executor (called with the folder's lock held)."""
        return lambda: RayExecutor(self, out_dir, jobs, reuse, max_process_matches)


def _pack(config: LeagueConfig, settings: ClusterConfig, packed: dict[str, bundle.BotBundle]) -> dict[str, bundle.BotBundle]:
    """The packed folder of every bot entry of ``config`` not in ``packed`` (by name).

    Raises:
        LeagueError: a bot at an address, or a folder too large to ship.
    """
    bundles: dict[str, bundle.BotBundle] = {}
    for entry in config.entries:
        if entry.spec is None or entry.name in packed:
            continue  # a pair: its members are entries of their own
        if not isinstance(entry.spec, BotManifest):
            raise LeagueError(f"entry {entry.name}: a bot at an address ({entry.spec.target}) cannot play on a "
                              "cluster, whose workers would have to reach it; give a bot folder, or run the "
                              "league without --ray")
        try:
            bundles[entry.name] = bundle.pack(entry.spec, settings.max_bot_mb * bundle.MIB, entry.name)
        except bundle.BundleError as exc:
            raise LeagueError(str(exc)) from None
    return bundles


@contextlib.contextmanager
def open_cluster(config: LeagueConfig) -> Iterator[RayCluster]:
    """Pack the league's bots and connect to its cluster (``config.cluster``), before
    anything is written; disconnect at the end (a connection the caller made before,
    ``ray.init`` in a script, is used and left open).

    Raises:
        LeagueError: Ray is missing, a bot cannot be shipped (a bot at an address, a
            folder too large), or the cluster cannot be reached.
    """
    settings = config.cluster
    assert settings is not None
    bundles = _pack(config, settings, {})
    ray = import_ray()
    ours = not ray.is_initialized()
    if not ours:
        theirs = ray.get_runtime_context().runtime_env or {}
        if settings.ship_code and "py_modules" not in theirs:
            log.warning("cluster.code_not_shipped", detail="Ray was connected before the league: its job's runtime "
                        "environment decides which arena and SDK the workers run")
        if (theirs.get("env_vars") or {}).get("RAY_worker_niceness") != "0":
            log.warning("cluster.niceness", detail="Ray was connected before the league without env_vars "
                        "RAY_worker_niceness=0 in its runtime environment: the matches' referees and bots run at "
                        "Ray's niceness 15 and lose the CPU to the node's other work (docs/cluster.md)")
    if ours:
        try:
            _connect(ray, settings.address, settings.ship_code)
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError, ...
            raise LeagueError(f"cannot reach the Ray cluster at {settings.address}: {exc}") from None
    try:
        cluster = RayCluster(ray, config, settings, bundles)
        cluster.check()
        yield cluster
    finally:
        if ours:
            ray.shutdown()


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
