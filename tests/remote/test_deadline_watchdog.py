"""RemoteBot's decision deadline (the watchdog timer, arena/remote/watchdog.py), against
a fake stream: each decision times out at its own deadline, however the deadlines of
the decisions before it were set, and never earlier."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import pytest
from mus.v1 import bot_service_pb2 as svc
from mus_core import Observation, Rules
from mus_core.state import MusState

from arena.referee.player import BotFault, DecisionTiming, FaultKind
from arena.remote import stream
from arena.remote.client import WRITE_TIMEOUT_S, RemoteBot
from arena.remote.inbox import MAX_MESSAGE_BYTES, Inbox
from arena.remote.manifest import BotAddress
from arena.remote.stream import StreamState
from arena.remote.watchdog import Watchdog
from arena.runtime.eventloop import STALL_GRACE_S, stall_meter


class FakeCall:
    """Answers each request after ``delays[request_id]`` seconds (absent: never); closes
    its side when the arena ends its own, if ``closes``."""

    def __init__(self, delays: dict[int, float], closes: bool = True) -> None:
        self.delays = delays
        self.closes = closes
        self.answers: asyncio.Queue[object] = asyncio.Queue()

    async def done_writing(self) -> None:
        if self.closes:
            self.answers.put_nowait(grpc.aio.EOF)

    def cancel(self) -> None:
        pass

    async def read(self) -> object:
        return await self.answers.get()

    async def write(self, data: bytes) -> None:
        rid = svc.PlayRequest.FromString(data).decision_request.request_id
        if rid in self.delays:
            answer = svc.PlayResponse()
            answer.decision.request_id = rid
            answer.decision.action.paso.SetInParent()
            asyncio.get_running_loop().call_later(self.delays[rid], self.answers.put_nowait,
                                                  answer.SerializeToString())


def a_view() -> Observation:
    state = MusState.new(Rules(), seed=1)
    assert state.to_act is not None
    return state.view(state.to_act)


def fake_bot(tmp_path: Path, delays: dict[int, float], call: FakeCall | None = None,
             write_timeout_s: float = WRITE_TIMEOUT_S) -> RemoteBot:
    """A bot whose match stream is ``call`` (else a FakeCall answering after ``delays``)."""
    bot = RemoteBot(BotAddress("fake", "127.0.0.1:1"), tmp_path, "s0")
    bot.write_timeout_s = write_timeout_s
    bot._stream.open(call or FakeCall(delays), MAX_MESSAGE_BYTES, bot.write_timeout_s)
    return bot


def watchdog(bot: RemoteBot) -> Watchdog:
    dog = bot._stream.watchdog
    assert dog is not None
    return dog


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
        fires_at = watchdog(bot).timer_at
        assert fires_at is not None
        loop.call_at(fires_at, task.cancel)  # scheduled after the watchdog: same turn
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())


def test_ending_the_stream_during_a_decision_keeps_its_deadline(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the bot from inside the loop while a decision waits (``close()`` schedules
    that) does not leave the decision waiting forever, with a bot that does not close
    its side either: it still times out."""
    monkeypatch.setattr(stream, "END_GRACE_S", 0.3)

    async def run() -> None:
        bot = fake_bot(tmp_path, {}, FakeCall({}, closes=False))
        loop = asyncio.get_running_loop()
        task = loop.create_task(timed_decide(bot, 1, 0.2))
        await asyncio.sleep(0.05)
        await bot._stream.end()
        outcome, took = await asyncio.wait_for(task, 2.0)
        assert outcome == "timeout" and took < 1.0

    asyncio.run(run())


def test_an_answer_arriving_as_its_wait_is_cancelled_is_kept() -> None:
    """The answer queue never loses an item: an answer put in the same loop turn as the
    waiting decision is cancelled (its deadline) is still there for the next get."""

    async def run() -> None:
        loop = asyncio.get_running_loop()
        inbox = Inbox(loop)
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


class SlowWriteCall(FakeCall):
    """As FakeCall, but each write takes ``write_s`` seconds (flow control holding it),
    and records whether a write was cancelled (grpc.aio then cancels the whole RPC)."""

    def __init__(self, delays: dict[int, float], write_s: float) -> None:
        super().__init__(delays)
        self.write_s = write_s
        self.write_cancelled = False

    async def write(self, data: bytes) -> None:
        try:
            await asyncio.sleep(self.write_s)
        except asyncio.CancelledError:
            self.write_cancelled = True
            raise
        await super().write(data)


def test_a_deadline_during_a_write_does_not_cancel_it(tmp_path: Path) -> None:
    """Request 1's write takes 0.3 s, past its 0.1 s deadline: the write finishes (no
    cancellation, which would cancel the stream), then the decision is a TIMEOUT; the
    late answer is dropped and request 2 is answered on the same stream."""

    async def run() -> None:
        call = SlowWriteCall({1: 0.0, 2: 0.0}, 0.3)
        bot = fake_bot(tmp_path, {}, call)
        outcome, took = await timed_decide(bot, 1, 0.1)
        assert outcome == "timeout" and 0.25 < took < 2.0
        assert not call.write_cancelled and bot._stream.state is StreamState.OPEN
        call.write_s = 0.0
        assert (await timed_decide(bot, 2, 1.0))[0] == "answered"

    asyncio.run(run())


def test_a_write_blocked_past_the_write_timeout_kills_the_stream(tmp_path: Path) -> None:
    """A bot that stopped reading: the write is given up after ``write_timeout_s`` (that
    decision is a TIMEOUT that says so), and the next decision is a CRASH at once."""

    async def run() -> None:
        call = SlowWriteCall({}, 3600.0)
        bot = fake_bot(tmp_path, {}, call, write_timeout_s=0.3)
        t0 = time.perf_counter()
        with pytest.raises(BotFault) as fault:
            await bot.decide(a_view(), 1, DecisionTiming(0.1, 100.0))
        assert fault.value.kind is FaultKind.TIMEOUT and "stopped reading its stream" in fault.value.detail
        assert 0.25 < time.perf_counter() - t0 < 2.0 and call.write_cancelled
        with pytest.raises(BotFault) as fault:
            await bot.decide(a_view(), 2, DecisionTiming(0.1, 100.0))
        assert fault.value.kind is FaultKind.CRASH and fault.value.detail == "the bot stopped reading its stream"

    asyncio.run(run())


def test_a_stall_of_the_arena_is_not_charged_to_the_bot(tmp_path: Path) -> None:
    """The loop does not run for 0.6 s (time.sleep in a callback: as SIGSTOP or a long GC)
    while a 0.3 s decision waits; the bot's answer came at 0.1 s. The deadline moves
    later by the stall: the answer is taken, not a TIMEOUT."""

    async def run() -> None:
        bot = fake_bot(tmp_path, {1: 0.1})
        asyncio.get_running_loop().call_later(0.05, time.sleep, 0.6)
        outcome, took = await timed_decide(bot, 1, 0.3)
        assert outcome == "answered" and took > 0.6
        assert watchdog(bot).stalled_s > 0.6

    asyncio.run(run())


def test_a_short_hiccup_is_not_a_stall() -> None:
    """Gaps below STALL_MIN_GAP_S are scheduling noise: no credit; a longer one is
    credited whole, plus the grace."""

    async def run() -> None:
        loop = asyncio.get_running_loop()
        meter = stall_meter(loop)
        start = meter.hold()
        time.sleep(0.05)  # below the threshold
        await asyncio.sleep(0.12)
        assert meter.check() == start
        time.sleep(0.5)
        credited = meter.release() - start
        assert 0.5 + STALL_GRACE_S <= credited < 0.5 + STALL_GRACE_S + 0.5
        assert meter.check() == start + credited  # released: nothing more is counted

    asyncio.run(run())
