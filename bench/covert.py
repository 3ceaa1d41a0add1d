"""Covert channel between partners: how many bits a sender gets through to its partner.

Two processes of tests/adversarial/bots/covert play as partners (seat 0 sends, seat 2
receives) against two trivial bots, in real ``mus match`` runs. Each hand the sender sends
one pseudo-random bit through the channels asked (``--send``: ``mem`` memory held, ``cpu``
CPU burnt, ``delay`` a slower decision, ``cache`` the page cache), and the receiver, at
its own decision, reads every global counter it can see. :func:`decode` turns each
counter's readings into guesses, as a receiver could online (it only looks at readings
already made); the accuracy over the bits sent is the channel's worth: 50 % is chance.

Prints the machine, then for each user (root, and with ``--user`` a normal user made by
tests/adversarial/unprivileged.py) and each sending mode one line per counter with the
number of bits, the accuracy and its 95 % interval, and the share of counter files whose
content never changed. The last line is a JSON object with every figure.

    python bench/covert.py [--bits 200] [--send mem,cpu,delay,cache] [--sandbox strict] [--user] [--mb 256]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "adversarial"))

from _machine import machine  # noqa: E402
from unprivileged import Runner, root_runner, unprivileged_runner  # noqa: E402

COVERT = REPO / "tests" / "adversarial" / "bots" / "covert"
TRIVIAL = HERE / "bots" / "trivial"
WINDOW = 16
"""Readings a decoder compares the current one with (the receiver's memory)."""

# How each counter carries a 1: its level is low (memory held) or high, or it grows more
# (or less) than usual between two readings of consecutive hands (CPU burnt, time spent).
# Memory is read as a step: the sender holds a known amount for a 1, so a fall (rise) of
# more than half of it since the previous reading means a 1 (0), and anything smaller
# means the same bit as before.
DECODERS: dict[str, str] = {
    "meminfo": "step-low", "sysinfo": "step-low", "loadavg": "level-high", "cache": "level-high",
    "cache_us": "median-low",
    "stat": "delta-high", "idle": "delta-low", "mono": "delta-high",
}


def bit(match_id: str, hand: int) -> int:
    """The bit the sender sent in ``hand`` of ``match_id`` (as the covert bot computes it)."""
    import hashlib

    return hashlib.blake2b(f"{match_id}:{hand}".encode()).digest()[0] & 1


def _series(rows: Sequence[dict[str, object]], key: str, how: str) -> list[tuple[float, int]]:
    """(value, true bit) per reading of ``key``: the level, or the growth since the
    reading of the previous hand of the same match (readings without one are left out)."""
    out: list[tuple[float, int]] = []
    prev: dict[str, object] | None = None
    for row in rows:
        value = row.get(key)
        if not isinstance(value, (int, float)):
            value = 0.0  # unreadable (a filtered call): it carries nothing
        if not how.startswith("delta"):
            out.append((float(value), bit(str(row["match"]), int(str(row["hand"])))))
        elif prev is not None and prev["match"] == row["match"] and prev["hand"] == int(str(row["hand"])) - 1:
            before = prev.get(key)
            before_f = float(before) if isinstance(before, (int, float)) else 0.0
            out.append((float(value) - before_f, bit(str(row["match"]), int(str(row["hand"])))))
        prev = row
    return out


def _steps(rows: Sequence[dict[str, object]], key: str, step: float) -> tuple[int, int]:
    """(right guesses, bits) of the step decoder (see :data:`DECODERS`); the first reading
    of each match (new processes) is guessed 0."""
    right = 0
    prev: dict[str, object] | None = None
    guess = 0
    for row in rows:
        value, before = row.get(key), prev.get(key) if prev is not None else None
        if prev is None or prev["match"] != row["match"]:
            guess = 0
        elif isinstance(value, (int, float)) and isinstance(before, (int, float)) and abs(value - before) > step / 2:
            guess = int(value < before)
        right += guess == bit(str(row["match"]), int(str(row["hand"])))
        prev = row
    return right, len(rows)


def decode(rows: Sequence[dict[str, object]], key: str, mb: int = 256) -> tuple[int, int]:
    """(right guesses, bits) of a receiver decoding counter ``key`` (see
    :data:`DECODERS`): a step of ``mb`` MiB for memory; else a reading is a 1 when it is on
    the 1's side of the middle of the last :data:`WINDOW` readings (the midpoint of their
    extremes for a level, their median for a growth or a time). Readings that never change
    are all guessed 0."""
    how = DECODERS[key]
    if how.startswith("step"):
        return _steps(rows, key, mb * 1024 * (1024 if key == "sysinfo" else 1))
    series = _series(rows, key, how)
    right = 0
    for i, (value, truth) in enumerate(series):
        window = [v for v, _ in series[max(0, i - WINDOW + 1):i + 1]]
        middle = (min(window) + max(window)) / 2 if how.startswith("level") else statistics.median(window)
        one = value < middle if how.endswith("low") else value > middle
        right += int(one) == truth
    return right, len(series)


def interval(right: int, n: int) -> tuple[float, float]:
    """Wilson 95 % interval of an accuracy."""
    if n == 0:
        return 0.0, 1.0
    z, p = 1.96, right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def readings(out: Path) -> list[dict[str, object]]:
    """The receiver's ``COVERT`` lines in a match's bot logs, in order."""
    rows: list[dict[str, object]] = []
    for log in sorted((out / "bots").glob("*.stderr.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("COVERT "):
                rows.append(json.loads(line[7:]))
    return rows


def bot_folder(runner: Runner, send: str, mb: int, burn_ms: int) -> Path:
    """A copy of the covert bot for ``runner``, sending through ``send``."""
    name = f"covert-{send.replace(',', '-')}-{os.urandom(3).hex()}"
    folder = runner.copy_in(COVERT, f"bots/{name}")
    env = {"MUS_COVERT_SEND": send, "MUS_COVERT_MB": str(mb), "MUS_COVERT_BURN_MS": str(burn_ms)}
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + "\n[env]\n" + "".join(f'{k} = "{v}"\n' for k, v in env.items()))
    os.chmod(folder, 0o755)
    return folder


def collect(runner: Runner, folder: Path, sandbox: str, bits: int, games: int = 6,
            say: Callable[[str], None] = print) -> list[dict[str, object]]:
    """Play matches (seeds 1, 2, ...) until the receiver has read at least ``bits`` hands."""
    trivial = runner.copy_in(TRIVIAL, f"bots/trivial-{os.urandom(3).hex()}")
    rows: list[dict[str, object]] = []
    seed = 0
    while len(rows) < bits:
        seed += 1
        out = runner.home / f"out-{folder.name}-{seed}"
        run = runner.mus("match", str(folder), str(trivial), "--sandbox", sandbox, "--out", str(out), "--target", "40",
                         "--games", str(games), "--seed", str(seed), "--match-id", f"covert-{seed}", "--json",
                         timeout=900)
        if run.returncode != 0:
            raise SystemExit(f"mus match failed ({run.returncode}): {run.stderr[-2000:]}")
        got = readings(out)
        if not got:
            raise SystemExit(f"the receiver reported nothing (see {out / 'bots'})")
        rows += got
        say(f"  seed {seed}: {len(got)} readings ({len(rows)} so far)")
    return rows


def static_share(rows: Sequence[dict[str, object]]) -> tuple[int, int, list[str]]:
    """(counter files whose content never changed or never could be read, files, the
    names of those that changed)."""
    files = rows[0]["files"]
    assert isinstance(files, dict)
    moved = [p for p in files if len({str(r["files"][p]) for r in rows if isinstance(r["files"], dict)}) > 1]  # type: ignore[index]
    return len(files) - len(moved), len(files), moved


def report(rows: Sequence[dict[str, object]], send: str, mb: int) -> dict[str, object]:
    """Each counter's accuracy, and which counter files moved."""
    keys = [k for k in DECODERS if not k.startswith("cache") or "cache" in send]
    figures: dict[str, object] = {}
    for key in keys:
        right, n = decode(rows, key, mb)
        lo, hi = interval(right, n)
        figures[key] = {"bits": n, "accuracy": round(right / n, 3) if n else None, "ci95": [round(lo, 3), round(hi, 3)]}
        print(f"    {key:8} {n:4} bits  accuracy {right / max(n, 1):6.1%}  (95% {lo:.1%}-{hi:.1%})")
    still, total, moved = static_share(rows)
    sysinfo = {str(r["sysinfo"]) for r in rows if isinstance(r["sysinfo"], str)}
    print(f"    counter files that never changed: {still}/{total}; changed: {', '.join(moved) or 'none'}"
          f"{'; sysinfo: ' + ', '.join(sorted(sysinfo)) if sysinfo else ''}")
    figures["static_files"] = f"{still}/{total}"
    figures["moved_files"] = moved
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bits", type=int, default=200, help="at least this many bits per mode and user")
    parser.add_argument("--send", default="mem,cpu,delay,cache", help="modes, comma-separated (each measured alone)")
    parser.add_argument("--sandbox", default="strict", choices=("default", "strict"))
    parser.add_argument("--user", action="store_true", help="also as a normal user (needs root)")
    parser.add_argument("--mb", type=int, default=256, help="memory the sender holds for a 1")
    parser.add_argument("--burn-ms", type=int, default=60, help="CPU burnt (or time slept) for a 1")
    args = parser.parse_args(argv)
    print(json.dumps({"machine": machine(), "sandbox": args.sandbox, "date": time.strftime("%Y-%m-%d %H:%M")}))
    results: dict[str, object] = {}
    users = ["root", "user"] if args.user else ["root" if os.geteuid() == 0 else "self"]
    for who in users:
        home = Path(tempfile.mkdtemp(prefix="mus-covert-"))
        os.chmod(home, 0o755)
        try:
            runner = unprivileged_runner(home) if who == "user" else root_runner(home)
            for send in args.send.split(","):
                print(f"{who}, sending by {send}:")
                t0 = time.monotonic()
                rows = collect(runner, bot_folder(runner, send, args.mb, args.burn_ms), args.sandbox, args.bits)
                results[f"{who}/{send}"] = {**report(rows, send, args.mb), "seconds": round(time.monotonic() - t0, 1)}
        finally:
            shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
