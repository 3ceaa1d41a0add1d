"""One test bot per fault, each getting its documented outcome (arena/referee/policy.py):
the referee plays the seat's safe default and records the fault; after ``max_faults``
faults by one seat its team forfeits. The match always finishes, the hand log is whole
(checked by ``play``), and no process is left behind (checked by the ``spawn`` fixture)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from remote_helpers import Played, close_all, config, pid_alive, play, restart, wait_gone

from arena.referee.player import FaultKind
from arena.remote.output import LOG_CAP_BYTES
from arena.remote.process import BotStartError

MAX_FAULTS = 3


def assert_forfeit(played: Played, seat: int, kind: FaultKind) -> None:
    """``seat`` committed ``MAX_FAULTS`` faults of ``kind``, nobody else any, and its team lost."""
    r = played.result
    assert [(f.seat, f.kind) for f in r.faults] == [(seat, kind)] * MAX_FAULTS, r.faults
    assert r.reason.value == "forfeit"
    assert r.winner_team == 1 - seat % 2
    assert r.detail == f"S{seat} ({played.names[seat]}) reached {MAX_FAULTS} faults"
    assert played.notify_errors == []


def assert_completed(played: Played) -> None:
    r = played.result
    assert r.reason.value == "completed" and r.winner_team in (0, 1) and r.games_won[r.winner_team] == 1
    assert played.notify_errors == []


def step_of(played: Played, request_id: int) -> dict:  # type: ignore[type-arg]
    return next(s for h in played.hands for s in h["steps"] if s["id"] == request_id)


# --------------------------------------------------------------------------- start


def test_never_announces(spawn) -> None:
    bot = spawn("no_announce", connect=False, start_timeout_s=1.0)
    t0 = time.monotonic()
    with pytest.raises(BotStartError) as err:
        bot.connect()
    message = str(err.value)
    assert "did not announce its address within 1 s" in message
    assert "testbot: I will never announce" in message  # its stderr, quoted
    assert time.monotonic() - t0 < 2.5
    assert not bot.process.alive()


def test_announces_garbage(spawn) -> None:
    bot = spawn("garbage_announce", connect=False)
    with pytest.raises(BotStartError, match="announced 'hello, I am not an announce line'"):
        bot.connect()
    assert not bot.process.alive()


def test_crashes_at_start(spawn) -> None:
    bot = spawn("crash_start", connect=False)
    with pytest.raises(BotStartError) as err:
        bot.connect()
    message = str(err.value)
    assert "exited with code 3 before announcing its address" in message
    assert "testbot: starting\n  testbot: cannot find my brain, giving up" in message
    assert bot.process.proc.returncode == 3


# --------------------------------------------------------------------------- in the match


def test_crashes_mid_hand_then_restarts(spawn, pool, tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    bot = spawn("crash_mid", MUS_TEST_AT="3", MUS_TEST_MARKER=str(marker))
    played = play(pool.table(bot, 1), config())
    assert_forfeit(played, 1, FaultKind.CRASH)
    first = played.result.faults[0]
    assert played.hands[first.hand]["steps"][0]["id"] < first.request_id, "crashed mid-hand"
    assert all("stream broken" in f.detail for f in played.result.faults)
    assert bot.process.proc.wait(2) == 7
    # A crash costs no deadline: the referee notices the dead stream at once.
    assert played.result.seats[1].max_decision_s < 0.3
    assert "testbot: crashing at request" in (bot.log_dir / f"{bot.label}.stderr.log").read_text()
    assert marker.exists() and bot.is_dead()

    restart(bot)  # as before the next match
    assert not bot.is_dead()
    again = play(pool.table(bot, 1), config(match_id="after-restart"))
    assert_completed(again)
    assert again.result.faults == []


def test_hangs_in_decide(spawn, pool) -> None:
    bot = spawn("hang", MUS_TEST_AT="2")
    played = play(pool.table(bot, 2), config())
    assert_forfeit(played, 2, FaultKind.TIMEOUT)
    seat = played.result.seats[2]
    assert seat.time_used_s >= 3 * 0.3
    assert all("no answer within 300 ms" in f.detail for f in played.result.faults)


def test_stops_reading_its_stream(spawn, pool) -> None:
    """A bot that stops reading: each request times out until flow control blocks the
    arena's write. The deadline does not cancel that write (that would cancel the
    stream, as a stall of the arena could): it stays blocked for the write timeout, and
    only then is the stream dead (that decision a TIMEOUT, the seat's later decisions
    crashes at once)."""
    bot = spawn("deaf", MUS_TEST_AT="2", MUS_TEST_SKIP_HAND_ENDS="1")
    bot.write_timeout_s = 1.0
    played = play(pool.table(bot, 1), config(decision_ms=50, max_faults=0))
    # The other seats' bots answer at once, but 50 ms is tight for a process on a loaded
    # machine: one missed it in CI. Their faults can only be such timeouts; seat 1's are
    # the ones this test is about.
    others = [f for f in played.result.faults if f.seat != 1]
    assert all(f.kind is FaultKind.TIMEOUT for f in others), others
    faults = [f for f in played.result.faults if f.seat == 1]
    kinds = [f.kind for f in faults]
    timeouts = kinds.index(FaultKind.CRASH)
    assert timeouts >= 2 and set(kinds[:timeouts]) == {FaultKind.TIMEOUT}
    assert set(kinds[timeouts:]) == {FaultKind.CRASH}, "once the blocked write is given up, the stream is dead"
    assert "the bot stopped reading its stream (a write blocked for 1 s)" in faults[timeouts - 1].detail
    assert faults[timeouts].detail == "the bot stopped reading its stream"
    # The blocked write waited its timeout, not the 50 ms deadline; nothing waited longer.
    blocked = step_of(played, faults[timeouts - 1].request_id)
    assert 900 <= blocked["ms"] and played.result.seats[1].max_decision_s < 3.0
    assert played.result.reason.value == "completed"


def test_answers_late(spawn, pool) -> None:
    """The late answer is discarded, not taken for the answer to the next request."""
    bot = spawn("late", MUS_TEST_AT="2", MUS_TEST_DELAY_MS="600")
    played = play(pool.table(bot, 3), config(decision_ms=400))
    assert_completed(played)
    [fault] = played.result.faults
    assert (fault.seat, fault.kind) == (3, FaultKind.TIMEOUT)
    late_ids = [s["id"] for h in played.hands for s in h["steps"] if s["seat"] == 3]
    assert fault.request_id == late_ids[1]
    # The next request was asked while the late answer was on its way (the bot answers
    # in order): it waited for it, discarded it, and took the right one.
    following = step_of(played, late_ids[2])
    assert "fault" not in following and 100 < following["ms"] < 400


def test_answers_an_old_request_id(spawn, pool) -> None:
    bot = spawn("wrong_id", MUS_TEST_AT="2")
    played = play(pool.table(bot, 0), config())
    assert_forfeit(played, 0, FaultKind.WRONG_REQUEST)
    ids = [s["id"] for h in played.hands for s in h["steps"] if s["seat"] == 0]
    faults = played.result.faults
    assert faults[0].request_id == ids[1]  # its first answer was right
    assert [f.detail for f in faults] == [f"answered request {ids[0]}, asked {f.request_id}" for f in faults]


def test_answers_twice(spawn, pool) -> None:
    """A second answer to a request is one fault (at the next request), not a shift of
    every later answer by one."""
    bot = spawn("duplicate", MUS_TEST_AT="2")
    played = play(pool.table(bot, 1), config())
    assert_completed(played)
    [fault] = played.result.faults
    assert (fault.seat, fault.kind) == (1, FaultKind.WRONG_REQUEST)


def test_sends_an_illegal_action(spawn, pool) -> None:
    bot = spawn("illegal")
    played = play(pool.table(bot, 2), config())
    assert_forfeit(played, 2, FaultKind.ILLEGAL_ACTION)


def test_bets_envido_1(spawn, pool) -> None:
    bot = spawn("envido_low")
    played = play(pool.table(bot, 1), config())
    assert_forfeit(played, 1, FaultKind.ILLEGAL_ACTION)
    assert all("envido 1 is not legal" in f.detail for f in played.result.faults)


def test_bets_a_huge_envido(spawn, pool) -> None:
    bot = spawn("envido_huge")
    played = play(pool.table(bot, 3), config())
    assert_forfeit(played, 3, FaultKind.MALFORMED)
    assert all("envido amount 4294967295 is out of range" in f.detail for f in played.result.faults)


def test_answers_without_an_action(spawn, pool) -> None:
    bot = spawn("no_action")
    played = play(pool.table(bot, 0), config())
    assert_forfeit(played, 0, FaultKind.MALFORMED)


def test_sends_a_message_over_1_mib(spawn, pool) -> None:
    bot = spawn("huge_message")
    played = play(pool.table(bot, 2), config())
    assert_forfeit(played, 2, FaultKind.CRASH)
    assert "RESOURCE_EXHAUSTED" in played.result.faults[0].detail


def test_default_actions_are_the_documented_ones(spawn, pool) -> None:
    """policy.py: no-mus in the mus phase, paso with no bet, no-quiero to a bet."""
    bot = spawn("no_action")
    played = play(pool.table(bot, 0), config(max_faults=0))
    assert_completed(played)
    faulted = [s for h in played.hands for s in h["steps"] if "fault" in s]
    assert faulted and all(s["seat"] == 0 and s["fault"]["kind"] == "malformed" for s in faulted)
    assert {s["action"] for s in faulted} <= {"no-mus", "paso", "no-quiero"}
    assert {"no-mus", "paso"} <= {s["action"] for s in faulted}


# --------------------------------------------------------------------------- output and processes


def test_floods_stdout(spawn, pool) -> None:
    flood = 50 * 1024 * 1024
    bot = spawn("flood", MUS_TEST_FLOOD_MB="50")
    played = play(pool.table(bot, 1), config(decision_ms=2000))
    assert_completed(played)
    assert played.result.faults == []
    deadline = time.monotonic() + 20
    while bot.process.stdout_bytes < flood or bot.process.stderr_bytes < flood:
        assert time.monotonic() < deadline, "the flood was not drained"
        time.sleep(0.05)
    close_all([bot])
    assert (bot.process.stdout_bytes, bot.process.stderr_bytes) == (flood, flood)
    for stream in ("stdout", "stderr"):
        assert (bot.log_dir / f"{bot.label}.{stream}.log").stat().st_size == LOG_CAP_BYTES


def test_child_process_does_not_outlive_its_bot(spawn, pool, tag: str, tmp_path: Path) -> None:
    """The bot's child ignores SIGTERM and would sleep for an hour: the group is killed."""
    bot = spawn("spawn_child")
    child = int((tmp_path / "child.pid").read_text())
    assert pid_alive(child)
    played = play(pool.table(bot, 2), config())
    assert_completed(played)
    close_all([bot])
    assert wait_gone(tag, [child, bot.process.pid]) == []


def test_stubborn_bot_is_killed(spawn, pool) -> None:
    """A bot that ignores Shutdown and SIGTERM gets SIGKILL."""
    bot = spawn("stubborn")
    played = play(pool.table(bot, 3), config())
    assert_completed(played)
    t0 = time.monotonic()
    bot.close()
    assert time.monotonic() - t0 < 5
    assert bot.process.proc.returncode == -signal.SIGKILL


def test_escaped_process_does_not_hang_the_arena(spawn, pool, tmp_path: Path) -> None:
    """A bot leaves a process in a session of its own holding its stdout and stderr:
    closing the bot must not wait for that process (which the arena cannot reach
    through the bot's process group)."""
    bot = spawn("escape")
    escaped = int((tmp_path / "escaped.pid").read_text())
    try:
        played = play(pool.table(bot, 0), config())
        assert_completed(played)
        t0 = time.monotonic()
        bot.close()
        assert time.monotonic() - t0 < 5  # it used to wait for the escaped process
        assert not pid_alive(bot.process.pid)
    finally:
        if pid_alive(escaped):
            os.kill(escaped, signal.SIGKILL)
