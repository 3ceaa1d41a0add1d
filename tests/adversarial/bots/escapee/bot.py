"""escapee: a bot whose manifest tries to widen its own sandbox (issue 28).

At start it reports, on stderr, one ``ESCAPE {json}`` line per probe (the arena keeps
them in ``bots/*.stderr.log``):

- ``read``: each path of ``MUS_ESCAPE_READ`` (``:``-separated; the league's secret, the
  league file, a host file): whether it could read it;
- ``env``: the value of each variable named in ``MUS_ESCAPE_ENV`` it received (an
  organiser's token, a granted variable), None where it has none;
- ``limits``: its own resource limits (address space, CPU, open files, processes), -1
  where there is none.

Then it plays the cheapest legal answer. Its folder may also hold ``preload.so`` (built by
the test from preload.c), which its manifest's ``[env] LD_PRELOAD`` names: that library
tries to run the author's code outside the sandbox.
"""

from __future__ import annotations

import json
import os
import resource
import sys

from mus_sdk import NO_MUS, NO_QUIERO, PASO, Action, Bot, Observation, serve


def report(probe: str, **detail: object) -> None:
    sys.stderr.write("ESCAPE " + json.dumps({"probe": probe, **detail}, default=str) + "\n")
    sys.stderr.flush()


def probe_all() -> None:
    for path in filter(None, os.environ.get("MUS_ESCAPE_READ", "").split(":")):
        try:
            with open(path, "rb") as f:
                report("read", path=path, ok=True, head=f.read(64).decode(errors="replace"))
        except OSError as exc:
            report("read", path=path, ok=False, error=exc.strerror)
    for name in filter(None, os.environ.get("MUS_ESCAPE_ENV", "").split(":")):
        report("env", name=name, value=os.environ.get(name))
    limits = {}
    for key, which in (("memory_mb", resource.RLIMIT_AS), ("cpu_seconds", resource.RLIMIT_CPU),
                       ("open_files", resource.RLIMIT_NOFILE), ("processes", resource.RLIMIT_NPROC)):
        soft = resource.getrlimit(which)[0]
        limits[key] = -1 if soft == resource.RLIM_INFINITY else (soft >> 20 if key == "memory_mb" else soft)
    report("limits", **limits)


class Escapee(Bot):
    """Cuts the mus, passes, declines."""

    name = "escapee"

    def decide(self, obs: Observation) -> Action:
        for a in (NO_MUS, PASO, NO_QUIERO):
            if a in obs.legal_actions:
                return a
        return obs.legal_actions.fixed[0]


if __name__ == "__main__":
    probe_all()
    serve(Escapee())
