"""Bot strength, in-process: rulebot against random over many matches (seats alternating).

    python bench/strength.py [--matches 200] [--a bots/rulebot] [--b bots/random]

Prints the machine, then as its last line a JSON object with ``win_rate`` of bot A.
Loads each bot's ``bot.py`` and plays its SDK ``Bot`` class in-process (no gRPC), through
the same message conversion as over the wire.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _machine import machine  # noqa: E402
from mus_sdk import Bot  # noqa: E402

from arena.engine import Rules  # noqa: E402
from arena.players.inprocess import InProcessBot  # noqa: E402
from arena.referee.match import MatchConfig, play_match  # noqa: E402


def load_bot_class(directory: Path) -> type[Bot]:
    """The Bot subclass defined in ``directory/bot.py``."""
    path = directory / "bot.py"
    spec = importlib.util.spec_from_file_location(f"strength_{directory.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    classes = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Bot) and v is not Bot]
    if not classes:
        raise SystemExit(f"{path}: no Bot subclass")
    return classes[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--a", type=Path, default=HERE.parent / "bots" / "rulebot")
    ap.add_argument("--b", type=Path, default=HERE.parent / "bots" / "random")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cls_a, cls_b = load_bot_class(args.a), load_bot_class(args.b)
    print("machine:", json.dumps(machine()))
    wins = 0
    t0 = time.perf_counter()
    for k in range(args.matches):
        a_seats = (0, 2) if k % 2 == 0 else (1, 3)
        players = []
        for seat in range(4):
            cls = cls_a if seat in a_seats else cls_b
            try:
                bot = cls(seed=args.seed * 1000 + k * 4 + seat)  # type: ignore[call-arg]
            except TypeError:
                bot = cls()
            players.append(InProcessBot(bot))
        result = play_match(players, MatchConfig(rules=Rules(), seed=args.seed * 100_000 + k, match_id=f"m{k}"))
        if result.faults:
            raise SystemExit(f"match {k}: faults {result.faults[:3]}")
        if result.winner_team == a_seats[0] & 1:
            wins += 1
    dt = time.perf_counter() - t0
    print(f"{args.a.name} won {wins} of {args.matches} matches against {args.b.name} ({dt:.1f} s)")
    print(json.dumps({"bench": "strength", "a": args.a.name, "b": args.b.name, "matches": args.matches,
                      "wins": wins, "win_rate": round(wins / args.matches, 3)}))


if __name__ == "__main__":
    main()
