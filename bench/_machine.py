"""What machine a benchmark ran on (printed with every figure), the idle-time settings
benchmarks measure (the VM's halt polling, the referee's polling window), and a CPU load
the benchmark starts itself (``--load``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import signal
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata


def machine() -> dict[str, object]:
    """CPU model, core count and Python version."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info: dict[str, object] = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
    }
    try:  # the version without importing grpc (which would read its configuration now)
        info["grpcio"] = metadata.version("grpcio")
        info["grpc_experiments"] = os.environ.get("GRPC_EXPERIMENTS", "")
    except metadata.PackageNotFoundError:
        pass
    # How an idle virtual CPU waits decides what waking a thread costs, which dominates
    # gRPC round trips on small VMs (halt without polling: every wake-up is a VM exit).
    for key, path in (
        ("cpuidle", "/sys/devices/system/cpu/cpuidle/current_driver"),
        ("guest_halt_poll_ns", "/sys/module/haltpoll/parameters/guest_halt_poll_ns"),
    ):
        try:
            with open(path, encoding="utf-8") as f:
                info[key] = f.read().strip()
        except OSError:
            pass
    return info


HALT_POLL = "/sys/module/haltpoll/parameters/guest_halt_poll_ns"


@contextlib.contextmanager
def halt_poll(ns: int | None) -> Iterator[None]:
    """Set the guest's idle halt-polling window to ``ns`` for the duration, then restore it.

    Linux's ``cpuidle-haltpoll`` driver (KVM guests) lets an idle vCPU spin up to
    ``guest_halt_poll_ns`` before it halts; the kernel's default is 200,000. Some VMs
    ship with 0 (halt at once, so every wake-up of an idle vCPU is a VM exit), which
    slows every gRPC round trip on loopback. ``None`` leaves the machine as it is.

    Raises:
        SystemExit: the machine has no such setting, or it cannot be written (root only).
    """
    if ns is None:
        yield
        return
    if ns < 0:
        raise SystemExit(f"--halt-poll-ns must be 0 or more, not {ns}")
    try:
        with open(HALT_POLL, encoding="utf-8") as f:
            before = f.read().strip()
    except FileNotFoundError:
        raise SystemExit(f"--halt-poll-ns: this machine has no {HALT_POLL} (not a KVM guest with the haltpoll cpuidle driver)") from None
    # Printed first: a run killed before its end leaves the machine-wide setting changed.
    print(f"halt polling set to {ns} ns for this run; if it is interrupted, restore with: echo {before} > {HALT_POLL}",
          file=sys.stderr)
    try:
        _write(HALT_POLL, str(ns))
    except PermissionError:
        raise SystemExit(f"--halt-poll-ns: cannot write {HALT_POLL} (root only)") from None
    except OSError as exc:
        raise SystemExit(f"--halt-poll-ns: the kernel refused {ns} ({exc.strerror}); it takes 0 to 4294967295") from None
    # SIGTERM ends the run through the finally below, as Ctrl-C does.
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        yield
    finally:
        _write(HALT_POLL, before)
        signal.signal(signal.SIGTERM, previous)


def _write(path: str, value: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(value)


def poll_us_arg(text: str) -> int:
    """``--poll-us`` for argparse: a polling window for the referee's event loop, in µs."""
    from arena.runtime.eventloop import MAX_POLL_US, check_poll_us  # the callers put arena on sys.path

    try:
        return check_poll_us(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of µs from 0 to {MAX_POLL_US}, not {text!r}") from None


BUSY = "while True: pass"
"""What each process of a load runs: a pure CPU loop, no memory, no I/O."""


@contextlib.contextmanager
def busy_load(n: int) -> Iterator[list[int]]:
    """``n`` processes that each keep a CPU busy for the duration (``--load N``: N for a
    machine of N CPUs loads every one), placed by the system; yields their pids. Every
    one is killed on the way out, also when the run fails or is interrupted (SIGTERM
    ends the run through this block, as Ctrl-C does)."""
    if n < 0:
        raise SystemExit(f"--load must be 0 or more, not {n}")
    procs: list[subprocess.Popen[bytes]] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum)) if n else None
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", BUSY], stdin=subprocess.DEVNULL))
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
