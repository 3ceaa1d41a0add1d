"""A league's matches played on a Ray cluster (``mus league --ray``; docs/cluster.md).

The driver (``mus league``) keeps everything it keeps locally: the league's secret, the
results key, ``results.jsonl``, the standings and ``--resume``. Each match is one Ray
task (:func:`~arena.league.cluster_worker.play_match_task`) that gets only what its match needs: its own seed (in its
:class:`~arena.driver.match.MatchConfig`), the rules, the seats' entries and the packed
folders of its bots (:mod:`arena.league.bundle`). The task plays the match on its worker
with :func:`~arena.runner.match.run_match`, exactly as a local job does, in a private
folder of the worker process, and returns the hand log's bytes, the outcome and what the
bots wrote to stdout and stderr; the driver writes them into its own folder and records
the match (:class:`~arena.league.cluster_executor.RayExecutor`). A worker never writes into the driver's folder.

Faults of the cluster are not the bots': a task whose node (or worker process) dies is
played again from its start elsewhere by Ray (``max_retries``), and the driver records a
match once, by its id; a node that cannot run a bot (a missing program or library, no
sandbox) stops the league with what it lacks (:class:`~arena.league.executor.ClusterFault`),
never forfeiting the bot's matches.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import structlog

from arena.league import bundle
from arena.league.cluster_executor import RayExecutor
from arena.league.config import ClusterConfig, LeagueConfig
from arena.league.executor import MatchExecutor
from arena.league.results_file import LeagueError
from arena.remote.manifest import BotManifest

log = structlog.get_logger()

RAY_MISSING = "--ray needs Ray, an optional dependency: pip install 'mus-arena[ray]'"


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
