"""Bot processes, go-plugin style: launch, read the announce line, drain output, stop.

The arena starts a bot's command in its own session (so Ctrl-C at the terminal reaches
only the arena, and the whole process group can be killed), with the handshake
environment. The bot binds a free port or a unix socket and prints one announce line
(``1|1|tcp|127.0.0.1:PORT|grpc``) on stdout. Stdout and stderr are drained, for the whole
life of the process, into per-bot log files with a size cap, so a chatty bot never
blocks on a full pipe. Stopping is idempotent: the ``Shutdown`` RPC (by the client),
then SIGTERM to the group, then SIGKILL. A registry stops every live bot at exit.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

from mus_sdk import handshake

from arena.remote.manifest import BotManifest, Limits
from arena.remote.placement import PlacementError, pinned_thread

LOG_CAP_BYTES = 16 * 1024 * 1024
"""Per stream and bot: output past this is counted but not written (a flood cannot fill the disk)."""
STDERR_TAIL_LINES = 20


BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "MUS_GRPC_TUNING")
"""The only variables of the arena's environment a bot receives by default
(``MUS_GRPC_TUNING=0`` turns the SDK's gRPC tuning off in the arena and its bots alike)."""


def _user_ids(user: str) -> tuple[int, int]:
    """uid and gid of a user name or number.

    Raises:
        BotStartError: no such user.
    """
    import pwd

    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, ValueError):
        raise BotStartError(f"run_as: no user {user!r} on this machine") from None
    return entry.pw_uid, entry.pw_gid


def _wrapper(limits: Limits, run_as: str | None = None) -> list[str]:
    """The exec wrappers that apply the limits and tie the bot's life to the arena's.

    ``setpriv --pdeathsig KILL`` makes the kernel kill the bot if the arena dies (even
    by SIGKILL); ``prlimit`` sets the resource limits. Both are util-linux programs that
    exec the bot in the same process, and unlike a ``preexec_fn`` they are safe in a
    threaded arena. Where they are missing, the bot runs without them.
    """
    out: list[str] = []
    setpriv, prlimit = shutil.which("setpriv"), shutil.which("prlimit")
    if setpriv and sys.platform.startswith("linux"):
        out += [setpriv, "--pdeathsig", "KILL", "--"]
    if _pid_namespaces():
        # Its own pid namespace: when the bot (the namespace's init) dies, the kernel
        # kills every process it left, even one that escaped its process group; and the
        # bot cannot name any process outside (no kill() of another seat's bot).
        out += [shutil.which("unshare") or "unshare", "--fork", "--pid", "--kill-child=SIGKILL", "--"]
    if run_as is not None:
        # After unshare, which needs root: the bot itself runs as the other user.
        if os.geteuid() != 0 or not setpriv:
            raise BotStartError(f"run_as {run_as!r} needs an arena running as root, with setpriv (util-linux)")
        uid, gid = _user_ids(run_as)
        out += [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    if prlimit:
        args = []
        if limits.memory_mb:
            args.append(f"--as={limits.memory_mb * 1024 * 1024}")
        if limits.cpu_seconds:
            args.append(f"--cpu={limits.cpu_seconds}")
        if limits.open_files:
            args.append(f"--nofile={limits.open_files}")
        if limits.processes:
            args.append(f"--nproc={limits.processes}")
        if args:
            out += [prlimit, *args, "--"]
    return out


_PIDNS: bool | None = None


def _pid_namespaces() -> bool:
    """Whether bots can get their own pid namespace here (root, and unshare works)."""
    global _PIDNS
    if _PIDNS is None:
        _PIDNS = False
        unshare = shutil.which("unshare")
        if unshare and sys.platform.startswith("linux") and os.geteuid() == 0:
            try:
                probe = subprocess.run(
                    [unshare, "--fork", "--pid", "--kill-child=SIGKILL", "--", "true"],
                    capture_output=True, timeout=5, check=False,
                )
                _PIDNS = probe.returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                _PIDNS = False
    return _PIDNS


class BotStartError(RuntimeError):
    """A bot did not start: it exited, timed out, or announced garbage. The message
    quotes its last stderr lines."""


class BotProcess:
    """One running bot process."""

    def __init__(
        self,
        manifest: BotManifest,
        log_dir: Path,
        label: str,
        socket_dir: str | None = None,
        cpus: frozenset[int] | None = None,
    ) -> None:
        self.manifest = manifest
        self.label = label
        self.log_dir = log_dir
        self.socket_dir = socket_dir
        self.cpus = cpus
        """The CPUs the process (and every process it starts) may run on; None: any."""
        self.proc: subprocess.Popen[bytes] | None = None
        self.announce: handshake.Announce | None = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._first_line: list[bytes] = []
        self._line_ready = threading.Event()
        self._threads: list[threading.Thread] = []
        self.stdout_bytes = 0
        self.stderr_bytes = 0

    @property
    def pid(self) -> int | None:
        """The process id, once started."""
        return self.proc.pid if self.proc else None

    def __repr__(self) -> str:
        return f"<BotProcess {self.label} pid={self.pid}>"

    def start(self, timeout_s: float = 10.0) -> handshake.Announce:
        """Launch and wait for the announce line (:meth:`spawn` then :meth:`wait_announce`).

        Raises:
            BotStartError: the command is missing, the bot exits or times out before
                announcing, or announces something unreadable.
        """
        self.spawn()
        return self.wait_announce(timeout_s)

    def spawn(self) -> None:
        """Launch the process without waiting (so several bots can start at once).

        Raises:
            BotStartError: the command cannot be run.
        """
        m = self.manifest
        # A minimal environment: nothing of the arena's but these and what the manifest asks for.
        keep = {*BASE_ENV, *m.inherit_env}
        env = {k: v for k, v in os.environ.items() if k in keep}
        env.update(m.env)
        env.update(handshake.handshake_env(self.socket_dir))
        env["PYTHONUNBUFFERED"] = "1"
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BotStartError(f"bot {m.name}: cannot create its log folder {self.log_dir}: {exc.strerror or exc}") from None
        try:
            with pinned_thread(self.cpus):
                self.proc = subprocess.Popen(
                    [*_wrapper(m.limits, m.run_as), *m.command],
                    cwd=m.workdir,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
        except PlacementError as exc:
            raise BotStartError(f"bot {m.name}: {exc}") from None
        except OSError as exc:
            raise BotStartError(f"bot {m.name}: cannot run {' '.join(m.command)!r} in {m.workdir}: {exc.strerror or exc}") from None
        _REGISTRY.add(self)
        self._spawn(self._drain_stdout, "stdout")
        self._spawn(self._drain_stderr, "stderr")

    def wait_announce(self, timeout_s: float = 10.0) -> handshake.Announce:
        """Wait for the announce line of a spawned bot and parse it.

        Raises:
            BotStartError: the bot exits or times out before announcing, or announces
                something unreadable.
        """
        m = self.manifest
        assert self.proc is not None, "spawn() first"
        deadline = time.monotonic() + timeout_s
        # A bot that fails to start was sent no Shutdown: it is stopped without grace.
        while not self._line_ready.wait(0.02):
            if self.proc.poll() is not None:
                self._join_drains(0.5)
                self.stop(grace_s=0)
                raise BotStartError(
                    f"bot {m.name} exited with code {self.proc.returncode} before announcing its address"
                    + self._tail_text()
                )
            if time.monotonic() > deadline:
                self.stop(grace_s=0)
                raise BotStartError(f"bot {m.name} did not announce its address within {timeout_s:.0f} s" + self._tail_text())
        line = self._first_line[0].decode("utf-8", "replace").strip() if self._first_line else ""
        if self._first_line == [b""]:  # end of stdout before any line: the bot is exiting,
            try:  # but seldom has exited yet; give it a moment, to report its exit code
                self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        if not line and self.proc.poll() is not None:
            self._join_drains(0.5)
            self.stop(grace_s=0)
            raise BotStartError(
                f"bot {m.name} exited with code {self.proc.returncode} before announcing its address" + self._tail_text()
            )
        try:
            self.announce = handshake.parse_line(line)
        except handshake.HandshakeError as exc:
            self.stop(grace_s=0)
            raise BotStartError(f"bot {m.name} announced {line[:200]!r}: {exc}" + self._tail_text()) from None
        if self.announce.network == handshake.NETWORK_TCP and not self.announce.address.startswith(("127.", "localhost", "[::1]")):
            self.stop(grace_s=0)
            raise BotStartError(f"bot {m.name} announced a non-loopback address {self.announce.address!r}")
        return self.announce

    def _spawn(self, target: object, name: str) -> None:
        t = threading.Thread(target=target, name=f"{self.label}-{name}", daemon=True)  # type: ignore[arg-type]
        t.start()
        self._threads.append(t)

    def _join_drains(self, timeout: float) -> None:
        for t in self._threads:
            t.join(timeout)

    def _drain_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream = self.proc.stdout
        first = stream.readline(4096)
        self._first_line.append(first)
        self._line_ready.set()
        self._copy(stream, self.log_dir / f"{self.label}.stdout.log", "stdout_bytes", None)

    def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        self._copy(self.proc.stderr, self.log_dir / f"{self.label}.stderr.log", "stderr_bytes", self._stderr_tail)

    def _copy(self, stream: object, path: Path, counter: str, tail: deque[str] | None) -> None:
        written = 0
        with open(path, "ab") as out:
            while True:
                chunk = stream.readline(65536) if tail is not None else stream.read1(65536)  # type: ignore[attr-defined]
                if not chunk:
                    break
                setattr(self, counter, getattr(self, counter) + len(chunk))
                if tail is not None:
                    tail.append(chunk.decode("utf-8", "replace").rstrip("\n")[:300])
                if written < LOG_CAP_BYTES:
                    out.write(chunk[: LOG_CAP_BYTES - written])
                    written += len(chunk)
                    out.flush()

    def _tail_text(self) -> str:
        self._join_drains(0.2)
        if not self._stderr_tail:
            return " (its stderr was empty)"
        return "; last stderr lines:\n  " + "\n  ".join(self._stderr_tail)

    def stderr_tail(self) -> list[str]:
        """The last lines the bot wrote to stderr."""
        return list(self._stderr_tail)

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc is not None and self.proc.poll() is None

    def stop(self, grace_s: float = 2.0) -> None:
        """Stop the bot and every process of its group: wait ``grace_s`` (the client has
        sent ``Shutdown``), then SIGTERM, then SIGKILL. Safe to call more than once."""
        proc = self.proc
        if proc is None:
            return
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
        for sig, wait_s in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 2.0)):
            try:
                os.killpg(proc.pid, sig)  # the whole group: children the bot spawned too
            except (ProcessLookupError, PermissionError):
                break
            if proc.poll() is None:
                try:
                    proc.wait(timeout=wait_s)
                except subprocess.TimeoutExpired:
                    continue
            # The leader is gone; make sure no child of the group survives it.
            if sig is signal.SIGTERM:
                continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.poll() is None:
            proc.wait(timeout=5)
        self._join_drains(1.0)
        # A drain still running means a process outside the group (one that called
        # setsid) holds the pipes: closing a stream while its thread reads it would block
        # until that process exits. Leave the streams to the (daemon) drain threads then.
        if not any(t.is_alive() for t in self._threads):
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        if self.announce is not None and self.announce.network == handshake.NETWORK_UNIX:
            try:
                os.unlink(self.announce.address)
            except OSError:
                pass
        _REGISTRY.discard(self)


class _Registry:
    """Every live bot, stopped at interpreter exit and on SIGTERM (no orphans)."""

    def __init__(self) -> None:
        self._live: set[BotProcess] = set()
        self._lock = threading.Lock()

    def add(self, bot: BotProcess) -> None:
        with self._lock:
            self._live.add(bot)

    def discard(self, bot: BotProcess) -> None:
        with self._lock:
            self._live.discard(bot)

    def stop_all(self) -> None:
        with self._lock:
            live = list(self._live)
        for bot in live:
            try:
                bot.stop(grace_s=0.2)
            except Exception:
                pass


_REGISTRY = _Registry()
atexit.register(_REGISTRY.stop_all)


def stop_all_bots() -> None:
    """Stop every bot this process started (called on Ctrl-C and SIGTERM by the CLI)."""
    _REGISTRY.stop_all()
