"""One match's Play stream (arena/remote/stream.py): its states in order, the first reason
for its end kept, and nothing written once it is not open. Over the in-memory call of
arena.remote.fake."""

from __future__ import annotations

import asyncio

import pytest
from mus.v1 import bot_service_pb2 as svc

from arena.remote import stream as stream_mod
from arena.remote.fake import FakeCall, FakeChannel, Reply, decision, simple
from arena.remote.inbox import BOT_CLOSED, MAX_MESSAGE_BYTES
from arena.remote.stream import ENDED_BY_ARENA, NOT_OPENED, PlayStream, StreamState


def request(request_id: int) -> bytes:
    msg = svc.PlayRequest()
    msg.decision_request.request_id = request_id
    msg.decision_request.legal_actions.add().paso.SetInParent()
    data: bytes = msg.SerializeToString()
    return data


def opened(channel: FakeChannel) -> PlayStream:
    call = channel.stream_stream(stream_mod.PLAY_METHOD)()
    assert isinstance(call, FakeCall)
    stream = PlayStream()
    assert stream.state is StreamState.NEW and stream.reason == NOT_OPENED
    stream.open(call, MAX_MESSAGE_BYTES, write_timeout_s=5.0)
    assert stream.state is StreamState.OPEN
    return stream


def test_a_bot_that_closes_its_side_ends_cleanly() -> None:
    """OPEN, then ENDING while the bot reads the rest, then CLOSED by the bot: a clean end."""

    async def run() -> None:
        channel = FakeChannel(simple)
        stream = opened(channel)
        await stream.write(request(1), deadline_s=1.0)
        assert stream.watchdog is not None and stream.watchdog.task is not None  # the answer is owed
        stream.watchdog.end()
        await stream.end()
        assert (stream.state, stream.reason, stream.ended_cleanly) == (StreamState.CLOSED, BOT_CLOSED, True)
        await stream.end()  # idempotent
        assert stream.ended_cleanly

    asyncio.run(run())


def test_a_bot_that_keeps_its_side_open_is_cut_and_nothing_more_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot still owing a reply past the end's grace: the arena ends the stream (not a
    clean end), and a later write does not reach the call."""
    monkeypatch.setattr(stream_mod, "END_GRACE_S", 0.1)

    def slow(req: svc.DecisionRequest) -> Reply:
        return Reply([decision(req.request_id, svc.PlayResponse().decision.action)], delay_s=60.0)

    async def run() -> None:
        channel = FakeChannel(slow)
        stream = opened(channel)
        await stream.write(request(1))
        await stream.end()
        assert (stream.state, stream.reason, stream.ended_cleanly) == (StreamState.CLOSED, ENDED_BY_ARENA, False)
        await stream.write(request(2))
        assert len(channel.requests) == 1

    asyncio.run(run())


def test_the_first_reason_stands() -> None:
    """A stream given up for one reason and then cancelled keeps the first reason; a
    closed stream writes nothing."""

    async def run() -> None:
        channel = FakeChannel(simple)
        stream = opened(channel)
        stream.close_because("the bot stopped reading its stream")
        stream.close_because("stream cancelled")
        assert (stream.state, stream.reason) == (StreamState.CLOSED, "the bot stopped reading its stream")
        await stream.write(request(1), deadline_s=1.0)  # a dead stream: not written, no wait begun
        assert channel.requests == [] and stream.watchdog is not None and stream.watchdog.task is None
        await stream.end()
        assert stream.reason == "the bot stopped reading its stream" and not stream.ended_cleanly

    asyncio.run(run())
