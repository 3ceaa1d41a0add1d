"""RemoteBot's decision deadline (the watchdog timer in arena/remote/client.py), against
a fake stream: each decision times out at its own deadline, however the deadlines of
the decisions before it were set, and never earlier."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from mus.v1 import bot_service_pb2 as svc

from arena.engine import MusState, Rules, SeatView
from arena.referee.player import BotFault, DecisionTiming, FaultKind
from arena.remote.client import RemoteBot, _Inbox
from arena.remote.manifest import BotAddress


class FakeCall:
    """Answers each request after ``delays[request_id]`` seconds (absent: never)."""

    def __init__(self, recv: _Inbox, delays: dict[int, float]) -> None:
        self.recv = recv
        self.delays = delays

    async def done_writing(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    async def write(self, data: bytes) -> None:
        rid = svc.PlayRequest.FromString(data).decision_request.request_id
        if rid in self.delays:
            answer = svc.PlayResponse()
            answer.decision.request_id = rid
            answer.decision.action.paso.SetInParent()
            asyncio.get_running_loop().call_later(self.delays[rid], self.recv.put, answer)


def a_view() -> SeatView:
    state = MusState.new(Rules(), seed=1)
    assert state.to_act is not None
    return state.view(state.to_act)


def fake_bot(tmp_path: Path, delays: dict[int, float]) -> RemoteBot:
    bot = RemoteBot(BotAddress("fake", "127.0.0.1:1"), tmp_path, "s0")
    bot._loop = asyncio.get_running_loop()
    bot._recv = _Inbox(bot._loop)
    bot._call = FakeCall(bot._recv, delays)
    return bot


async def timed_decide(bot: RemoteBot, rid: int, deadline_s: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    try:
        await bot.decide(a_view(), rid, DecisionTiming(deadline_s, 100.0))
        outcome = "answered"
    except BotFault as exc:
        assert exc.kind is FaultKind.TIMEOUT
        outcome = "timeout"
    return outcome, time.perf_counter() - t0


def test_a_shorter_deadline_than_the_last_one_is_kept(tmp_path: Path) -> None:
    """A 5 s decision answered at once arms the timer for 5 s; the next decision's
    0.2 s deadline (its time bank nearly spent) still fires at 0.2 s."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {1: 0.0})
        assert (await timed_decide(bot, 1, 5.0))[0] == "answered"
        outcome, took = await timed_decide(bot, 2, 0.2)
        assert outcome == "timeout" and 0.19 < took < 1.0

    asyncio.run(run())


def test_deadlines_that_move_later_never_fire_early(tmp_path: Path) -> None:
    """Twelve 0.15 s decisions answered after 40 ms each span 0.5 s: the timer armed
    for the first must re-arm itself, not time out a later decision."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {rid: 0.04 for rid in range(1, 13)})
        outcomes = [await timed_decide(bot, rid, 0.15) for rid in range(1, 13)]
        assert [o for o, _ in outcomes] == ["answered"] * 12

    asyncio.run(run())


def test_after_a_timeout_the_next_decision_works_and_the_late_answer_is_dropped(tmp_path: Path) -> None:
    """The timed-out task is uncancelled (its next await is not cancelled) and the late
    answer to request 1, arriving during request 2, is discarded, not taken for 2's."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {1: 0.3, 2: 0.3})
        outcome, took = await timed_decide(bot, 1, 0.1)
        assert outcome == "timeout" and took < 0.3
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
        outcome, took = await timed_decide(bot, 2, 1.0)
        assert outcome == "answered" and took >= 0.29
        await asyncio.sleep(0)  # still not cancelled

    asyncio.run(run())


def test_a_cancel_from_outside_is_not_a_timeout(tmp_path: Path) -> None:
    """Stopping the match (cancelling its task) cancels the wait: no fault is made up."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {})
        task = asyncio.get_running_loop().create_task(bot.decide(a_view(), 1, DecisionTiming(5.0, 100.0)))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())


def test_an_outside_cancel_at_the_deadline_wins(tmp_path: Path) -> None:
    """Cancelled from outside in the same loop turn as the timeout fires: the outside
    cancellation is not swallowed by the timeout fault."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {})
        loop = asyncio.get_running_loop()
        task = loop.create_task(bot.decide(a_view(), 1, DecisionTiming(0.1, 100.0)))
        await asyncio.sleep(0.01)
        assert bot._watchdog is not None
        loop.call_at(bot._watch_at, task.cancel)  # scheduled after the watchdog: same turn
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())


def test_ending_the_stream_during_a_decision_keeps_its_deadline(tmp_path: Path) -> None:
    """Closing the bot from inside the loop while a decision waits (``close()`` schedules
    that) does not leave the decision waiting forever: it still times out."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {})
        loop = asyncio.get_running_loop()
        task = loop.create_task(timed_decide(bot, 1, 0.2))
        await asyncio.sleep(0.05)
        await bot._end_stream()
        outcome, took = await asyncio.wait_for(task, 2.0)
        assert outcome == "timeout" and took < 1.0

    asyncio.run(run())


def test_an_answer_arriving_as_its_wait_is_cancelled_is_kept() -> None:
    """The answer queue never loses an item: an answer put in the same loop turn as the
    waiting decision is cancelled (its deadline) is still there for the next get."""

    async def run() -> None:
        loop = asyncio.get_running_loop()
        inbox = _Inbox(loop)
        waiting = loop.create_task(inbox.get())
        await asyncio.sleep(0)  # the task now waits
        inbox.put("answer")  # wakes the waiter...
        waiting.cancel()  # ...which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await asyncio.wait_for(inbox.get(), 1.0) == "answer"
        inbox.put("next")
        inbox.put("after")
        assert [await inbox.get(), await inbox.get()] == ["next", "after"]

    asyncio.run(run())
