"""The CPUs the arena may use (its affinity, capped by its cgroups' CPU quota, v1 or v2),
and how many matches a local league plays at once by default (``--jobs``), from those CPUs
and what a match needs (issue 30; docs/performance.md, "Scaling
with cores").

A match of fast bots is a conversation: the referee asks one bot, waits for its answer,
tells the others, asks the next. Of its five processes (four bots and the referee) about
one runs at any instant, so a match needs about one CPU; the referee's polling
(:mod:`arena.runtime.eventloop`) would add up to one more, and is off in a league's
workers unless every match has two CPUs. A bot that thinks for its whole time budget
makes its match need one CPU too: only the seat to play thinks. So the default is one
match per CPU the arena may use: its affinity, capped by its cgroup's CPU quota. More
jobs than that only make matches wait for a CPU, and their bots' clocks run while they
wait: ``--jobs`` above it is allowed, with one warning. Measurements:
docs/performance.md, "Scaling with cores" (``bench/scaling.py``).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import structlog

log = structlog.get_logger()

CPUS_PER_MATCH = 1.0
"""CPUs one match keeps busy (fast bots or a thinking one: see the module docstring)."""

_warned: set[int] = set()


@functools.cache
def process_cpus() -> int:
    """How many CPUs the process may use (:func:`_process_cpus`), read once, when first asked."""
    return _process_cpus()


def polling_has_cpus(referees: int, cpus: int) -> bool:
    """Whether ``referees`` matches refereed at once on ``cpus`` CPUs each have two, one
    for its bots and one for its referee's polling (:mod:`arena.runtime.eventloop`)."""
    return cpus >= 2 * referees


def worker_cpus(jobs: int) -> list[int] | None:
    """The CPU each of ``jobs`` referee worker processes (a league's or a ladder's, each
    refereeing one match at a time) is pinned to, with the bots it starts, or None:
    placed by the system.

    Pinned only when the workers' referees do not poll (fewer than two CPUs per match:
    :func:`arena.runtime.eventloop.share_cpus_with`), as at the default ``--jobs``: a
    match of fast bots is then a chain of processes taking turns, and on one CPU each
    message wakes its reader by a switch on a running CPU, not by waking an idle one
    (on a VM, an exit to the hypervisor). Measured on 2 vCPUs, two leagues of one job
    each ran 1.2–1.45× faster pinned to a CPU each than placed by the system, and 1.4×
    with one or two busy processes of other work on the machine (docs/performance.md,
    "Where bots run")."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if jobs < 2 or len(allowed) < 2 or polling_has_cpus(jobs, process_cpus()):
        return None
    return [allowed[i % len(allowed)] for i in range(jobs)]


def _process_cpus(proc: Path = Path("/proc/self")) -> int:
    """How many CPUs this process may use: its CPU affinity where the platform has one,
    and no more than its cgroups' CPU quota allows (a container run with ``--cpus 1``
    sees every CPU of the host, but gets one CPU's worth of time)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    limit = cgroup_cpu_limit(proc)
    return cpus if limit is None else max(1, min(cpus, int(limit)))


def cgroup_cpu_limit(proc: Path = Path("/proc/self")) -> float | None:
    """The CPUs' worth of time the process's cgroups allow (the smallest quota over
    period from its cgroup up to the hierarchy's root, cgroup v2 or v1), or None:
    no quota, or not Linux."""
    try:
        mounts = (proc / "mountinfo").read_text(encoding="utf-8").splitlines()
        groups = [g.split(":", 2) for g in (proc / "cgroup").read_text(encoding="utf-8").splitlines()]
    except OSError:
        return None
    limits: list[float] = []
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        root, point, fstype, options = fields[3], Path(fields[4]), tail[0], tail[2].split(",")
        if fstype == "cgroup2":
            path = next((g[2] for g in groups if len(g) == 3 and g[0] == "0" and not g[1]), None)
        elif fstype == "cgroup" and "cpu" in options:
            path = next((g[2] for g in groups if len(g) == 3 and "cpu" in g[1].split(",")), None)
        else:
            continue
        if path is None or not (path + "/").startswith(root.rstrip("/") + "/"):
            continue
        folder = point / path[len(root.rstrip("/")):].lstrip("/")
        while True:
            limit = _cpu_limit_in(folder, fstype == "cgroup2")
            if limit is not None:
                limits.append(limit)
            if folder == point or folder.parent == folder:
                break
            folder = folder.parent
    return min(limits) if limits else None


def _cpu_limit_in(folder: Path, v2: bool) -> float | None:
    """The quota over period set in one cgroup folder, None if none (or unreadable)."""
    try:
        if v2:
            quota, period = (folder / "cpu.max").read_text(encoding="ascii").split()[:2]
        else:
            quota = (folder / "cpu.cfs_quota_us").read_text(encoding="ascii").strip()
            period = (folder / "cpu.cfs_period_us").read_text(encoding="ascii").strip()
        if quota in ("max", "-1") or int(period) <= 0:
            return None
        return int(quota) / int(period)
    except (OSError, ValueError):
        return None


def default_jobs(cpus: int | None = None) -> int:
    """Matches to play at once on this machine: one per :data:`CPUS_PER_MATCH` of the
    CPUs the arena may use (``cpus``: that number, by default read from the system)."""
    cpus = process_cpus() if cpus is None else cpus
    return max(1, int(cpus / CPUS_PER_MATCH + 1e-9))


def league_jobs(jobs: int | None, cpus: int | None = None) -> int:
    """The jobs a local league runs with: ``jobs`` if given (warned about, once per
    process and value, when the machine cannot hold that many matches), else
    :func:`default_jobs`."""
    fits = default_jobs(cpus)
    if jobs is None:
        return fits
    if jobs > fits and jobs not in _warned:
        _warned.add(jobs)
        log.warning("league.jobs_above_cpus", jobs=jobs, fits=fits,
                    detail=f"the arena may use {fits} CPU{'s' if fits > 1 else ''} here and a match keeps about "
                           f"{CPUS_PER_MATCH:g} busy: {jobs} matches at once wait for the CPU (their bots' clocks "
                           f"run meanwhile) and play no faster than {fits}")
    return jobs
