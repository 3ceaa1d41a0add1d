"""A still view of the machine for strict bots: fixed global counters, no ``sysinfo``.

Partners are frozen in turn under the strict sandbox, but the machine's global counters
outlive a freeze: a bot that holds 256 MiB while its bit is 1 (or burns the CPU during
its decision) moves ``MemAvailable`` (or the CPU time in ``/proc/stat``), and its
partner reads it at its own decision. Measured before this module: 93 % of bits right
(bench/covert.py, docs/reliability.md §4). A namespace does not hide these counters, so
a strict bot gets:

* **fixed files** over the counters of ``/proc`` (:data:`MASKED`): made once per arena
  process, the same for every bot, from nothing that changes while the machine runs
  (total memory, the number of CPUs, the boot time; every free, used, busy or waiting
  figure is a constant). Programs that size themselves from ``MemTotal`` or count CPUs
  still find what they expect;
* **a seccomp filter** that answers ``sysinfo(2)`` with ``ENOSYS`` (free memory, load
  and the number of processes of the whole machine), on x86-64, i386, x32, aarch64 and
  arm: the C library's callers (``sysconf(_SC_PHYS_PAGES)``) then fall back or see 0.

What stays (timing, the page cache, CPUs shared by concurrent matches) is listed in
docs/reliability.md §4 with its measured rate.
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import shutil
import struct
import tempfile
import threading
from pathlib import Path

MASKED = (
    "meminfo", "stat", "loadavg", "uptime", "vmstat", "pressure/cpu", "pressure/memory", "pressure/io",
    "pressure/irq", "zoneinfo", "buddyinfo", "pagetypeinfo", "diskstats", "interrupts", "softirqs", "schedstat",
    "swaps", "cgroups", "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/dentry-state", "sys/fs/aio-nr",
    "sys/kernel/pty/nr",
)
"""Files of ``/proc`` that show the whole machine's memory, CPU time, load, waits,
interrupts, I/O or open files, and that a process of any namespace can move (see
tests/adversarial/test_covert_channel.py, which reads them all)."""

# ---------------------------------------------------------------------- fixed files

_KEEP_MEMINFO = re.compile(r"^(MemTotal|SwapTotal|Hugepagesize|Hugetlb|HugePages_Total|DirectMap\w*|VmallocTotal|CommitLimit)$")


def _meminfo(host: str) -> str:
    """The host's keys in its order; totals kept (they do not move), free memory half
    of the total, everything else 0."""
    values: dict[str, int] = {}
    lines = []
    for line in host.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if not parts or not parts[0].isdigit():
            continue
        values[key] = int(parts[0]) if _KEEP_MEMINFO.match(key) else 0
        lines.append((key, parts[1] if len(parts) > 1 else ""))
    total = values.get("MemTotal", 4 << 20)
    values["MemFree"] = values["MemAvailable"] = total // 2
    values["SwapFree"] = values.get("SwapTotal", 0)
    return "".join(f"{f'{key}:':<16}{values[key]:>8}{' ' + unit if unit else ''}\n" for key, unit in lines)


def _stat(host: str) -> str:
    """One ``cpu`` line per CPU of the host, with fixed times; the boot time kept."""
    cpus = [ln.split()[0] for ln in host.splitlines() if re.match(r"^cpu\d+ ", ln)] or ["cpu0"]
    btime = next((ln for ln in host.splitlines() if ln.startswith("btime ")), "btime 0")
    times = " 1000 0 1000 100000 0 0 0 0 0 0"
    total = " ".join(str(int(t) * len(cpus)) for t in times.split())
    return (f"cpu  {total}\n" + "".join(f"{c}{times}\n" for c in cpus)
            + f"intr 0\nctxt 0\n{btime}\nprocesses 1\nprocs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")


def _zeroed(host: str) -> str:
    """``key value`` lines: the same keys, every value 0 (/proc/vmstat)."""
    return "".join(f"{line.split()[0]} 0\n" for line in host.splitlines() if line.split())


def _cgroups(host: str) -> str:
    """The host's controllers with one group each (the arena makes and removes groups)."""
    out = []
    for line in host.splitlines():
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 4:
            out.append(line)
        else:
            out.append("\t".join([cols[0], cols[1], "1", *cols[3:]]))
    return "\n".join(out) + "\n"


_PRESSURE = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"


def contents(name: str, host: str) -> str:
    """The fixed content shown for ``/proc/NAME``, given the host's (read once)."""
    if name == "meminfo":
        return _meminfo(host)
    if name == "stat":
        return _stat(host)
    if name == "vmstat":
        return _zeroed(host)
    if name == "cgroups":
        return _cgroups(host)
    if name.startswith("pressure/"):
        return _PRESSURE
    fixed = {
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "1000.00 1000.00\n",
        "swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
        "sys/fs/file-nr": "0\t0\t9223372036854775807\n",
        "sys/fs/inode-nr": "0\t0\n",
        "sys/fs/dentry-state": "0\t0\t45\t0\t0\t0\n",
        "sys/fs/aio-nr": "0\n",
        "sys/kernel/pty/nr": "0\n",
    }
    return fixed.get(name, "")  # zoneinfo, interrupts, schedstat...: empty (rarely read)


_LOCK = threading.Lock()
_FOLDER: Path | None = None


def binds(runtime_root: Path) -> list[str]:
    """bubblewrap arguments that show every file of :data:`MASKED` that exists here as
    its fixed content (after ``--proc /proc``). The files are written once per arena
    process, in a folder of ``runtime_root`` named after its pid (so an arena killed
    before it could remove it is swept by the next), world-readable (a root arena's
    bots run as uids of their own). Each bind costs bubblewrap a mount: together
    6-11 ms more per bot start at best (bench: docs/reliability.md, "What strict costs")."""
    global _FOLDER
    with _LOCK:
        if _FOLDER is None or not _FOLDER.is_dir():
            folder = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-view-", dir=runtime_root))
            os.chmod(folder, 0o755)
            for name in MASKED:
                try:
                    if not os.stat(Path("/proc", name)).st_mode & 0o004:
                        continue  # only root may read it (pagetypeinfo): a bot never is root
                    host = Path("/proc", name).read_text(errors="replace")
                except OSError:
                    continue  # not on this kernel: nothing to mask
                path = folder / name.replace("/", "_")
                path.write_text(contents(name, host))
                os.chmod(path, 0o444)
            atexit.register(shutil.rmtree, folder, True)
            _FOLDER = folder
        folder = _FOLDER
    out: list[str] = []
    for name in MASKED:
        path = folder / name.replace("/", "_")
        if path.exists():
            out += ["--ro-bind", str(path), f"/proc/{name}"]
    return out


def remove() -> None:
    """Remove this process's fixed files now (a process about to leave by ``os._exit``,
    which runs no ``atexit`` handler: a referee worker stopped by SIGTERM)."""
    global _FOLDER
    with _LOCK:
        if _FOLDER is not None:
            shutil.rmtree(_FOLDER, ignore_errors=True)
            _FOLDER = None


# ---------------------------------------------------------------------- seccomp

# struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; } (linux/filter.h)
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
_ERRNO = 0x00050000  # SECCOMP_RET_ERRNO
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_X32 = 0x40000000

DENIED: dict[int, tuple[int, ...]] = {
    0xC000003E: (99, _X32 | 99),  # AUDIT_ARCH_X86_64: sysinfo, and x32's
    0x40000003: (116,),  # AUDIT_ARCH_I386
    0xC00000B7: (179,),  # AUDIT_ARCH_AARCH64
    0x40000028: (116,),  # AUDIT_ARCH_ARM (EABI)
}
"""System calls answered ``ENOSYS``, by audit architecture: ``sysinfo``. A process of
another architecture is let through (none runs on these machines' kernels)."""


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program(denied: dict[int, tuple[int, ...]] = DENIED, error: int = errno.ENOSYS) -> bytes:
    """A classic BPF program for ``seccomp(SECCOMP_SET_MODE_FILTER)`` (bubblewrap's
    ``--seccomp FD``): for each architecture in ``denied``, its calls fail with
    ``error``; everything else is allowed."""
    body: list[bytes] = []
    for arch, numbers in denied.items():
        # ld nr; jeq each number -> deny (the block's last instruction); ret allow; deny
        block = [_insn(_LD_W_ABS, _NR)]
        for i, nr in enumerate(numbers):
            block.append(_insn(_JEQ_K, nr, jt=len(numbers) - i, jf=0))
        block += [_insn(_RET_K, _ALLOW), _insn(_RET_K, _ERRNO | (error & 0xFFFF))]
        body += [_insn(_JEQ_K, arch, jt=0, jf=len(block)), *block]
    return b"".join([_insn(_LD_W_ABS, _ARCH), *body, _insn(_RET_K, _ALLOW)])


def seccomp_fd() -> int:
    """A file descriptor from which bubblewrap reads :func:`seccomp_program` (a pipe: the
    program is a few hundred bytes, under any pipe's buffer). The caller passes it to
    the child and closes it."""
    read, write = os.pipe()
    try:
        os.write(write, seccomp_program())
    finally:
        os.close(write)
    return read


__all__ = ["DENIED", "MASKED", "binds", "contents", "remove", "seccomp_fd", "seccomp_program"]
