"""The gRPC side: a real server on 127.0.0.1:0 in-process, and serve() in a real process."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import (
    Action,
    Bot,
    HandResult,
    MatchEnd,
    MatchEndReason,
    MatchInfo,
    Observation,
    Rules,
    Sena,
    envido,
    parse_cards,
    start_server,
)
from mus_sdk import convert as cv
from mus_sdk import handshake as hs
from sdk_helpers import REPO, make_observation


class RecordingBot(Bot):
    """Answers envido(min) with a seña; raises on request id 13; records hook calls."""

    name = "recorder"
    version = "9.9"
    author = "tests"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def on_match_start(self, match: MatchInfo) -> None:
        self.calls.append(f"start:{match.seat}")

    def decide(self, obs: Observation) -> Action | tuple[Action, Sena | None]:
        self.calls.append(f"decide:{obs.request_id}")
        if obs.request_id == 13:
            raise RuntimeError("boom")  # _RAISE_LINE
        assert obs.legal_actions.envido_range is not None
        return envido(obs.legal_actions.envido_range.min_amount), Sena.DOS_REYES

    def on_hand_end(self, summary: HandResult) -> None:
        self.calls.append(f"hand_end:{summary.hand}")

    def on_match_end(self, result: MatchEnd) -> None:
        self.calls.append(f"match_end:{result.winner_team}")


_RAISE_LINE = next(i for i, line in enumerate(Path(__file__).read_text().splitlines(), 1) if line.endswith("# _RAISE_LINE"))


class Stream:
    """Drives one Play stream one message at a time, as the arena does."""

    def __init__(self, stub: svc_grpc.BotServiceStub) -> None:
        self.q: queue.SimpleQueue[svc_pb.PlayRequest | None] = queue.SimpleQueue()
        self.responses = stub.Play(self._gen(), timeout=20)

    def _gen(self) -> Iterator[svc_pb.PlayRequest]:
        while (item := self.q.get()) is not None:
            yield item

    def send(self, **kwargs: object) -> None:
        self.q.put(svc_pb.PlayRequest(**kwargs))  # type: ignore[arg-type]

    def close(self) -> list[svc_pb.PlayResponse]:
        self.q.put(None)
        return list(self.responses)


@pytest.fixture
def served() -> Iterator[tuple[svc_grpc.BotServiceStub, RecordingBot, threading.Event]]:
    bot = RecordingBot()
    stopped = threading.Event()
    server, announce = start_server(bot, on_shutdown=stopped.set)
    assert announce.network == "tcp" and int(announce.address.rsplit(":", 1)[1]) > 0
    channel = grpc.insecure_channel(announce.target)
    try:
        yield svc_grpc.BotServiceStub(channel), bot, stopped
    finally:
        channel.close()
        server.stop(0)


def test_get_info(served: tuple[svc_grpc.BotServiceStub, RecordingBot, threading.Event]) -> None:
    """GetInfo answers name, version, author, protocol versions and the SDK id."""
    stub, _, _ = served
    info = stub.GetInfo(svc_pb.GetInfoRequest(protocol_versions=[1]), timeout=5)
    assert (info.name, info.version, info.author, list(info.protocol_versions)) == (
        "recorder",
        "9.9",
        "tests",
        [1],
    )
    assert info.sdk.startswith("mus-sdk-python/")
    assert info.skip_hand_ends is False  # RecordingBot has its own on_hand_end


def test_get_info_asks_to_skip_hand_ends_only_for_bots_without_the_hook() -> None:
    class Plain(Bot):
        def decide(self, obs: Observation) -> Action:
            return obs.legal_actions.fixed[0]

    from mus_sdk.server import BotServicer

    request = svc_pb.GetInfoRequest(protocol_versions=[1])
    assert BotServicer(Plain()).GetInfo(request, None).skip_hand_ends is True  # type: ignore[arg-type]
    assert BotServicer(RecordingBot()).GetInfo(request, None).skip_hand_ends is False  # type: ignore[arg-type]


def test_play_stream(served: tuple[svc_grpc.BotServiceStub, RecordingBot, threading.Event]) -> None:
    """Decisions name their request; a failing decide() is answered with a BotError (its
    type, message and traceback) and the stream lives on."""
    stub, bot, _ = served
    stream = Stream(stub)
    stream.send(match_start=cv.match_info_to_proto(MatchInfo("m", 1, (3,), 4, Rules())))
    stream.send(decision_request=cv.observation_to_proto(make_observation(request_id=7)))
    first = next(stream.responses)
    assert first.decision.request_id == 7
    assert cv.decision_from_proto(first.decision) == (7, envido(2), Sena.DOS_REYES)
    stream.send(decision_request=cv.observation_to_proto(make_observation(request_id=13)))  # raises
    stream.send(decision_request=cv.observation_to_proto(make_observation(request_id=14)))
    failed = next(stream.responses)
    assert failed.WhichOneof("message") == "error"
    assert (failed.error.request_id, failed.error.error_type, failed.error.message) == (13, "RuntimeError", "boom")
    # From the bot's decide() on: the SDK's own frame is not the bot author's business.
    trace = failed.error.traceback.splitlines()
    assert trace == [f'File "{__file__}", line {_RAISE_LINE}, in decide', '  raise RuntimeError("boom")  # _RAISE_LINE']
    assert next(stream.responses).decision.request_id == 14
    summary = HandResult(
        0,
        5,
        3,
        0,
        tuple(parse_cards("Ro 3c Co Ab") for _ in range(4)),
        (),
        (0, 0),
        (1, 0),
        False,
        None,
        "count",
    )
    stream.send(hand_end=cv.hand_summary_to_proto(summary))
    stream.send(match_end=cv.match_result_to_proto(MatchEnd((2, 0), 0, MatchEndReason.COMPLETED)))
    assert stream.close() == []
    assert bot.calls == ["start:1", "decide:7", "decide:13", "decide:14", "hand_end:5", "match_end:0"]


def test_shutdown_calls_back(served: tuple[svc_grpc.BotServiceStub, RecordingBot, threading.Event]) -> None:
    """Shutdown answers and triggers the serving loop's stop."""
    stub, _, stopped = served
    stub.Shutdown(svc_pb.ShutdownRequest(), timeout=5)
    assert stopped.wait(5)


BOT_SCRIPT = REPO / "bots" / "random" / "bot.py"


def _launch(env_extra: dict[str, str]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUS_ARENA_")}
    env.update(env_extra)
    return subprocess.Popen(
        [sys.executable, str(BOT_SCRIPT)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def test_serve_without_cookie_exits_with_a_friendly_message() -> None:
    """Run by hand, a bot explains itself on stderr and exits 1."""
    proc = _launch({})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and out == ""
    assert "mus-arena bot" in err and "mus match" in err


def test_serve_with_wrong_versions_exits() -> None:
    """No common protocol version is a clean exit 1 with a fix-it message."""
    proc = _launch({**hs.handshake_env(), hs.PROTOCOL_VERSIONS_ENV: "99"})
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and "no common protocol version" in err


@pytest.mark.parametrize("unix", [False, True])
def test_serve_handshake_info_and_shutdown(unix: bool) -> None:
    """The real process announces, answers GetInfo and a decision, and exits 0 on Shutdown."""
    # A short folder, as the arena makes: a unix socket's path has at most 107 bytes, and
    # pytest's tmp_path under xdist (…/popen-gw1/test_…0/) leaves too few for the name.
    socket_dir = tempfile.mkdtemp(prefix="mus-t-", dir="/tmp") if unix else None
    env = hs.handshake_env(socket_dir)
    proc = _launch(env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr is not None and proc.poll() is not None else "no announce"
        announce = hs.parse_line(line)
        assert announce.network == ("unix" if unix else "tcp")
        with grpc.insecure_channel(announce.target) as channel:
            stub = svc_grpc.BotServiceStub(channel)
            assert stub.GetInfo(svc_pb.GetInfoRequest(), timeout=10).name == "random"
            stream = Stream(stub)
            stream.send(decision_request=cv.observation_to_proto(make_observation(request_id=1)))
            reply = next(stream.responses)
            _, action, _ = cv.decision_from_proto(reply.decision)
            assert reply.decision.request_id == 1 and action in make_observation().legal_actions
            stream.close()
            stub.Shutdown(svc_pb.ShutdownRequest(), timeout=10)
        assert proc.wait(timeout=10) == 0
        if unix:
            assert not Path(announce.address).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        if socket_dir is not None:
            shutil.rmtree(socket_dir, ignore_errors=True)


def test_sigint_is_ignored(tmp_path: Path) -> None:
    """The arena owns the lifetime: Ctrl-C at the terminal does not stop the bot; SIGTERM does."""
    import signal
    import time

    proc = _launch(hs.handshake_env())
    try:
        assert proc.stdout is not None
        hs.parse_line(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def _servicer_notify(bot: Bot, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Send a hand end to a servicer of ``bot`` whose converter records its calls."""
    from mus_sdk import server as server_mod

    converted: list[str] = []

    def fake_convert(msg: object) -> str:
        converted.append("converted")
        return "summary"

    monkeypatch.setattr(server_mod, "hand_summary_from_proto", fake_convert)
    servicer = server_mod.BotServicer(bot)
    list(servicer.Play(iter([svc_pb.PlayRequest(hand_end=svc_pb.HandEnd())]), None))  # type: ignore[arg-type]
    return converted


def test_hooks_the_bot_does_not_override_are_not_converted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Notifications cost a bot nothing unless it has the hook (class or instance)."""

    class Plain(Bot):
        def decide(self, obs: Observation) -> Action:
            return obs.legal_actions.fixed[0]

    class Hooked(Plain):
        def __init__(self) -> None:
            self.seen: list[object] = []

        def on_hand_end(self, summary: HandResult) -> None:
            self.seen.append(summary)

    assert _servicer_notify(Plain(), monkeypatch) == []
    hooked = Hooked()
    assert _servicer_notify(hooked, monkeypatch) == ["converted"]
    assert hooked.seen == ["summary"]
    on_instance = Plain()
    seen: list[object] = []
    on_instance.on_hand_end = seen.append  # type: ignore[method-assign]
    assert _servicer_notify(on_instance, monkeypatch) == ["converted"]
    assert seen == ["summary"]
