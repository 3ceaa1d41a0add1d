"""The end of ``mus league`` says why each entry faulted (an organiser's trial of the
docs: the console gave only counts, "faults student: 3 bot_error", and finding the
IndexError meant opening results.jsonl, the hand logs or the report)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_league_ends_with_each_entrys_first_fault_of_each_kind(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(f"""
name = "faults"
seed = 3
matches_per_pairing = 2
jobs = 1
[rules]
target_points = 20
games_to_win = 1
[time]
max_faults = 3
[[entry]]
name = "student"
bot = "{REPO / 'tests' / 'cli' / 'bots' / 'first_to_answer_ordago'}"
[[entry]]
name = "random"
bot = "{REPO / 'bots' / 'random'}"
""", encoding="utf-8")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "arena", "league", str(league), "--out", str(out), "--no-progress"],
                         cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stderr[run.stderr.index("faults: 1 entry faulted"):].splitlines()
    assert lines[1].startswith("  student: ") and "(bot_error " in lines[1], lines
    first = lines[2]
    assert first.startswith("    bot_error in student--random--00") and first.endswith(
        "IndexError: tuple index out of range"), lines
    assert any("line 16, in decide" in line for line in lines), lines
    stderr_log = next(line.split("its stderr: ", 1)[1] for line in lines if "its stderr: " in line)
    assert Path(stderr_log).is_file() and "IndexError" in Path(stderr_log).read_text(errors="replace")
    # The random bot never faulted: no line for it.
    assert not any(line.startswith("  random:") for line in lines), lines


def test_the_stderr_log_named_is_that_of_the_process_that_faulted(tmp_path: Path) -> None:
    """A league keeps bot processes across matches, and a process's logs are named after
    the seat it was started for: the student's first fault here comes in its second match
    (student--rulebot--001, S3), from a process started for student--rulebot--000. The
    summary names that process's stderr log (it once named a file that did not exist,
    after the faulting match and seat)."""
    league = tmp_path / "league.toml"
    league.write_text(f"""
name = "reused"
seed = 11
matches_per_pairing = 8
duplicate = false
jobs = 1
[rules]
target_points = 20
games_to_win = 1
[time]
max_faults = 3
[[entry]]
name = "student"
bot = "{REPO / 'tests' / 'cli' / 'bots' / 'first_to_answer_ordago'}"
[[entry]]
name = "rulebot"
bot = "{REPO / 'bots' / 'rulebot'}"
""", encoding="utf-8")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "arena", "league", str(league), "--out", str(out), "--no-progress"],
                         cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stderr[run.stderr.index("faults: 1 entry faulted"):].splitlines()
    assert lines[2].startswith("    bot_error in student--rulebot--001, S3, hand 0: "), lines
    named = Path(next(line.split("its stderr: ", 1)[1] for line in lines if "its stderr: " in line))
    assert named.name != "student--rulebot--001.s3.stderr.log", named  # not the faulting seat's name
    assert named.is_file() and "IndexError" in named.read_text(errors="replace")
