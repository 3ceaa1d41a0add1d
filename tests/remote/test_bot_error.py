"""A bot that says "I failed" (issue 15 item 1): a Python SDK bot whose ``decide()``
raises answers with a ``BotError``; the arena charges a BOT_ERROR fault at once (not at
the deadline), with the exception's type, message and the first lines of its traceback
in the fault's detail and the hand log. A bot that answers nothing on error (the SDK
before ``BotError``, or a bot in another language) still gets TIMEOUT faults."""

from __future__ import annotations

from remote_helpers import Played, config, play

from arena.referee.player import FaultKind

MAX_FAULTS = 3
LONG_DEADLINE_MS = 5000
"""Long enough that a fault charged at the deadline would show: 3 faults take 15 s."""


def assert_forfeit_by(played: Played, seat: int, kind: FaultKind) -> None:
    """``seat`` committed ``MAX_FAULTS`` faults of ``kind``, nobody else any, and its team lost."""
    r = played.result
    assert [(f.seat, f.kind) for f in r.faults] == [(seat, kind)] * MAX_FAULTS, r.faults
    assert r.reason.value == "forfeit" and r.winner_team == 1 - seat % 2


def test_exception_in_decide_is_a_bot_error_charged_at_once(spawn, pool) -> None:  # type: ignore[no-untyped-def]
    bot = spawn("raise", MUS_TEST_AT="2")
    played = play(pool.table(bot, 1), config(decision_ms=LONG_DEADLINE_MS, max_faults=MAX_FAULTS))
    assert_forfeit_by(played, 1, FaultKind.BOT_ERROR)
    # Charged when the answer came, not at the 5 s deadline (15 s for the three).
    assert played.seconds < LONG_DEADLINE_MS / 1000 / 2, played.seconds
    assert played.result.seats[1].max_decision_s < 1.0
    steps = {s["id"]: s for h in played.hands for s in h["steps"]}
    for f in played.result.faults:
        head, *trace = f.detail.splitlines()
        assert head == f"ValueError: testbot: raising as asked at request {f.request_id}"
        # The traceback starts at the bot's decide() (the SDK's own frame is left out),
        # and goes down to the helper that raised.
        assert trace[0].startswith('    File "') and trace[0].endswith(", in decide"), f.detail
        assert "bot.py" in trace[0]
        assert trace[1] == "      explode(obs.request_id)"
        assert trace[-1] == '      raise ValueError(f"testbot: raising as asked at request {request_id}")'
        # The hand log's fault record carries the same detail.
        assert steps[f.request_id]["fault"] == {"kind": "bot_error", "detail": f.detail}
    bot.close()
    stderr = bot.process.stderr_log.read_text()
    assert "mus_sdk: exception in bot decide()" in stderr and "Traceback (most recent call last)" in stderr


def test_bot_that_answers_nothing_on_error_still_times_out(spawn, pool) -> None:  # type: ignore[no-untyped-def]
    """The old behaviour, kept for bots that never send BotError: TIMEOUT at the deadline."""
    bot = spawn("raise_silent", MUS_TEST_AT="2")
    played = play(pool.table(bot, 2), config(max_faults=MAX_FAULTS))
    assert_forfeit_by(played, 2, FaultKind.TIMEOUT)
    assert all(f.detail == "no answer within 300 ms" for f in played.result.faults)
    assert played.result.seats[2].time_used_s >= MAX_FAULTS * 0.3
    bot.close()
    assert "ValueError: testbot: raising as asked" in bot.process.stderr_log.read_text()
