"""Sandbox profiles: what stands between a bot process and the machine, the league and
the other bots.

A league is only worth something if no bot can read the deal, spoil an opponent or
touch the results, so every bot is treated as written by an attacker. Two profiles:

``default`` (local development; as easy as a plain process)
    The bot runs as the arena's user with resource limits (``prlimit``), the
    parent-death signal (``setpriv``), its own session, and, when the arena runs as
    root, its own pid namespace. Every bot gets a **private socket directory** that the
    arena creates (mode 0700) and removes itself; the arena never acts on a path the bot
    names. What it does *not* stop: a bot reading the arena's files, other bots'
    processes or the network (docs/reliability.md).

``strict`` (tournaments)
    Every bot runs under bubblewrap (``bwrap``, Debian package ``bubblewrap``) with its
    own pid, mount, network, IPC and UTS namespaces: it sees a read-only view of the
    system's programs and libraries (``/usr``, a few files of ``/etc``), of its own
    folder, and, for Python bots, of the interpreter and the SDK's packages (never the
    project's venv); an empty private ``/tmp``, ``/dev/shm`` and home; no network but
    its own loopback; and the one socket directory through which the arena reaches it.
    As root each bot also gets a uid of its own (no two bots of a running arena share
    one). The machine's global counters (free memory, CPU time, load: ``/proc/meminfo``,
    ``/proc/stat`` and the like) show fixed contents and ``sysinfo`` fails, so partners
    cannot pass messages through them (:mod:`arena.remote.machine_view`). Between its
    decisions the bot is frozen (arena.remote.freezer): through its control group's
    freezer where it has one, else by signals (``freezing`` in :func:`protections`,
    shown in every hand log's header). The bot dies with the arena (``--die-with-parent``) and everything it started
    dies with it (pid namespace). A machine that cannot give this refuses to start the
    match, saying what is missing (:func:`require`).

The arena starts a bot through :func:`confine`, which returns the command line, the
environment and the socket directory of one bot; :meth:`Confinement.release` removes
the directory (without following links) and frees the uid. The command lines are built
by :mod:`arena.remote.wrappers` (``default``: exec wrappers) and :mod:`arena.remote.bwrap`
(``strict``: bubblewrap around them); :mod:`arena.remote.readable` checks beforehand that
a strict bot can read its folder.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from arena.remote import bwrap, cgroups, machine_view, wrappers
from arena.remote.manifest import BotManifest
from arena.remote.readable import readability_problem

DEFAULT = "default"
STRICT = "strict"
PROFILES = (DEFAULT, STRICT)

UID_BASE = 1_600_000_000
UID_SPAN = 1 << 20
"""Strict bots run as root get uids from [UID_BASE, UID_BASE + UID_SPAN): far above any
account, so a bot's uid owns no file on the machine."""


class SandboxUnavailable(RuntimeError):
    """The machine cannot give the isolation a profile asks for; the message says what
    is missing and how to get it."""


class SandboxError(RuntimeError):
    """A bot cannot be confined as asked (its socket directory cannot be created, a
    manifest field the profile does not allow); the message says why."""


def check_profile(name: str) -> str:
    """``name`` if it is a known profile.

    Raises:
        ValueError: an unknown profile; the message lists the known ones.
    """
    if name not in PROFILES:
        raise ValueError(f"unknown sandbox profile {name!r} (known: {', '.join(PROFILES)})")
    return name


_PROBE_LOCK = threading.RLock()  # re-entered: the bwrap probe makes the runtime folder
_PROBES: dict[str, str | None] = {}


def _probe(kind: str) -> str | None:
    """Whether a kind of isolation works here: None if it does, else why not. Probed once
    per process, under a lock (two matches starting at once must not see a half-done
    probe: that race let bots of ``--jobs 2`` run without a pid namespace)."""
    with _PROBE_LOCK:
        if kind not in _PROBES:
            _PROBES[kind] = _run_probe(kind)
        return _PROBES[kind]


def _run_probe(kind: str) -> str | None:
    if not sys.platform.startswith("linux"):
        return "needs Linux"
    fd: int | None = None
    if kind == "pidns":
        unshare = shutil.which("unshare")
        if unshare is None or os.geteuid() != 0:
            return "needs root and unshare (util-linux)"
        argv = [unshare, "--fork", "--pid", "--kill-child=SIGKILL", "--", "true"]
    else:
        program = shutil.which("bwrap")
        if program is None:
            return "bubblewrap is not installed: apt-get install bubblewrap (Debian/Ubuntu)"
        # Everything a strict bot's start needs: the fixed counter files over /proc and
        # the seccomp filter too (a kernel that refused them would fail every bot).
        try:
            view = machine_view.binds(_runtime_root())
        except (OSError, SandboxError) as exc:
            return f"cannot write the fixed counter files of the strict sandbox: {exc}"
        fd = machine_view.seccomp_fd()
        argv = [program, *bwrap.namespaces(), *bwrap.system_binds(), "--proc", "/proc", "--dev", "/dev", *view,
                "--seccomp", str(fd), "--", "true"]
    try:
        probe = subprocess.run(argv, capture_output=True, timeout=10, check=False, pass_fds=() if fd is None else (fd,))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{argv[0]} failed: {exc}"
    finally:
        if fd is not None:
            os.close(fd)
    if probe.returncode != 0:
        err = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        hint = (" (unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1, "
                "or run the arena as root)") if os.geteuid() != 0 else ""
        return f"{argv[0]} cannot create namespaces here: {err[-1] if err else probe.returncode}{hint}"
    return None


def require(profile: str) -> None:
    """Check, before anything starts, that this machine can give ``profile``.

    Raises:
        ValueError: an unknown profile.
        SandboxUnavailable: ``strict`` on a machine without what it needs.
    """
    check_profile(profile)
    if profile == STRICT:
        why = _probe("bwrap")
        if why is not None:
            raise SandboxUnavailable(f"the strict sandbox is not available on this machine: {why}")


def require_ok(profile: str) -> bool:
    """Whether this machine can give ``profile`` (:func:`require` without the exception)."""
    try:
        require(profile)
    except SandboxUnavailable:
        return False
    return True


def protections(profile: str) -> dict[str, object]:
    """What is in force under ``profile`` on this machine (for log headers, league.json
    and the standings): the profile's name and each protection, true or false."""
    check_profile(profile)
    strict = profile == STRICT and _probe("bwrap") is None
    root = os.geteuid() == 0
    return {
        "profile": profile,
        "private_socket_dir": True,
        "resource_limits": shutil.which("prlimit") is not None,
        "pid_namespace": strict or _probe("pidns") is None,
        "filesystem_isolation": strict,
        "network_isolation": strict,
        "uid_per_bot": strict and root,
        "cgroups": strict and cgroups.available() is None,
        # Stopped between its decisions (arena.remote.freezer), and how:
        # a cgroup's freezer (every process at once) or signals to each process found.
        "frozen_between_decisions": profile == STRICT,
        "freezing": cgroups.freezing() if strict else None,
        # Fixed /proc counters and no sysinfo (arena.remote.machine_view).
        "fixed_counters": strict,
    }


# ---------------------------------------------------------------------- one bot


@dataclass
class Confinement:
    """How one bot process is started, and what to clean up after it."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    socket_dir: Path
    """The bot's private socket directory, as the arena sees it."""
    socket_dir_inside: str
    """The same directory as the bot sees it (its ``MUS_ARENA_SOCKET_DIR``)."""
    profile: str
    uid: int | None = None
    group: cgroups.BotGroup | None = None
    """The bot's control groups (strict, where available): memory and process limits."""
    pass_fds: list[int] = field(default_factory=list)
    """File descriptors the bot's command reads at its start (bubblewrap's seccomp
    program): passed to it, then closed by :meth:`close_fds`."""
    _released: bool = field(default=False, repr=False)

    def close_fds(self) -> None:
        """Close :attr:`pass_fds` (once the process has them). Idempotent."""
        while self.pass_fds:
            os.close(self.pass_fds.pop())

    def socket_path(self, announced: str) -> Path:
        """The arena-side path of a unix socket the bot announced.

        Only a plain file name directly inside the bot's socket directory is accepted:
        the arena never acts on a path a bot chose elsewhere.

        Raises:
            SandboxError: the path is not directly inside the socket directory.
        """
        inside = os.path.normpath(announced)
        parent, name = os.path.split(inside)
        if parent != self.socket_dir_inside.rstrip("/") or name in ("", ".", "..") or announced != inside:
            raise SandboxError(
                f"announced unix socket {announced[:200]!r} is not directly inside its socket directory "
                f"{self.socket_dir_inside} (MUS_ARENA_SOCKET_DIR)"
            )
        return self.socket_dir / name

    def release(self) -> None:
        """Remove the socket directory and everything in it (never following a link the
        bot made), and free the uid. Idempotent."""
        if self._released:
            return
        self._released = True
        self.close_fds()
        # shutil.rmtree works on file descriptors here (Linux): a symlink inside is
        # removed, never followed, so a bot cannot make the arena delete anything else.
        shutil.rmtree(self.socket_dir.parent if self.profile == STRICT else self.socket_dir, ignore_errors=True)
        if self.group is not None:
            self.group.remove()
        if self.uid is not None:
            _UIDS.free(self.uid)


class _UidPool:
    """Uids for strict bots run by a root arena: distinct among the running bots."""

    def __init__(self) -> None:
        self._used: set[int] = set()
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            while True:
                uid = UID_BASE + secrets.randbelow(UID_SPAN)
                if uid not in self._used:
                    self._used.add(uid)
                    return uid

    def free(self, uid: int) -> None:
        with self._lock:
            self._used.discard(uid)


_UIDS = _UidPool()


_SWEPT: set[Path] = set()


def _runtime_root() -> Path:
    """The folder under which the arena makes its bots' socket directories: private to
    the arena's user, and short (unix socket paths are limited to 107 bytes). Each
    directory's name starts with the pid of the arena that made it; the first call in a
    process removes those of arenas that are gone (killed before they could clean up)."""
    base = Path(tempfile.gettempdir()) / f"mus-arena-{os.geteuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    st = base.lstat()
    if not base.is_dir() or base.is_symlink() or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise SandboxError(f"{base} is not a private folder of this user (mode 0700, not a link): remove it")
    with _PROBE_LOCK:
        if base not in _SWEPT:
            _SWEPT.add(base)
            _sweep(base)
    return base


def _sweep(base: Path) -> None:
    """Remove the socket directories of arenas that no longer run."""
    for entry in os.scandir(base):
        owner = entry.name.split("-", 1)[0]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(entry.path, ignore_errors=True)
        except PermissionError:
            pass  # a live process of another user has that pid: not ours to judge


def confine(profile: str, manifest: BotManifest, label: str) -> Confinement:
    """Prepare one bot's start under ``profile``: its private socket directory, command
    line and environment.

    Raises:
        ValueError: an unknown profile.
        SandboxUnavailable: ``strict`` on a machine that cannot give it.
        SandboxError: the socket directory cannot be made, or ``run_as`` is impossible.
    """
    check_profile(profile)
    try:
        root = _runtime_root()
        # A random name: a bot cannot guess another bot's directory.
        host_dir = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-{label[:40]}-", dir=root))
    except OSError as exc:
        raise SandboxError(f"cannot create the socket directory of bot {manifest.name}: {exc.strerror or exc}") from None
    try:
        return _confine_in(profile, manifest, label, host_dir)
    except BaseException:
        shutil.rmtree(host_dir, ignore_errors=True)  # nothing is left of a bot that cannot start
        raise


def _confine_in(profile: str, manifest: BotManifest, label: str, host_dir: Path) -> Confinement:
    """:func:`confine`'s work once the bot's private folder ``host_dir`` exists."""
    if profile == DEFAULT:
        try:
            wrap = wrappers.default_wrapper(manifest.limits, manifest.run_as, pid_namespace=_probe("pidns") is None)
            if manifest.run_as is not None:
                run_uid, run_gid = wrappers.user_ids(manifest.run_as)
                os.chown(host_dir, run_uid, run_gid)
        except wrappers.WrapperError as exc:
            raise SandboxError(str(exc)) from None
        argv = [*wrap, *wrappers.own_env(manifest), *manifest.command]
        env = wrappers.default_env(manifest, str(host_dir))
        return Confinement(argv, env, manifest.workdir, host_dir, str(host_dir), profile)
    require(STRICT)
    # strict: host_dir is a private parent; the socket directory inside it is the one
    # bound into the sandbox (its parent stays 0700, so no other user reaches it).
    sock_dir = host_dir / "s"
    sock_dir.mkdir(mode=0o700)
    _check_workdir(manifest)
    unreadable = readability_problem(manifest.workdir)
    if unreadable is not None:
        raise SandboxError(unreadable)
    uid = _UIDS.take() if os.geteuid() == 0 else None
    if uid is not None:
        os.chown(sock_dir, uid, uid)
    seccomp = machine_view.seccomp_fd()
    try:
        argv, env = bwrap.strict_command(manifest, sock_dir, uid, seccomp, _runtime_root())
        group = cgroups.create(label[:40], manifest.limits.memory_mb, manifest.limits.processes)
    except BaseException:
        os.close(seccomp)
        if uid is not None:
            _UIDS.free(uid)
        raise
    if group is not None:
        argv = group.wrap(argv)
    return Confinement(argv, env, manifest.workdir, sock_dir, bwrap.SOCKET_DIR_INSIDE, profile, uid, group,
                       [seccomp])


def _check_workdir(manifest: BotManifest) -> None:
    """The folder a strict bot is shown (its workdir) is inside the bot's own folder
    (load_spec refuses any other; checked again here for a manifest made in code).

    Raises:
        SandboxError: it is not.
    """
    home, workdir = manifest.home.resolve(), manifest.workdir.resolve()
    if workdir != home and home not in workdir.parents:
        raise SandboxError(f"workdir {workdir} is outside the bot's folder {home}: the strict sandbox shows a bot "
                           "its own folder only")






