"""The referee's waiting, A/B: its polling window (``--poll-us``) and preparing ahead.

Starts four trivial SDK bots once, then plays the same match (same seed) with each
variant in turn, round after round, so that each round compares the variants under the
same load of this shared machine. The variants are the polling windows given, each
with the referee preparing the next request ahead (the default) or not, or both
(``--prepare-ahead both``: see arena/driver/match.py). Prints the machine, each
variant's rates and the arena's CPU time per decision, each variant's paired ratios to
the first, and as its last line a JSON object with the medians.

    python bench/polling.py [--poll-us 0 200] [--prepare-ahead on|off|both] [--rounds 6] [--games 20]
                            [--load N]
    python bench/polling.py --poll-us 200 --prepare-ahead both   # preparing ahead alone
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import busy_load, machine, poll_us_arg  # noqa: E402
from mus_core import Rules  # noqa: E402
from protocol import play  # noqa: E402

from arena.driver.match import MatchConfig  # noqa: E402
from arena.remote.client import RemoteBot  # noqa: E402
from arena.remote.manifest import load_manifest  # noqa: E402
from arena.runtime.cpus import process_cpus  # noqa: E402
from arena.runtime.settings import Runtime  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--poll-us", type=poll_us_arg, nargs="+", default=[0, 200], metavar="US",
                    help="windows to compare; the first is the reference (default: 0 200)")
    ap.add_argument("--prepare-ahead", choices=["on", "off", "both"], default="on",
                    help="whether the referee prepares the next request while a bot thinks (default on, as mus match)")
    ap.add_argument("--rounds", type=int, default=6, help="rounds; each plays the match once per variant")
    ap.add_argument("--games", type=int, default=20, help="games_to_win of the match")
    ap.add_argument("--load", type=int, default=0, metavar="N", help="start N busy processes for the whole run")
    args = ap.parse_args()
    try:
        runtimes = {w: Runtime(poll_us=w) for w in args.poll_us}
    except ValueError as exc:
        ap.error(str(exc))
    with busy_load(args.load):
        run(args, runtimes)


def run(args: argparse.Namespace, runtimes: dict[int, Runtime]) -> None:
    print("machine:", json.dumps({**machine(), "process_cpus": process_cpus(), "load": args.load}))
    ahead = {"on": [True], "off": [False], "both": [False, True]}[args.prepare_ahead]
    variants = {
        (f"{w} us" if len(ahead) == 1 else f"{w} us, ahead {'on' if a else 'off'}"): (w, a)
        for w in dict.fromkeys(args.poll_us) for a in ahead
    }
    rates: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        manifest = load_manifest(HERE / "bots" / "trivial")
        bots = [RemoteBot(manifest, Path(tmp), f"seat{i}") for i in range(4)]
        try:
            for b in bots:
                b.connect()
            play(bots, MatchConfig(rules=Rules(games_to_win=1), seed=2, match_id="warmup"), runtimes[args.poll_us[0]])
            config = MatchConfig(rules=Rules(games_to_win=args.games), seed=1, decision_ms=5000, time_bank_ms=600_000)
            for r in range(args.rounds):
                for v, (w, a) in variants.items():
                    c0, t0 = time.process_time(), time.perf_counter()
                    result = play(bots, dataclasses.replace(config, prepare_ahead=a), runtimes[w])
                    dt, dc = time.perf_counter() - t0, time.process_time() - c0
                    if result.faults:
                        raise SystemExit(f"faults in the benchmark match: {result.faults[:3]}")
                    n = sum(s.decisions for s in result.seats)
                    rates[v].append(n / dt)
                    cpu[v].append(dc / n * 1e6)
                print(f"round {r + 1}: " + ", ".join(f"{v} {rates[v][-1]:,.0f}/s" for v in variants), flush=True)
        finally:
            for b in bots:
                b.close()
    ref = next(iter(variants))
    out: dict[str, object] = {"bench": "polling", "load": args.load, "rounds": args.rounds,
                              "variants": {}}
    for v in variants:
        pairs = [b / a for a, b in zip(rates[ref], rates[v], strict=True)]
        print(f"{v:>20}: {statistics.median(rates[v]):,.0f} decisions/s, arena CPU "
              f"{statistics.median(cpu[v]):.0f} us/decision, paired ratios to {ref}: "
              + " ".join(f"{p:.2f}" for p in pairs))
        out["variants"][v] = {  # type: ignore[index]
            "decisions_per_s": round(statistics.median(rates[v])),
            "arena_cpu_us_per_decision": round(statistics.median(cpu[v])),
            "paired_ratio_to_first": round(statistics.median(pairs), 3),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
