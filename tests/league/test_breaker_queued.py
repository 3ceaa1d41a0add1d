"""The start-failure breaker meets an executor that holds matches queued (the referee
worker processes keep two per worker: issue 30): once an entry is given up, its matches
still queued, not started, are not tried either; before, every one already handed to the
executor was still started, each costing the start timeout of a bot that hangs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from arena.driver.match import MatchConfig
from arena.league.config import load_league
from arena.league.folder import league_identity
from arena.league.loop import LeagueLoop
from arena.league.results_file import ResultsWriter
from arena.league.schedule import ScheduledMatch
from arena.league.secret import LeagueSecret
from arena.runner.match import MatchOutcome, Seating, not_started_result

REPO = Path(__file__).resolve().parents[2]


class QueueingExecutor:
    """Holds up to 4 matches, as a 2-worker ProcessExecutor does, and finishes the oldest
    once per turn of the league loop (when it asks for the status, after recording what
    finished): deterministically, one at a time. Every match is one in which ``b``'s bot
    did not start."""

    def __init__(self, loop: LeagueLoop) -> None:
        self.loop = loop
        self.pending: list[tuple[ScheduledMatch, Future[Any]]] = []
        self.started: list[str] = []

    def capacity(self) -> int:
        return 4

    def status(self) -> None:
        while self.pending:
            m, fut = self.pending.pop(0)
            if fut.set_running_or_notify_cancel():  # a cancelled one is never started
                self.started.append(m.match_id)
                fut.set_result(self._failed(m))
                break

    def _failed(self, m: ScheduledMatch) -> MatchOutcome:
        cfg = self.loop.config
        _, names = cfg.seats(m.team0, m.team1)
        errors = {seat: "bot b exited with code 1" for seat, name in enumerate(names) if name == "b"}
        mc = MatchConfig(rules=cfg.rules, seed=m.seed, match_id=m.match_id)
        text = "\n".join(f"S{s}: {e}" for s, e in sorted(errors.items()))
        return MatchOutcome(m.match_id, Seating(names), not_started_result(mc, errors, text), Path("x.jsonl"),
                            text, tuple(sorted(errors)))

    def submit(self, m: ScheduledMatch) -> Future[Any]:
        fut: Future[Any] = Future()
        self.pending.append((m, fut))
        return fut

    def outcome(self, m: ScheduledMatch, fut: Future[Any]) -> MatchOutcome:
        result: MatchOutcome = fut.result()
        return result

    def close(self) -> None:
        return None


def run_broken_league(tmp_path: Path, matches_per_pairing: int,
                      make_executor: Callable[[LeagueLoop], QueueingExecutor]) -> tuple[LeagueLoop, QueueingExecutor]:
    """A league of ``a`` (bots/random) against ``b`` (a bot that does not start), run by
    the league loop on the executor ``make_executor`` builds for it."""
    (tmp_path / "l.toml").write_text(f"""
seed = 3
matches_per_pairing = {matches_per_pairing}
[rules]
target_points = 10
games_to_win = 1
[[entry]]
name = "a"
bot = "{REPO / 'bots' / 'random'}"
[[entry]]
name = "b"
bot = "{REPO / 'tests' / 'cli' / 'bots' / 'broken'}"
""")
    config = load_league(tmp_path / "l.toml")
    loop = LeagueLoop(config, tmp_path, LeagueSecret(3, True, b"k" * 32), [], threading.Event(), None,
                      on_cluster=lambda status: None)
    writer = ResultsWriter(tmp_path / "results.jsonl", b"k" * 32, league_identity(config, loop.matches))
    executor = make_executor(loop)
    try:
        loop.run(writer, lambda: executor)
    finally:
        writer.close()
    return loop, executor


def test_queued_matches_of_a_given_up_entry_are_not_started(tmp_path: Path) -> None:
    loop, executor = run_broken_league(tmp_path, 8, QueueingExecutor)
    assert len(executor.started) == 3, executor.started  # the three in a row, then no more
    assert len(loop.results) == 3 and len(loop.breaker.not_tried) == 5
