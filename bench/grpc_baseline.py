"""Raw gRPC round-trip baseline on loopback, to choose the bot protocol's call shape.

Measures, with a trivial echo servicer running in separate processes:

* ``unary``: sequential unary round trips per second;
* ``stream``: sequential message round trips per second on one open bidirectional
  stream (send one message, wait for the answer, repeat);
* ``stream_rr4``: the shape of a real match, four server processes (one per seat) and
  one client that sends to them in turn, one message in flight at a time;

* ``sdk_stream_rr4``: the same match shape against four real SDK bots
  (``bots/random/bot.py`` under ``mus_sdk.serve``), sending a realistic pre-serialised
  ``DecisionRequest`` and waiting for each ``Decision``: the ceiling of the protocol
  with the SDK's decode/convert/decide/encode path and no referee work;

* ``session_rr4_aio``: the shape and client of the arena exactly: four servers, the
  ``grpc.aio`` client (the arena's), and each stream opened by one message that gets no
  answer (the arena's match start) before the round trips.

over TCP (``127.0.0.1:0``) and a unix socket, with the servers implemented with the sync
``grpc.server`` (what ``mus_sdk.serve`` uses) and with ``grpc.aio``. The other clients are
the sync API. Payloads are raw bytes sized like a decision request (~300 bytes) and a
decision (~16 bytes), so protobuf costs are excluded: this is the transport's ceiling,
not the protocol's.

``session_rr4_aio`` is the baseline that stands for the arena's transport (same client
API, same stream shape). Beware of an echo server that also answers the opening
message: the client then always finds the previous answer waiting, and the "round
trips" are pipelined (we measured that artefact at about 1.7x the true rate).

Usage::

    .venv/bin/python bench/grpc_baseline.py [--seconds 2] [--quick] [--halt-poll-ns NS]

Prints one JSON object (the last line of stdout) with rates in round trips per second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import queue
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import AbstractContextManager
from typing import Any

# The transport tuning the arena and the bots it launches run with (arena/remote/
# grpc_tuning.py), in this process and (inherited) in its echo servers;
# MUS_GRPC_TUNING=0 measures grpcio's defaults instead.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from arena.remote import grpc_tuning

grpc_tuning.tune()
import grpc  # noqa: E402
from _machine import halt_poll, machine  # noqa: E402

SERVICE = "bench.Echo"
UNARY = f"/{SERVICE}/Unary"
STREAM = f"/{SERVICE}/Stream"
REQUEST = b"x" * 300
REPLY = b"y" * 16


def _identity(b: bytes) -> bytes:
    return b


# ---------------------------------------------------------------------------- servers
def _unary(request: bytes, context: Any) -> bytes:
    return REPLY


def _stream(requests: Iterator[bytes], context: Any) -> Iterator[bytes]:
    for _ in requests:
        yield REPLY


def _session(requests: Iterator[bytes], context: Any) -> Iterator[bytes]:
    """Like ``_stream``, but the first message (the opening notification) gets no answer."""
    for i, _ in enumerate(requests):
        if i:
            yield REPLY


def _handlers() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Unary": grpc.unary_unary_rpc_method_handler(_unary, _identity, _identity),
            "Stream": grpc.stream_stream_rpc_method_handler(_stream, _identity, _identity),
            "Session": grpc.stream_stream_rpc_method_handler(_session, _identity, _identity),
        },
    )


def serve_sync(address: str) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((_handlers(),))
    port = server.add_insecure_port(address)
    server.start()
    print(address.replace(":0", f":{port}") if address.endswith(":0") else address, flush=True)
    server.wait_for_termination()


async def _aio_unary(request: bytes, context: Any) -> bytes:
    return REPLY


async def _aio_stream(requests: Any, context: Any) -> Any:
    async for _ in requests:
        yield REPLY


async def _aio_session(requests: Any, context: Any) -> Any:
    first = True
    async for _ in requests:
        if not first:
            yield REPLY
        first = False


def serve_aio(address: str) -> None:
    async def main() -> None:
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    SERVICE,
                    {
                        "Unary": grpc.unary_unary_rpc_method_handler(_aio_unary, _identity, _identity),
                        "Stream": grpc.stream_stream_rpc_method_handler(_aio_stream, _identity, _identity),
                        "Session": grpc.stream_stream_rpc_method_handler(_aio_session, _identity, _identity),
                    },
                ),
            )
        )
        port = server.add_insecure_port(address)
        await server.start()
        print(address.replace(":0", f":{port}") if address.endswith(":0") else address, flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


# ---------------------------------------------------------------------------- clients
def _time_loop(fn: Any, seconds: float) -> float:
    """Call ``fn()`` (one round trip) repeatedly for ``seconds``; return calls/s."""
    for _ in range(200):  # warm-up: connection, thread pools, caches
        fn()
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            fn()
        n += 100
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def bench_unary(address: str, seconds: float) -> float:
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(UNARY, _identity, _identity)
        return _time_loop(lambda: call(REQUEST, timeout=10), seconds)


class _PingPong:
    """One open bidi stream driven one message at a time, as the arena drives a seat."""

    def __init__(self, channel: grpc.Channel, method: str = STREAM, first: bytes | None = None) -> None:
        self._q: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._request = REQUEST if first is None else _sdk_request()
        if first is not None:
            self._q.put(first)  # a notification: no answer expected
        self._responses = channel.stream_stream(method, _identity, _identity)(self._requests())

    def _requests(self) -> Iterator[bytes]:
        while (item := self._q.get()) is not None:
            yield item

    def round_trip(self) -> bytes:
        self._q.put(self._request)
        return next(self._responses)

    def close(self) -> None:
        self._q.put(None)
        for _ in self._responses:
            pass


def bench_stream(
    addresses: list[str], seconds: float, method: str = STREAM, first: bytes | None = None
) -> float:
    channels = [grpc.insecure_channel(a) for a in addresses]
    streams = [_PingPong(c, method, first) for c in channels]
    i = 0

    def one() -> None:
        nonlocal i
        streams[i].round_trip()
        i = (i + 1) % len(streams)

    try:
        return _time_loop(one, seconds)
    finally:
        for s in streams:
            s.close()
        for c in channels:
            c.close()


OPENING = b"o" * 60
"""The opening notification of a session stream (sized like a match start)."""
SESSION = f"/{SERVICE}/Session"


def bench_session_aio(
    addresses: list[str],
    seconds: float,
    method: str = SESSION,
    opening: bytes = OPENING,
    request: bytes = REQUEST,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
) -> float:
    """Round trips per second as the arena drives its seats: the ``grpc.aio`` client, one
    stream per server opened by ``opening`` (no answer expected), then one ``request``
    at a time to each server in turn, each waiting for its answer. ``loop_factory``
    makes the client's event loop (the arena's, polling before it sleeps, is
    ``arena.runtime.eventloop.new_event_loop``); by default asyncio's plain loop."""

    async def main() -> float:
        channels = [grpc.aio.insecure_channel(a) for a in addresses]
        try:
            calls = [c.stream_stream(method, None, None)() for c in channels]
            for call in calls:
                await call.write(opening)

            async def timed(n: int) -> float:
                start = time.perf_counter()
                for k in range(n):
                    call = calls[k % len(calls)]
                    await call.write(request)
                    if await call.read() is grpc.aio.EOF:  # a dead server must not look fast
                        raise RuntimeError(f"the server behind stream {k % len(calls)} ended its stream")
                return time.perf_counter() - start

            await timed(200)  # warm-up
            n, elapsed = 0, 0.0
            while elapsed < seconds:
                elapsed += await timed(100 * len(calls))
                n += 100 * len(calls)
            for call in calls:
                await call.done_writing()
            return n / elapsed
        finally:
            for c in channels:
                await c.close()

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(main())


# ---------------------------------------------------------------------------- SDK bots
def _sdk_request() -> bytes:
    """A serialised PlayRequest with a mid-hand DecisionRequest (~230 bytes)."""
    from mus.v1 import bot_service_pb2 as svc_pb
    from mus.v1 import game_pb2 as pb

    req = svc_pb.PlayRequest()
    d = req.decision_request
    d.request_id, d.seat, d.phase, d.lance = 42, 1, pb.PHASE_BETTING, pb.LANCE_CHICA
    d.mano, d.dealer, d.match_id, d.target_points = 0, 3, "bench", 40
    for rank, suit in ((10, 1), (3, 2), (9, 1), (1, 4)):
        d.cards.add(rank=rank, suit=suit)  # type: ignore[arg-type]
    d.scores.extend([5, 12])
    d.games_won.extend([0, 0])
    d.legal_actions.add().quiero.SetInParent()
    d.legal_actions.add().no_quiero.SetInParent()
    d.legal_actions.add().envido.min_amount = 2
    d.legal_actions.add().ordago.SetInParent()
    for seat, wants in ((0, True), (1, True), (2, True), (3, True)):
        ev = d.history.add().mus_call
        ev.seat, ev.wants_mus = seat, wants
    for seat in range(4):
        ev2 = d.history.add().discard
        ev2.seat, ev2.count = seat, 2
    d.history.add().replacements.round = 1
    d.history.add().lance_start.lance = pb.LANCE_GRANDE
    bet = d.history.add().bet
    bet.seat, bet.lance = 0, pb.LANCE_GRANDE
    bet.action.envido.amount = 2
    d.bet.team, d.bet.seat, d.bet.stake, d.bet.deje = 0, 0, 2, 1
    r = d.rules
    r.players, r.kings, r.target_points, r.games_to_win, r.vacas_to_win = 4, 8, 40, 2, 1
    r.juego_real, r.signals, r.mus_corrido = pb.JUEGO_REAL_OFF, pb.SIGNAL_MODE_PUBLIC, pb.MUS_CORRIDO_OFF
    d.deadline_ms, d.time_bank_ms = 1000, 60000
    return req.SerializeToString()


def _sdk_match_start() -> bytes:
    from mus.v1 import bot_service_pb2 as svc_pb
    from mus.v1 import game_pb2 as pb

    req = svc_pb.PlayRequest()
    m = req.match_start
    m.match_id, m.num_seats, m.protocol_version = "bench", 4, 1
    r = m.rules
    r.players, r.kings, r.target_points, r.games_to_win, r.vacas_to_win = 4, 8, 40, 2, 1
    r.juego_real, r.signals, r.mus_corrido = pb.JUEGO_REAL_OFF, pb.SIGNAL_MODE_PUBLIC, pb.MUS_CORRIDO_OFF
    return req.SerializeToString()


RANDOM_BOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bots", "random", "bot.py")
TRIVIAL_BOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bots", "trivial", "bot.py")


def _spawn_sdk_bot(transport: str, sock_dir: str, bot: str = RANDOM_BOT) -> tuple[subprocess.Popen[str], str]:
    from mus_sdk import handshake

    env = dict(os.environ, **handshake.handshake_env(sock_dir if transport == "unix" else None))
    proc = subprocess.Popen([sys.executable, bot], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    return proc, handshake.parse_line(proc.stdout.readline()).target


def bench_sdk_session(
    transport: str,
    sock_dir: str,
    seconds: float,
    bot: str = TRIVIAL_BOT,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
    bots_in: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
    driver_in: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
) -> float:
    """Decisions per second of four SDK bots driven as the arena drives them (aio client,
    match start first) with one pre-serialised request: the protocol's ceiling with the
    SDK's work included and no referee work. The bots start inside ``bots_in()`` and the
    driver runs inside ``driver_in()`` (bench/protocol.py pins them there, as a match is)."""
    with servers(lambda _: _spawn_sdk_bot(transport, sock_dir, bot), bots_in) as targets, driver_in():
        return bench_session_aio(
            targets, seconds, "/mus.v1.BotService/Play", _sdk_match_start(), _sdk_request(), loop_factory
        )


def bench_sdk(transport: str, sock_dir: str, seconds: float) -> float:
    with servers(lambda _: _spawn_sdk_bot(transport, sock_dir)) as targets:
        return bench_stream(targets, seconds, "/mus.v1.BotService/Play", _sdk_match_start())


# ---------------------------------------------------------------------------- driver
@contextlib.contextmanager
def servers(
    spawn: Callable[[int], tuple[subprocess.Popen[str], str]],
    started_in: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext,
    count: int = 4,
) -> Iterator[list[str]]:
    """Start ``count`` server processes with ``spawn(index)`` (inside ``started_in()``,
    whose CPU affinity they inherit) and yield their targets; kill every one started on
    the way out, also when a later one fails to start or the run is interrupted (a list
    comprehension would lose the ones already started)."""
    procs: list[subprocess.Popen[str]] = []
    targets: list[str] = []
    try:
        with started_in():
            for i in range(count):
                proc, target = spawn(i)
                procs.append(proc)
                targets.append(target)
        yield targets
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _spawn(kind: str, transport: str, sock_dir: str, index: int) -> tuple[subprocess.Popen[str], str]:
    address = "127.0.0.1:0" if transport == "tcp" else f"unix:{sock_dir}/bench-{kind}-{index}.sock"
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind, address],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line:
        proc.kill()
        raise RuntimeError(f"server {kind} {transport} did not announce an address")
    return proc, line


def run(seconds: float, quick: bool) -> dict[str, Any]:
    results: dict[str, Any] = {}
    kinds = ["sync"] if quick else ["sync", "aio"]
    with tempfile.TemporaryDirectory() as sock_dir:
        for transport in ("tcp", "unix"):
            for kind in kinds:
                with servers(lambda i, kind=kind, transport=transport: _spawn(kind, transport, sock_dir, i)) as addrs:
                    key = f"{transport}_{kind}_server"
                    results[key] = {
                        "unary_rt_per_s": round(bench_unary(addrs[0], seconds)),
                        "stream_rt_per_s": round(bench_stream(addrs[:1], seconds)),
                        "stream_rr4_rt_per_s": round(bench_stream(addrs, seconds)),
                        "session_rr4_aio_rt_per_s": round(bench_session_aio(addrs, seconds)),
                    }
                    print(key, results[key], file=sys.stderr, flush=True)
            try:
                rate = round(bench_sdk(transport, sock_dir, seconds))
            except ImportError:  # mus_sdk not installed: transport numbers only
                rate = None
            results[f"{transport}_sdk_random_bots"] = {"sdk_stream_rr4_decisions_per_s": rate}
            print(f"{transport}_sdk_random_bots", rate, file=sys.stderr, flush=True)
    return {
        "benchmark": "grpc_baseline",
        "grpcio": grpc.__version__,
        "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS", ""),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "seconds_per_measure": seconds,
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of each measurement")
    parser.add_argument("--quick", action="store_true", help="sync servers only")
    parser.add_argument(
        "--halt-poll-ns", type=int, default=None, metavar="NS",
        help="set the VM's idle halt-polling window for this run, then restore it (root)",
    )
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "ADDRESS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, address = args.serve
        (serve_sync if kind == "sync" else serve_aio)(address)
        return
    with halt_poll(args.halt_poll_ns):
        print("machine:", json.dumps(machine()))
        print(json.dumps(run(args.seconds, args.quick)))


if __name__ == "__main__":
    main()
