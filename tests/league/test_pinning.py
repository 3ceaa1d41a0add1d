"""Referee workers that do not poll (fewer than two CPUs per match, as at the default
``--jobs``) run pinned, each with its bots, to a CPU of its own
(:func:`arena.runtime.cpus.worker_cpus`): a match's chain of wake-ups then stays on one
CPU. Elsewhere the system places every process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_procs import league_file, workers_of

import arena.runtime.cpus as cpus
from arena.league.config import load_league
from arena.league.runner import run_league
from arena.runtime.cpus import process_cpus, worker_cpus


def test_which_workers_are_pinned_where(monkeypatch: pytest.MonkeyPatch) -> None:
    def machine(allowed: set[int], usable: int) -> None:
        monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: allowed)
        monkeypatch.setattr(cpus, "process_cpus", lambda: usable)

    machine({3, 5}, 2)
    assert worker_cpus(2) == [3, 5]  # the arena's own CPUs, in order
    assert worker_cpus(3) == [3, 5, 3]  # more jobs than CPUs: round robin
    assert worker_cpus(1) is None  # one job referees in the arena's process: never pinned
    machine({0, 1, 2, 3}, 4)
    assert worker_cpus(2) is None  # two CPUs per match: its referee polls on the spare one
    assert worker_cpus(3) == [0, 1, 2]
    machine({0, 1, 2, 3}, 2)  # a CPU quota of two: fewer CPUs' worth than affinity
    assert worker_cpus(2) == [0, 1]
    machine({7}, 1)
    assert worker_cpus(2) is None  # one CPU: nothing to choose


def _tree(pid: int) -> set[int]:
    """``pid`` and every process below it."""
    found, todo = {pid}, [pid]
    while todo:
        parent = todo.pop()
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
                except OSError:
                    continue
                if ppid == parent and int(entry) not in found:
                    found.add(int(entry))
                    todo.append(int(entry))
    return found


def test_a_league_runs_each_worker_and_its_bots_on_its_cpu(tmp_path: Path) -> None:
    jobs = max(2, process_cpus())  # one match per CPU: the referees do not poll
    expected = worker_cpus(jobs)
    seen: dict[int, set[frozenset[int]]] = {}

    def look(*_: object) -> None:
        for worker in workers_of(os.getpid()):
            for pid in _tree(worker):
                try:
                    seen.setdefault(worker, set()).add(frozenset(os.sched_getaffinity(pid)))
                except OSError:  # gone meanwhile
                    continue

    config = load_league(league_file(tmp_path, matches=2 * jobs, duplicate=False))
    run = run_league(config, tmp_path / "out", jobs=jobs, on_match=look)
    assert run.played_now == 2 * jobs and not run.failed
    assert seen, "no worker was seen"
    if expected is None:  # a machine of one CPU: placed by the system
        mine = frozenset(os.sched_getaffinity(0))
        assert all(found == {mine} for found in seen.values()), seen
    else:
        assert all(len(found) == 1 and len(next(iter(found))) == 1 for found in seen.values()), seen
        assert {next(iter(found)) for found in seen.values()} <= {frozenset({c}) for c in expected}
        assert len(seen) == 1 or len({next(iter(found)) for found in seen.values()}) > 1, seen
