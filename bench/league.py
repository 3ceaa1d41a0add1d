"""Where a league's time goes: matches per minute, hands per second, and the share of the
wall time spent inside matches (refereeing) against starting and stopping bots.

Runs the same leagues (same seed, same bots) with ``--jobs 1`` and ``--jobs`` = CPUs:

* ``plain``: the bundled Python bots (random, rulebot, trivial), one seed per match;
* ``duplicate``: the same entries with duplicate deals;
* ``js``: random against the JavaScript bot (bots/js, needs node), plain.

Each league runs in a child process that imports the arena from a checkout, so
``--before DIR`` (a checkout of an older commit, e.g. ``git worktree add /tmp/main-before
448f768``) runs the very same leagues on that code in the same run, and the last line
gives the ratio of hands per second, this checkout over that one. The time inside
matches is measured the same way in both: the child wraps the referee's ``play_match``
as the league calls it (the time from the first match start to the match end, all
seats connected), summed over matches; its share is that sum over (wall time x jobs).
``--fresh`` adds this checkout with process reuse off (a new process per seat and match,
as before issue 17).

    python bench/league.py [--matches 10] [--before /tmp/main-before] [--fresh] [--only plain,duplicate]

Prints the machine, one line per league, then one JSON object per league and, last,
the ratios as JSON.
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

ENTRIES = {
    "python": [("random", "bots/random"), ("rulebot", "bots/rulebot"), ("trivial", "bench/bots/trivial")],
    "js": [("random", "bots/random"), ("js", "bots/js")],
}
SCENARIOS = {"plain": ("python", False), "duplicate": ("python", True), "js": ("js", False)}

LEAGUE = """
name = "bench-{name}"
seed = 11
matches_per_pairing = {matches}
duplicate = {duplicate}
[rules]
games_to_win = 1
[time]
decision_ms = 5000
time_bank_ms = 600000
"""

# Run in the child, with the checkout first on sys.path: a league timed in-process.
CHILD = r"""
import json, sys, threading, time
from pathlib import Path
cfg_path, out, jobs, reuse = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
import arena.runner.match as runner_match
from arena.league.config import load_league
from arena.league.runner import run_league
inside = [0.0]
lock = threading.Lock()
real = runner_match.play_match
def timed(*a, **k):
    t0 = time.perf_counter()
    try:
        return real(*a, **k)
    finally:
        with lock:
            inside[0] += time.perf_counter() - t0
runner_match.play_match = timed
config = load_league(cfg_path)
kw = {} if reuse else {"reuse_processes": False}
t0 = time.perf_counter()
run = run_league(config, out, jobs=jobs, **kw)
wall = time.perf_counter() - t0
print(json.dumps({"wall_s": wall, "inside_s": inside[0], "matches": len(run.results),
                  "hands": sum(r["hands"] for r in run.results),
                  "decisions": sum(s["decisions"] for r in run.results for s in r["seats"]),
                  "faults": sum(len(r["faults"]) for r in run.results),
                  "reasons": sorted({r["reason"] for r in run.results})}))
"""


def run_one(checkout: Path, cfg: Path, out: Path, jobs: int, reuse: bool) -> dict[str, object]:
    """One league in a child process importing the arena from ``checkout``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(checkout), str(checkout / "sdk"), str(checkout / "proto" / "gen")])}
    r = subprocess.run([sys.executable, "-c", CHILD, str(cfg), str(out), str(jobs), "1" if reuse else "0"],
                       cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"league failed in {checkout} (exit {r.returncode}):\n{r.stderr[-3000:]}")
    rec: dict[str, object] = json.loads(r.stdout.strip().splitlines()[-1])
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=10, help="matches per pairing (even, for duplicate)")
    ap.add_argument("--before", type=Path, help="a checkout of the code to compare with (e.g. main before issue 17)")
    ap.add_argument("--fresh", action="store_true", help="also run this checkout with process reuse off")
    ap.add_argument("--only", default="plain,duplicate,js", help="scenarios, comma-separated: plain, duplicate, js")
    ap.add_argument("--jobs", default=f"1,{os.cpu_count() or 1}", help="job counts, comma-separated")
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    versions: list[tuple[str, Path, bool]] = [("this", ROOT, True)]
    if args.fresh:
        versions.append(("this-fresh", ROOT, False))
    if args.before is not None:
        versions.append(("before", args.before.resolve(), True))
    jobs_list = sorted({int(j) for j in args.jobs.split(",")})
    records: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for scenario in args.only.split(","):
            bots, duplicate = SCENARIOS[scenario]
            text = LEAGUE.format(name=scenario, matches=args.matches, duplicate=str(duplicate).lower())
            for name, path in ENTRIES[bots]:
                text += f'[[entry]]\nname = "{name}"\nbot = "{ROOT / path}"\n'
            cfg = t / f"{scenario}.toml"
            cfg.write_text(text, encoding="utf-8")
            for jobs in jobs_list:
                for version, checkout, reuse in versions:
                    out = t / f"{scenario}-{jobs}-{version}"
                    rec = run_one(checkout, cfg, out, jobs, reuse)
                    wall, inside = float(rec["wall_s"]), float(rec["inside_s"])  # type: ignore[arg-type]
                    rec.update(scenario=scenario, jobs=jobs, version=version,
                               matches_per_min=round(60 * int(rec["matches"]) / wall, 1),  # type: ignore[call-overload]
                               hands_per_s=round(int(rec["hands"]) / wall, 2),  # type: ignore[call-overload]
                               inside_share=round(inside / (wall * jobs), 3),
                               wall_s=round(wall, 2), inside_s=round(inside, 2))
                    records.append(rec)
                    print(f"{scenario:9} jobs {jobs} {version:10} {rec['matches']} matches, {rec['hands']} hands, "
                          f"{rec['decisions']} decisions in {wall:6.2f} s: {rec['matches_per_min']:6.1f} matches/min, "
                          f"{rec['hands_per_s']:6.2f} hands/s, {100 * float(rec['inside_share']):4.1f}% inside matches",
                          flush=True)
    for rec in records:
        print(json.dumps(rec))
    ratios = {}
    for rec in records:
        if rec["version"] == "this":
            for other in records:
                if other["version"] != "this" and (other["scenario"], other["jobs"]) == (rec["scenario"], rec["jobs"]):
                    ratios[f"{rec['scenario']}/jobs{rec['jobs']}/this÷{other['version']}"] = round(
                        float(rec["hands_per_s"]) / float(other["hands_per_s"]), 2)  # type: ignore[arg-type]
    print(json.dumps({"bench": "league", "hands_per_s_ratio": ratios}, ensure_ascii=False))


if __name__ == "__main__":
    main()
