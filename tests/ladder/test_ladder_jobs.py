"""``mus ladder run --jobs N`` on referee worker processes, as a league's (issue 33): the
same ladder gives the same matches, results and hand logs at --jobs 1 (a thread of the
arena's process) and --jobs 3 (three worker processes); the workers are given the
settings without the ladder's secret; a version added while a run goes gets workers
that know it; a bad --ray address is refused before anything. (kill -9 with worker processes: test_ladder_kill.py.)"""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

import pytest
from ladder_helpers import SETTINGS, make_ladder, mus, ok

from arena.ladder import executors
from arena.ladder.folder import open_ladder
from arena.ladder.settings import granted
from arena.league.procs_worker import WorkerSetup
from arena.records.handlog import untimed
from arena.remote.manifest import load_spec

OWN = ("league", "mac", "seq")
"""What binds a record to its own ladder (its id, the MAC) and to the order it was saved
in (which job finished first)."""


def records(ladder: Path) -> dict[str, Any]:
    """Each saved match's record, by id, without timing fields nor :data:`OWN`."""
    con = sqlite3.connect(f"file:{ladder / 'ladder.sqlite'}?mode=ro", uri=True)
    try:
        found = {str(r[0]): untimed(json.loads(r[1])) for r in con.execute("SELECT match_id, record FROM matches")}
    finally:
        con.close()
    return {k: {f: v for f, v in rec.items() if f not in OWN} for k, rec in found.items()}


def hand_logs(ladder: Path) -> dict[str, list[Any]]:
    """Each hand log without timing fields, nor how each seat's process was obtained."""
    found: dict[str, list[Any]] = {}
    for path in sorted((ladder / "logs").glob("*.jsonl")):
        lines = [untimed(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
        for seat in lines[0]["seats"]:
            seat.pop("process", None)
        found[path.name] = lines
    return found


def play(root: Path, jobs: str) -> Path:
    """The same ladder (settings seed 17) at ``jobs``: 12 matches (a batch of 4 duplicate
    pairs, then one of 2; had the batch followed --jobs 3, one batch of 6)."""
    ladder = make_ladder(root)
    ok("ladder", "run", ladder, "--matches", "12", "--jobs", jobs)
    return ladder


def test_the_same_ladder_plays_the_same_whatever_jobs(tmp_path: Path) -> None:
    one, three = play(tmp_path / "one", "1"), play(tmp_path / "three", "3")
    assert len(records(one)) == 12
    assert records(one) == records(three)
    assert hand_logs(one) == hand_logs(three)
    assert json.loads(ok("ladder", "export", one))["standings"] == json.loads(ok("ladder", "export", three))["standings"]
    assert any((three / "botlogs").iterdir()) and not (three / "bots").exists()  # the workers log where threads do


class FakeProcesses:
    """Stands for :class:`ProcessExecutor`: records what its workers would be given."""

    made: ClassVar[list[tuple[int, WorkerSetup]]] = []

    def __init__(self, jobs: int, setup: WorkerSetup) -> None:
        self.made.append((jobs, setup))
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_workers_get_no_secret_and_new_versions_get_new_workers(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors, "ProcessExecutor", FakeProcesses)
    FakeProcesses.made = []
    ladder = open_ladder(make_ladder(tmp_path, SETTINGS.replace("seed = 17\n", "")))  # a drawn 128-bit secret
    try:
        specs = {v.id: granted(ladder.config, load_spec(ladder.path / v.snapshot)) for v in ladder.store.active()}
        made = executors.LadderExecutors(ladder, 4, lambda pool, m: None)  # type: ignore[arg-type,return-value]
        first = made.for_batch(specs, 8)
        assert made.for_batch(specs, 8) is first and len(FakeProcesses.made) == 1  # the same workers, batch after batch
        jobs, setup = FakeProcesses.made[0]
        assert jobs == 4 and setup.config.seed is None and setup.entry_seeds is None
        assert setup.bots_dir == ladder.path / "botlogs"
        assert {e.name for e in setup.config.entries} == set(specs)
        sent = pickle.dumps(setup)  # what goes over the worker's socket
        secret = ladder.secret
        assert secret.results_key not in sent and secret.results_key.hex().encode() not in sent
        assert not secret.given and secret.seed.bit_length() > 64
        assert str(secret.seed).encode() not in sent and f"{secret.seed:x}".encode() not in sent

        newer = {**specs, "trivial.v2": specs["trivial.v1"]}
        second = made.for_batch(newer, 8)
        assert second is not first and isinstance(first, FakeProcesses) and first.closed
        assert {e.name for e in FakeProcesses.made[1][1].config.entries} == set(newer)
        assert made.for_batch(specs, 2) is second  # fewer versions or matches: the same workers
        made.close()
        assert isinstance(second, FakeProcesses) and second.closed
    finally:
        ladder.close()


def test_a_bad_ray_address_is_refused_before_anything(tmp_path: Path) -> None:
    result = mus("ladder", "run", tmp_path, "--ray", "not an address")
    assert result.exit_code == 2 and "--ray: a Ray address is local, auto, host:port or ray://host:port" in result.output
