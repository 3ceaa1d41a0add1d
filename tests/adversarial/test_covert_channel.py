"""Partners cannot talk through the machine's global counters under the strict sandbox.

Frozen in turn, partners can still leave each other a message in what outlives a
freeze: the sender (seat 0, tests/adversarial/bots/covert) holds memory while its bit
is 1, and the receiver (seat 2) reads the machine's counters at its own decision. Before
the fixed counter files and the seccomp filter of arena/remote/machine_view.py, 71 % of
256-MiB bits got through ``MemAvailable`` and 88 % through ``/proc/stat`` (the
memory's writing costs CPU), as root and as a normal user (bench/covert.py,
docs/reliability.md §4).

The real ``mus match`` runs, as root and as a normal user. The receiver reports its raw
readings; the bits are a function of the match and the hand that this test computes too
(bench/covert.py's ``bit``), and the receiver's decoder is run on the readings.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from adversarial_helpers import REPO
from unprivileged import Runner

from arena.remote import cgroups, machine_view

sys.path.insert(0, str(REPO / "bench"))
import covert

COUNTERS = ("meminfo", "sysinfo", "stat", "idle", "loadavg")
"""The decoders that read the machine's counters (``mono``, the receiver's own clock, is
the decision-time channel that no sandbox closes: docs/reliability.md §4)."""


def chance_bound(n: int, z: float = 3.5) -> float:
    """The accuracy a receiver without information stays under, but with probability
    about 2e-4 (one-sided normal bound of a Binomial(n, 1/2) share)."""
    return 0.5 + z * math.sqrt(0.25 / n)


def test_strict_partners_read_only_fixed_counters(runner: Runner) -> None:
    """Every counter file the receiver reads has the same content at each of its
    decisions, ``sysinfo`` fails, and no counter decodes above chance; the hand log's
    header says so. Before the fix the files moved at every reading (and sysinfo
    answered) under strict too: this test failed at its first assertion."""
    # 16 MiB: enough to move MemAvailable, and cheap (the sender writes it for each 1);
    # bench/covert.py measures the channel with 256 MiB.
    folder = covert.bot_folder(runner, "mem", mb=16, burn_ms=0)
    trivial = runner.copy_in(covert.TRIVIAL, "bots/trivial")
    out = runner.home / "out"
    run = runner.mus("match", str(folder), str(trivial), "--sandbox", "strict", "--out", str(out), "--target", "40",
                     "--games", "2", "--seed", "7", "--match-id", "covert-test", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["faults"] == []
    rows = covert.readings(out)
    assert len(rows) >= 20, len(rows)
    still, total, moved = covert.static_share(rows)
    assert moved == [], f"counters that moved inside the sandbox: {moved}"
    assert still == total
    assert all(isinstance(r["sysinfo"], str) and "38" in str(r["sysinfo"]) for r in rows), rows[0]["sysinfo"]
    for key in COUNTERS:
        right, n = covert.decode(rows, key, mb=16)
        assert n >= 20 and right / n < chance_bound(n), (key, right, n)
    header = json.loads(next(out.glob("*.jsonl")).read_text().splitlines()[0])["sandbox"]
    assert header["fixed_counters"] is True
    assert header["freezing"] == cgroups.freezing() if runner.user == "root" else header["freezing"] in ("cgroup", "signals")


def test_the_fixed_meminfo_keeps_the_totals_only() -> None:
    """The fixed ``/proc/meminfo`` has the host's keys in its order and its totals, and
    nothing that moves: free memory is half the total whatever the host has free."""
    host = "MemTotal:       16000000 kB\nMemFree:         1234567 kB\nMemAvailable:    2345678 kB\n" \
           "Cached:          3456789 kB\nSwapTotal:       1000000 kB\nSwapFree:         999 kB\nHugePages_Total:       0\n"
    fixed = machine_view.contents("meminfo", host)
    values = {line.split(":")[0]: int(line.split()[1]) for line in fixed.splitlines()}
    assert list(values) == ["MemTotal", "MemFree", "MemAvailable", "Cached", "SwapTotal", "SwapFree", "HugePages_Total"]
    assert values == {"MemTotal": 16000000, "MemFree": 8000000, "MemAvailable": 8000000, "Cached": 0,
                      "SwapTotal": 1000000, "SwapFree": 1000000, "HugePages_Total": 0}
    assert fixed.splitlines()[0] == "MemTotal:       16000000 kB"


def test_the_seccomp_program_denies_sysinfo_only() -> None:
    """The filter, loaded in a child of this test, makes ``sysinfo`` fail with ENOSYS and
    leaves the rest working (the child still reads, writes, allocates and forks)."""
    code = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
program = bytes.fromhex(sys.argv[1])
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]
prog = Prog(len(program) // 8, program)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(prog), 0, 0) == 0, ctypes.get_errno()  # PR_SET_SECCOMP, FILTER
buf = ctypes.create_string_buffer(256)
rc = libc.sysinfo(buf)
pid = os.fork()
if pid == 0:
    os._exit(7)
_, status = os.waitpid(pid, 0)
print(rc, ctypes.get_errno(), os.waitstatus_to_exitcode(status), len(bytearray(1 << 20)))
"""
    done = subprocess.run([sys.executable, "-c", code, machine_view.seccomp_program().hex()], capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-1", "38", "7", str(1 << 20)]


_HOPPER = """
import os, time
while True:
    end = time.perf_counter() + 0.01
    while time.perf_counter() < end:
        pass
    if os.fork() != 0:
        os._exit(0)
    os.setsid()
"""
"""Spins 10 ms, then goes on in a new child in a session of its own and exits: a bot
that hops from process to process, never in its first process group for long."""


def _cpu_in(stat: Path, then: Callable[[], object]) -> int:
    """Microseconds of CPU the group got in half a second, 0.2 s after ``then()``."""
    then()
    time.sleep(0.2)  # a freeze stops each task at its next return to user space
    before = int(stat.read_text().split()[1])
    time.sleep(0.5)
    return int(stat.read_text().split()[1]) - before


@pytest.mark.skipif(cgroups.freezing() != "cgroup", reason="the arena cannot make a freezing cgroup here")
def test_the_cgroup_freezer_stops_a_bot_that_hops_between_processes() -> None:
    """A bot that keeps forking into new sessions (no process of it lives 20 ms, none
    stays in its first process group: SIGSTOP to that group and to the processes found
    below its first process finds nothing to stop) gets no CPU once frozen through its
    group, and runs again once thawed."""
    # No process limit: each hop leaves a zombie until the machine's reaper takes it.
    group = cgroups.create("freeze-test", 0, 0)
    assert group is not None and group.freezer is not None
    stat = group.freezer.parent / "cpu.stat"
    proc = subprocess.Popen(group.wrap([sys.executable, "-c", _HOPPER]), start_new_session=True)
    try:
        running = _cpu_in(stat, lambda: None)
        frozen = _cpu_in(stat, group.freeze)
        thawed = _cpu_in(stat, group.thaw)
    finally:
        group.freeze()
        for pid in group.procs[0].read_text().split():
            os.kill(int(pid), signal.SIGKILL)
        group.thaw()
        proc.wait(timeout=5)
        group.remove()
    # Microseconds of CPU in half a second: 0 frozen; a busy 2-vCPU machine gave the hopper
    # 30-50 ms running.
    assert frozen < 2_000, (running, frozen, thawed)
    assert running > 10_000 and thawed > 10_000, (running, frozen, thawed)
