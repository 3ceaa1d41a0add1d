"""Helpers of the adversarial tests: the zoo bot, outcome checks, and the arena's memory.

The process helpers of tests/remote (manifests with a test tag, ``play`` with its hand
log checks, the search for processes left behind) are reused from
``tests/remote/remote_helpers.py``.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "remote"))

from remote_helpers import REPO, TAG_ENV, TRIVIAL_BOT, Played  # noqa: E402

from arena.referee.player import FaultKind  # noqa: E402

ZOO = HERE / "bots" / "zoo"
RANDOM_BOT = REPO / "bots" / "random"
MAX_FAULTS = 3
MiB = 1024 * 1024

__all__ = ["MAX_FAULTS", "RANDOM_BOT", "REPO", "TAG_ENV", "TRIVIAL_BOT", "ZOO", "MiB", "RssSampler",
           "assert_completed", "assert_forfeit", "rss_bytes"]


def assert_forfeit(played: Played, seat: int, kind: FaultKind, count: int = MAX_FAULTS) -> None:
    """``seat`` committed ``count`` faults of ``kind``, nobody else any, and its team lost."""
    r = played.result
    assert [(f.seat, f.kind) for f in r.faults] == [(seat, kind)] * count, r.faults
    assert r.reason.value == "forfeit"
    assert r.winner_team == 1 - seat % 2
    assert r.detail == f"S{seat} ({played.names[seat]}) reached {count} faults"


def assert_completed(played: Played) -> None:
    """The match was played to its end, without a fault."""
    r = played.result
    assert r.reason.value == "completed", (r.reason, r.detail, r.faults)
    assert r.winner_team in (0, 1) and r.games_won[r.winner_team] == 1
    assert r.faults == []
    assert played.notify_errors == []


def rss_bytes() -> int:
    """This process's resident set size."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


class RssSampler:
    """Samples this process's RSS every few milliseconds while in the ``with`` block;
    ``growth`` is the peak minus the RSS at entry."""

    def __init__(self, period_s: float = 0.005) -> None:
        self.period_s = period_s
        self.start = self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            self.peak = max(self.peak, rss_bytes())

    def __enter__(self) -> RssSampler:
        self.start = self.peak = rss_bytes()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_bytes())

    @property
    def growth(self) -> int:
        return self.peak - self.start


def wait_for(predicate, timeout_s: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
