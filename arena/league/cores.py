"""How many matches a local league plays at once by default (``--jobs``), from the CPUs
the arena may use and what a match needs (issue 30; docs/performance.md, "Scaling
with cores").

A match of fast bots is a conversation: the referee asks one bot, waits for its answer,
tells the others, asks the next. Of its five processes (four bots and the referee) about
one runs at any instant, so a match needs about one CPU; the referee's polling
(:mod:`arena.referee.eventloop`) would add up to one more, and is off in a league's
workers unless every match has two CPUs. A bot that thinks for its whole time budget
makes its match need one CPU too: only the seat to play thinks. So the default is one
match per CPU the arena may use: its affinity, capped by its cgroup's CPU quota. More
jobs than that only make matches wait for a CPU, and their bots' clocks run while they
wait: ``--jobs`` above it is allowed, with one warning. Measurements:
docs/performance.md, "Scaling with cores" (``bench/scaling.py``).
"""

from __future__ import annotations

import structlog

from arena.referee.eventloop import process_cpus

log = structlog.get_logger()

CPUS_PER_MATCH = 1.0
"""CPUs one match keeps busy (fast bots or a thinking one: see the module docstring)."""

_warned: set[int] = set()


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
