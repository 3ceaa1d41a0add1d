"""How a local league's throughput grows with ``--jobs`` (issue 30), in one run.

Plays the same league (same seed, same bots) at ``--jobs 1, 2, 4, …`` up to the CPUs the
arena may use, each in a child process of its own, and prints per run the hands per
second, the ratio to ``--jobs 1`` of the same run, and the CPU seconds per hand split
into the referee's (the arena's processes: the league loop and its referee workers) and
the bots' (:attr:`arena.league.runner.LeagueRun.cpu`, from ``getrusage``). Two leagues:

* ``fast``: the league of issue 30: 240 plain matches of rulebot, random and trivial
  (80 per pairing), one game to 40; the bots answer at once, so the arena's own cost
  per decision is what limits it;
* ``think``: the search bot (bots/search, a fixed number of samples per searched
  decision) against rulebot, 20 matches: the bots' thinking is what limits it (on a
  machine so busy that a decision reaches the bot's 1000 ms cap, its play, and so the
  hands, depend on the load).

Each run's standings are compared with the ``--jobs 1`` run's (``same``): the league
promises the same whatever ``--jobs`` is.

    python bench/scaling.py [--only fast,think] [--jobs 1,2] [--repeat 3] [--matches 80] [--checkout DIR]

On a busy machine absolute figures move with the load; ratios within one run, repeated
(``--repeat``), and the CPU per hand (less sensitive to load) are what to compare. Prints
the machine, a line per run, then a JSON object per run and, last, a summary as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _machine import machine  # noqa: E402

LEAGUES = {
    "fast": ([("random", "bots/random"), ("rulebot", "bots/rulebot"), ("trivial", "bench/bots/trivial")], 80),
    "think": ([("search", "bots/search"), ("rulebot", "bots/rulebot")], 20),
}

LEAGUE = """
name = "scaling-{name}"
seed = 30
matches_per_pairing = {matches}
[rules]
games_to_win = 1
[time]
decision_ms = 5000
time_bank_ms = 600000
"""

CHILD = r"""
import json, sys, time
from pathlib import Path
from arena.common.log_setup import configure_logging
from arena.league.config import load_league
from arena.league.runner import run_league
configure_logging("console", 0)
t0 = time.perf_counter()
run = run_league(load_league(Path(sys.argv[1])), Path(sys.argv[2]), jobs=int(sys.argv[3]))
wall = time.perf_counter() - t0
cpu = getattr(run, "cpu", None)
if cpu is None:  # a checkout from before issue 30: one process (threads), the bots its children
    import resource
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    ref, bots = own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime
else:
    ref, bots = cpu.referee_s, cpu.bots_s
print(json.dumps({"wall_s": wall, "matches": len(run.results), "hands": sum(r["hands"] for r in run.results),
                  "decisions": sum(s["decisions"] for r in run.results for s in r["seats"]),
                  "referee_cpu_s": ref, "bots_cpu_s": bots}))
"""


def available_cpus() -> int:
    """The CPUs the arena may use here (affinity and cgroup quota)."""
    sys.path.insert(0, str(ROOT))
    from arena.runtime.cpus import process_cpus

    return process_cpus()


def jobs_ladder(cpus: int) -> list[int]:
    """1, 2, 4, … up to ``cpus``, and ``cpus`` itself."""
    out, j = [], 1
    while j < cpus:
        out.append(j)
        j *= 2
    return [*out, cpus]


def play(cfg: Path, out: Path, jobs: int, checkout: Path = ROOT) -> dict[str, float]:
    """One league in a child process (its own interpreter: nothing cached from a run
    before) importing the arena from ``checkout``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(checkout), str(checkout / "sdk")])}
    r = subprocess.run([sys.executable, "-c", CHILD, str(cfg), str(out), str(jobs)], cwd=checkout, env=env,
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"the league failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    rec: dict[str, float] = json.loads(r.stdout.strip().splitlines()[-1])
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="fast,think", help="leagues, comma-separated: fast, think")
    ap.add_argument("--jobs", help="job counts, comma-separated (default: 1, 2, 4, … up to the CPUs)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the whole ladder (ratios per round)")
    ap.add_argument("--matches", type=int, help="matches per pairing (default: 80 fast, 8 think)")
    ap.add_argument("--checkout", type=Path, default=ROOT,
                    help="the arena to run (default: this one; e.g. a git worktree of an older commit)")
    args = ap.parse_args()
    cpus = available_cpus()
    ladder = sorted({int(j) for j in args.jobs.split(",")}) if args.jobs else jobs_ladder(cpus)
    print("machine:", json.dumps({**machine(), "arena_cpus": cpus, "loadavg": os.getloadavg()}))
    records: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only.split(","):
            entries, matches = LEAGUES[name]
            text = LEAGUE.format(name=name, matches=args.matches or matches)
            for entry, path in entries:
                text += f'[[entry]]\nname = "{entry}"\nbot = "{ROOT / path}"\n'
            cfg = Path(tmp) / f"{name}.toml"
            cfg.write_text(text, encoding="utf-8")
            for rnd in range(args.repeat):
                base, first = None, None
                for jobs in ladder:
                    rec: dict[str, object] = {"league": name, "round": rnd, "jobs": jobs,
                                              **play(cfg, Path(tmp) / f"{name}-{rnd}-{jobs}", jobs, args.checkout.resolve())}
                    standings = json.loads((Path(tmp) / f"{name}-{rnd}-{jobs}" / "standings.json").read_text())
                    first = first or standings
                    rec["same"] = standings == first
                    hands = float(rec["hands"])  # type: ignore[arg-type]
                    hps = hands / float(rec["wall_s"])  # type: ignore[arg-type]
                    base = base or hps
                    rec.update(hands_per_s=round(hps, 1), ratio=round(hps / base, 2),
                               referee_ms_per_hand=round(1000 * float(rec["referee_cpu_s"]) / hands, 2),  # type: ignore[arg-type]
                               bots_ms_per_hand=round(1000 * float(rec["bots_cpu_s"]) / hands, 2),  # type: ignore[arg-type]
                               load=round(os.getloadavg()[0], 1))
                    records.append(rec)
                    print(f"{name:6} round {rnd} jobs {jobs:2}: {rec['matches']} matches, {rec['hands']} hands in "
                          f"{float(rec['wall_s']):6.2f} s: {rec['hands_per_s']:7.1f} hands/s, {rec['ratio']:5.2f}x "  # type: ignore[arg-type]
                          f"jobs 1; CPU per hand {rec['referee_ms_per_hand']} ms referee + {rec['bots_ms_per_hand']} ms "
                          f"bots; standings {'same' if rec['same'] else 'DIFFERENT'} (load {rec['load']})", flush=True)
    for rec in records:
        print(json.dumps(rec))
    summary: dict[str, dict[str, list[float]]] = {}
    for rec in records:
        row = summary.setdefault(f"{rec['league']}/jobs{rec['jobs']}", {"ratio": [], "cpu_ms_per_hand": []})
        row["ratio"].append(float(rec["ratio"]))  # type: ignore[arg-type]
        row["cpu_ms_per_hand"].append(round(float(rec["referee_ms_per_hand"]) + float(rec["bots_ms_per_hand"]), 2))  # type: ignore[arg-type]
    print(json.dumps({"bench": "scaling", "runs": summary}))


if __name__ == "__main__":
    main()
