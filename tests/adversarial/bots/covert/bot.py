"""covert: partners that pass bits through the machine, for the covert-channel tests.

Seat 0 (the sender) and seat 2 (the receiver) are two processes of this bot, partners in
one team. Each hand ``h`` of match ``m`` the sender sends one bit, ``bit(m, h)`` (a
pseudo-random function that the measuring side knows too), through the channels in
``MUS_COVERT_SEND`` (comma-separated):

``mem``    hold ``MUS_COVERT_MB`` (256) MiB of touched memory while the bit is 1, from its
           first decision of the hand to its first of the next (held while frozen too)
``cpu``    burn the CPU for ``MUS_COVERT_BURN_MS`` (60) ms at its first decision of the hand
``delay``  sleep that long instead (a pure timing channel: its decision takes longer)
``cache``  read the first 4 MiB of a file of /usr/bin into the page cache for a 1, drop
           them (``posix_fadvise`` DONTNEED) for a 0

The receiver, at its first decision of hand ``h`` taken after the sender acted in that
hand, reads every global counter it can see and writes one line on stderr (which the
arena keeps in ``bots/<match>.s2.stderr.log``): ``COVERT {json}`` with the match, the
hand, and the raw readings. It does not decode them: the decoder (bench/covert.py,
``decode``) runs on the readings afterwards, as a receiver could online. The readings:
``meminfo`` (MemAvailable, kB), ``sysinfo`` (free RAM in bytes, or the error), ``stat``
(busy jiffies of all CPUs), ``idle`` (/proc/uptime's idle seconds), ``loadavg``,
``mono`` (its own clock), ``cache`` (pages of the sender's file in the page cache, by
``mincore``: the kernel answers "all" to a process that may not write the file),
``cache_us`` (the time to read its first 256 KiB) and ``files`` (a digest of each counter file, None if unreadable).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import mmap
import os
import sys
import time

from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve

SEND = set(filter(None, os.environ.get("MUS_COVERT_SEND", "mem").split(",")))
MB = int(os.environ.get("MUS_COVERT_MB", "256"))
BURN_S = int(os.environ.get("MUS_COVERT_BURN_MS", "60")) / 1000
CACHE_BYTES = 4 << 20
SENDER, RECEIVER = 0, 2
COUNTER_FILES = (
    "/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/uptime", "/proc/vmstat", "/proc/pressure/cpu",
    "/proc/pressure/memory", "/proc/pressure/io", "/proc/zoneinfo", "/proc/buddyinfo", "/proc/pagetypeinfo",
    "/proc/diskstats", "/proc/interrupts", "/proc/softirqs", "/proc/schedstat", "/proc/slabinfo",
    "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/dentry-state", "/proc/swaps",
    "/proc/sys/kernel/random/entropy_avail", "/proc/locks", "/proc/cgroups", "/proc/sys/fs/aio-nr",
    "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    "/sys/devices/system/node/node0/meminfo", "/sys/fs/cgroup/cpu.stat",
)
"""Every file that shows the whole machine's memory, CPU time, load, waits or I/O (the
/sys ones are not mounted under strict: they read as None)."""


def bit(match_id: str, hand: int) -> int:
    """The bit the sender sends in ``hand`` of ``match_id``."""
    return hashlib.blake2b(f"{match_id}:{hand}".encode()).digest()[0] & 1


def cache_file() -> str:
    """The file of the ``cache`` channel, the same for both partners: the largest that
    anyone may read in a folder of data files that no running program maps (a mapped
    page cannot be dropped)."""
    for folder in ("/usr/share/i18n/locales", "/usr/share/i18n/charmaps", "/usr/share/dict", "/usr/bin"):
        try:
            files = [e for e in os.scandir(folder) if e.is_file(follow_symlinks=False) and e.stat().st_mode & 0o004]
        except OSError:
            continue
        if files:
            return max(files, key=lambda e: (e.stat().st_size, e.name)).path
    return "/usr/bin/env"


class _SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


LIBC = ctypes.CDLL(None, use_errno=True)


def sysinfo() -> object:
    info = _SysInfo()
    if LIBC.sysinfo(ctypes.byref(info)) != 0:
        return f"errno {ctypes.get_errno()}"
    return info.freeram * info.mem_unit


def read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def field(text: str | None, key: str) -> int | None:
    for line in (text or "").splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return None


def resident_pages(path: str) -> int | None:
    """Pages of ``path`` in the page cache (mincore on a mapping: no read, no timing)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = min(os.fstat(fd).st_size, CACHE_BYTES)
        LIBC.mmap.restype = ctypes.c_void_p
        addr = LIBC.mmap(None, ctypes.c_size_t(size), mmap.PROT_READ, mmap.MAP_SHARED, fd, ctypes.c_long(0))
        if addr in (None, ctypes.c_void_p(-1).value):
            return None
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = (ctypes.c_ubyte * pages)()
        ok = LIBC.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) == 0
        LIBC.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
        return sum(v & 1 for v in vec) if ok else None
    finally:
        os.close(fd)


def read_time(path: str) -> float | None:
    """Microseconds to read the first 256 KiB of ``path`` (fast when in the page cache)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        t0 = time.perf_counter()
        os.pread(fd, 256 << 10, 0)
        return (time.perf_counter() - t0) * 1e6
    finally:
        os.close(fd)


def readings(match_id: str, hand: int) -> dict[str, object]:
    texts = {p: read(p) for p in COUNTER_FILES}
    stat = texts["/proc/stat"]
    busy = None
    if stat:
        cols = [int(x) for x in stat.splitlines()[0].split()[1:]]
        busy = sum(cols) - cols[3] - (cols[4] if len(cols) > 4 else 0)
    uptime, loadavg = texts["/proc/uptime"], texts["/proc/loadavg"]
    return {
        "match": match_id, "hand": hand, "mono": time.monotonic(),
        "meminfo": field(texts["/proc/meminfo"], "MemAvailable:"), "sysinfo": sysinfo(), "stat": busy,
        "idle": float(uptime.split()[1]) if uptime else None, "loadavg": float(loadavg.split()[0]) if loadavg else None,
        "cache": resident_pages(CACHE) if "cache" in SEND else None,
        "cache_us": read_time(CACHE) if "cache" in SEND else None,
        "files": {p: None if t is None else hashlib.sha1(t.encode()).hexdigest()[:12] for p, t in texts.items()},
    }


CACHE = cache_file()


class Covert(Bot):
    name = "covert"

    def __init__(self) -> None:
        self.hand = -1
        self.held: bytes | None = None

    def decide(self, obs: Observation) -> Action:
        first = obs.hand != self.hand
        self.hand = obs.hand
        if first and obs.seat == SENDER:
            self.send(bit(obs.match_id, obs.hand))
        elif first and obs.seat == RECEIVER:
            self.hand = -1  # not read yet in this hand
            if any(e.seat == SENDER and e.action is not None for e in obs.history):
                self.hand = obs.hand
                sys.stderr.write("COVERT " + json.dumps(readings(obs.match_id, obs.hand)) + "\n")
                sys.stderr.flush()
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in obs.legal_actions:
                return a
        return obs.legal_actions.fixed[0]

    def send(self, one: int) -> None:
        if "mem" in SEND:
            self.held = b"\x01" * (MB << 20) if one else None
        if one and "cpu" in SEND:
            end = time.perf_counter() + BURN_S
            while time.perf_counter() < end:
                pass
        if one and "delay" in SEND:
            time.sleep(BURN_S)
        if "cache" in SEND:
            with open(CACHE, "rb") as f:
                if one:
                    f.read(CACHE_BYTES)
                else:
                    os.posix_fadvise(f.fileno(), 0, CACHE_BYTES, os.POSIX_FADV_DONTNEED)


if __name__ == "__main__":
    serve(Covert())
