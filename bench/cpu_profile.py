"""Where the CPU of a fast-bot league goes: the referee's process and the bots', by component.

Plays the ``fast`` league of ``bench/scaling.py`` (rulebot, random and trivial, one game
to 40; fewer matches by default) under ``py-spy`` (a dev dependency: ``pip install
py-spy``), sampling every process of the run (``--subprocesses``), and prints:

* the CPU seconds per hand of the referee and of the bots (``getrusage``, as
  ``bench/scaling.py`` counts them), and
* for each side, the share of its Python samples by component: gRPC (the ``grpc``
  package's Python and Cython: writes, reads, the sync server's threads), the asyncio
  loop, the referee's polling, the rules engine (``mus_core``), request encoding, the
  SDK's conversions, the bot's own ``decide``, thread hand-offs (``threading``), the bot
  processes' freezing, hand logs, start-up (imports), and the rest.

py-spy samples the thread holding Python's GIL (``--gil``): the CPU a thread spends in C
without the GIL (grpc's poller threads, the kernel's side of a syscall made without it)
is not sampled, so the components split the Python share, and the ``getrusage`` totals
say what all of it costs. Each component is named by the innermost frame of a sample
that matches one of :data:`COMPONENTS` (checked in order).

    python bench/cpu_profile.py [--matches 20] [--jobs 1] [--rate 200] [--top 0]

``--top N`` also prints the N functions with the most samples (self time) per side.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from scaling import LEAGUE, LEAGUES  # noqa: E402

CHILD = """import json, sys
from pathlib import Path
from arena.common.log_setup import configure_logging
from arena.league.config import load_league
from arena.league.runner import run_league
configure_logging("console", 0)
run = run_league(load_league(Path(sys.argv[1])), Path(sys.argv[2]), jobs=int(sys.argv[3]))
print(json.dumps({"hands": sum(r["hands"] for r in run.results), "referee_cpu_s": run.cpu.referee_s,
                  "bots_cpu_s": run.cpu.bots_s}))
"""

COMPONENTS: tuple[tuple[str, str], ...] = (
    (r"<frozen importlib", "start-up (imports)"),
    (r"SpinningSelector", "the referee's polling"),
    (r"\(grpc/", "gRPC"),
    (r"\((?:arena/remote/encoder|arena/wire/)", "request encoding"),
    (r"\(mus_core/", "rules engine (mus_core)"),
    (r"\(arena/remote/process|\(arena/runner/pool", "bot processes (freeze, thaw)"),
    (r"\(arena/records/|\(arena/league/results_file|\(json/", "hand logs and results"),
    (r"\(mus_sdk/", "SDK conversions"),
    (r"\(bot\.py\)", "the bot's own code"),
    (r"\(selectors\.py\)", "asyncio loop (select)"),
    (r"\(asyncio/", "asyncio loop"),
    (r"\(threading\.py|\(concurrent/", "thread hand-offs"),
    (r"\(arena/", "referee (other)"),
)
"""(pattern on a py-spy frame, ``function (file:line)``, component), first match wins."""

_COMPILED = [(re.compile(p), name) for p, name in COMPONENTS]
_PROCESS = re.compile(r'process (\d+):"')


def component(frames: list[str]) -> str:
    """The component of one sample: that of its innermost frame matching a pattern."""
    for frame in reversed(frames):
        for pattern, name in _COMPILED:
            if pattern.search(frame):
                return name
    return "other"


def parse(raw: str) -> dict[str, list[tuple[list[str], int]]]:
    """py-spy's raw (collapsed) output, one line per stack with its count, split by the
    process sampled (its pid): a stack starts with ``process PID:"command"`` entries,
    one per ancestor in the run."""
    out: dict[str, list[tuple[list[str], int]]] = collections.defaultdict(list)
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        pids = _PROCESS.findall(stack)
        if not count.isdigit() or not pids:
            continue
        last = stack.rfind(f'process {pids[-1]}:"')
        quote = stack.find('";', last)
        frames = stack[quote + 2:].split(";") if quote >= 0 else []
        out[pids[-1]].append((frames, int(count)))
    return out


def is_referee(stacks: list[tuple[list[str], int]]) -> bool:
    """Whether a process is the arena's (the league or a referee worker): it runs the
    arena's code, which a bot process never imports."""
    return any("(arena/" in f for frames, _ in stacks for f in frames)


def report(stacks: list[tuple[list[str], int]], top: int) -> list[str]:
    """The lines of one side's breakdown: share per component, then the top functions."""
    total = sum(n for _, n in stacks) or 1
    parts: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    for frames, n in stacks:
        parts[component(frames)] += n
        if frames:
            leaves[re.sub(r":\d+\)$", ")", frames[-1])] += n
    lines = [f"  {100 * n / total:5.1f}%  {name}" for name, n in parts.most_common()]
    if top:
        lines.append("  top functions (self):")
        lines += [f"    {100 * n / total:5.1f}%  {name}" for name, n in leaves.most_common(top)]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matches", type=int, default=20, help="matches per pairing (bench/scaling.py plays 80)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    ap.add_argument("--top", type=int, default=0, help="also print the N functions with most samples per side")
    args = ap.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        raise SystemExit("cpu_profile: py-spy is not installed (pip install py-spy, or the dev extras)")
    with tempfile.TemporaryDirectory() as tmp:
        entries, _ = LEAGUES["fast"]
        text = LEAGUE.format(name="profile", matches=args.matches)
        for entry, path in entries:
            text += f'[[entry]]\nname = "{entry}"\nbot = "{ROOT / path}"\n'
        cfg, child, raw = Path(tmp) / "league.toml", Path(tmp) / "child.py", Path(tmp) / "samples.txt"
        cfg.write_text(text, encoding="utf-8")
        child.write_text(CHILD, encoding="utf-8")
        run = subprocess.run([spy, "record", "--subprocesses", "--gil", "--nonblocking", "-r", str(args.rate),
                              "-f", "raw", "-o", str(raw), "--", sys.executable, str(child), str(cfg),
                              str(Path(tmp) / "out"), str(args.jobs)],
                             cwd=ROOT, capture_output=True, text=True, check=False)
        if run.returncode != 0 or not raw.exists():
            raise SystemExit(f"cpu_profile: the league or py-spy failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        # py-spy prints to stdout too: the league's line is the last JSON one.
        totals = json.loads([line for line in run.stdout.splitlines() if line.startswith("{")][-1])
        samples = parse(raw.read_text(encoding="utf-8", errors="replace"))
    hands = totals["hands"]
    print(f"{hands} hands; CPU per hand (getrusage, under py-spy): referee {1000 * totals['referee_cpu_s'] / hands:.2f} ms,"
          f" bots {1000 * totals['bots_cpu_s'] / hands:.2f} ms")
    sides: dict[str, list[tuple[list[str], int]]] = {"referee": [], "bots": []}
    for stacks in samples.values():
        sides["referee" if is_referee(stacks) else "bots"].extend(stacks)
    for side, stacks in sides.items():
        print(f"{side}: {sum(n for _, n in stacks)} samples holding the GIL")
        print("\n".join(report(stacks, args.top)))


if __name__ == "__main__":
    main()
