"""The strength table: a bot against each bundled bot over duplicate pairs of matches.

    python bench/strength.py [--bot bots/search] [--against rulebot js cpp]
        [--pairs 100] [--jobs 2] [--seed 1] [--out /tmp/strength.jsonl]
    python bench/strength.py --table /tmp/strength.jsonl     # the table of a run

A pair is two matches on the same seed with the seats exchanged: the bot's team holds
the cards the opponent's held in the other match (docs/league.md, "Duplicate"). Python
bots (a ``bot.py`` with an SDK ``Bot`` subclass) play in-process, through the wire's
message conversion; other bots (``bots/js``, ``bots/cpp``) run as processes over gRPC
(``RemoteBot``), as in a league. Each match is refereed by ``play_match`` under the
default rules, default deadline (2 s) and time bank (120 s).

Per opponent: matches, the bot's win rate with its 95 % Wilson interval, and its net
stones per hand with the standard error over deal pairs (each pair one observation).
Stones count as the league's standings count them (docs/league.md, "Standings"): a game
won below the target, by an órdago or a deje, is credited with the stones its winner
lacked. The search bot's own time per decision and playouts per second are summed from
its counters. Each finished match is a line of ``--out`` (JSON), so a run can be read
again with ``--table``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from _machine import machine  # noqa: E402
from mus_core import Rules  # noqa: E402
from mus_sdk import Bot  # noqa: E402

from arena.driver.match import MatchConfig, play_match  # noqa: E402
from arena.league.standings import effective_stones  # noqa: E402
from arena.players.inprocess import InProcessBot  # noqa: E402
from arena.referee.player import SyncAdapter  # noqa: E402
from arena.remote.client import RemoteBot  # noqa: E402
from arena.remote.manifest import load_manifest  # noqa: E402

ALIASES = {"rulebot": "bots/rulebot", "js": "bots/js", "cpp": "bots/cpp", "random": "bots/random"}


def load_bot_class(directory: Path) -> type[Bot] | None:
    """The SDK ``Bot`` subclass of ``directory/bot.py``, or None (not a Python bot)."""
    path = directory / "bot.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"table_{directory.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(directory))
    spec.loader.exec_module(module)
    classes = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot) and v is not Bot
               and v.__module__ == module.__name__]
    return classes[0] if classes else None


def _players(directory: Path, seats: tuple[int, ...], seed: int, log_dir: Path) -> dict[int, Any]:
    cls = load_bot_class(directory)
    out: dict[int, Any] = {}
    for seat in seats:
        if cls is not None:
            try:
                out[seat] = SyncAdapter(InProcessBot(cls(seed=seed * 10 + seat)))  # type: ignore[call-arg]
            except TypeError:
                out[seat] = SyncAdapter(InProcessBot(cls()))
        else:
            out[seat] = RemoteBot(load_manifest(directory), log_dir, f"{directory.name}{seat}")
    return out


def play_pair(bot: str, opponent: str, pair: int, seed: int) -> list[dict[str, Any]]:
    """Both matches of deal pair ``pair`` (the bot on seats 0, 2, then on 1, 3)."""
    rules = Rules()
    out = []
    for twin, bot_seats in enumerate(((0, 2), (1, 3))):
        other = tuple(s for s in range(4) if s not in bot_seats)
        match_seed = seed * 1_000_000 + pair
        with tempfile.TemporaryDirectory(prefix="strength-") as tmp:
            ours = _players(Path(bot), bot_seats, match_seed * 2 + twin, Path(tmp))
            theirs = _players(Path(opponent), other, match_seed * 2 + twin, Path(tmp))
            seats = {**ours, **theirs}
            players = [seats[s] for s in range(4)]
            remote = [p for p in players if isinstance(p, RemoteBot)]
            t0 = time.perf_counter()
            try:
                for p in remote:
                    p.connect()
                result = play_match(players, MatchConfig(rules=rules, seed=match_seed, match_id=f"p{pair}t{twin}"))
            finally:
                for p in remote:
                    p.close()
        team = bot_seats[0] % 2
        stones = effective_stones(result.to_json(), rules.target_points) or result.stones
        searched = [getattr(seats[s], "bot", None) for s in bot_seats]
        stats = [(getattr(b, "decisions", 0), getattr(b, "seconds", 0.0), getattr(b, "playouts", 0)) for b in searched]
        out.append({
            "bot": Path(bot).name, "opponent": Path(opponent).name, "pair": pair, "twin": twin,
            "seed": match_seed, "won": result.winner_team == team, "winner_team": result.winner_team,
            "reason": result.reason.value, "hands": result.hands, "net_stones": stones[team] - stones[1 - team],
            "faults": [f"S{f.seat}:{f.kind.value}" for f in result.faults],
            "decisions": sum(s[0] for s in stats), "think_s": sum(s[1] for s in stats),
            "playouts": sum(s[2] for s in stats), "wall_s": round(time.perf_counter() - t0, 2),
        })
    return out


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def table(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The markdown table and its figures, per opponent."""
    lines = [
        "| opponent | matches | win rate (95 % Wilson) | net stones/hand ± SE (pairs) | faults | ms/decision | playouts/s |",
        "|---|---|---|---|---|---|---|",
    ]
    figures = []
    for opponent in sorted({r["opponent"] for r in rows}):
        mine = [r for r in rows if r["opponent"] == opponent]
        pairs: dict[int, list[dict[str, Any]]] = {}
        for r in mine:
            pairs.setdefault(r["pair"], []).append(r)
        full = [p for p in pairs.values() if len(p) == 2]
        wins = sum(r["won"] for r in mine)
        lo, hi = wilson(wins, len(mine))
        per_pair = [sum(r["net_stones"] for r in p) / max(1, sum(r["hands"] for r in p)) for p in full]
        mean = statistics.fmean(per_pair) if per_pair else 0.0
        se = statistics.stdev(per_pair) / math.sqrt(len(per_pair)) if len(per_pair) > 1 else float("nan")
        decisions = sum(r["decisions"] for r in mine)
        think = sum(r["think_s"] for r in mine)
        ms = 1000 * think / decisions if decisions else 0.0
        rate = sum(r["playouts"] for r in mine) / think if think else 0.0
        faults = sum(len(r["faults"]) for r in mine)
        figures.append({"opponent": opponent, "matches": len(mine), "pairs": len(full), "wins": wins,
                        "win_rate": wins / len(mine), "wilson95": [lo, hi], "stones_per_hand": mean,
                        "stones_se": se, "faults": faults, "ms_per_decision": ms, "playouts_per_s": rate})
        lines.append(
            f"| {opponent} | {len(mine)} | {100 * wins / len(mine):.1f} % ({100 * lo:.1f}–{100 * hi:.1f}) "
            f"| {mean:+.3f} ± {se:.3f} | {faults} | {ms:.1f} | {rate:.0f} |"
        )
    return "\n".join(lines), figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot", default="bots/search")
    ap.add_argument("--against", nargs="+", default=["rulebot", "js", "cpp"])
    ap.add_argument("--pairs", type=int, default=100, help="deal pairs per opponent (2 matches each)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="JSON lines, one per match (a new file)")
    ap.add_argument("--table", type=Path, default=None, help="only print the table of a finished --out")
    args = ap.parse_args()
    if args.table is not None:
        rows = [json.loads(line) for line in args.table.read_text().splitlines() if line.strip()]
    else:
        if args.out is not None and args.out.exists() and args.out.stat().st_size:
            # Appending to another run's lines would make --table count both runs' matches.
            sys.exit(f"--out {args.out}: holds another run's matches; give a new file")
        print("machine:", json.dumps(machine()), file=sys.stderr)
        print(f"env: MUS_SEARCH_MS={os.environ.get('MUS_SEARCH_MS')} "
              f"MUS_SEARCH_SAMPLES={os.environ.get('MUS_SEARCH_SAMPLES')}", file=sys.stderr)
        rows = []
        opponents = [str(ROOT / ALIASES.get(a, a)) for a in args.against]
        tasks = [(args.bot, o, p, args.seed) for p in range(args.pairs) for o in opponents]
        t0 = time.perf_counter()
        out = args.out.open("a") if args.out else None
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(play_pair, *t) for t in tasks]
            for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                pair_rows = fut.result()
                rows.extend(pair_rows)
                if out:
                    for r in pair_rows:
                        out.write(json.dumps(r) + "\n")
                    out.flush()
                if done % 10 == 0 or done == len(tasks):
                    won = sum(r["won"] for r in rows)
                    print(f"{done}/{len(tasks)} pairs, {len(rows)} matches, won {won}, "
                          f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    text, figures = table(rows)
    print(text)
    print(json.dumps({"bench": "strength", "figures": figures}))


if __name__ == "__main__":
    main()
