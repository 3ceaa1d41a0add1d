"""The strict sandbox's freezer: a bot process runs only while it is asked.

Under the strict sandbox a bot is stopped (every process of it: its control group's
freezer where it has one, else SIGSTOP, see
:meth:`~arena.remote.process.BotProcess.freeze`) after its match start and each of its
decisions, and woken for the next, for the match's end and to be closed. So no bot can
use the CPU while another decides (slowing it down), and partners cannot signal each
other by running at the same time (CPU load, timing). What reaches a frozen bot (a
hand's end) waits in its stream.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from arena.remote.process import BotProcess
from arena.remote.sandbox import STRICT
from arena.runtime.eventloop import stall_meter


class _Seat(Protocol):
    """What the freezer reads of the bot it freezes (at each call: both may change)."""

    process: BotProcess | None
    sandbox: str


class Freezer:
    """Freezes and wakes one bot's processes, under the strict sandbox only."""

    __slots__ = ("_seat", "closing", "frozen")

    def __init__(self, seat: _Seat) -> None:
        self._seat = seat
        self.frozen = False
        """Stopped between its decisions."""
        self.closing = False
        """Being closed: never frozen again (a match task left behind by Ctrl-C may still
        end a decision)."""

    def freeze(self) -> None:
        """Stop the bot until :meth:`wake`, if it runs under the strict sandbox."""
        seat = self._seat
        if seat.sandbox == STRICT and seat.process is not None and not self.frozen and not self.closing:
            _signal(seat.process, freeze=True)
            self.frozen = True

    def wake(self) -> None:
        """Let the bot run again, if :meth:`freeze` stopped it."""
        if self.frozen and self._seat.process is not None:
            _signal(self._seat.process, freeze=False)
        self.frozen = False


def _signal(process: BotProcess, freeze: bool) -> None:
    """Freeze or wake every process of the bot; the time it takes is credited to the
    decision waiting (if any) as the arena's, not the bot's."""
    t0 = time.perf_counter()
    if freeze:
        process.freeze()
    else:
        process.thaw()
    try:
        meter = stall_meter(asyncio.get_running_loop())
    except RuntimeError:
        return  # no loop running: no decision is waiting either
    meter.credit(time.perf_counter() - t0)
