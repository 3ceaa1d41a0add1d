"""League overhead: the same matches run by the league runner (--jobs 1) and one by one.

Runs a small league of bot processes with ``jobs=1``, then plays the very same matches
(same seeds, same seating) one by one through ``run_match`` — what ``mus match`` does —
and prints the machine, then as its last line a JSON object with both rates in hands
per second and their ratio (the target is >= 0.9). With ``--cli``, the one-by-one runs
go through the ``mus match`` command itself (a new Python process per match).

    python bench/league.py [--matches 4] [--cli]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402

from arena.league.config import load_league  # noqa: E402
from arena.league.runmatch import Seating, run_match  # noqa: E402
from arena.league.runner import run_league  # noqa: E402
from arena.league.schedule import schedule  # noqa: E402
from arena.referee.match import MatchConfig  # noqa: E402

LEAGUE = """
name = "bench"
seed = 11
matches_per_pairing = {matches}
jobs = 1
[rules]
games_to_win = 1
[time]
decision_ms = 5000
time_bank_ms = 600000
[[entry]]
name = "rulebot"
bot = "{root}/bots/rulebot"
[[entry]]
name = "trivial"
bot = "{root}/bench/bots/trivial"
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=4, help="matches per pairing")
    ap.add_argument("--cli", action="store_true", help="run the one-by-one matches through `mus match`")
    args = ap.parse_args()
    print("machine:", json.dumps(machine()))
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        cfg_path = t / "league.toml"
        cfg_path.write_text(LEAGUE.format(matches=args.matches, root=HERE.parent), encoding="utf-8")
        config = load_league(cfg_path)
        t0 = time.perf_counter()
        run = run_league(config, t / "league", jobs=1)
        league_s = time.perf_counter() - t0
        hands = sum(r["hands"] for r in run.results)
        single_hands = 0
        t0 = time.perf_counter()
        for m in schedule(config):
            a0, a1 = config.bot_specs(m.team0)
            b0, b1 = config.bot_specs(m.team1)
            if args.cli:
                out = t / "single"
                subprocess.run(
                    [str(Path(sys.executable).parent / "mus"), "match", str(a0.source), str(b0.source), "--out", str(out),
                     "--seed", str(m.seed), "--games", "1", "--decision-ms", "5000", "--time-bank-ms", "600000",
                     "--match-id", m.match_id], check=True, capture_output=True)
                rec = json.loads((out / f"{m.match_id}.jsonl").read_text().splitlines()[-1])
                single_hands += rec["result"]["hands"]
            else:
                mc = MatchConfig(rules=config.rules, seed=m.seed, match_id=m.match_id, decision_ms=5000, time_bank_ms=600_000)
                o = run_match((a0, b0, a1, b1), Seating((m.team0, m.team1, m.team0, m.team1)), mc, t / "single_lib")
                single_hands += o.result.hands
        single_s = time.perf_counter() - t0
    league_rate, single_rate = hands / league_s, single_hands / single_s
    print(f"league --jobs 1: {hands} hands in {league_s:.2f} s = {league_rate:.1f} hands/s")
    print(f"one by one{' (mus match CLI)' if args.cli else ''}: {single_hands} hands in {single_s:.2f} s = {single_rate:.1f} hands/s")
    print(json.dumps({"bench": "league", "league_hands_per_s": round(league_rate, 2),
                      "single_hands_per_s": round(single_rate, 2), "ratio": round(league_rate / single_rate, 3),
                      "hands": hands, "same_hands": hands == single_hands, "cli": args.cli}))


if __name__ == "__main__":
    main()
