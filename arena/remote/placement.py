"""Where a match runs: the CPUs of its bots and of its referee (``bot_cpus``).

A match is a chain of round trips: at any moment one bot thinks and the referee waits,
or the other way round. When the operating system spreads the processes over the
machine, a round trip may wake a process on a CPU whose caches hold another process's
code, or on the CPU where the referee is working, which then waits its turn. Keeping
a match's bots on one CPU and its referee on another keeps both warm and out of each
other's way. Measured on a 2-CPU machine, one match of four trivial SDK bots: 0–25%
more decisions per second (the busier the host, the more), 10–30% more with the
kernel's default idle polling; see docs/performance.md.

The settings (league files, ``--bot-cpus``):

``declared`` (the default)
    ``auto`` for a match whose bots all declare, with ``share_cpu = true`` in their
    manifests, that they think on one thread during their own turn only; ``any`` for
    any other match (a bot that does not say so, or a bot at an address). A league
    decides once, for all its matches, from all its entries.
``any``
    The operating system places everything.
``auto``
    Each match's bots share one CPU and its referee thread runs on another (the
    arena's gRPC threads stay free). Matches played in parallel get a pair of CPUs each
    while there are enough, counted down from the last CPU the arena may use;
    otherwise each match's bots still get a CPU of their own and the referees are not
    pinned. With a single CPU there is nothing to separate, and nothing is pinned.
a CPU list
    ``"3"``, ``"2-3"``, ``"0,2,4-7"``: every bot runs on these CPUs (the referee is
    not pinned).

Pinning suits bots that think on one thread during their own turn, as most do. A bot
that searches with several threads, or thinks during the other seats' turns, wants
``any`` (or a list of several CPUs): pinned with three other bots to one CPU it would
get a quarter of it. Only its author knows which kind a bot is, hence ``declared``:
the arena pins a match only when every bot in it said it may be pinned. Only processes
the arena starts are placed: a bot at an address runs where it runs.

A process started by a pinned bot inherits its CPUs. Placement uses Linux's
``sched_setaffinity``; elsewhere ``auto`` pins nothing and a CPU list is an error.

Arenas on one machine claim the CPUs they pin (:func:`claimed`): a match placed by
``auto`` or ``declared`` holds a lock file per CPU while it runs (in
``$TMPDIR/mus-arena-cpus-UID``, or ``$MUS_ARENA_CPU_LOCKS``), so that a second arena
started at the same time does not pin its bots onto the first one's CPUs: it takes
another free pair, or leaves its match to the system. A CPU list is the user's own
choice and is not claimed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows: no claims (nor pinning)
    fcntl = None

ANY = "any"
AUTO = "auto"
DECLARED = "declared"
MAX_CPU = 65535
"""The largest CPU number a list may name, when it is not checked against this machine."""


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


class Placement(NamedTuple):
    """The CPUs of one match: of its bot processes, and of the thread that referees it
    (None: not pinned)."""

    bots: frozenset[int] | None = None
    referee: frozenset[int] | None = None
    claim: bool = False
    """Chosen by the arena (``auto``, ``declared``), not listed by the user: claimed
    against other arenas while the match runs, and moved if taken (:func:`claimed`)."""


UNPINNED = Placement()
"""Nothing pinned: the operating system places the bots and the referee."""


@dataclass(frozen=True)
class BotCpus:
    """A ``bot_cpus`` setting: ``declared``, ``any``, ``auto``, or a fixed set of CPUs (``cpus``)."""

    mode: str = DECLARED
    cpus: frozenset[int] = frozenset()

    @classmethod
    def parse(cls, text: str, available: frozenset[int] | None = None, *, check: bool = True) -> BotCpus:
        """``declared``, ``any``, ``auto`` or a CPU list (``3``, ``2-3``, ``0,2,4-7``).

        A list is checked against ``available`` (default: :func:`available_cpus`);
        ``check=False`` checks only its form (a setting that another one replaces).

        Raises:
            PlacementError: not one of these, a CPU the arena may not use, or a CPU list
                on a platform without CPU affinity.
        """
        value = text.strip().lower()
        if value in (ANY, AUTO, DECLARED):
            return cls(value)
        # Spaces only around the separators: "0 1" is a typo, not CPU 1 or CPU 01.
        if not re.fullmatch(r"\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*", value):
            raise PlacementError(
                f"bot CPUs must be 'declared', 'any', 'auto' or a CPU list such as 1 or 2-3 or 0,2,4-7; not {text!r}"
            )
        ranges: list[tuple[int, int]] = []
        for part in re.split(r"\s*,\s*", value):
            lo, _, hi = part.partition("-")
            first, last = int(lo), int(hi or lo)
            if last < first:
                raise PlacementError(f"bot CPUs: the range {first}-{last} is backwards (write {last}-{first})")
            ranges.append((first, last))
        if not check:
            if any(last > MAX_CPU for _, last in ranges):
                raise PlacementError(f"bot CPUs: CPU numbers stop at {MAX_CPU}")
            return cls("list", frozenset(cpu for first, last in ranges for cpu in range(first, last + 1)))
        if available is None:
            available = available_cpus()
        if available is None:
            raise PlacementError("bot CPUs: placing bots on CPUs needs Linux (sched_setaffinity); use 'any'")
        top = max(available)
        # Bounded before expanding: "0-4000000000" must not build a set of 4e9 numbers.
        cpus = frozenset(cpu for first, last in ranges for cpu in range(first, min(last, top) + 1))
        missing = cpus - available
        beyond = [(max(first, top + 1), last) for first, last in ranges if last > top]
        if missing or beyond:
            named = ",".join(filter(None, [_format(missing), *(f"{a}" if a == b else f"{a}-{b}" for a, b in beyond)]))
            raise PlacementError(f"bot CPUs: CPU {named} is not available to the arena (available: {_format(available)})")
        return cls("list", cpus)

    def for_slot(
        self, slot: int, jobs: int = 1, available: frozenset[int] | None = None, *, bots_share_cpu: bool = False
    ) -> Placement:
        """The placement of the match played in parallel slot ``slot`` (0 up to
        ``jobs - 1``, ``jobs`` being how many matches run at once).

        ``bots_share_cpu``: whether every bot of the match is a process the arena starts
        whose manifest says ``share_cpu = true``
        (:func:`arena.remote.manifest.all_share_cpu`); ``declared`` pins only such a match.
        """
        if self.mode == ANY or (self.mode == DECLARED and not bots_share_cpu):
            return UNPINNED
        if self.mode not in (AUTO, DECLARED):
            return Placement(bots=self.cpus)
        if available is None:
            available = available_cpus()
        if available is None or len(available) < 2:
            return UNPINNED
        cpus = sorted(available)
        n = len(cpus)
        if 2 * jobs <= n:  # a pair of CPUs for each match: its bots', its referee's
            return Placement(frozenset({cpus[n - 1 - 2 * slot]}), frozenset({cpus[n - 2 - 2 * slot]}), True)
        # Fewer CPUs: each running match's bots still get a CPU of their own (while
        # slots < n), and the referees stay free; pinned, a referee would sit on the CPU
        # of another match's bots (measured: a 2-job league on 2 CPUs ran 15% slower).
        return Placement(frozenset({cpus[(n - 1 - slot) % n]}), None, True)

    def __str__(self) -> str:
        return self.mode if self.mode != "list" else _format(self.cpus)


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
        raise PlacementError(f"cannot run on CPUs {_format(cpus)}: {detail}") from None
    try:
        yield
    finally:
        # The CPUs may have gone (a shrunk cpuset, a CPU taken offline): the thread then
        # stays pinned, which slows it down but must not replace the block's outcome.
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, before)


LOCKS_ENV = "MUS_ARENA_CPU_LOCKS"
"""Folder of the CPU lock files (default ``$TMPDIR/mus-arena-cpus-UID``)."""


def _lock_dir() -> Path:
    folder = os.environ.get(LOCKS_ENV)
    return Path(folder) if folder else Path(tempfile.gettempdir()) / f"mus-arena-cpus-{os.getuid()}"


_CLAIMED: set[int] = set()
"""The CPUs this process's matches hold (guarded by ``_CLAIMED_LOCK``)."""
_CLAIMED_LOCK = threading.Lock()


def _lock(cpus: frozenset[int]) -> tuple[frozenset[int], list[int]] | None:
    """Hold ``cpus`` against other matches of this arena and other arenas (their lock
    files' descriptors), or None if one is taken.

    POSIX record locks (``lockf``), not ``flock``: a bot process forked while a match
    holds its CPUs would share an ``flock`` until it execs, and a CPU released in that
    moment would still look taken. Record locks belong to a process and are not
    inherited; within this process the set of claimed CPUs decides.
    """
    assert fcntl is not None
    folder = _lock_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with _CLAIMED_LOCK:
        if cpus & _CLAIMED:
            return None
        fds: list[int] = []
        for cpu in sorted(cpus):
            fd = os.open(folder / f"cpu-{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                for held in fds:
                    os.close(held)
                if exc.errno in (errno.EACCES, errno.EAGAIN):
                    return None  # another arena's
                raise
            fds.append(fd)
        _CLAIMED.update(cpus)
        return cpus, fds


def _unlock(held: tuple[frozenset[int], list[int]]) -> None:
    cpus, fds = held
    with _CLAIMED_LOCK:
        for fd in fds:
            os.close(fd)  # releases this process's record lock on the file
        _CLAIMED.difference_update(cpus)


def _alternatives(placement: Placement, available: frozenset[int]) -> Iterator[Placement]:
    """``placement``, then the other placements of its shape on ``available``, from the
    last CPUs down: pairs (bots, referee) for a pair, single CPUs for bots alone."""
    yield placement
    cpus = sorted(available, reverse=True)
    bots, referee = placement.bots or frozenset(), placement.referee or frozenset()
    if len(bots) == 1 and len(referee) == 1:
        for i in range(0, len(cpus) - 1, 2):
            pair = Placement(frozenset({cpus[i]}), frozenset({cpus[i + 1]}), True)
            if pair != placement:
                yield pair
    elif len(bots) == 1 and not referee:
        for cpu in cpus:
            if frozenset({cpu}) != bots:
                yield Placement(frozenset({cpu}), None, True)


@contextlib.contextmanager
def claimed(placement: Placement, available: frozenset[int] | None = None) -> Iterator[Placement]:
    """The placement a match may use, its CPUs held against other arenas for the block.

    A placement the arena chose (``claim``) whose CPUs another arena (or another match
    of this one) holds is moved to other free CPUs of the same shape, or dropped
    (:data:`UNPINNED`) when none are free: two arenas started at once would otherwise
    both pin their bots to the last CPU. Anything else is used as it is.
    """
    if not placement.claim or fcntl is None:
        yield placement
        return
    if available is None:
        available = available_cpus() or frozenset()
    chosen, held = UNPINNED, None
    for candidate in _alternatives(placement, available):
        try:
            held = _lock((candidate.bots or frozenset()) | (candidate.referee or frozenset()))
        except OSError:  # no lock folder (read-only TMPDIR...): place as asked, unclaimed
            chosen = placement
            break
        if held is not None:
            chosen = candidate
            break
    try:
        yield chosen
    finally:
        if held is not None:
            _unlock(held)
