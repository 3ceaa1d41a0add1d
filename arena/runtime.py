"""How matches are run for speed, in one place: the :class:`Runtime` a match is given.

Nothing here changes what a match decides: two runs of one seed with deterministic bots
write the same hand logs whatever their runtimes, apart from the header's ``run`` object
(:meth:`Runtime.header`, a timing field of :mod:`arena.handlog`). It holds:

* the referee loop's polling window (:mod:`arena.referee.eventloop`): the arena's own
  choice, 200 µs; no command-line option sets it;
* CPU affinity, for benchmarking only (:mod:`arena.remote.placement`): None by default,
  so the operating system places every process; ``mus match`` and ``mus league`` take
  ``--affinity auto|CPUS``;
* the gRPC tuning in effect (``grpc_experiments``): grpcio reads it once, when it is
  first imported, so it is applied then (:mod:`arena.remote.grpc_tuning`, with its
  opt-out) and only recorded here, in the header's ``run``.

The settings it replaced (``--bot-cpus``, ``--spin-us``, ``bot_cpus`` and ``spin_us`` in
league files, ``share_cpu`` in manifests) are still accepted, each with one deprecation
warning (:func:`deprecated`); docs/league.md says what each becomes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from arena.deprecation import deprecated
from arena.referee import eventloop
from arena.referee.eventloop import DEFAULT_POLL_US, MAX_POLL_US, check_poll_us
from arena.remote.placement import (
    NONE,
    UNPINNED,
    Placement,
    PlacementError,
    parse_affinity,
    pinned_thread,
    place,
)

__all__ = ["DEFAULT_POLL_US", "MAX_POLL_US", "Runtime", "command_line", "deprecated", "legacy_bot_cpus",
           "legacy_bot_cpus_instead", "legacy_spin_us_instead"]

@dataclass(frozen=True)
class Runtime:
    """How one match (or every match of a league) is run for speed; validated when built.

    ``poll_us``: how long the referee's idle loop polls for an answer before it sleeps,
    in microseconds (0: never; at most :data:`MAX_POLL_US`). ``affinity``: None (or
    ``"none"``: the system places everything), ``"auto"`` or a CPU list such as ``"2-3"``
    (:mod:`arena.remote.placement`); kept in its canonical form (None, ``"auto"``, ``"0-2,5"``).
    ``slot`` and ``jobs``: the parallel slot of the match among ``jobs`` run at once,
    which picks its CPUs under ``auto`` (:meth:`for_job`).

    Raises:
        ValueError: a bad value, with a one-line message naming the field.
    """

    poll_us: int = DEFAULT_POLL_US
    affinity: str | None = None
    slot: int = 0
    jobs: int = 1
    placement: Placement = field(init=False, repr=False, compare=False, default=UNPINNED)
    """Where the match runs: its bot processes' CPUs and its referee thread's (None: not pinned)."""

    def __post_init__(self) -> None:
        try:
            check_poll_us(self.poll_us)
        except ValueError as exc:
            raise ValueError(f"poll_us: {exc}") from None
        for name, value, low in (("jobs", self.jobs, 1), ("slot", self.slot, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name}: must be an integer >= {low}, not {value!r}")
        if self.slot >= self.jobs:
            raise ValueError(f"slot: must be below jobs ({self.jobs}), not {self.slot}")
        if self.affinity is not None:
            if not isinstance(self.affinity, str):
                raise ValueError(f"affinity: must be 'auto' or a CPU list such as '2-3', not {self.affinity!r}")
            try:
                object.__setattr__(self, "affinity", parse_affinity(self.affinity))
            except PlacementError as exc:
                raise ValueError(f"affinity: {exc}") from None
        object.__setattr__(self, "placement", place(self.affinity, self.slot, self.jobs))
        if self.placement.referee is not None:
            eventloop.process_cpus()  # read now, while no referee thread is pinned yet

    def for_job(self, slot: int, jobs: int) -> Runtime:
        """This runtime for the match played in parallel slot ``slot`` of ``jobs``."""
        return dataclasses.replace(self, slot=slot, jobs=jobs)

    def header(self, *, bots_placed: bool = True) -> dict[str, Any]:
        """The hand log header's ``run`` object: ``{"poll_us": 200, "affinity": null,
        "grpc_experiments": "-event_engine_client,-event_engine_listener"}``, with
        ``affinity`` ``{"bots": [1], "referee": [0]}`` when pinned (null: not pinned), and
        ``grpc_experiments`` the arena's ``GRPC_EXPERIMENTS`` (null: grpcio's defaults).
        ``bots_placed``: whether the match's bots are processes the arena started (a bot
        at an address, or an in-process player, runs where it runs)."""
        bots = self.placement.bots if bots_placed else None
        referee = self.placement.referee
        pinned = None if bots is None and referee is None else {"bots": _listed(bots), "referee": _listed(referee)}
        return {"poll_us": self.poll_us, "affinity": pinned, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}

    def to_json(self) -> dict[str, Any]:
        """The settings as asked for (league.json's ``run``): ``poll_us`` and ``affinity``
        (``null``, ``"auto"`` or a CPU list)."""
        return {"poll_us": self.poll_us, "affinity": self.affinity}

    @contextmanager
    def refereeing(self) -> Iterator[asyncio.AbstractEventLoop]:
        """Referee a match on this thread: yields the thread's event loop
        (:func:`~arena.referee.eventloop.thread_loop`), polling :attr:`poll_us` while
        it waits, with the thread pinned where :attr:`placement` says. Enter it once the
        bots are connected: gRPC's own threads, started by the first connection, would
        inherit a pinned CPU.

        Raises:
            PlacementError: the thread cannot be pinned there.
        """
        with pinned_thread(self.placement.referee), eventloop.refereeing(self.poll_us):
            yield eventloop.thread_loop()


def _listed(cpus: frozenset[int] | None) -> list[int] | None:
    return sorted(cpus) if cpus is not None else None


def legacy_bot_cpus(text: str, *, check: bool = True) -> str:
    """The ``--affinity`` a former ``bot_cpus`` value maps to: ``declared`` and ``any``
    to ``none`` (the default now: the system places the bots), ``auto`` and a CPU list
    to themselves (canonical). ``check=False`` checks only the form.

    Raises:
        PlacementError: none of these.
    """
    if text.strip().lower() in ("declared", "any"):
        return NONE
    try:
        return parse_affinity(text, check=check) or NONE
    except PlacementError as exc:
        if "must be 'none'" in str(exc):
            raise PlacementError(
                f"must be 'declared', 'any', 'auto' or a CPU list such as 1 or 2-3 or 0,2,4-7; not {text!r}") from None
        raise


def legacy_bot_cpus_instead(affinity: str) -> str:
    """What a deprecation warning for ``bot_cpus``/``--bot-cpus`` says to use instead,
    given the affinity the old value mapped to (:func:`legacy_bot_cpus`)."""
    if affinity == NONE:
        return "nothing: the system places the bots by default, as this run does (--affinity auto|CPUS pins them, for benchmarking)"
    return f"--affinity {affinity} (this run is pinned so)"


def legacy_spin_us_instead(poll_us: int) -> str:
    """What a deprecation warning for ``spin_us``/``--spin-us`` says to use instead."""
    return (f"nothing: the referee's polling window is the arena's own ({DEFAULT_POLL_US} µs); "
            f"this run still polls {poll_us} µs as asked")


def command_line(affinity: str | None, bot_cpus: str | None = None, spin_us: int | None = None
                 ) -> tuple[str | None, int | None]:
    """What ``mus match`` and ``mus league`` were asked for: the affinity (``--affinity``,
    else what the deprecated ``--bot-cpus`` maps to; None: not given) and the polling
    window (the deprecated ``--spin-us``; None: not given). Each deprecated flag given
    logs one warning. The affinity is checked against this machine's CPUs.

    Raises:
        ValueError: a bad value, the message starting with its flag.
    """
    asked = affinity
    try:
        if affinity is not None:
            parse_affinity(affinity)
    except PlacementError as exc:
        raise ValueError(f"--affinity: {exc}") from None
    if bot_cpus is not None:
        try:
            mapped = legacy_bot_cpus(bot_cpus)
        except PlacementError as exc:
            raise ValueError(f"--bot-cpus: {exc}") from None
        deprecated("--bot-cpus", "command line", legacy_bot_cpus_instead(mapped) if affinity is None
                   else f"--affinity (given too: {affinity!r} is used)")
        asked = affinity if affinity is not None else mapped
    if spin_us is not None:
        try:
            check_poll_us(spin_us)
        except ValueError as exc:
            raise ValueError(f"--spin-us: {exc}") from None
        deprecated("--spin-us", "command line", legacy_spin_us_instead(spin_us))
    return asked, spin_us
