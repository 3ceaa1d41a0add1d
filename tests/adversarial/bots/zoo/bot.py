"""The adversarial zoo: one bot, misbehaving in the way ``MUS_ZOO_MODE`` names.

Every mode plays the trivial policy (no-mus, paso, no-quiero: deterministic, a match
lasts several hands) until it misbehaves. Modes (set in the manifest's ``[env]``; the
tests override them):

``none``
    plays; nothing else.
``crash_match_end`` / ``crash_last_hand``
    plays the whole match, then exits with code 5 on reading the match end / with code 6
    on reading the hand end of the hand that ended a game (with one-game matches: the
    last hand, before the match end arrives).
``wrong_address_tcp`` / ``wrong_address_unix``
    announces a TCP port on 127.0.0.1 that is bound but not listening (nobody can take it
    meanwhile) / a unix socket path where nobody listens; then sleeps.
``end_stream`` / ``abort_stream``
    at decision ``MUS_ZOO_AT`` ends its side of the Play stream (returns) / aborts the
    stream with UNAVAILABLE.
``restart_server``
    at decision ``MUS_ZOO_AT`` stops its gRPC server (every open stream breaks) and serves
    again on the same port, printing a new announce line: it "reconnects".
``second_server``
    at match start opens a second server on another port and announces it on stdout.
``flood``
    at match start a thread writes ``MUS_ZOO_FLOOD_MB`` MiB to stdout (one endless line)
    and as many to stderr (1 KiB lines), as fast as the pipes take them.
``ignore_sigterm``
    ignores SIGTERM, and its ``Shutdown`` handler never returns: only SIGKILL stops it.
``memory_hog``
    from decision ``MUS_ZOO_AT`` on, allocates (and touches) 8 MiB blocks without bound,
    keeping them; on ``MemoryError`` it writes how much it got and its peak RSS to
    stderr, and lets the error escape its Play handler, as most bot code would.
``memory_hog_sdk``
    the same allocation inside ``Bot.decide`` of the Python SDK (which catches the error
    and answers with a ``BotError``).
``cpu_burn``
    from decision ``MUS_ZOO_AT`` on, spins in a busy loop inside decide, forever.
``probe``
    at its first decision finds the other bots (listening sockets on 127.0.0.1, read from
    ``/proc/net/tcp`` and ``tcp6``, and the processes that own them) and asks each for ``GetInfo``
    and, on a ``Play`` stream of its own, for a decision on its own cards; writes what
    it got to ``MUS_ZOO_OUT/probe-PID.json``; then plays on.
``sabotage``
    at its first decision finds the other bots the same way; every one whose name
    differs from its own is stopped: by a ``Shutdown`` call (``MUS_ZOO_ATTACK=shutdown``)
    or SIGKILL (``kill``). Waits (up to 2.5 s) until they are gone, then plays on.
``announce_peer``
    serves nothing: waits for another bot to listen and announces *its* address.
``peek_seed``
    at its first decision looks for the hand log of its match among the files its parent
    (the arena) holds open (``/proc/PPID/fd``), reads the match seed from the log's
    header, and deals the match again with the arena's own engine: every seat's cards.
    Writes them to ``MUS_ZOO_OUT/peek-PID.json``; then plays on.

``introspect``
    plays; at start writes what it was given to ``MUS_ZOO_OUT/introspect-PID.json``: its
    environment, its resource limits, its parent-death signal, session and group.

``MUS_ZOO_CHILD=1`` (any mode that serves): at start spawns a child that sleeps for an hour,
in the bot's process group, and writes its pid to ``MUS_ZOO_OUT/child-PID.txt``.

``MUS_ZOO_OUT``: a folder for the files above; with it, every mode also appends the
seat of each match start it reads to ``seats-PID.txt``.

Finding the other bots is scoped, so that a test run never touches processes of other
runs: only processes whose environment holds the same value of ``$MUS_ZOO_SCOPE``
(default ``MUS_REMOTE_TEST_TAG``) as this one are targets. A real attacker would skip
that filter.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import sys
import threading
import time
from concurrent import futures

import grpc
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import NO_MUS, NO_QUIERO, PASO, Bot, BotServicer, Observation, handshake

MODE = os.environ.get("MUS_ZOO_MODE", "none")
AT = int(os.environ.get("MUS_ZOO_AT", "1"))
OUT = os.environ.get("MUS_ZOO_OUT", "")
SCOPE_ENV = os.environ.get("MUS_ZOO_SCOPE", "MUS_REMOTE_TEST_TAG")
NAME = f"zoo-{MODE}"

STOP = threading.Event()
TERMINATED: list[int] = []  # set by SIGTERM: a handler calling STOP.set() could deadlock on STOP's lock


def wait_for_stop() -> None:
    """Wait for the Shutdown call or SIGTERM."""
    while not TERMINATED and not STOP.wait(0.05):
        pass
HOG: list[bytes] = []
STATE: dict[str, object] = {"server": None, "port": 0}



def host_pid() -> int:
    """This process's pid as the host sees it: the arena may start bots in their own pid
    namespace, where os.getpid() is 1, while /proc is still the host's."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def host_ppid(pid: int) -> int:
    """The parent of ``pid`` as the host sees it (0 if unknown)."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("PPid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def say(text: str) -> None:
    sys.stderr.write(f"zoo[{MODE}]: {text}\n")
    sys.stderr.flush()


# --------------------------------------------------------------------------- playing


def trivial(req: svc_pb.DecisionRequest) -> svc_pb.PlayResponse:
    """no-mus, paso or no-quiero; otherwise the first fixed action (or the smallest discard/bet)."""
    response = svc_pb.PlayResponse()
    response.decision.request_id = req.request_id
    action = response.decision.action
    kinds = [e.WhichOneof("kind") for e in req.legal_actions]
    for kind in ("no_mus", "paso", "no_quiero"):
        if kind in kinds:
            getattr(action, kind).SetInParent()
            return response
    for entry, kind in zip(req.legal_actions, kinds, strict=True):
        if kind == "discard":
            action.discard.cards.extend(list(entry.discard.cards)[: max(1, entry.discard.min_count)])
        elif kind == "envido":
            action.envido.amount = entry.envido.min_amount
        else:
            getattr(action, kind).SetInParent()
        return response
    raise AssertionError("no legal action")


def hog() -> None:
    """Allocate 8 MiB blocks, touched, and keep them, until the address space runs out."""
    try:
        while True:
            HOG.append(b"x" * (8 << 20))
    except MemoryError:
        held = len(HOG) * 8  # kept: the bot stays at its limit from now on
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        say(f"MemoryError after {held} MiB more; peak rss {peak} KB")
        raise


def burn() -> None:
    say("burning CPU")
    x = 0
    while True:
        x += 1


class HogBot(Bot):
    """``memory_hog_sdk``: a Python SDK bot whose decide() allocates without bound."""

    name = NAME

    def __init__(self) -> None:
        self.decisions = 0

    def decide(self, obs: Observation):  # type: ignore[no-untyped-def]
        self.decisions += 1
        if self.decisions >= AT:
            hog()
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in obs.legal_actions:
                return a
        return obs.legal_actions.fixed[0]


# --------------------------------------------------------------------------- reaching the others


def peers() -> list[tuple[int, str]]:
    """``(pid, gRPC target)`` of every other process in scope that listens on 127.0.0.1
    or on a unix socket of a mus-arena socket directory."""
    listening: dict[str, str] = {}
    # gRPC binds 127.0.0.1 with an IPv6 socket (::ffff:127.0.0.1): read both tables.
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                ip, port = parts[1].split(":")
                if parts[3] == "0A" and ip.endswith("0100007F"):  # LISTEN on 127.0.0.1
                    listening[parts[9]] = f"127.0.0.1:{int(port, 16)}"
    # Unix sockets: path-bound listening sockets (flag 00010000 = __SO_ACCEPTCON).
    with open("/proc/net/unix") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if len(parts) >= 8 and parts[3] == "00010000" and parts[7].startswith("/"):
                listening[parts[6]] = f"unix:{parts[7]}"
    needle = f"\0{SCOPE_ENV}={os.environ.get(SCOPE_ENV, '')}\0".encode()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == host_pid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in b"\0" + f.read() + b"\0":
                    continue
            for fd in os.listdir(f"/proc/{entry}/fd"):
                link = os.readlink(f"/proc/{entry}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in listening:
                    out.append((int(entry), listening[link[8:-1]]))
        except OSError:
            continue
    return sorted(set(out))


def probe(match_start: svc_pb.PlayRequest, req: svc_pb.DecisionRequest) -> None:
    """Ask every other bot for its info and for a decision on my own cards."""
    found = []
    for pid, target in peers():
        rec: dict[str, object] = {"pid": pid, "target": target}
        with grpc.insecure_channel(target) as channel:
            stub = svc_grpc.BotServiceStub(channel)
            try:
                rec["name"] = stub.GetInfo(svc_pb.GetInfoRequest(protocol_versions=[1]), timeout=1.0).name
                ask = svc_pb.PlayRequest()
                ask.decision_request.CopyFrom(req)
                answers = stub.Play(iter([match_start, ask]), timeout=2.0)
                answer = next(answers)
                rec["answered"] = answer.decision.request_id
                rec["action"] = answer.decision.action.WhichOneof("kind")
                answers.cancel()
            except grpc.RpcError as exc:
                rec["error"] = exc.code().name
        found.append(rec)
    with open(os.path.join(OUT, f"probe-{host_pid()}.json"), "w") as f:
        json.dump(found, f)


def sabotage() -> None:
    """Stop every other bot not named like me (my partner is another instance of me)."""
    attack = os.environ.get("MUS_ZOO_ATTACK", "shutdown")
    victims = []
    for pid, target in peers():
        with grpc.insecure_channel(target) as channel:
            stub = svc_grpc.BotServiceStub(channel)
            try:
                name = stub.GetInfo(svc_pb.GetInfoRequest(protocol_versions=[1]), timeout=1.0).name
                if name == NAME:
                    continue
                if attack == "shutdown":
                    stub.Shutdown(svc_pb.ShutdownRequest(), timeout=1.0)
                else:
                    os.kill(pid, signal.SIGKILL)
                victims.append(pid)
            except (grpc.RpcError, OSError) as exc:
                say(f"could not stop {pid}: {exc!r}")
    say(f"stopped {victims} by {attack}")
    if OUT:
        with open(os.path.join(OUT, f"sabotage-{host_pid()}.json"), "w") as f:
            json.dump(victims, f)
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}/fd/0") for p in victims):
        time.sleep(0.02)


def peek_seed(match_start: svc_pb.PlayRequest) -> None:
    """Read the match seed from the hand log the arena has open, and deal the cards again."""
    match_id = match_start.match_start.match_id
    found: dict[str, object] = {"found": False}
    # Walk up the host's process tree (wrappers such as unshare may sit in between).
    ancestors, pid = [], host_pid()
    for _ in range(6):
        pid = host_ppid(pid)
        if pid <= 1:
            break
        ancestors.append(pid)
    paths = []
    for parent in ancestors:
        try:
            fds = os.listdir(f"/proc/{parent}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                paths.append(os.readlink(f"/proc/{parent}/fd/{fd}"))
            except OSError:
                continue
    for path in paths:
        if path.endswith(f"/{match_id}.jsonl"):
            with open(path, encoding="utf-8") as f:
                header = json.loads(f.readline())
            from mus_core import Rules, format_cards
            from mus_core.state import MusState

            state = MusState.new(Rules.from_mapping(header["rules"]), seed=header["seed"],
                                 first_dealer=header["first_dealer"])
            found = {"found": True, "log": path, "seed": header["seed"],
                     "hands": [format_cards(h) for h in state.hands]}
            break
    with open(os.path.join(OUT, f"peek-{host_pid()}.json"), "w") as f:
        json.dump(found, f)


def introspect() -> None:
    """What the arena gave this process: environment, limits, parent-death signal, session."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pdeathsig = ctypes.c_int(0)
    libc.prctl(2, ctypes.byref(pdeathsig), 0, 0, 0)  # PR_GET_PDEATHSIG
    limits = {name: resource.getrlimit(getattr(resource, name))
              for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_NPROC")}
    me = host_pid()
    with open(f"/proc/{me}/stat", encoding="utf-8") as f:  # host numbering, as the arena sees it
        fields = f.read().rsplit(")", 1)[1].split()
    record = {"env": dict(os.environ), "limits": limits, "pdeathsig": pdeathsig.value,
              "pid": me, "ppid": int(fields[1]), "pgid": int(fields[2]), "sid": int(fields[3])}
    with open(os.path.join(OUT, f"introspect-{host_pid()}.json"), "w") as f:
        json.dump(record, f)


# --------------------------------------------------------------------------- the service


def serve_on(port: int) -> int:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    svc_grpc.add_BotServiceServicer_to_server(ZooServicer(), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    STATE["server"] = server
    return bound


def announce(address: str, network: str = handshake.NETWORK_TCP) -> None:
    sys.stdout.write(handshake.format_line(network, address) + "\n")
    sys.stdout.flush()


def restart_server() -> None:
    old = STATE["server"]
    port = int(STATE["port"])  # type: ignore[arg-type]
    say(f"restarting my server on port {port}")
    old.stop(0).wait(2.0)  # type: ignore[attr-defined]
    for _ in range(100):
        try:
            if serve_on(port) == port:
                break
        except RuntimeError:
            pass
        time.sleep(0.02)
    announce(f"127.0.0.1:{port}")
    say("serving again")


def second_server() -> None:
    extra = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    svc_grpc.add_BotServiceServicer_to_server(ZooServicer(), extra)
    port = extra.add_insecure_port("127.0.0.1:0")
    extra.start()
    STATE["extra"] = extra
    announce(f"127.0.0.1:{port}")
    say(f"second server on port {port}")


def flood() -> None:
    mib = int(os.environ.get("MUS_ZOO_FLOOD_MB", "300"))
    endless = b"y" * (1 << 20)
    lines = (b"z" * 1023 + b"\n") * 1024
    for _ in range(mib):
        sys.stdout.buffer.write(endless)
        sys.stderr.buffer.write(lines)
    sys.stdout.flush()
    sys.stderr.flush()


class ZooServicer(BotServicer):
    def __init__(self) -> None:
        self.sdk_bot = HogBot()
        super().__init__(self.sdk_bot, STOP.set)

    def GetInfo(self, request, context):  # type: ignore[no-untyped-def]
        return svc_pb.GetInfoResponse(name=NAME, version="1", protocol_versions=[1])

    def Shutdown(self, request, context):  # type: ignore[no-untyped-def]
        if MODE == "ignore_sigterm":
            say("Shutdown? no.")
            time.sleep(3600)
        return super().Shutdown(request, context)

    def Play(self, request_iterator, context):  # type: ignore[no-untyped-def]
        if MODE == "memory_hog_sdk":
            yield from super().Play(request_iterator, context)
            return
        decisions = 0
        match_start = None
        for request in request_iterator:
            which = request.WhichOneof("message")
            if which == "match_start":
                match_start = request
                if OUT:
                    with open(os.path.join(OUT, f"seats-{host_pid()}.txt"), "a") as f:
                        f.write(f"{request.match_start.seat}\n")
                if MODE == "flood":
                    threading.Thread(target=flood, daemon=True).start()
                if MODE == "second_server":
                    second_server()
                continue
            if which == "hand_end":
                if MODE == "crash_last_hand" and request.hand_end.result.game_over:
                    say("crashing after the last hand")
                    os._exit(6)
                continue
            if which == "match_end":
                if MODE == "crash_match_end":
                    say("crashing at the match end")
                    os._exit(5)
                continue
            if which != "decision_request":
                continue
            req = request.decision_request
            decisions += 1
            if decisions == AT:
                if MODE == "end_stream":
                    say(f"ending my side of the stream at request {req.request_id}")
                    return
                if MODE == "abort_stream":
                    context.abort(grpc.StatusCode.UNAVAILABLE, "zoo: going away")
                if MODE == "restart_server":
                    threading.Thread(target=restart_server).start()
                    while context.is_active():  # until the server's stop cancels this call
                        time.sleep(0.01)
                    return
            if decisions >= AT:
                if MODE == "memory_hog":
                    hog()
                if MODE == "cpu_burn":
                    burn()
            if decisions == 1:
                if MODE == "probe":
                    probe(match_start, req)
                if MODE == "sabotage":
                    sabotage()
                if MODE == "peek_seed":
                    peek_seed(match_start)
            yield trivial(req)


# --------------------------------------------------------------------------- main


def main() -> None:
    if os.environ.get(handshake.COOKIE_ENV) != handshake.COOKIE_VALUE:
        sys.exit("zoo: not started by the arena")
    if MODE == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda signum, frame: TERMINATED.append(signum))
    if MODE == "wrong_address_tcp":
        hole = socket.socket()
        hole.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        announce(f"127.0.0.1:{hole.getsockname()[1]}")
        say("announced a port where nobody listens")
        wait_for_stop()
        os._exit(0)
    if MODE == "wrong_address_unix":
        # In its own socket directory, as the contract asks, but nothing is bound there.
        folder = os.environ.get(handshake.SOCKET_DIR_ENV, "/tmp")
        announce(os.path.join(folder, f"zoo-nobody-listens-{os.getpid()}.sock"), handshake.NETWORK_UNIX)
        say("announced a socket where nobody listens")
        wait_for_stop()
        os._exit(0)
    if MODE == "announce_peer":
        deadline = time.monotonic() + 5
        while not (found := peers()) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not found:
            sys.exit("zoo: no other bot found")
        pid, target = found[0]
        if target.startswith("unix:"):
            announce(target[5:], handshake.NETWORK_UNIX)
        else:
            announce(target)
        say(f"announced the address of pid {pid}")
        wait_for_stop()
        os._exit(0)
    if MODE == "introspect":
        introspect()
    if os.environ.get("MUS_ZOO_CHILD") == "1":
        import subprocess

        # The child writes its own host pid (its pid in a bot's pid namespace would mean
        # nothing to the test).
        target = os.path.join(OUT, f"child-{host_pid()}.txt")
        code = f"import os, time; open({target + '.tmp'!r}, 'w').write(os.readlink('/proc/self')); " \
               f"os.replace({target + '.tmp'!r}, {target!r}); time.sleep(3600)"
        subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    STATE["port"] = serve_on(0)
    announce(f"127.0.0.1:{STATE['port']}")
    wait_for_stop()
    STATE["server"].stop(0.2).wait(1.0)  # type: ignore[attr-defined]
    os._exit(0)


if __name__ == "__main__":
    main()
