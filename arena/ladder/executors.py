"""Where a ladder's matches are played: as a league's (:mod:`arena.league.executor`).

* ``jobs`` 1: one worker thread of the arena's process (:class:`LocalExecutor`);
* ``jobs`` above 1: that many referee worker processes (:mod:`arena.league.procs`),
  each with its own pool of bot processes, so that N matches use N cores;
* ``--ray``: each match a Ray task on a cluster (:mod:`arena.league.cluster`).

The ladder's loop (:mod:`arena.ladder.runner`) stays in the arena's process and alone
reads the secret, plans, and writes the database; what leaves it is what a league's
executors get: the settings without any seed, each match with its own seed.

A worker process is given the versions it may play when it starts. A ladder's active
versions change while it runs (``mus ladder add``): a batch with a version the workers
were not given starts new workers (their bot processes with them); Ray's tasks carry
their bots, so a cluster is only given the new version's folder.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from arena.ladder.folder import Ladder
from arena.ladder.settings import for_match
from arena.ladder.store import LadderError
from arena.league.config import ClusterConfig
from arena.league.executor import LocalExecutor, MatchExecutor
from arena.league.procs import ProcessExecutor
from arena.league.procs_worker import worker_setup
from arena.league.results_file import LeagueError
from arena.league.schedule import ScheduledMatch
from arena.remote.manifest import BotSpec
from arena.runner.match import MatchOutcome
from arena.runner.pool import MAX_MATCHES, ProcessPool

if TYPE_CHECKING:  # Ray is an optional dependency: imported only by a run with --ray
    from arena.league.cluster import RayCluster

BOT_LOGS = "botlogs"
"""The ladder's folder for the bots' stdout and stderr."""


class LadderExecutors:
    """The executor of each batch: the same one while it can play the batch's versions."""

    def __init__(self, ladder: Ladder, jobs: int, play: Callable[[ProcessPool | None, ScheduledMatch], MatchOutcome],
                 cluster: RayCluster | None = None) -> None:
        """``play``: a match on a thread of this process; ``cluster``: an open
        :class:`arena.league.cluster.RayCluster` (:func:`ray_cluster`), or None."""
        self.ladder, self.jobs, self._play, self.cluster = ladder, jobs, play, cluster
        self._current: MatchExecutor | None = None
        self._versions: frozenset[str] = frozenset()
        self._workers = 0

    def _make_pool(self) -> ProcessPool | None:
        if self.ladder.config.fresh_processes:
            return None
        return ProcessPool(self.ladder.path / BOT_LOGS, sandbox=self.ladder.config.sandbox, max_matches=MAX_MATCHES)

    def for_batch(self, specs: dict[str, BotSpec], matches: int) -> MatchExecutor:
        """An executor that can play ``matches`` matches between the versions of ``specs``.

        Raises:
            LadderError: a version cannot be shipped to the cluster.
        """
        if self.cluster is not None:
            return self._on_cluster(specs)
        if self.jobs <= 1:  # one job referees in this process, as a league's
            if self._current is None:
                self._current = LocalExecutor(1, self._play, self._make_pool)
            return self._current
        workers = max(1, min(self.jobs, matches))  # no more worker processes than matches to play
        if self._current is None or not set(specs) <= self._versions or workers > self._workers:
            self.close()
            config = for_match(self.ladder.config, specs)
            setup = worker_setup(config, self.ladder.path, not config.fresh_processes, MAX_MATCHES, None, workers,
                                 bots_dir=self.ladder.path / BOT_LOGS)
            self._current = ProcessExecutor(workers, setup)
            self._versions, self._workers = frozenset(specs), workers
        return self._current

    def _on_cluster(self, specs: dict[str, BotSpec]) -> MatchExecutor:
        from arena.league.cluster_executor import RayExecutor

        assert self.cluster is not None
        if not set(specs) <= self._versions:
            config = for_match(self.ladder.config, specs)
            try:
                self.cluster.add_entries(replace(config, cluster=self.cluster.settings))
            except LeagueError as exc:
                raise LadderError(str(exc)) from None
            self._versions = self._versions | frozenset(specs)
        if self._current is None:
            self._current = RayExecutor(self.cluster, self.ladder.path, self.jobs if self.jobs > 0 else None,
                                        not self.ladder.config.fresh_processes, MAX_MATCHES,
                                        bots_dir=self.ladder.path / BOT_LOGS)
        return self._current

    def close(self) -> None:
        """Stop the current executor (its workers, their bots)."""
        if self._current is not None:
            current, self._current = self._current, None
            current.close()


@contextlib.contextmanager
def ray_cluster(ladder: Ladder, address: str, specs: dict[str, BotSpec]) -> Iterator[RayCluster]:
    """The ladder's connection to the Ray cluster at ``address`` (the league's:
    :func:`arena.league.cluster.open_cluster`), its active versions packed.

    Raises:
        LadderError: Ray is missing, a version cannot be shipped, or the cluster cannot
            be reached.
    """
    from arena.league.cluster import open_cluster

    config = replace(for_match(ladder.config, specs), cluster=ClusterConfig(address=address))
    try:
        with open_cluster(config) as cluster:
            yield cluster
    except LeagueError as exc:
        raise LadderError(str(exc)) from None
