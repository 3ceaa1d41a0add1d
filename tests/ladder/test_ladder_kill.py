"""A real ``mus ladder run --jobs 2`` (two referee worker processes) killed with SIGKILL in
the middle of a batch, then run again: its workers die with it, the matches saved before
the kill are kept as they were, the matches planned and not saved are played with their
seeds, and nothing is counted twice."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from ladder_helpers import REPO, alive, make_ladder, ok, referee_workers

from arena.records.handlog import read_log


def saved(ladder: Path) -> list[tuple[int, str, str]]:
    con = sqlite3.connect(f"file:{ladder / 'ladder.sqlite'}?mode=ro", uri=True)
    try:
        return [(int(r[0]), str(r[1]), str(r[2])) for r in con.execute("SELECT seq, match_id, record FROM matches")]
    finally:
        con.close()


def test_kill_9_mid_batch_loses_only_the_matches_in_flight(tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path)
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "arena", "ladder", "run", str(ladder), "--matches", "4",
                                 "--jobs", "2"], cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not saved(ladder):
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    workers = referee_workers(proc.pid)
    assert len(workers) == 2, workers  # --jobs 2: the matches are refereed in two worker processes
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers):  # the kernel kills them with the run (PR_SET_PDEATHSIG)
        assert time.monotonic() < deadline, [w for w in workers if alive(w)]
        time.sleep(0.05)
    before = saved(ladder)
    con = sqlite3.connect(ladder / "ladder.sqlite")
    planned = {r[0]: int(r[1], 16) for r in con.execute("SELECT match_id, seed FROM planned")}
    con.close()
    lost = set(planned) - {m for _, m, _ in before}
    assert lost, "the batch of 4 was planned whole before the kill"

    ok("ladder", "run", ladder, "--matches", "1", "--jobs", "2")  # plays what was planned first

    after = saved(ladder)
    assert after[:len(before)] == before  # the saved rows are untouched
    ids = [m for _, m, _ in after]
    assert len(ids) == len(set(ids)) and [s for s, _, _ in after] == list(range(1, len(after) + 1))
    assert lost <= set(ids)  # every match lost in flight was played again
    for match_id in lost:
        hand_log = read_log(ladder / "logs" / f"{match_id}.jsonl")
        assert hand_log.footer is not None and int(hand_log.header["seed"]) == planned[match_id]
    assert "every one checks" in ok("ladder", "verify", ladder)
    standings = json.loads(ok("ladder", "export", ladder))["standings"]
    assert sum(e["matches"] for e in standings) == 2 * len(after)  # each match counted once, for both sides
