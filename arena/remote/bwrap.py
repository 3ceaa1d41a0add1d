"""The strict profile's command line: a bot under bubblewrap (``bwrap``).

Its own pid, mount, network, IPC and UTS namespaces; a read-only view of the system's
programs and libraries (``/usr``, a few files of ``/etc``), of its own folder and, for
a Python bot, of the interpreter and the SDK's packages (never the project's venv);
private, size-limited ``/tmp``, ``/dev/shm`` and home; fixed machine counters
(:mod:`arena.remote.machine_view`); the one socket directory through which the arena
reaches it. :mod:`arena.remote.sandbox` decides when this is used and cleans up after it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path

from arena.remote import grpc_tuning, machine_view
from arena.remote.manifest import BotManifest
from arena.remote.wrappers import limits_wrapper, own_env

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


def namespaces() -> list[str]:
    out = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if os.geteuid() != 0:
        # A user namespace lets an unprivileged arena make the others. As root there is
        # none: the bot's own uid is set inside, by setpriv, after the mounts.
        out.append("--unshare-user")
    return [*out, "--die-with-parent", "--new-session"]


def system_binds() -> list[str]:
    """Read-only views of the system's programs and libraries (merged /usr or not)."""
    out = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            out += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            out += ["--ro-bind", str(path), str(path)]
    return out


def python_binds() -> tuple[list[str], str]:
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


def with_parent_dirs(argv: list[str]) -> list[str]:
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


def strict_command(manifest: BotManifest, sock_dir: Path, uid: int | None, seccomp_fd: int,
                   runtime_root: Path) -> tuple[list[str], dict[str, str]]:
    from mus_sdk import handshake

    bwrap = shutil.which("bwrap") or "bwrap"
    argv = [bwrap, *namespaces(), *system_binds()]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    # Private, size-limited, writable by the bot's uid (1777: the tmpfs is the bot's alone).
    argv += ["--proc", "/proc", "--dev", "/dev", *machine_view.binds(runtime_root)]
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
        binds, command[0] = python_binds()
        argv += binds
        env.update(PYTHONPATH=PYTHON_PATH_INSIDE, PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
        env.update(grpc_tuning.bot_environment())
    for name in manifest.inherit_env:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(handshake.handshake_env(SOCKET_DIR_INSIDE))
    argv += ["--hostname", "mus-bot", "--chdir", workdir, "--seccomp", str(seccomp_fd), "--"]
    argv = with_parent_dirs(argv)
    if uid is not None:
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        argv += [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    argv += limits_wrapper(manifest.limits)
    return argv + own_env(manifest) + command, env
