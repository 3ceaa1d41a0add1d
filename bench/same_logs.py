"""Do two checkouts referee the same matches alike? Hand logs compared line by line.

Plays the same matches (same seeds, the bundled deterministic bots) with this checkout
and with another one (``--before``, e.g. a ``git worktree`` of an older commit), each
with its own code (arena, SDK and bots), and compares the hand logs with every timing
field left out (``arena.records.handlog.TIMING_FIELDS``, the header's ``run`` object among
them, and the fields it replaced). Prints one line per match and, as its last line, a
JSON summary; exits 1 if any log differs.

    git worktree add /tmp/before <commit>
    python bench/same_logs.py --before /tmp/before [--seeds 1 2 3] [--games 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from arena.records.handlog import TIMING_FIELDS  # noqa: E402

PAIRS = (("bots/rulebot", "bots/random"), ("bots/random", "bots/rulebot"), ("bots/rulebot", "bots/rulebot"))
"""Bot pairs played (each team: two processes of one bot); every one is deterministic
for a given seed (the random bot draws from MUS_BOT_SEED, fixed here)."""

MOVED = frozenset({"bot_cpus", "referee_cpus", "spin_us", "run", "sandbox", "process"})
"""Header fields about how the match was run, not what happened in it (some moved
into ``run`` by issue 16; the sandbox and process fields say where the bots ran)."""


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMING_FIELDS and k not in MOVED}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def play(checkout: Path, bots: tuple[str, str], seed: int, games: int, out: Path) -> list[Any]:
    """The stripped hand log of one match played by ``checkout``'s own code."""
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{checkout / 'sdk'}", "MUS_BOT_SEED": "1"}
    subprocess.run(
        [sys.executable, "-m", "arena", "match", *(str(checkout / b) for b in bots), "--seed", str(seed),
         "--games", str(games), "--out", str(out), "--match-id", "m", "--decision-ms", "5000"],
        cwd=checkout, env=env, check=True, capture_output=True,
    )
    return [_strip(json.loads(line)) for line in (out / "m.jsonl").read_text(encoding="utf-8").splitlines()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="the other checkout")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--games", type=int, default=3)
    args = ap.parse_args()
    same = differ = lines = 0
    with tempfile.TemporaryDirectory() as tmp:
        for bots in PAIRS:
            for seed in args.seeds:
                name = f"{Path(bots[0]).name}-{Path(bots[1]).name}-{seed}"
                logs = [play(c, bots, seed, args.games, Path(tmp) / f"{name}-{k}")
                        for k, c in enumerate((args.before.resolve(), ROOT))]
                ok = logs[0] == logs[1]
                same, differ, lines = same + ok, differ + (not ok), lines + len(logs[1])
                print(f"{name}: {len(logs[1])} lines, {'identical' if ok else 'DIFFERENT'}")
    print(json.dumps({"bench": "same_logs", "matches": same + differ, "identical": same, "different": differ,
                      "lines": lines}))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
