"""A control group per strict bot: a real memory limit and a process limit.

``prlimit`` limits one process's address space, not the memory a bot and its children
use (nor the tmpfs pages it writes), and RLIMIT_NPROC counts every process of a uid. A
control group counts all of the bot's processes together: ``memory`` (what they use,
tmpfs included) and ``pids`` (how many there are, for root too). Where the arena may
make groups, each bot started under the strict sandbox gets one (a child of the
arena's own group), with the manifest's ``memory_mb`` and ``processes`` as its limits;
at the limit the kernel kills the bot (out of memory) or refuses ``fork``. The bot's
command is started through a tiny shell that moves itself into the groups and then
execs bubblewrap, so nothing the bot starts escapes them. The groups are removed when
the bot has stopped.

Two layouts are supported: cgroup v1 with writable ``memory`` and ``pids`` hierarchies
(as root), and cgroup v2 where the arena's group already delegates ``memory`` and
``pids`` to its children (``cgroup.subtree_control``). Elsewhere there is no group, and
:func:`available` says why (docs/reliability.md).

**Freezing.** Where the bot has a cgroup v2 group (its own under v2; under v1, an extra
group without controllers in the unified hierarchy, when the machine mounts one that the
arena may write, as systemd's hybrid layout does) the arena stops the bot between its
decisions by writing ``cgroup.freeze``: every process of the group at once, children
forked at any moment included (no race with a bot that forks without pause). The v1
``freezer`` controller is not used: a task it froze ignores SIGKILL until thawed, so an
arena killed while a bot was frozen would leave it behind; a v2 frozen task dies.
Elsewhere :class:`BotGroup` has no freezer and the arena signals the processes
(SIGSTOP, arena.remote.process.BotProcess.freeze).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_LOCK = threading.Lock()
_LAYOUT: tuple[str, dict[str, Path]] | str | None = None


def _own(controller: str | None) -> str | None:
    """This process's group path in the hierarchy of ``controller`` (None: cgroup v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if (controller is None and names == "") or (controller is not None and controller in names.split(",")):
            return path
    return None


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def _detect() -> tuple[str, dict[str, Path]] | str:
    """("v1"|"v2", the parent group folder of each controller, and of the v2 group that
    freezes, key ``freeze``, where there is one), or why there is none."""
    v1 = {c: ROOT / c / (_own(c) or "/").lstrip("/") for c in ("memory", "pids")}
    own = _own(None)
    if all(_writable(p) and (p / "cgroup.procs").exists() for p in v1.values()):
        unified = ROOT / "unified" / (own or "/").lstrip("/")
        if own is not None and _writable(unified) and (unified / "cgroup.procs").exists():
            v1["freeze"] = unified
        return "v1", v1
    for mount in (ROOT, ROOT / "unified"):
        parent = mount / (own or "/").lstrip("/")
        try:
            enabled = (parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            continue
        if {"memory", "pids"} <= set(enabled) and _writable(parent):
            return "v2", {"memory": parent, "pids": parent, "freeze": parent}
    return ("no cgroup hierarchy with the memory and pids controllers that this user may write "
            "(cgroup v1 as root, or a cgroup v2 group that delegates memory and pids)")


def available() -> str | None:
    """None when bots can get control groups here, else why not (detected once)."""
    global _LAYOUT
    with _LOCK:
        if _LAYOUT is None:
            _LAYOUT = _detect()
        return _LAYOUT if isinstance(_LAYOUT, str) else None


@dataclass
class BotGroup:
    """The control group(s) of one bot."""

    folders: list[Path]
    procs: list[Path]
    """The ``cgroup.procs`` files the bot's first process writes itself into."""
    freezer: Path | None = None
    """The ``cgroup.freeze`` file of the bot's v2 group (None: none, signals instead)."""
    _removed: bool = field(default=False, repr=False)

    def freeze(self) -> bool:
        """Freeze every process of the group (asynchronous: the kernel stops each at
        its next return to user space). False if the group has no freezer or the
        write failed (the caller then signals the processes)."""
        return self._write_freeze("1")

    def thaw(self) -> bool:
        """Wake every process of the group; False as for :meth:`freeze`."""
        return self._write_freeze("0")

    def _write_freeze(self, value: str) -> bool:
        if self.freezer is None or self._removed:
            return False
        try:
            fd = os.open(self.freezer, os.O_WRONLY)
            try:
                os.write(fd, value.encode())
            finally:
                os.close(fd)
        except OSError:
            return False
        return True

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started inside the groups: a shell moves itself in, then execs it."""
        script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
        return ["/bin/sh", "-c", script, "mus-cgroup", *map(str, self.procs), "--", *argv]

    def remove(self) -> None:
        """Remove the groups (once their processes are gone; retried briefly). Idempotent."""
        if self._removed:
            return
        self._removed = True
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)  # a process still exiting


def create(label: str, memory_mb: int, processes: int) -> BotGroup | None:
    """New groups for one bot with these limits (0: none), or None where groups are not
    available (:func:`available`)."""
    if available() is not None:
        return None
    assert isinstance(_LAYOUT, tuple)
    version, parents = _LAYOUT
    name = f"mus-arena-{os.getpid()}-{label}-{os.urandom(3).hex()}"
    folders: list[Path] = []
    try:
        for controller in parents:
            folder = parents[controller] / name
            if folder in folders:
                continue
            folder.mkdir()
            folders.append(folder)
        if version == "v1":
            if memory_mb:
                (folders[0] / "memory.limit_in_bytes").write_text(str(memory_mb * 1024 * 1024))
            if processes:
                (folders[1] / "pids.max").write_text(str(processes))
        else:
            if memory_mb:
                (folders[0] / "memory.max").write_text(str(memory_mb * 1024 * 1024))
                if (folders[0] / "memory.swap.max").exists():  # no swapping past the limit
                    (folders[0] / "memory.swap.max").write_text("0")
            if processes:
                (folders[0] / "pids.max").write_text(str(processes))
    except OSError:
        BotGroup(folders, []).remove()
        return None
    freezer = parents["freeze"] / name / "cgroup.freeze" if "freeze" in parents else None
    return BotGroup(folders, [f / "cgroup.procs" for f in folders], freezer if freezer and freezer.exists() else None)


def freezing() -> str:
    """How strict bots are frozen between decisions on this machine: ``"cgroup"`` (a v2
    group's ``cgroup.freeze``) or ``"signals"`` (SIGSTOP to each process found)."""
    if available() is None:
        assert isinstance(_LAYOUT, tuple)
        if "freeze" in _LAYOUT[1]:
            return "cgroup"
    return "signals"
