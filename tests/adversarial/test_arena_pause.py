"""The arena process stopped in mid-match (issue 14, point 7): SIGSTOP for longer than
the decision deadline, then SIGCONT, as a paused VM or a debugger would. The seat the
referee was waiting on is not charged: no TIMEOUT (the deadline moves later by the
stall), no CRASH (a deadline never cancels the stream). The real ``mus match`` command
runs, with tagged bots: none may outlive it.

Against the arena before stall-aware deadlines, most pauses cost the waiting seat a
TIMEOUT, and some a cancelled stream: CRASH for the rest of the match."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from adversarial_helpers import TAG_ENV, TRIVIAL_BOT
from remote_helpers import proc_state, tagged_pids, wait_gone
from unprivileged import Runner

DECISION_MS = 400
PAUSE_S = 1.2
"""Three deadlines: a TIMEOUT for sure if the stall were charged."""
PAUSES = 3


@pytest.fixture
def tag() -> str:
    return f"adv-pause-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def tagged_trivial(runner: Runner, tag: str) -> Path:
    """A copy of bench/bots/trivial in the runner's home whose manifest carries the
    test's tag (the processes it leaves are found by it)."""
    folder = runner.copy_in(TRIVIAL_BOT, "trivial")
    (folder / "bot.toml").write_text(
        'name = "trivial"\ncommand = ["python", "bot.py"]\n'
        f'[env]\n{TAG_ENV} = "{tag}"\n'
    )
    return folder


def test_pausing_the_arena_charges_no_seat(runner: Runner, tag: str) -> None:
    """As root and as a normal user (the arena's process is the one stopped)."""
    bot = tagged_trivial(runner, tag)
    out = runner.home / "out"
    arena = runner.popen("match", str(bot), str(bot), "--out", str(out), "--games", "40",
                         "--decision-ms", str(DECISION_MS), "--max-faults", "1", "--seed", "3", "--json")
    try:
        deadline = time.monotonic() + 60
        while len(tagged_pids(tag)) < 4:  # the four bots run: the match starts
            assert arena.poll() is None, arena.communicate()
            assert time.monotonic() < deadline, "the bots did not start"
            time.sleep(0.05)
        time.sleep(1.0)  # mid-match
        paused = 0
        while paused < PAUSES and arena.poll() is None:
            os.kill(arena.pid, signal.SIGSTOP)
            try:
                time.sleep(PAUSE_S)
                # Z: the match ended (a forfeit) before the stop took: its result says why.
                assert proc_state(arena.pid) in ("T", "Z"), "the arena was not stopped"
            finally:
                os.kill(arena.pid, signal.SIGCONT)
            paused += 1
            time.sleep(0.3)
        still_running = arena.poll() is None
        stdout, stderr = arena.communicate(timeout=180)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    assert arena.returncode == 0, stderr.decode(errors="replace")
    result = json.loads(stdout)
    assert result["faults"] == [], result["faults"]
    assert paused == PAUSES and still_running, "the match ended before the last pause: make it longer"
    assert result["reason"] == "completed" and result["winner_team"] in (0, 1)
    # The stalls are not in the seats' times either (each decision is far below its deadline).
    assert all(seat["max_decision_ms"] < DECISION_MS for seat in result["seats"]), result["seats"]
    assert wait_gone(tag, timeout_s=5.0) == []
    assert tagged_pids(tag) == []
