"""Raw gRPC round-trip baseline on loopback, to choose the bot protocol's call shape.

Measures, with a trivial echo servicer running in separate processes:

* ``unary``: sequential unary round trips per second;
* ``stream``: sequential message round trips per second on one open bidirectional
  stream (send one message, wait for the answer, repeat);
* ``stream_rr4``: the shape of a real match, four server processes (one per seat) and
  one client that sends to them in turn, one message in flight at a time;

over TCP (``127.0.0.1:0``) and a unix socket, with the servers implemented with the sync
``grpc.server`` (what ``mus_sdk.serve`` uses) and with ``grpc.aio``. The client is the sync
API, as the arena's. Payloads are raw bytes sized like a decision request (~300 bytes)
and a decision (~16 bytes), so protobuf costs are excluded: this is the transport's
ceiling, not the protocol's.

Usage::

    .venv/bin/python bench/grpc_baseline.py [--seconds 2] [--quick]

Prints one JSON object (the last line of stdout) with rates in round trips per second.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import queue
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc

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


def _handlers() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Unary": grpc.unary_unary_rpc_method_handler(_unary, _identity, _identity),
            "Stream": grpc.stream_stream_rpc_method_handler(_stream, _identity, _identity),
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

    def __init__(self, channel: grpc.Channel) -> None:
        self._q: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._responses = channel.stream_stream(STREAM, _identity, _identity)(self._requests())

    def _requests(self) -> Iterator[bytes]:
        while (item := self._q.get()) is not None:
            yield item

    def round_trip(self) -> bytes:
        self._q.put(REQUEST)
        return next(self._responses)

    def close(self) -> None:
        self._q.put(None)
        for _ in self._responses:
            pass


def bench_stream(addresses: list[str], seconds: float) -> float:
    channels = [grpc.insecure_channel(a) for a in addresses]
    streams = [_PingPong(c) for c in channels]
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


# ---------------------------------------------------------------------------- driver
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
                procs = [_spawn(kind, transport, sock_dir, i) for i in range(4)]
                try:
                    addrs = [a for _, a in procs]
                    key = f"{transport}_{kind}_server"
                    results[key] = {
                        "unary_rt_per_s": round(bench_unary(addrs[0], seconds)),
                        "stream_rt_per_s": round(bench_stream(addrs[:1], seconds)),
                        "stream_rr4_rt_per_s": round(bench_stream(addrs, seconds)),
                    }
                    print(key, results[key], file=sys.stderr, flush=True)
                finally:
                    for p, _ in procs:
                        p.kill()
                        p.wait()
    return {
        "benchmark": "grpc_baseline",
        "grpcio": grpc.__version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "seconds_per_measure": seconds,
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="duration of each measurement")
    parser.add_argument("--quick", action="store_true", help="sync servers only")
    parser.add_argument("--serve", nargs=2, metavar=("KIND", "ADDRESS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, address = args.serve
        (serve_sync if kind == "sync" else serve_aio)(address)
        return
    print(json.dumps(run(args.seconds, args.quick)))


if __name__ == "__main__":
    main()
