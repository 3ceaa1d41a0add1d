"""Where bot processes run: the CPUs of a match's bots (``bot_cpus``).

A match is a chain of round trips: at any moment one bot thinks and the referee waits,
or the other way round. When the operating system spreads the five processes over the
machine, each round trip may wake a process on a CPU whose caches hold some other
process's code and data. Pinning a match's bots to one CPU keeps their code warm there
and the referee's on the others. Measured on a 2-CPU machine, one match of four
trivial SDK bots: +15% decisions per second (+30% with the kernel's default idle
polling); see docs/performance.md.

The settings (league files, ``--bot-cpus``):

``any``
    The operating system places the bots (the default).
``auto``
    Each match's bots share one CPU; matches played in parallel get different CPUs,
    counted down from the last CPU the arena may use. The arena itself is not pinned.
    With a single CPU there is nothing to separate, and bots run unpinned.
a CPU list
    ``"3"``, ``"2-3"``, ``"0,2,4-7"``: every bot runs on these CPUs.

Pinning suits bots that think on one thread during their own turn, as most do. A bot
that searches with several threads, or thinks during the other seats' turns, wants
``any`` (or a list of several CPUs): pinned with three other bots to one CPU it would
get a quarter of it.

A process started by a pinned bot inherits its CPUs. Placement uses Linux's
``sched_setaffinity``; elsewhere ``auto`` leaves bots unpinned and a CPU list is an
error.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

ANY = "any"
AUTO = "auto"


class PlacementError(ValueError):
    """A ``bot_cpus`` setting that cannot be used here; the message says why."""


def available_cpus() -> frozenset[int] | None:
    """The CPUs this thread may run on, or None where the platform cannot tell (not Linux)."""
    getter = getattr(os, "sched_getaffinity", None)
    return frozenset(getter(0)) if getter is not None else None


def _format(cpus: frozenset[int]) -> str:
    """``{0, 1, 2, 5}`` as ``0-2,5``."""
    out: list[str] = []
    for cpu in sorted(cpus):
        if out and out[-1].split("-")[-1] == str(cpu - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{cpu}"
        else:
            out.append(str(cpu))
    return ",".join(out)


@dataclass(frozen=True)
class BotCpus:
    """A ``bot_cpus`` setting: ``any``, ``auto``, or a fixed set of CPUs (``cpus``)."""

    mode: str = ANY
    cpus: frozenset[int] = frozenset()

    @classmethod
    def parse(cls, text: str, available: frozenset[int] | None = None) -> BotCpus:
        """``any``, ``auto`` or a CPU list (``3``, ``2-3``, ``0,2,4-7``).

        A list is checked against ``available`` (default: :func:`available_cpus`).

        Raises:
            PlacementError: not one of these, a CPU the arena may not use, or a CPU list
                on a platform without CPU affinity.
        """
        value = text.strip().lower()
        if value in (ANY, AUTO):
            return cls(value)
        if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", value.replace(" ", "")):
            raise PlacementError(f"bot CPUs must be 'any', 'auto' or a CPU list such as 1 or 2-3 or 0,2,4-7; not {text!r}")
        cpus: set[int] = set()
        for part in value.replace(" ", "").split(","):
            lo, _, hi = part.partition("-")
            first, last = int(lo), int(hi or lo)
            if last < first:
                raise PlacementError(f"bot CPUs: the range {part} is backwards (write {last}-{first})")
            cpus.update(range(first, last + 1))
        if available is None:
            available = available_cpus()
        if available is None:
            raise PlacementError("bot CPUs: placing bots on CPUs needs Linux (sched_setaffinity); use 'any'")
        missing = cpus - available
        if missing:
            raise PlacementError(
                f"bot CPUs: CPU {_format(frozenset(missing))} is not available to the arena "
                f"(available: {_format(available)})"
            )
        return cls("list", frozenset(cpus))

    def for_slot(self, slot: int, available: frozenset[int] | None = None) -> frozenset[int] | None:
        """The CPUs of the bots of the match played in parallel slot ``slot`` (0, 1, …
        up to the number of matches run at once), or None for no pinning."""
        if self.mode == ANY:
            return None
        if self.mode != AUTO:
            return self.cpus
        if available is None:
            available = available_cpus()
        if available is None or len(available) < 2:
            return None
        ordered = sorted(available)
        return frozenset({ordered[-1 - slot % len(ordered)]})

    def __str__(self) -> str:
        return self.mode if self.mode != "list" else _format(self.cpus)


@contextlib.contextmanager
def inherited_cpus(cpus: frozenset[int] | None) -> Iterator[None]:
    """Pin the calling thread to ``cpus`` for the block, then restore it.

    A process started in the block inherits the CPUs from its first instruction, and
    so does everything it starts (a wrapper script's child included), which setting
    them on its pid afterwards would miss. Only the calling thread is pinned meanwhile
    (Linux's affinity is per thread), so other matches of a league are not affected.

    Raises:
        PlacementError: the thread cannot be pinned to ``cpus`` (a CPU outside the
            arena's own set, or no CPU affinity on this platform).
    """
    if cpus is None:
        yield
        return
    try:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, cpus)
    except (AttributeError, OSError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) else "no CPU affinity on this platform"
        raise PlacementError(f"cannot run on CPUs {_format(cpus)}: {detail}") from None
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)
