"""``--log-format`` (issue 15 item 9): the operational logs on stderr are readable lines
by default, also when stderr is not a terminal (a file, a pipe, CI), and JSON lines
only when asked. Run as real ``mus`` processes with a real bot that dies at start, whose
start failure is logged at info level: shown with ``-v`` (without it, the match's summary
says it, once).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BROKEN_BOT = Path(__file__).resolve().parent / "bots" / "broken"
RANDOM_BOT = REPO / "bots" / "random"


def match_with_broken_bot(out: Path, *global_opts: str) -> subprocess.CompletedProcess[str]:
    """``mus [global_opts] match broken random``: stderr is a pipe, not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "arena", *global_opts, "match", str(BROKEN_BOT), str(RANDOM_BOT), "--out", str(out),
         "--match-id", "m"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )


def log_lines(stderr: str) -> list[str]:
    """The lines of the start-failure event."""
    return [line for line in stderr.splitlines() if "bot.start_failed" in line]


def test_default_is_console_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    r = match_with_broken_bot(tmp_path / "out", "-v")
    assert r.returncode == 2, r.stderr
    events = log_lines(r.stderr)
    assert len(events) == 1, r.stderr  # one event for the team's two seats
    assert not events[0].lstrip().startswith("{"), events[0]
    assert "[info" in events[0] and "entry=broken" in events[0] and "seats=[0, 2]" in events[0]
    # -v: info events, the bot processes started among them; no debug events (-vv's).
    assert "bot.started" in r.stderr and "[debug" not in r.stderr, r.stderr
    assert "\x1b[" not in r.stderr, "colour codes in a log that is not on a terminal"


def test_json_when_asked(tmp_path: Path) -> None:
    r = match_with_broken_bot(tmp_path / "out", "--log-format", "json", "-v")
    assert r.returncode == 2, r.stderr
    [line] = log_lines(r.stderr)
    event = json.loads(line)
    assert event["event"] == "bot.start_failed" and event["level"] == "info"
    assert event["seats"] == [0, 2] and event["entry"] == "broken"
    assert "exited with code 3" in event["error"] and "cannot load its model file weights.bin" in event["error"]


@pytest.mark.parametrize("value", ["auto", "xml"])
def test_other_formats_are_refused(value: str) -> None:
    r = subprocess.run([sys.executable, "-m", "arena", "--log-format", value, "check", "--help"], cwd=REPO,
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2
    assert "console or json" in r.stderr


def test_without_v_the_start_failure_is_printed_once(tmp_path: Path) -> None:
    """Not a log line and the summary both (issue 29): the summary only; -v adds the event."""
    r = match_with_broken_bot(tmp_path / "out")
    assert r.returncode == 2, r.stderr
    assert not log_lines(r.stderr) and r.stderr.count("cannot load its model file weights.bin") == 1, r.stderr
    assert "bot.started" not in r.stderr


def test_vv_adds_debug_events(tmp_path: Path) -> None:
    """-vv adds debug events to -v's info ones (-v: the test above; issue 29: they changed
    nothing in most commands)."""
    debug = match_with_broken_bot(tmp_path / "vv", "-vv")
    assert "bot.started" in debug.stderr and "[debug" in debug.stderr and "bot.stopped" in debug.stderr, debug.stderr
