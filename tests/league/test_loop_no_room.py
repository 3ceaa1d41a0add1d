"""The league loop waits, without spinning, while its executor has no room and nothing
runs (a Ray cluster whose nodes have not joined yet: ``capacity()`` 0). Before, it asked
``concurrent.futures.wait`` to wait on no futures, which returns at once: one CPU spun at
100 % for as long as the cluster stayed empty."""

from __future__ import annotations

import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from arena.league.loop import LeagueLoop
from arena.league.schedule import ScheduledMatch
from arena.runner.match import MatchOutcome
from tests.league.test_breaker_queued import QueueingExecutor, run_broken_league

EMPTY_FOR = 1.0
"""Seconds the cluster has no node."""


class LateClusterExecutor(QueueingExecutor):
    """No room for :data:`EMPTY_FOR` seconds, then room for four (a node joined); counts
    the loop's questions while there was none. Its matches are those of
    :class:`QueueingExecutor`: ``b``'s bot does not start."""

    def __init__(self, loop: LeagueLoop) -> None:
        super().__init__(loop)
        self.opened = time.monotonic() + EMPTY_FOR
        self.asked_empty = 0

    def capacity(self) -> int:
        if time.monotonic() < self.opened:
            self.asked_empty += 1
            return 0
        return 4

    def submit(self, m: ScheduledMatch) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_running_or_notify_cancel()
        self.started.append(m.match_id)
        fut.set_result(self._failed(m))
        return fut

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        result: MatchOutcome = fut.result()
        return result


def test_no_room_waits_without_spinning(tmp_path: Path) -> None:
    started = time.monotonic()
    loop, executor = run_broken_league(tmp_path, 2, LateClusterExecutor)
    assert isinstance(executor, LateClusterExecutor)
    assert time.monotonic() - started >= EMPTY_FOR
    # Waiting half a second at a time: about two questions in the empty second (one more
    # for the first look); a spinning loop asks thousands of times, even on a busy machine.
    assert 1 <= executor.asked_empty <= 6, executor.asked_empty
    assert len(executor.started) == 2 and len(loop.results) == 2  # then it played everything
