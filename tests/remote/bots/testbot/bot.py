"""A bot for the process tests of tests/remote: plays at random, or misbehaves on purpose.

Driven by environment variables (set in the manifest's ``[env]``; the tests override them):

``MUS_TEST_MODE``
    ``none``: plays at random among the legal actions, but calls mus 80% of the time (so
    that discards happen) and never órdago (so that matches last several hands).
    ``no_announce``: writes to stderr and sleeps, never printing its address.
    ``garbage_announce``: prints a line that is not an announce line, then sleeps.
    ``crash_start``: writes to stderr and exits with code 3 before announcing.
    ``crash_mid``: plays; at decision ``MUS_TEST_AT`` writes to stderr and exits with code 7
    (only once if ``MUS_TEST_MARKER`` names a file: it is created at the crash, and a bot
    that finds it plays normally, as a restarted bot would).
    ``hang``: plays; from decision ``MUS_TEST_AT`` on, hangs in decide forever.
    ``deaf``: plays; at decision ``MUS_TEST_AT`` stops reading its stream (without
    answering), so HTTP/2 flow control eventually blocks the arena's writes to it.
    ``late``: plays; answers decision ``MUS_TEST_AT`` after ``MUS_TEST_DELAY_MS``.
    ``wrong_id``: from decision ``MUS_TEST_AT`` on, answers naming the id of its first
    request (an old id, answered already).
    ``duplicate``: answers decision ``MUS_TEST_AT`` twice.
    ``illegal``: always answers an action that is not legal.
    ``envido_low`` / ``envido_huge``: bets ``envido 1`` / ``envido 4294967295`` whenever an
    envido is legal; plays at random otherwise.
    ``no_action``: answers every request with a decision that holds no action.
    ``huge_message``: answers with a discard of 300,000 cards (a message over 1 MiB).
    ``flood``: plays; at match start a thread writes ``MUS_TEST_FLOOD_MB`` MB to stdout
    and to stderr.
    ``spawn_child``: plays; at start spawns a child (same process group) that ignores
    SIGTERM and would sleep for an hour; its pid is written to ``MUS_TEST_OUT``.
    ``stubborn``: plays; ignores SIGTERM and the Shutdown call (only SIGKILL stops it).
    ``escape``: plays; at start spawns a process in a session of its own (out of reach of
    the process group) that keeps the bot's stdout and stderr open; its pid is written
    to ``MUS_TEST_OUT``/escaped.pid.
    ``spy``: plays; writes to ``MUS_TEST_OUT``/spy-PID.jsonl, for every decision request,
    its own cards and every card found anywhere in the message, and for every hand end
    the revealed hands.
    ``record``: plays mostly the passive answer (no mus, paso, no quiero), otherwise as
    the others; writes to ``MUS_TEST_OUT``/record-PID.jsonl every decision request it
    receives, serialized, with its two time fields cleared.
    ``announce_exit``: announces an address it does not serve, writes ``MUS_TEST_LINES``
    numbered lines to stderr (default 40) and exits with code 5.
    ``few_threads``: plays, served by a pool of ``MUS_TEST_WORKERS`` threads (default 2),
    so that it serves only that many ``Play`` streams at once.
    ``raise``: served by the SDK's own ``BotServicer.Play``; from decision ``MUS_TEST_AT``
    on, ``decide()`` raises ``ValueError`` (in a helper it calls): the SDK answers with a
    ``BotError``.
    ``memory``: plays as ``none``; remembers everything a league gives it across the
    matches of its process: writes to ``MUS_TEST_OUT``/memory-PID.jsonl each match start
    (its ``match_id`` and seat) and, for every decision request, the hand and its cards.
    ``raise_silent``: the same exception, handled as the SDK did before ``BotError``
    existed (and as a bot in another language may still do): printed to stderr, the
    request left unanswered.
``MUS_BOT_SEED``: seed of the random play.

It serves with its own small loop (not ``mus_sdk.serve``) so that it can answer raw
protocol messages (wrong ids, duplicates) and exit at once when asked to.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import traceback
from concurrent import futures

import grpc
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus.v1 import game_pb2 as game_pb
from mus_sdk import MUS, NO_MUS, NO_QUIERO, ORDAGO, PASO, Bot, BotServicer, Observation, handshake
from mus_sdk.convert import fill_action, observation_from_proto

MODE = os.environ.get("MUS_TEST_MODE", "none")
AT = int(os.environ.get("MUS_TEST_AT", "1"))
OUT = os.environ.get("MUS_TEST_OUT", "")



def host_pid() -> int:
    """This process's pid as the host sees it (the arena may give bots their own pid
    namespace, where os.getpid() means nothing to the test; /proc is the host's)."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def spawn_reporting_child(path: str, prelude: str, new_session: bool = False) -> None:
    """Start a child that writes its own host pid to ``path``; wait until it has."""
    code = (
        f"import os, signal, time; {prelude}"
        f"open({path + '.tmp'!r}, 'w').write(os.readlink('/proc/self')); os.replace({path + '.tmp'!r}, {path!r}); "
        "time.sleep(3600)"
    )
    subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, start_new_session=new_session)
    deadline = time.monotonic() + 5
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def huge_action() -> bytes:
    """A serialized discard of 300,000 cards (1.8 MB), built once: building it per answer
    would take longer than a deadline."""
    action = game_pb.Action()
    action.discard.cards.extend([game_pb.Card(rank=1, suit=1)] * 300_000)
    return action.SerializeToString()


HUGE_ACTION = huge_action() if MODE == "huge_message" else b""


class RandomPlay(Bot):
    name = f"testbot-{MODE}"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(int(os.environ.get("MUS_BOT_SEED", "0")))
        self.decided = 0

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        self.decided += 1
        if MODE in ("raise", "raise_silent") and self.decided >= AT:
            explode(obs.request_id)
        if MODE == "record" and self.rng.random() < 0.85:
            for a in (NO_MUS, PASO, NO_QUIERO):
                if a in obs.legal_actions:
                    return a
        # Mus often (so that discards happen), never órdago (so that matches last).
        if MUS in obs.legal_actions and self.rng.random() < 0.8:
            return MUS
        return self.rng.choice([a for a in obs.legal_actions.concrete(max_envido=4) if a != ORDAGO])


def explode(request_id: int) -> None:
    """Raise for ``request_id``: a frame below ``decide``, as a bot's own helper would."""
    raise ValueError(f"testbot: raising as asked at request {request_id}")


def card_index(card: object) -> int:
    return (card.rank - 1) * 4 + card.suit - 1  # type: ignore[attr-defined]


def cards_anywhere(msg: object, skip: str = "") -> list[int]:
    """Every ``mus.v1.Card`` in a message, at any depth (but in its field ``skip``)."""
    out: list[int] = []
    for fd, value in msg.ListFields():  # type: ignore[attr-defined]
        if fd.message_type is None or fd.name == skip:
            continue
        items = value if fd.is_repeated else [value]
        for item in items:
            if fd.message_type.full_name == "mus.v1.Card":
                out.append(card_index(item))
            else:
                out.extend(cards_anywhere(item))
    return out


class FaultServicer(BotServicer):
    def __init__(self, bot: Bot, on_shutdown) -> None:  # type: ignore[no-untyped-def]
        super().__init__(bot, on_shutdown)
        self.bot = bot
        self.decisions = 0
        self.spy_file = open(os.path.join(OUT, f"spy-{host_pid()}.jsonl"), "a") if MODE == "spy" else None
        self.record_file = open(os.path.join(OUT, f"record-{host_pid()}.jsonl"), "a") if MODE == "record" else None
        self.memory_file = open(os.path.join(OUT, f"memory-{host_pid()}.jsonl"), "a") if MODE == "memory" else None

    def GetInfo(self, request, context):  # type: ignore[no-untyped-def]
        # The zoo's bots receive every hand end unless a test asks otherwise.
        response = super().GetInfo(request, context)
        response.skip_hand_ends = os.environ.get("MUS_TEST_SKIP_HAND_ENDS") == "1"
        return response

    def Shutdown(self, request, context):  # type: ignore[no-untyped-def]
        if MODE == "stubborn":
            return svc_pb.ShutdownResponse()
        return super().Shutdown(request, context)

    def answer(self, req: svc_pb.DecisionRequest, request_id: int | None = None) -> svc_pb.PlayResponse:
        obs = observation_from_proto(req)
        action = self.bot.decide(obs)
        response = svc_pb.PlayResponse()
        response.decision.request_id = req.request_id if request_id is None else request_id
        fill_action(response.decision.action, action)
        return response

    def spy(self, request: svc_pb.PlayRequest) -> None:
        which = request.WhichOneof("message")
        if which == "decision_request":
            r = request.decision_request
            rec = {
                "kind": "decision", "id": r.request_id, "seat": r.seat, "hand": r.hand,
                "cards": [card_index(c) for c in r.cards], "anywhere": cards_anywhere(r, skip="own_discards"),
                "own_discards": [card_index(c) for c in r.own_discards],
            }
        elif which == "hand_end":
            res = request.hand_end.result
            rec = {"kind": "hand_end", "hand": res.hand, "hands": [[card_index(c) for c in h.cards] for h in res.hands]}
        else:
            rec = {"kind": which}
        assert self.spy_file is not None
        self.spy_file.write(json.dumps(rec) + "\n")
        self.spy_file.flush()

    def remember(self, request: svc_pb.PlayRequest) -> None:
        which = request.WhichOneof("message")
        if which == "match_start":
            rec = {"kind": which, "match_id": request.match_start.match_id, "seat": request.match_start.seat}
        elif which == "decision_request":
            r = request.decision_request
            rec = {"kind": "decision", "hand": r.hand, "cards": sorted(card_index(c) for c in r.cards)}
        else:
            return
        assert self.memory_file is not None
        self.memory_file.write(json.dumps(rec) + "\n")
        self.memory_file.flush()

    def Play(self, request_iterator, context):  # type: ignore[no-untyped-def]
        if MODE == "raise":  # the SDK's own answer to an exception in decide()
            yield from super().Play(request_iterator, context)
            return
        first_id = 0
        for request in request_iterator:
            if self.spy_file is not None:
                self.spy(request)
            if self.memory_file is not None:
                self.remember(request)
            if self.record_file is not None and request.WhichOneof("message") == "decision_request":
                r = svc_pb.DecisionRequest()
                r.CopyFrom(request.decision_request)
                r.ClearField("deadline_ms")
                r.ClearField("time_bank_ms")
                rec = {"id": r.request_id, "seat": r.seat, "request": r.SerializeToString(deterministic=True).hex()}
                self.record_file.write(json.dumps(rec) + "\n")
                self.record_file.flush()
            which = request.WhichOneof("message")
            if which == "match_start" and MODE == "flood":
                threading.Thread(target=flood, daemon=True).start()
            if which != "decision_request":
                continue
            req = request.decision_request
            self.decisions += 1
            n = self.decisions
            if MODE == "crash_mid" and n == AT:
                marker = os.environ.get("MUS_TEST_MARKER")
                if not (marker and os.path.exists(marker)):
                    if marker:
                        open(marker, "w").close()
                    sys.stderr.write(f"testbot: crashing at request {req.request_id}\n")
                    sys.stderr.flush()
                    os._exit(7)
            if MODE == "deaf" and n >= AT:
                sys.stderr.write(f"testbot: no longer reading my stream at request {req.request_id}\n")
                sys.stderr.flush()
                while context.is_active():
                    time.sleep(0.05)
                return
            if MODE == "hang" and n >= AT:
                sys.stderr.write(f"testbot: hanging at request {req.request_id}\n")
                sys.stderr.flush()
                time.sleep(3600)
            if MODE == "late" and n == AT:
                time.sleep(int(os.environ.get("MUS_TEST_DELAY_MS", "500")) / 1000)
            if MODE == "wrong_id" and n >= AT:
                yield self.answer(req, request_id=first_id)
            elif MODE == "duplicate" and n == AT:
                yield self.answer(req)
                yield self.answer(req)
            elif MODE == "illegal":
                yield self.illegal(req)
            elif MODE in ("envido_low", "envido_huge") and any(e.HasField("envido") for e in req.legal_actions):
                response = svc_pb.PlayResponse()
                response.decision.request_id = req.request_id
                response.decision.action.envido.amount = 1 if MODE == "envido_low" else 2**32 - 1
                yield response
            elif MODE == "huge_message":
                response = svc_pb.PlayResponse()
                response.decision.request_id = req.request_id
                response.decision.action.MergeFromString(HUGE_ACTION)
                yield response
            elif MODE == "raise_silent":
                try:
                    response = self.answer(req)
                except Exception:
                    traceback.print_exc()  # and no answer: the arena waits for the deadline
                    sys.stderr.flush()
                    continue
                yield response
            elif MODE == "no_action":
                response = svc_pb.PlayResponse()
                response.decision.request_id = req.request_id
                yield response
            else:
                yield self.answer(req)
            first_id = first_id or req.request_id

    def illegal(self, req: svc_pb.DecisionRequest) -> svc_pb.PlayResponse:
        """A fixed action that is not among the legal ones (there always is one)."""
        legal = {e.WhichOneof("kind") for e in req.legal_actions}
        response = svc_pb.PlayResponse()
        response.decision.request_id = req.request_id
        for kind in ("quiero", "paso", "mus", "no_mus", "no_quiero", "ordago"):
            if kind not in legal:
                getattr(response.decision.action, kind).SetInParent()
                return response
        raise AssertionError(f"every action legal? {legal}")


def flood() -> None:
    megabytes = int(os.environ.get("MUS_TEST_FLOOD_MB", "50"))
    line = b"x" * 1023 + b"\n"
    block = line * 1024
    for _ in range(megabytes):
        sys.stdout.buffer.write(block)
        sys.stderr.buffer.write(block)
    sys.stdout.flush()
    sys.stderr.flush()


def main() -> None:
    env = os.environ
    if env.get(handshake.COOKIE_ENV) != handshake.COOKIE_VALUE:
        sys.exit("testbot: not started by the arena")
    if MODE == "no_announce":
        sys.stderr.write("testbot: I will never announce\n")
        sys.stderr.flush()
        time.sleep(3600)
    if MODE == "garbage_announce":
        print("hello, I am not an announce line", flush=True)
        time.sleep(3600)
    if MODE == "crash_start":
        sys.stderr.write("testbot: starting\ntestbot: cannot find my brain, giving up\n")
        sys.stderr.flush()
        sys.exit(3)
    if MODE == "announce_exit":
        sys.stdout.write(handshake.format_line(handshake.NETWORK_TCP, "127.0.0.1:1") + "\n")
        sys.stdout.flush()
        for i in range(int(env.get("MUS_TEST_LINES", "40"))):
            sys.stderr.write(f"testbot: stderr line {i}\n")
        sys.stderr.flush()
        sys.exit(5)
    if MODE == "spawn_child":
        spawn_reporting_child(os.path.join(OUT, "child.pid"), "signal.signal(signal.SIGTERM, signal.SIG_IGN); ")

    if MODE == "escape":
        spawn_reporting_child(os.path.join(OUT, "escaped.pid"), "", new_session=True)

    stop = threading.Event()
    terminated: list[int] = []
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        # Only a flag: stop.set() in a handler can deadlock on stop's own lock.
        signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
    # A deaf bot announces a small HTTP/2 window, so that flow control blocks the
    # arena's writes after a few requests rather than after megabytes.
    options = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)] if MODE == "deaf" else []
    workers = int(env.get("MUS_TEST_WORKERS", "2")) if MODE == "few_threads" else 8
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers), options=options)
    svc_grpc.add_BotServiceServicer_to_server(FaultServicer(RandomPlay(), stop.set), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(handshake.format_line(handshake.NETWORK_TCP, f"127.0.0.1:{port}") + "\n")
    sys.stdout.flush()
    while not terminated and not stop.wait(0.05):
        pass
    server.stop(0.2).wait(1.0)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
