"""A bot that floods its ``Play`` stream with messages nobody asked for.

It plays the trivial policy (no-mus, paso, no-quiero; otherwise the first legal
action) and, depending on ``MUS_FLOOD_WHEN``:

``match``
    at decision ``MUS_FLOOD_AT`` (default 2), right after its answer, sends
    ``MUS_FLOOD_COUNT`` more messages, each a decision for request 0 padded with an
    unknown field to ``MUS_FLOOD_SIZE`` bytes (under the arena's 1 MiB limit, so that
    each one alone is acceptable);
``match_end``
    plays the whole match, then answers the match end with the same flood and ends
    its side of the stream.

It writes on stderr how many messages it got out, and whether the stream was
cancelled under it. It stops on ``Shutdown`` or SIGTERM, as any bot.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent import futures

import grpc
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import handshake

WHEN = os.environ.get("MUS_FLOOD_WHEN", "match")
AT = int(os.environ.get("MUS_FLOOD_AT", "2"))
COUNT = int(os.environ.get("MUS_FLOOD_COUNT", "1000"))
SIZE = int(os.environ.get("MUS_FLOOD_SIZE", str(1000 * 1000)))
STOP = threading.Event()
TERMINATED: list[int] = []


def say(text: str) -> None:
    sys.stderr.write(f"flooder[{WHEN}]: {text}\n")
    sys.stderr.flush()


def padded(size: int) -> svc_pb.PlayResponse:
    """A decision for request 0 (no request has that id) of about ``size`` bytes: the
    padding is an unknown field (number 1000, bytes), which protobuf keeps and sends."""
    body = b"x" * max(0, size - 8)
    varint = bytearray()
    n = len(body)
    while True:
        varint.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            break
    response = svc_pb.PlayResponse.FromString(b"\xc2\x3e" + bytes(varint) + body)
    response.decision.request_id = 0
    return response


def trivial(req: svc_pb.DecisionRequest) -> svc_pb.PlayResponse:
    response = svc_pb.PlayResponse()
    response.decision.request_id = req.request_id
    action = response.decision.action
    kinds = [e.WhichOneof("kind") for e in req.legal_actions]
    for kind in ("no_mus", "paso", "no_quiero"):
        if kind in kinds:
            getattr(action, kind).SetInParent()
            return response
    first = req.legal_actions[0]
    which = first.WhichOneof("kind")
    if which == "discard":
        action.discard.cards.append(req.cards[0])
    elif which == "envido":
        action.envido.amount = max(2, first.envido.min_amount)
    else:
        getattr(action, which).SetInParent()
    return response


class Flooder(svc_grpc.BotServiceServicer):
    def GetInfo(self, request, context):  # type: ignore[no-untyped-def]
        return svc_pb.GetInfoResponse(name="flooder", version="1", protocol_versions=[1], skip_hand_ends=True)

    def Shutdown(self, request, context):  # type: ignore[no-untyped-def]
        STOP.set()
        return svc_pb.ShutdownResponse()

    def flood(self, context):  # type: ignore[no-untyped-def]
        message = padded(SIZE)
        sent = 0
        try:
            for _ in range(COUNT):
                if not context.is_active():
                    break
                yield message
                sent += 1
        finally:
            say(f"flooded {sent} messages of {message.ByteSize()} bytes; stream active: {context.is_active()}")

    def Play(self, request_iterator, context):  # type: ignore[no-untyped-def]
        decisions = 0
        for request in request_iterator:
            which = request.WhichOneof("message")
            if which == "match_end" and WHEN == "match_end":
                yield from self.flood(context)
                return
            if which != "decision_request":
                continue
            decisions += 1
            yield trivial(request.decision_request)
            if decisions == AT and WHEN == "match":
                yield from self.flood(context)


def main() -> None:
    if os.environ.get(handshake.COOKIE_ENV) != handshake.COOKIE_VALUE:
        sys.exit("flooder: not started by the arena")
    signal.signal(signal.SIGTERM, lambda signum, frame: TERMINATED.append(signum))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    svc_grpc.add_BotServiceServicer_to_server(Flooder(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(handshake.format_line(handshake.NETWORK_TCP, f"127.0.0.1:{port}") + "\n")
    sys.stdout.flush()
    while not TERMINATED and not STOP.wait(0.05):
        pass
    server.stop(0.2).wait(1.0)
    os._exit(0)


if __name__ == "__main__":
    main()
