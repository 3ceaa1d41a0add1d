"""Transport tuning applied before grpcio starts: its poll-based TCP client and listener.

From grpcio 1.80 on, TCP connections run on the "EventEngine" by default. On the small
virtual machines we measure on (2 vCPUs, halting idle CPUs), that engine hands each
message between more threads, and a round trip on an open stream costs more:
``bench/grpc_baseline.py`` and ``bench/protocol.py`` measured, in one run each, about
150 µs instead of 210 µs of client CPU per round trip, and 1.15-1.35x the round trips
per second (raw stream and SDK bots alike). grpcio keeps the previous (iomgr) code
behind two experiment switches; this module turns them off through
``GRPC_EXPERIMENTS``, which grpcio reads once, when it is first imported.

It changes nothing when:

* ``GRPC_EXPERIMENTS`` is already set (yours wins);
* ``MUS_GRPC_TUNING=0`` is set (the opt-out);
* grpc is already imported (too late: grpcio has read its configuration);
* the installed grpcio is older than 1.80 (the switches did not matter yet) or is a
  major version other than 1 (the switches may be gone: grpcio would print
  "Unknown experiment" errors).

Child processes inherit the variable only if they inherit the environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from importlib import metadata

EXPERIMENTS = "-event_engine_client,-event_engine_listener"
"""The value set: the pre-EventEngine TCP client (used by the arena's channels) and
listener (used by a bot's server)."""

OPT_OUT_ENV = "MUS_GRPC_TUNING"
"""Set to ``0`` to leave grpcio's defaults alone."""


def _grpcio_version() -> tuple[int, int] | None:
    try:
        major, minor = metadata.version("grpcio").split(".")[:2]
        return int(major), int(minor)
    except (metadata.PackageNotFoundError, ValueError):
        return None


def tune(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Set ``GRPC_EXPERIMENTS`` in ``environ`` if it helps and is still possible.

    Returns whether it was set.
    """
    if "GRPC_EXPERIMENTS" in environ or environ.get(OPT_OUT_ENV) == "0" or "grpc" in sys.modules:
        return False
    version = _grpcio_version()
    if version is None or version[0] != 1 or version[1] < 80:
        return False
    environ["GRPC_EXPERIMENTS"] = EXPERIMENTS
    return True
