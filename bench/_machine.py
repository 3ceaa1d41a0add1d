"""What machine a benchmark ran on (printed with every figure)."""

from __future__ import annotations

import os
import platform
import sys
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
