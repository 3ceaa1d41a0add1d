"""The match start and the match end reach every seat side by side (arena/driver/match.py,
issue 30): a seat's notification that waits (a bot's stream being opened or closed) does
not hold up the others' (each costs a round trip or more with bot processes)."""

from __future__ import annotations

import asyncio
from typing import Any

from mus_core import Rules

from arena.driver.match import play_match
from arena.players.local import RandomPlayer
from arena.referee.player import MatchEndInfo, MatchStartInfo, SyncAdapter
from arena.referee.session import MatchConfig

WAIT_S = 2.0
"""How long a seat waits for the others inside its notification: far longer than the test
takes when they overlap (never reached then); one after another, the first seat waits it all."""


class Gathering(SyncAdapter):
    """A random player (through the sync adapter: the Player protocol is async) whose start and end of the match each return only once every seat
    has been told (a barrier), or after :data:`WAIT_S`, recording whether all had come."""

    def __init__(self, seat: int, barriers: dict[str, asyncio.Barrier | None], met: list[tuple[str, bool]]) -> None:
        super().__init__(RandomPlayer(seed=seat, name=f"p{seat}"))
        self.barriers, self.met = barriers, met

    async def _meet(self, what: str) -> None:
        barrier = self.barriers[what]
        if barrier is None:  # made here: it needs the running loop
            barrier = self.barriers[what] = asyncio.Barrier(4)
        try:
            await asyncio.wait_for(barrier.wait(), WAIT_S)
            self.met.append((what, True))
        except TimeoutError:
            self.met.append((what, False))

    async def start_match(self, info: MatchStartInfo) -> None:
        await self._meet("start")

    async def end_match(self, info: MatchEndInfo) -> None:
        await self._meet("end")


def test_every_seat_is_told_before_any_has_finished() -> None:
    """Each seat's match start and match end are under way together: four players that
    each wait for all four inside the notification all meet at once, for the start and
    for the end. Told one after another, the first would wait alone until its timeout."""
    barriers: dict[str, asyncio.Barrier | None] = {"start": None, "end": None}
    met: list[tuple[str, bool]] = []
    players = [Gathering(s, barriers, met) for s in range(4)]
    result = play_match(players, MatchConfig(rules=Rules(games_to_win=1), seed=3), poll_us=0)
    assert result.reason.value == "completed"
    assert sorted(met) == [("end", True)] * 4 + [("start", True)] * 4


def test_a_failing_seat_does_not_stop_the_others_being_told() -> None:
    """One seat's notification raising is reported for that seat alone; the others are
    told, and the match is played."""
    told: list[tuple[str, int]] = []
    errors: list[tuple[str, int]] = []

    class Failing(RandomPlayer):
        def __init__(self, seat: int) -> None:
            super().__init__(seed=seat)
            self.seat = seat

        def start_match(self, info: MatchStartInfo) -> None:
            if self.seat == 1:
                raise RuntimeError("cannot start")
            told.append(("start", self.seat))

        def end_match(self, info: Any) -> None:
            if self.seat == 2:
                raise RuntimeError("cannot end")
            told.append(("end", self.seat))

    result = play_match([SyncAdapter(Failing(s)) for s in range(4)], MatchConfig(rules=Rules(games_to_win=1), seed=4),
                        on_notify_error=lambda method, seat, exc: errors.append((method, seat)), poll_us=0)
    assert result.reason.value == "completed"
    assert sorted(told) == [("end", 0), ("end", 1), ("end", 3), ("start", 0), ("start", 2), ("start", 3)]
    assert sorted(errors) == [("end_match", 2), ("start_match", 1)]
