"""Transport tuning applied before grpcio starts: its poll-based TCP client and listener.

The arena applies it to its own process (:func:`tune`, from ``arena.remote``, before its
client imports grpc) and sets it in the environment of the Python bots it launches
(:func:`bot_environment`, from :mod:`arena.remote.sandbox`): they run the arena's own
interpreter and grpcio. The SDK itself changes nothing in its host process's
environment (a library should not); a bot started by hand may set the variable itself.

From grpcio 1.80 on, TCP connections run on the "EventEngine" by default, which costs
more per round trip on the machines we measure on (docs/performance.md, "The gRPC
tuning"). grpcio keeps the previous (iomgr) code behind two experiment switches; this
module turns them off through ``GRPC_EXPERIMENTS``, which grpcio reads once, when it is
first imported. What a match ran with is recorded in its hand log's ``run``
(:meth:`arena.runtime.settings.Runtime.header`).

It changes nothing when:

* ``GRPC_EXPERIMENTS`` is already set (yours wins);
* ``MUS_GRPC_TUNING=0`` is set (the opt-out);
* grpc is already imported (too late: grpcio has read its configuration);
* the installed grpcio is not in ``TESTED``: older releases did not need it, and a
  newer one may have dropped the switches (grpcio would then print "Unknown experiment"
  errors at start-up). When grpcio is upgraded, re-measure with ``bench/protocol.py``
  and ``MUS_GRPC_TUNING=0`` and widen the range.

The arena's own ``GRPC_EXPERIMENTS``, if set, is what its Python bots get too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping
from importlib import metadata

EXPERIMENTS = "-event_engine_client,-event_engine_listener"
"""The value set: the pre-EventEngine TCP client (used by the arena's channels) and
listener (used by a bot's server)."""

TESTED = ((1, 80), (1, 85))
"""The grpcio (major, minor) range, inclusive, the switches were measured on."""

OPT_OUT_ENV = "MUS_GRPC_TUNING"
"""Set to ``0`` to leave grpcio's defaults alone."""


def _grpcio_version() -> tuple[int, int] | None:
    try:
        major, minor = metadata.version("grpcio").split(".")[:2]
        return int(major), int(minor)
    except (metadata.PackageNotFoundError, ValueError):
        return None


def _wanted(environ: Mapping[str, str]) -> bool:
    """Whether a process with ``environ`` should get :data:`EXPERIMENTS` (nothing set by
    the user, no opt-out, a grpcio it was measured on)."""
    if "GRPC_EXPERIMENTS" in environ or environ.get(OPT_OUT_ENV) == "0":
        return False
    version = _grpcio_version()
    return version is not None and TESTED[0] <= version <= TESTED[1]


def tune(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Set ``GRPC_EXPERIMENTS`` in ``environ`` (this process's) if it helps and is still
    possible: grpc not imported yet.

    Returns whether it was set.
    """
    if "grpc" in sys.modules or not _wanted(environ):
        return False
    environ["GRPC_EXPERIMENTS"] = EXPERIMENTS
    return True


def bot_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What to add to the environment of a Python bot the arena launches with its own
    interpreter: the arena's ``GRPC_EXPERIMENTS`` if it has one, else :data:`EXPERIMENTS`
    when :func:`tune` would set it; nothing after the opt-out. ``environ``: the arena's
    (``os.environ`` by default)."""
    environ = os.environ if environ is None else environ
    if "GRPC_EXPERIMENTS" in environ:
        return {"GRPC_EXPERIMENTS": environ["GRPC_EXPERIMENTS"]}
    return {"GRPC_EXPERIMENTS": EXPERIMENTS} if _wanted(environ) else {}
