"""CPU affinity for benchmarking (``--affinity``): where a match's bots and referee run.

By default nothing is pinned: the operating system places every process, which is what
a loaded or shared machine wants. Pinning is opt-in, as in chess tournament runners
(cutechess-cli, fastchess), for people who measure on a quiet machine:

``auto``
    Each match's bots share one CPU and its referee thread runs on another (the arena's
    gRPC threads stay free). Matches played in parallel get a pair of CPUs each while
    there are enough, counted down from the last CPU the arena may use; otherwise each
    match's bots still get a CPU of their own and the referees are not pinned. With a
    single CPU there is nothing to separate, and nothing is pinned.
a CPU list
    ``"3"``, ``"2-3"``, ``"0,2,4-7"``: every bot runs on these CPUs (the referee is
    not pinned).

Only processes the arena starts are placed (a bot at an address runs where it runs), and
a process a pinned bot starts inherits its CPUs. Placement uses Linux's
``sched_setaffinity``; elsewhere ``auto`` pins nothing and a CPU list is an error. What
pinning gains and costs, measured: docs/performance.md, "Where bots run".
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import NamedTuple

AUTO = "auto"
NONE = "none"
MAX_CPU = 65535
"""The largest CPU number a list may name, when it is not checked against this machine."""


class PlacementError(ValueError):
    """An affinity that cannot be used here; the message says why."""


def available_cpus() -> frozenset[int] | None:
    """The CPUs this thread may run on, or None where the platform cannot tell (not Linux)."""
    getter = getattr(os, "sched_getaffinity", None)
    return frozenset(getter(0)) if getter is not None else None


def format_cpus(cpus: frozenset[int]) -> str:
    """``{0, 1, 2, 5}`` as ``0-2,5``."""
    out: list[str] = []
    for cpu in sorted(cpus):
        if out and out[-1].split("-")[-1] == str(cpu - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{cpu}"
        else:
            out.append(str(cpu))
    return ",".join(out)


class Placement(NamedTuple):
    """The CPUs of one match: of its bot processes, and of the thread that referees it
    (None: not pinned)."""

    bots: frozenset[int] | None = None
    referee: frozenset[int] | None = None


UNPINNED = Placement()
"""Nothing pinned: the operating system places the bots and the referee."""


def parse_affinity(text: str, available: frozenset[int] | None = None, *, check: bool = True) -> str | None:
    """``none`` (None: nothing pinned, the default), ``auto`` or a CPU list (``3``,
    ``2-3``, ``0,2,4-7``), in its canonical form (``auto``, ``0-2,5``).

    A list is checked against ``available`` (default: :func:`available_cpus`);
    ``check=False`` checks only its form (a setting that another one replaces).

    Raises:
        PlacementError: neither, a CPU the arena may not use, or a CPU list on a
            platform without CPU affinity.
    """
    value = text.strip().lower()
    if value == NONE:
        return None
    if value == AUTO:
        return AUTO
    # Spaces only around the separators: "0 1" is a typo, not CPU 1 or CPU 01.
    if not re.fullmatch(r"\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*", value):
        raise PlacementError(f"must be 'none', 'auto' or a CPU list such as 1 or 2-3 or 0,2,4-7; not {text!r}")
    ranges: list[tuple[int, int]] = []
    for part in re.split(r"\s*,\s*", value):
        lo, _, hi = part.partition("-")
        first, last = int(lo), int(hi or lo)
        if last < first:
            raise PlacementError(f"the range {first}-{last} is backwards (write {last}-{first})")
        ranges.append((first, last))
    if not check:
        if any(last > MAX_CPU for _, last in ranges):
            raise PlacementError(f"CPU numbers stop at {MAX_CPU}")
        return format_cpus(frozenset(cpu for first, last in ranges for cpu in range(first, last + 1)))
    if available is None:
        available = available_cpus()
    if available is None:
        raise PlacementError("placing bots on CPUs needs Linux (sched_setaffinity); use 'none'")
    top = max(available)
    # Bounded before expanding: "0-4000000000" must not build a set of 4e9 numbers.
    cpus = frozenset(cpu for first, last in ranges for cpu in range(first, min(last, top) + 1))
    missing = cpus - available
    beyond = [(max(first, top + 1), last) for first, last in ranges if last > top]
    if missing or beyond:
        named = ",".join(filter(None, [format_cpus(missing), *(f"{a}" if a == b else f"{a}-{b}" for a, b in beyond)]))
        raise PlacementError(f"CPU {named} is not available to the arena (available: {format_cpus(available)})")
    return format_cpus(cpus)


def cpu_set(text: str) -> frozenset[int]:
    """The CPUs of a canonical CPU list (:func:`parse_affinity`'s result other than ``auto``)."""
    out: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(out)


def place(affinity: str | None, slot: int = 0, jobs: int = 1, available: frozenset[int] | None = None) -> Placement:
    """The placement of the match played in parallel slot ``slot`` (0 up to ``jobs - 1``,
    ``jobs`` being how many matches run at once) under a canonical ``affinity``
    (:func:`parse_affinity`; None: nothing pinned)."""
    if affinity is None:
        return UNPINNED
    if affinity != AUTO:
        return Placement(bots=cpu_set(affinity))
    if available is None:
        available = available_cpus()
    if available is None or len(available) < 2:
        return UNPINNED
    cpus = sorted(available)
    n = len(cpus)
    if 2 * jobs <= n:  # a pair of CPUs for each match: its bots', its referee's
        return Placement(frozenset({cpus[n - 1 - 2 * slot]}), frozenset({cpus[n - 2 - 2 * slot]}))
    # Fewer CPUs: each running match's bots still get a CPU of their own (while slots <
    # n), and the referees stay free: pinned, a referee would sit on another match's bots.
    return Placement(frozenset({cpus[(n - 1 - slot) % n]}), None)


@contextlib.contextmanager
def pinned_thread(cpus: frozenset[int] | None) -> Iterator[None]:
    """Pin the calling thread to ``cpus`` for the block, then restore it (None: leave it).

    Only the calling thread is pinned (Linux's affinity is per thread): other matches of
    a league and the arena's gRPC threads are not affected. A process or thread started
    in the block inherits the CPUs from its first instruction, and so does everything it
    starts (a wrapper script's child included), which setting them on its pid
    afterwards would miss.

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
        raise PlacementError(f"cannot run on CPUs {format_cpus(cpus)}: {detail}") from None
    try:
        yield
    finally:
        # The CPUs may have gone (a shrunk cpuset, a CPU taken offline): the thread then
        # stays pinned, which slows it down but must not replace the block's outcome.
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, before)
