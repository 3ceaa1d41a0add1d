"""The arena process stopped in mid-match (issue 14, point 7): SIGSTOP for longer than
the decision deadline, then SIGCONT, as a paused VM or a debugger would. The seat the
referee was waiting on is not charged: no TIMEOUT (the deadline moves later by the
stall), no CRASH (a deadline never cancels the stream). The real ``mus match`` command
runs, with tagged bots: none may outlive it. Once the match has gone on for a few hands
after the last pause, the arena is sent SIGTERM, which stops it as Ctrl-C does (exit
130, the finished hands kept); SIGTERM used to kill ``mus match`` without a word.

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

DECISION_MS = 1000
"""A trivial bot answers in about a millisecond, but on a machine busy with other work
(two test suites at once) a 400 ms deadline was once missed by the machine's doing."""
PAUSE_S = 2.5
"""Two and a half deadlines: a TIMEOUT for sure if the stall were charged."""
PAUSES = 3
GAMES = 400
"""Games to win: far more than the test needs. Trivial bots play 40 games (~900 hands) in
about 3.5 s on a quiet machine, shorter than the test's running time between and after
its pauses: a fresh-clone CI run once saw such a match end by itself before the third
pause. The match ends by the test's SIGTERM, never by itself."""


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


def _hands(log: Path) -> list[dict[str, object]]:
    """The hands logged so far (a line being written is left for later)."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            break
        if record.get("type") == "hand":
            out.append(record)
    return out


def test_pausing_the_arena_charges_no_seat(runner: Runner, tag: str) -> None:
    """As root and as a normal user (the arena's process is the one stopped)."""
    bot = tagged_trivial(runner, tag)
    out = runner.home / "out"
    log = out / "match-3.jsonl"
    arena = runner.popen("match", str(bot), str(bot), "--out", str(out), "--games", str(GAMES),
                         "--decision-ms", str(DECISION_MS), "--max-faults", "1", "--seed", "3")
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
        # The match goes on: three more hands, then SIGTERM.
        after = len(_hands(log)) + 3
        deadline = time.monotonic() + 60
        while len(_hands(log)) < after and arena.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        still_running = arena.poll() is None
        arena.send_signal(signal.SIGTERM)
        _, stderr = arena.communicate(timeout=60)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    if not (paused == PAUSES and still_running):  # say why it ended: a seat charged, or the machine
        faults = [step for hand in _hands(log) for step in hand["steps"] if "fault" in step]  # type: ignore[attr-defined]
        raise AssertionError(f"the match ended after {paused} of {PAUSES} pauses; faults {faults[-3:]}; "
                             f"stderr: {stderr.decode(errors='replace')[-1500:]}")
    assert arena.returncode == 130, stderr.decode(errors="replace")
    assert f"interrupted; finished hands are in {log}" in stderr.decode(errors="replace")
    hands = _hands(log)
    assert len(hands) >= after, (len(hands), after)
    steps = [step for hand in hands for step in hand["steps"]]  # type: ignore[attr-defined]
    # No seat was charged for a stall: no fault, and every decision far below its deadline.
    assert [step for step in steps if "fault" in step] == []
    assert max(step["ms"] for step in steps) < DECISION_MS, max(step["ms"] for step in steps)
    assert wait_gone(tag, timeout_s=5.0) == []
    assert tagged_pids(tag) == []
