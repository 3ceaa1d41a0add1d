"""How matches are run for speed, in one place: the :class:`Runtime` a match is given.

Nothing here changes what a match decides: two runs of one seed with deterministic bots
write the same hand logs whatever their runtimes, apart from the header's ``run`` object
(:meth:`Runtime.header`, a timing field of :mod:`arena.records.handlog`). It holds:

* the referee loop's polling window (:mod:`arena.runtime.eventloop`): the arena's own
  choice, 200 µs; no command-line option sets it;
* the gRPC tuning in effect (``grpc_experiments``): grpcio reads it once, when it is
  first imported, so it is applied then (:mod:`arena.remote.grpc_tuning`, with its
  opt-out) and only recorded here, in the header's ``run``.

The operating system places every bot process and every referee, but for a league's
referee workers that do not poll, each pinned with its bots to a CPU of its own
(:func:`arena.runtime.cpus.worker_cpus`). CPU pinning of a match (``--affinity``)
bought a median ×1.08 on a quiet machine, and on a busy one a pinned match fell to
0.18 of the transport's speed where the system's placement kept 0.46–0.59
(docs/performance.md, "Where bots run"), so it is gone. The
settings it replaced (``--affinity``, ``--bot-cpus``, ``--spin-us``, ``bot_cpus`` and
``spin_us`` in league files, ``share_cpu`` in manifests) shipped in release 0.1.0, so
they are still accepted, each with one deprecation warning
(:func:`arena.common.deprecation.deprecated`), until release 0.3.0 (docs/compatibility.md);
docs/league.md says what each becomes.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arena.common.deprecation import deprecated
from arena.runtime import eventloop
from arena.runtime.eventloop import DEFAULT_POLL_US, MAX_POLL_US, check_poll_us

__all__ = ["DEFAULT_POLL_US", "MAX_POLL_US", "Runtime", "command_line", "legacy_spin_us_instead"]

# retired (REMOVED_IN): the messages of the warnings for the placement and polling settings.
IGNORED_PLACEMENT = "nothing: the system places the bots (CPU pinning is gone; docs/performance.md, \"Where bots run\")"
"""What a deprecation warning for ``--affinity``, ``--bot-cpus`` or ``bot_cpus`` says to use instead."""


@dataclass(frozen=True)
class Runtime:
    """How one match (or every match of a league) is run for speed; validated when built.

    ``poll_us``: how long the referee's idle loop polls for an answer before it sleeps,
    in microseconds (0: never; at most :data:`MAX_POLL_US`).

    Raises:
        ValueError: a bad value, with a one-line message naming the field.
    """

    poll_us: int = DEFAULT_POLL_US

    def __post_init__(self) -> None:
        try:
            check_poll_us(self.poll_us)
        except ValueError as exc:
            raise ValueError(f"poll_us: {exc}") from None

    def header(self) -> dict[str, Any]:
        """The hand log header's ``run`` object: ``{"poll_us": 200, "grpc_experiments":
        "-event_engine_client,-event_engine_listener"}``, ``grpc_experiments`` being the
        arena's ``GRPC_EXPERIMENTS`` (null: grpcio's defaults)."""
        return {"poll_us": self.poll_us, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}

    def to_json(self) -> dict[str, Any]:
        """The settings as asked for (league.json's ``run``): ``poll_us``."""
        return {"poll_us": self.poll_us}

    @contextmanager
    def refereeing(self) -> Iterator[asyncio.AbstractEventLoop]:
        """Referee a match on this thread: yields the thread's event loop
        (:func:`~arena.runtime.eventloop.thread_loop`), polling :attr:`poll_us` while
        it waits."""
        with eventloop.refereeing(self.poll_us):
            yield eventloop.thread_loop()


def legacy_spin_us_instead(poll_us: int) -> str:
    """What a deprecation warning for ``spin_us``/``--spin-us`` says to use instead."""
    return (f"nothing: the referee's polling window is the arena's own ({DEFAULT_POLL_US} µs); "
            f"this run still polls {poll_us} µs as asked")


# retired (REMOVED_IN): --affinity, --bot-cpus, --spin-us, and the two helpers above.
def command_line(affinity: str | None = None, bot_cpus: str | None = None, spin_us: int | None = None
                 ) -> int | None:
    """The polling window ``mus match`` and ``mus league`` were asked for (the deprecated
    ``--spin-us``; None: not given). The deprecated ``--affinity`` and ``--bot-cpus`` are
    ignored; each deprecated flag given logs one warning.

    Raises:
        ValueError: a bad ``--spin-us``, the message starting with its flag.
    """
    for flag, value in (("--affinity", affinity), ("--bot-cpus", bot_cpus)):
        if value is not None:
            deprecated(flag, "command line", IGNORED_PLACEMENT)
    if spin_us is not None:
        try:
            check_poll_us(spin_us)
        except ValueError as exc:
            raise ValueError(f"--spin-us: {exc}") from None
        deprecated("--spin-us", "command line", legacy_spin_us_instead(spin_us))
    return spin_us
