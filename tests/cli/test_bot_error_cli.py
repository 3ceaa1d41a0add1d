"""A bot whose ``decide()`` raises, seen from the command line (issue 15 item 1): ``mus
match`` prints the BOT_ERROR faults with the exception and its traceback's first lines,
and names the faulting bot's stderr log; the hand log keeps the same; ``mus replay``
shows it. Real ``mus`` processes and real bot processes: a Python SDK test bot that
raises from its second decision on, against the trivial bench bot."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTBOT = REPO / "tests" / "remote" / "bots" / "testbot"
TRIVIAL_BOT = REPO / "bench" / "bots" / "trivial"
DEADLINE_MS = 60_000
"""Long enough that waiting for one deadline fails the test on a machine of any load."""
FIRST_TRACE_LINE = f'File "{TESTBOT / "bot.py"}", line '


def mus(*args: str | Path | int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          timeout=240, check=False)


def test_match_and_replay_show_the_exception_and_name_the_stderr_log(tmp_path: Path) -> None:
    manifest = tmp_path / "raising.toml"
    manifest.write_text(f'name = "raiser"\ncommand = ["python", "{TESTBOT / "bot.py"}"]\n'
                        '[env]\nMUS_TEST_MODE = "raise"\nMUS_TEST_AT = "2"\n', encoding="utf-8")
    out = tmp_path / "out"
    t0 = time.monotonic()
    r = mus("match", manifest, TRIVIAL_BOT, "--out", out, "--match-id", "m", "--seed", "7", "--games", "1",
            "--decision-ms", DEADLINE_MS, "--max-faults", "3")
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    # A fault charged at the deadline instead of at once would take a whole deadline (60 s):
    # the command, the processes' start included, takes a small part of one.
    assert took < DEADLINE_MS / 1000, took
    lines = r.stdout.splitlines()
    faults = [i for i, line in enumerate(lines) if line.startswith("  fault ")]
    assert len(faults) >= 3, r.stdout  # one seat reached 3 (its partner, the same bot, faults too)
    for i in faults:
        assert ": bot_error: ValueError: testbot: raising as asked at request " in lines[i]
        assert lines[i + 1].startswith("    " + FIRST_TRACE_LINE) and lines[i + 1].endswith(", in decide")
    seats = {int(lines[i].split()[1][1:]) for i in faults}
    assert seats <= {0, 2}
    for seat in seats:
        log = out / "bots" / f"m.s{seat}.stderr.log"
        assert f"  S{seat} (raiser) stderr: {log}" in lines
        assert "ValueError: testbot: raising as asked" in log.read_text()

    records = [json.loads(line) for line in (out / "m.jsonl").read_text().splitlines()]
    logged = [s["fault"] for rec in records if rec["type"] == "hand" for s in rec["steps"] if "fault" in s]
    assert [f["kind"] for f in logged] == ["bot_error"] * len(faults)
    assert all(f["detail"].splitlines()[1].startswith("    " + FIRST_TRACE_LINE) for f in logged)

    shown = mus("replay", out / "m.jsonl")
    assert shown.returncode == 0, shown.stderr
    replayed = shown.stdout.splitlines()
    at = [i for i, line in enumerate(replayed) if "FAULT bot_error: ValueError: testbot: raising as asked" in line]
    assert len(at) == len(faults), shown.stdout
    assert all(FIRST_TRACE_LINE in replayed[i + 1] and replayed[i + 1].endswith(", in decide") for i in at)
