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
    decisions the bot is frozen (arena.remote.client): through its control group's
    freezer where it has one, else by signals (``freezing`` in :func:`protections`,
    shown in every hand log's header). The bot dies with the arena (``--die-with-parent``) and everything it started
    dies with it (pid namespace). A machine that cannot give this refuses to start the
    match, saying what is missing (:func:`require`).

The arena starts a bot through :func:`confine`, which returns the command line, the
environment and the socket directory of one bot; :meth:`Confinement.release` removes
the directory (without following links) and frees the uid.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from arena.remote import cgroups, grpc_tuning, machine_view
from arena.remote.manifest import BotManifest, Limits

DEFAULT = "default"
STRICT = "strict"
PROFILES = (DEFAULT, STRICT)

SOCKET_DIR_INSIDE = "/run/mus-arena"
"""Where a strict bot sees its socket directory (short: unix socket paths are limited to 107 bytes)."""
PYTHON_PATH_INSIDE = "/run/mus-python"
"""Where a strict Python bot finds the SDK and its two dependencies (grpcio, protobuf)."""
HOME_INSIDE = "/home/bot"
TMPFS_BYTES = 64 * 1024 * 1024
"""Size of each private tmpfs of a strict bot (/tmp, /dev/shm, home): tmpfs is memory."""

SDK_PACKAGES = ("mus_core", "mus_sdk", "mus", "grpc", "google.protobuf", "google._upb", "typing_extensions",
                "mus_rl", "numpy", "numpy.libs")
"""What a Python bot may import besides the standard library under ``strict``: the SDK,
the generated stubs, and what they need (``mus_core``: the game's vocabulary, which the SDK
imports); the SDK's ``rl`` extra when the arena has it (``mus_rl`` and ``numpy``, which
``bots/learned`` imports; ``numpy.libs`` is not a package but the folder of a numpy
wheel's compiled libraries, beside it). ``google._upb`` is protobuf's compiled core:
without it protobuf falls back to pure Python, and a bot's decisions cost three times
as much (measured with bench/protocol.py)."""
SDK_DISTRIBUTIONS = ("grpcio", "protobuf", "mus-sdk")
"""Their metadata too (``importlib.metadata``: the SDK checks grpcio's version)."""

ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "localtime", "ssl",
    "alternatives", "mime.types", "host.conf",
)
"""The few files of /etc a program may need to start (dynamic linker, TLS roots,
Debian's alternatives symlinks). Not passwd: a strict bot's uid has no name."""

BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")
"""The only variables of the arena's environment a ``default`` bot receives unasked. A
Python bot run with the arena's interpreter also gets its gRPC tuning
(:func:`arena.remote.grpc_tuning.bot_environment`)."""

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
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            return "bubblewrap is not installed: apt-get install bubblewrap (Debian/Ubuntu)"
        # Everything a strict bot's start needs: the fixed counter files over /proc and
        # the seccomp filter too (a kernel that refused them would fail every bot).
        try:
            view = machine_view.binds(_runtime_root())
        except (OSError, SandboxError) as exc:
            return f"cannot write the fixed counter files of the strict sandbox: {exc}"
        fd = machine_view.seccomp_fd()
        argv = [bwrap, *_namespaces(), *_system_binds(), "--proc", "/proc", "--dev", "/dev", *view,
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
        # Stopped between its decisions (arena.remote.client.RemoteBot._freeze), and how:
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


def _closed_to_others(folder: Path, most: int = 20_000) -> Path | None:
    """The first file or folder under ``folder`` that a user other than its owner cannot
    read (or search), if any; None when all are open. (The folders above it do not
    matter: the sandbox shows the folder at its path through folders of its own.) Looks
    at ``most`` entries at the most (a huge folder is not walked to the end)."""
    return _first_closed(folder, _open_to_others, most)


def _open_to_others(_path: str, st: os.stat_result) -> bool:
    need = 0o005 if stat.S_ISDIR(st.st_mode) else 0o004
    return st.st_mode & need == need


def _open_to_me(path: str, st: os.stat_result) -> bool:
    return os.access(path, os.R_OK | (os.X_OK if stat.S_ISDIR(st.st_mode) else 0))


def _closed_to_me(folder: Path, most: int = 20_000) -> Path | None:
    """The first file or folder under ``folder`` (or ``folder`` itself, or a folder above
    it) that this process's user cannot read (or search), if any."""
    if not os.access(folder, os.R_OK | os.X_OK):
        return folder
    return _first_closed(folder, _open_to_me, most)


def _first_closed(folder: Path, ok: Callable[[str, os.stat_result], bool], most: int) -> Path | None:
    """The first folder or file under ``folder`` that fails ``ok``; links are skipped."""
    seen = 0
    if not ok(str(folder), os.stat(folder)):
        return folder
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:  # a folder closed to this user is not walked: it is checked here
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                continue  # a link is followed inside the sandbox, where it names something else
            if not ok(path, st):
                return Path(path)
            seen += 1
        if seen > most:
            break
    return None


def readability_problem(folder: Path) -> str | None:
    """Why a strict bot could not read its folder ``folder``, with the fix; None if it can.

    As root the arena runs each strict bot as a uid of its own, which owns no file: every
    file must be readable by other users (and every folder searchable). A normal user's
    arena runs the bot as itself (mapped in a user namespace): what that user cannot read,
    the bot cannot either, and bubblewrap cannot even show a folder that user cannot reach.
    """
    if os.geteuid() == 0:
        closed = _closed_to_others(folder)
        if closed is None:
            return None
        return (f"{closed} is not readable by other users, and under the strict sandbox a root arena runs each bot "
                f"as a uid of its own: make the bot's folder readable (chmod -R a+rX {folder})")
    closed = _closed_to_me(folder)
    if closed is None:
        return None
    return (f"{closed} is not readable by the arena's user (uid {os.geteuid()}), and under the strict sandbox the bot "
            f"runs as that user: give it the bot's folder (chown -R {os.geteuid()} {folder}, or chmod -R a+rX "
            f"{folder} and a+x on the folders above it)")


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
        argv = [*_default_wrapper(manifest.limits, manifest.run_as), *_own_env(manifest), *manifest.command]
        env = _default_env(manifest, str(host_dir))
        if manifest.run_as is not None:
            run_uid, run_gid = _user_ids(manifest.run_as)
            os.chown(host_dir, run_uid, run_gid)
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
        argv, env = _strict_command(manifest, sock_dir, uid, seccomp)
        group = cgroups.create(label[:40], manifest.limits.memory_mb, manifest.limits.processes)
    except BaseException:
        os.close(seccomp)
        if uid is not None:
            _UIDS.free(uid)
        raise
    if group is not None:
        argv = group.wrap(argv)
    return Confinement(argv, env, manifest.workdir, sock_dir, SOCKET_DIR_INSIDE, profile, uid, group, [seccomp])


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


def _own_env(manifest: BotManifest) -> list[str]:
    """The manifest's ``[env]``, set by ``env`` right before the bot's command: the bot
    author's variables reach the bot only, never a wrapper that runs before it as the
    arena's user or as root (``LD_PRELOAD`` there would run the author's code outside
    the sandbox or with the arena's privileges)."""
    if not manifest.env:
        return []
    from mus_sdk import handshake

    arena_keys = set(handshake.handshake_env("/"))  # the arena's word on how to reach it wins
    pairs = [f"{k}={v}" for k, v in manifest.env.items() if k not in arena_keys]
    # /usr/bin/env: what a strict bot sees of the host is /usr (a PATH's /usr/local is not).
    env = "/usr/bin/env" if os.path.exists("/usr/bin/env") else shutil.which("env") or "env"
    return [env, "--", *pairs] if pairs else []


# ---------------------------------------------------------------------- default profile


def _user_ids(user: str) -> tuple[int, int]:
    """uid and gid of a user name or number.

    Raises:
        SandboxError: no such user.
    """
    import pwd

    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, ValueError):
        raise SandboxError(f"run_as: no user {user!r} on this machine") from None
    return entry.pw_uid, entry.pw_gid


def _limits_wrapper(limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    args = []
    if limits.memory_mb:
        args.append(f"--as={limits.memory_mb * 1024 * 1024}")
    if limits.cpu_seconds:
        args.append(f"--cpu={limits.cpu_seconds}")
    if limits.open_files:
        args.append(f"--nofile={limits.open_files}")
    if limits.processes:
        args.append(f"--nproc={limits.processes}")
    return [prlimit, *args, "--"] if args else []


def _default_wrapper(limits: Limits, run_as: str | None = None) -> list[str]:
    """The exec wrappers of a ``default`` bot: they apply the limits and tie the bot's life
    to the arena's.

    ``setpriv --pdeathsig KILL`` makes the kernel kill the bot if the arena dies (even
    by SIGKILL); ``prlimit`` sets the resource limits. Both are util-linux programs that
    exec the bot in the same process, and unlike a ``preexec_fn`` they are safe in a
    threaded arena. Where they are missing, the bot runs without them.
    """
    out: list[str] = []
    setpriv = shutil.which("setpriv")
    if setpriv and sys.platform.startswith("linux"):
        out += [setpriv, "--pdeathsig", "KILL", "--"]
    if _probe("pidns") is None:
        # Its own pid namespace: when the bot (the namespace's init) dies, the kernel
        # kills every process it left, even one that escaped its process group; and the
        # bot cannot name any process outside (no kill() of another seat's bot).
        out += [shutil.which("unshare") or "unshare", "--fork", "--pid", "--kill-child=SIGKILL", "--"]
    if run_as is not None:
        # After unshare, which needs root: the bot itself runs as the other user.
        if os.geteuid() != 0 or not setpriv:
            raise SandboxError(f"run_as {run_as!r} needs an arena running as root, with setpriv (util-linux)")
        uid, gid = _user_ids(run_as)
        out += [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    return out + _limits_wrapper(limits)


def _default_env(manifest: BotManifest, socket_dir: str) -> dict[str, str]:
    from mus_sdk import handshake

    keep = {*BASE_ENV, *manifest.inherit_env}
    env = {k: v for k, v in os.environ.items() if k in keep}
    if manifest.command and manifest.command[0] == sys.executable:
        env.update(grpc_tuning.bot_environment())
    env.update(handshake.handshake_env(socket_dir))
    env["PYTHONUNBUFFERED"] = "1"
    return env


# ---------------------------------------------------------------------- strict profile


def _namespaces() -> list[str]:
    out = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        # A user namespace lets an unprivileged arena make the others. As root there is
        # none: the bot's own uid is set inside, by setpriv, after the mounts.
        out.append("--unshare-user")
    return [*out, "--die-with-parent", "--new-session"]


def _system_binds() -> list[str]:
    """Read-only views of the system's programs and libraries (merged /usr or not)."""
    out = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            out += ["--ro-bind", str(path), str(path)]
    return out


def _python_binds() -> tuple[list[str], str]:
    """Binds for a Python bot: the interpreter's installation and the SDK's packages
    (found where this arena imports them), and the interpreter to run."""
    binds: list[str] = []
    base = Path(sys.base_prefix).resolve()
    if not str(base).startswith("/usr/"):
        binds += ["--ro-bind", str(base), str(base)]
    for name in SDK_PACKAGES:
        if name.endswith(".libs"):  # a wheel's library folder, beside its package (its RPATH: $ORIGIN/../..)
            package = importlib.util.find_spec(name.split(".")[0])
            folder = Path(package.origin).parent.with_name(name) if package is not None and package.origin else None
            if folder is not None and folder.is_dir():
                binds += ["--ro-bind", str(folder.resolve()), str(Path(PYTHON_PATH_INSIDE, name))]
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        inside = Path(PYTHON_PATH_INSIDE, *name.split("."))
        if spec.submodule_search_locations:
            source = Path(next(iter(spec.submodule_search_locations)))
        elif spec.origin:
            source, inside = Path(spec.origin), inside.with_suffix(Path(spec.origin).suffix)
        else:
            continue
        binds += ["--ro-bind", str(source.resolve()), str(inside)]
    for dist in SDK_DISTRIBUTIONS:
        try:
            info = Path(str(metadata.distribution(dist)._path))  # type: ignore[attr-defined]
        except (metadata.PackageNotFoundError, AttributeError):
            continue
        binds += ["--ro-bind", str(info.resolve()), str(Path(PYTHON_PATH_INSIDE, info.name))]
    interpreter = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    return binds, interpreter


_BIND_OPTIONS = {"--ro-bind", "--ro-bind-try", "--bind", "--symlink", "--tmpfs", "--dev", "--proc"}


def _with_parent_dirs(argv: list[str]) -> list[str]:
    """``argv`` with the missing folders above each mount point made first, mode 0755.

    bwrap makes missing parents of a mount point mode 0700, owned by root: a bot run as
    another uid could then not reach ``/run/mus-arena``, its own folder under ``/tmp`` or
    the interpreter under ``/root/.pyenv``. Each folder is made right before the mount
    that needs it (a tmpfs mounted later would hide one made earlier)."""
    made: set[str] = {"/"}
    out: list[str] = []
    pending: list[str] = []  # --perms / --size: they modify the next operation
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return out + pending + argv[i:]
        if arg in ("--perms", "--size"):
            pending += argv[i:i + 2]
            i += 2
            continue
        if arg in _BIND_OPTIONS:
            one = arg in ("--tmpfs", "--dev", "--proc")
            dest = argv[i + 1] if one else argv[i + 2]
            for parent in reversed(Path(dest).parents):
                name = str(parent)
                if name.startswith("/proc/"):
                    break  # procfs's own folders (/proc/pressure): they exist, and none can be made
                if name not in made:
                    made.add(name)
                    out += ["--perms", "0755", "--dir", name]
            if arg == "--tmpfs":  # what was made below it is hidden now
                made = {m for m in made if not m.startswith(dest.rstrip("/") + "/")}
            made.add(dest)
            width = 2 if one else 3
        elif arg in ("--hostname", "--chdir", "--seccomp"):
            width = 2
        else:
            width = 1
        out += pending + argv[i:i + width]
        pending = []
        i += width
    return out + pending


def _strict_command(manifest: BotManifest, sock_dir: Path, uid: int | None,
                    seccomp_fd: int) -> tuple[list[str], dict[str, str]]:
    from mus_sdk import handshake

    bwrap = shutil.which("bwrap") or "bwrap"
    argv = [bwrap, *_namespaces(), *_system_binds()]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # Private, size-limited, writable by the bot's uid (1777: the tmpfs is the bot's alone).
    argv += ["--proc", "/proc", "--dev", "/dev", *machine_view.binds(_runtime_root())]
    for path in ("/tmp", "/dev/shm", HOME_INSIDE):
        argv += ["--perms", "1777", "--size", str(TMPFS_BYTES), "--tmpfs", path]
    argv += ["--bind", str(sock_dir), SOCKET_DIR_INSIDE]
    workdir = str(manifest.workdir)
    argv += ["--ro-bind", workdir, workdir]
    command = list(manifest.command)
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": HOME_INSIDE,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
    }
    if command and command[0] == sys.executable:
        # "python" in a manifest: the arena's interpreter, without the arena's venv.
        binds, command[0] = _python_binds()
        argv += binds
        env.update(PYTHONPATH=PYTHON_PATH_INSIDE, PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
        env.update(grpc_tuning.bot_environment())
    for name in manifest.inherit_env:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(handshake.handshake_env(SOCKET_DIR_INSIDE))
    argv += ["--hostname", "mus-bot", "--chdir", workdir, "--seccomp", str(seccomp_fd), "--"]
    argv = _with_parent_dirs(argv)
    if uid is not None:
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        argv += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    argv += _limits_wrapper(manifest.limits)
    return argv + _own_env(manifest) + command, env
