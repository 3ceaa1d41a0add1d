"""What a league on Ray costs per match against the same league on this machine's job
threads, and how it scales from one worker node to two (issue 20).

The same league (random against rulebot, ``--games`` games to 40, one seed) is played by each
executor. The time per match is the steady pace: from the first match recorded to the
last, over the matches between (``per_match_s``); what a run pays once before its first
match is recorded (Ray's connection and job, starting its worker processes, shipping
the code and the bots, the first bot processes, the first match) is reported apart as
``fixed_s``, the wall time less ``per_match_s`` times the matches:

* ``local-1``, ``local-2``: ``--jobs 1`` and ``--jobs 2`` (each job keeps its bot processes);
* ``ray-1node``: a local Ray cluster (``ray.cluster_utils.Cluster``: a head that plays
  nothing, one worker node declaring 1 CPU; a match reserves 1 CPU: 4 bots at 0.25 and
  the referee at 0), so one match at a time, as ``--jobs 1``;
* ``ray-2nodes``: a second worker node of 1 CPU joined: two matches at a time, as ``--jobs 2``.

Each Ray league connects afresh (a new Ray job, new worker processes), as ``mus league
--ray`` does. Runs alternate and repeat (``--repeat``); medians are reported. Loopback
only, no dashboard, no usage reports.

On a shared machine the time a match plays varies from run to run by more than what Ray
adds, so each Ray run also reports what Ray adds in that run alone (``ray_gap_s``): on
one node, whose matches run one after the other, the steady time per match less the mean
time its task took on the worker (``cluster.match_landed``'s ``task_s``: unpacking,
checking, playing, reading the log back); what remains is Ray's, between two matches
(the result's trip to the driver, the next task's start, their serialisation).
``ray_gap_over_local_1`` is that gap over the local time per match.

    python bench/cluster.py [--matches 40] [--repeat 3] [--games 1]

Prints the machine, a line per run and per configuration, then one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import structlog  # noqa: E402
from _machine import machine  # noqa: E402

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # every node at 127.0.0.1

LEAGUE = """
name = "bench-cluster"
seed = 20
matches_per_pairing = {matches}
[rules]
games_to_win = {games}
[time]
decision_ms = 5000
time_bank_ms = 600000
[[entry]]
name = "random"
bot = "{root}/bots/random"
[[entry]]
name = "rulebot"
bot = "{root}/bots/rulebot"
"""


def league(tmp: Path, matches: int, games: int) -> Any:
    from arena.league.config import load_league

    path = tmp / f"league-{matches}.toml"
    path.write_text(LEAGUE.format(matches=matches, games=games, root=ROOT), encoding="utf-8")
    return load_league(path)


TASKS: list[float] = []
"""The worker's ``task_s`` of each match landed (``cluster.match_landed``) in this run."""


def _logged(logger: Any, method: str, event: dict[str, Any]) -> Any:
    """Keeps the tasks' times; prints warnings and errors; drops the rest."""
    if event.get("event") == "cluster.match_landed":
        TASKS.append(float(event["task_s"]))
    if method in ("warning", "error", "critical"):
        print(f"{method}: {event}", file=sys.stderr)
    raise structlog.DropEvent


def timed(config: Any, out: Path, jobs: int | None) -> tuple[float, float, int, float | None]:
    """Wall time, steady time per match (first to last recorded), hands, and the mean task
    time on the worker of the matches between (None: a local run) of one run."""
    from arena.league.runner import run_league

    marks: list[float] = []
    TASKS.clear()
    t0 = time.perf_counter()
    run = run_league(config, out, jobs=jobs, on_match=lambda *_: marks.append(time.perf_counter()))
    wall = time.perf_counter() - t0
    assert len(run.results) == config.matches_per_pairing == len(marks), run.results
    task = statistics.mean(TASKS[1:]) if len(TASKS) > 1 else None
    return wall, (marks[-1] - marks[0]) / (len(marks) - 1), sum(r["hands"] for r in run.results), task


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=40, help="matches of the league")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration (medians reported)")
    ap.add_argument("--games", type=int, default=1, help="games to win a match (longer matches: less overhead)")
    args = ap.parse_args()
    print("machine:", json.dumps(machine()), flush=True)
    sys.path.insert(0, str(ROOT))
    import logging

    from ray.cluster_utils import Cluster

    from arena.league.config import ClusterConfig

    structlog.configure(processors=[_logged], wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    runs: dict[str, list[tuple[float, float]]] = {}
    gaps: list[float] = []
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False,
                                                            "node_ip_address": "127.0.0.1"})
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            ray_settings = ClusterConfig(address=cluster.address, cpus_per_bot=0.25, cpus_per_referee=0.0)
            n = 0
            for phase in ("1node", "2nodes"):
                cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
                cluster.wait_for_nodes()
                jobs = 1 if phase == "1node" else 2
                for _ in range(args.repeat):
                    for name, config, j in ((f"local-{jobs}", league(tmp, args.matches, args.games), jobs),
                                            (f"ray-{phase}", replace(league(tmp, args.matches, args.games), cluster=ray_settings),
                                             None)):
                        n += 1
                        wall, per_match, h, task = timed(config, tmp / f"out-{n}", j)
                        runs.setdefault(name, []).append((wall, per_match))
                        gap = ""
                        if name == "ray-1node" and task is not None:
                            gaps.append(per_match - task)
                            gap = f" (the task on its worker {task:.3f} s, Ray's gap {per_match - task:.4f} s)"
                        print(f"  {name:11} {args.matches} matches, {h:4} hands: {wall:6.2f} s, "
                              f"{per_match:.3f} s per match{gap}", flush=True)
    finally:
        cluster.shutdown()
    summary: dict[str, Any] = {}
    for name, found in runs.items():
        per_match = statistics.median(p for _, p in found)
        fixed = statistics.median(w - p * args.matches for w, p in found)
        summary[name] = {"per_match_s": round(per_match, 4), "fixed_s": round(fixed, 2),
                         "matches_per_hour": round(3600 / per_match),
                         "runs": [{"wall_s": round(w, 2), "per_match_s": round(p, 4)} for w, p in found]}
        print(f"{name:11} {per_match:6.3f} s per match ({3600 / per_match:6.0f} matches/hour), "
              f"{fixed:5.2f} s once per league", flush=True)

    def ratio(a: str, b: str) -> float:
        return round(float(summary[a]["per_match_s"]) / float(summary[b]["per_match_s"]), 3)

    out = {
        "bench": "cluster", "machine": machine(), "matches": args.matches, "repeat": args.repeat, "games_to_win": args.games,
        "configurations": summary,
        "ray_over_local_1": ratio("ray-1node", "local-1"),
        "ray_over_local_2": ratio("ray-2nodes", "local-2"),
        "ray_gap_s": round(statistics.median(gaps), 4),
        "ray_gap_over_local_1": round(statistics.median(gaps) / float(summary["local-1"]["per_match_s"]), 3),
        "ray_2nodes_speedup": ratio("ray-1node", "ray-2nodes"),
        "local_2jobs_speedup": ratio("local-1", "local-2"),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
