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
import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import structlog
from mus_sdk import handshake

from arena.remote import sandbox as sb
from arena.remote.announce import checked_target
from arena.remote.manifest import BotManifest
from arena.remote.output import STDERR_TAIL_LINES, BotOutput
from arena.remote.untrusted import printable

log = structlog.get_logger()


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
        *,
        sandbox: str = sb.DEFAULT,
        unix_socket: bool = True,
    ) -> None:
        self.manifest = manifest
        self.sandbox = sb.check_profile(sandbox)
        """The isolation profile (:mod:`arena.remote.sandbox`)."""
        self.unix_socket = unix_socket or sandbox == sb.STRICT
        """Whether the bot is offered its private socket directory (``MUS_ARENA_SOCKET_DIR``);
        without it a bot binds TCP on loopback. Always under ``strict`` (no network there)."""
        self.confinement: sb.Confinement | None = None
        self.label = label
        self.log_dir = log_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.announce: handshake.Announce | None = None
        self.target: str | None = None
        """The gRPC target the arena connects to, once the announce line is checked."""
        self.output = BotOutput(log_dir, label)
        """What the bot prints, drained into its log files (:mod:`arena.remote.output`)."""

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
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BotStartError(f"bot {m.name}: cannot create its log folder {self.log_dir}: {exc.strerror or exc}") from None
        try:
            jail = self.confinement = sb.confine(self.sandbox, m, self.label)
        except (sb.SandboxError, sb.SandboxUnavailable) as exc:
            raise BotStartError(f"bot {m.name}: {exc}") from None
        env = dict(jail.env)
        if not self.unix_socket:
            env.pop(handshake.SOCKET_DIR_ENV, None)
        try:
            self.proc = subprocess.Popen(
                jail.argv,
                cwd=jail.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=jail.pass_fds,
            )
        except OSError as exc:
            jail.release()
            raise BotStartError(f"bot {m.name}: cannot run {' '.join(m.command)!r} in {m.workdir}: {exc.strerror or exc}") from None
        jail.close_fds()  # the child has them now
        _REGISTRY.add(self)
        log.info("bot.started", bot=m.name, process=self.label, pid=self.proc.pid, command=" ".join(m.command))
        self.output.start(self.proc)

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
        while not self.output.line_ready.wait(0.02):
            if self.proc.poll() is not None:
                self.output.join(0.5)
                self.stop(grace_s=0)
                raise BotStartError(
                    f"bot {m.name} exited with code {self.proc.returncode} before announcing its address"
                    + self.stderr_text()
                )
            if time.monotonic() > deadline:
                self.stop(grace_s=0)
                raise BotStartError(f"bot {m.name} did not announce its address within {timeout_s:.0f} s" + self.stderr_text())
        first_line = self.output.first_line
        line = first_line[0].decode("utf-8", "replace").strip() if first_line else ""
        if first_line == [b""]:  # end of stdout before any line: the bot is exiting,
            try:  # but seldom has exited yet; give it a moment, to report its exit code
                self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        if not line and self.proc.poll() is not None:
            self.output.join(0.5)
            self.stop(grace_s=0)
            raise BotStartError(
                f"bot {m.name} exited with code {self.proc.returncode} before announcing its address" + self.stderr_text()
            )
        try:
            announce = handshake.parse_line(line)
            assert self.confinement is not None
            self.target = checked_target(announce, self.confinement, unix_socket=self.unix_socket,
                                         strict=self.sandbox == sb.STRICT)
        except (handshake.HandshakeError, sb.SandboxError) as exc:
            self.stop(grace_s=0)
            # Not an announce line at all: most often the bot printed something of its own
            # before serve() printed its address.
            hint = ("; the first line a bot prints on stdout must be its address (serve() prints it): print "
                    "your own messages to stderr (in Python: print(..., file=sys.stderr), or logging)"
                    if "|" not in line else "")
            raise BotStartError(f"bot {m.name} announced {printable(line, 200)!r}: {exc}{hint}"
                                + self.stderr_text()) from None
        self.announce = announce
        log.debug("bot.announced", bot=m.name, process=self.label, address=announce.line())
        return self.announce

    # What the bot printed (its output's, :mod:`arena.remote.output`).
    @property
    def stderr_log(self) -> Path:
        """The file the bot's stderr is copied to (``<log_dir>/<label>.stderr.log``)."""
        return self.output.stderr_log

    @property
    def stdout_bytes(self) -> int:
        """Bytes the bot wrote to stdout after its announce line (counted past the log's cap too)."""
        return self.output.stdout_bytes

    @property
    def stderr_bytes(self) -> int:
        """Bytes the bot wrote to stderr (counted past the log's cap too)."""
        return self.output.stderr_bytes

    def stderr_text(self) -> str:
        """The stderr excerpt as start-up errors quote it (after a "; "), naming the log file."""
        return self.output.stderr_text()

    def stderr_tail(self) -> list[str]:
        """The last lines the bot wrote to stderr (made printable)."""
        return self.output.stderr_tail()

    def stderr_excerpt(self, tail_lines: int = STDERR_TAIL_LINES) -> list[str]:
        """The first and the last ``tail_lines`` lines of the bot's stderr
        (:meth:`BotOutput.stderr_excerpt`)."""
        return self.output.stderr_excerpt(tail_lines)

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc is not None and self.proc.poll() is None

    @property
    def freezing(self) -> str:
        """How :meth:`freeze` stops this bot: ``"cgroup"`` (its group's freezer) or
        ``"signals"``."""
        group = self.confinement.group if self.confinement is not None else None
        return "cgroup" if group is not None and group.freezer is not None else "signals"

    def freeze(self) -> None:
        """Stop every process of the bot until :meth:`thaw`: through its control group's
        freezer where it has one (all at once, children forked at any moment included),
        else by SIGSTOP to each process found (:meth:`signal_tree`)."""
        group = self.confinement.group if self.confinement is not None else None
        if group is None or not group.freeze():
            self.signal_tree(signal.SIGSTOP)

    def thaw(self) -> None:
        """Wake the bot stopped by :meth:`freeze`."""
        group = self.confinement.group if self.confinement is not None else None
        if group is None or not group.thaw():
            self.signal_tree(signal.SIGCONT)

    def signal_tree(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the process, its process group (each bot process leads a
        session of its own) and every process below it: under the strict sandbox the bot
        runs in a new session inside bubblewrap, out of the group's reach. Used to freeze
        (SIGSTOP) and wake (SIGCONT) a bot. A child forked between the listing and the
        signal is missed: a bot that forks without pause can keep a process running."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in descendants(proc.pid):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def stop(self, grace_s: float = 2.0) -> None:
        """Stop the bot and every process of its group: wait ``grace_s`` (the client has
        sent ``Shutdown``), then SIGTERM, then SIGKILL. Safe to call more than once."""
        proc = self.proc
        if proc is None:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
        # SIGTERM to the whole group (children the bot spawned too), a second to go, then
        # SIGKILL to whatever is left of it, the leader or a child that outlived it.
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
            os.killpg(proc.pid, signal.SIGTERM)
            # A frozen bot (between its decisions under strict, or idle in a pool) acts on
            # SIGTERM only once it runs again.
            self.signal_tree(signal.SIGCONT)
            if self.confinement is not None and self.confinement.group is not None:
                self.confinement.group.thaw()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
        self.output.join(1.0)
        # A drain still running means a process outside the group (one that called
        # setsid) holds the pipes: closing a stream while its thread reads it would block
        # until that process exits. Leave the streams to the (daemon) drain threads then.
        if not self.output.draining():
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        # The arena removes the socket directory it made, never a path the bot named.
        if self.confinement is not None:
            self.confinement.release()
        if not getattr(self, "_stop_logged", False):  # stop() may be called again
            self._stop_logged = True
            log.debug("bot.stopped", bot=self.manifest.name, process=self.label, exit_code=proc.returncode)
        _REGISTRY.discard(self)


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (Linux's ``/proc/PID/task/TID/children``; none
    elsewhere)."""
    out: list[int] = []
    todo = [pid]
    while todo and len(out) < 4096:  # a bound against a fork bomb's tree
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                kids = [int(k) for k in _read_small(f"/proc/{parent}/task/{tid}/children").split()]
            except (OSError, ValueError):
                continue
            out.extend(kids)
            todo.extend(kids)
    return out


def _read_small(path: str) -> bytes:
    """The bytes of a small file, without a Python file object: a league freezes and
    wakes every bot process around each match, each time reading one ``children`` file
    per thread of the bot (a Python bot has about ten), and ``open()`` with its buffer
    and decoder cost half of that (issue 30: 170 -> 85 µs per bot)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


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

        def stop(bot: BotProcess) -> None:
            try:
                bot.stop(grace_s=0.2)
            except Exception:
                pass

        # Side by side: a bot that ignores SIGTERM holds the exit up by one second, not
        # one second each.
        threads = []
        for bot in live:
            t = threading.Thread(target=stop, args=(bot,), daemon=True)
            try:
                t.start()
            except RuntimeError:  # at interpreter exit (atexit, Python 3.12+): no new thread
                stop(bot)
                continue
            threads.append(t)
        for t in threads:
            t.join()


_REGISTRY = _Registry()
atexit.register(_REGISTRY.stop_all)


def stop_all_bots() -> None:
    """Stop every bot this process started (called on Ctrl-C and SIGTERM by the CLI)."""
    _REGISTRY.stop_all()
