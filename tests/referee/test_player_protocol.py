"""The referee's Player protocol is async-only (arena/referee/player.py): a sync player
takes a seat through SyncAdapter, a pipelined one by inheriting PipelinedPlayer, and
the driver (arena/driver/match.py) tells them apart by class, never by the names of
their methods."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from mus_core import HandResult, Observation, Rules
from mus_core.random_play import random_action

from arena.driver.match import MatchConfig, play_match
from arena.players.local import RandomPlayer
from arena.referee.player import Decision, DecisionTiming, MatchEndInfo, MatchStartInfo, SyncAdapter

BLOCK_S = 0.2
"""Longer than the stall meter's smallest gap (0.15 s): held around it, the meter would
credit it to the seat as the arena's stall."""


class _Blocking(RandomPlayer):
    """Random play; its first decision blocks the thread (and so the loop) for BLOCK_S."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, name=f"b{seed}")
        self.first = True

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        if self.first:
            self.first = False
            time.sleep(BLOCK_S)
        return super().decide(view, request_id, timing)


def test_a_sync_players_blocking_time_is_its_own() -> None:
    """A sync player blocks the loop while it decides: that is its own time, charged to
    its bank, not an arena stall credited away by the stall meter."""
    players = [_Blocking(s) for s in range(4)]
    config = MatchConfig(rules=Rules(), seed=3, match_id="blocking", max_hands=1, decision_ms=5000)
    result = play_match([SyncAdapter(p) for p in players], config, poll_us=0)
    assert not players[0].first
    assert result.seats[0].time_used_s >= BLOCK_S * 0.9, result.seats[0]


class _LooksPipelined:
    """Has every method a pipelined player has, without inheriting PipelinedPlayer: the
    driver must ask it with decide, as any Player (it used to pick pipelined players by
    their method names)."""

    def __init__(self, seat: int) -> None:
        self.name = f"p{seat}"
        self.rng = random.Random(seat)
        self.decided = 0

    async def start_match(self, info: MatchStartInfo) -> None:
        pass

    async def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        self.decided += 1
        return Decision(random_action(self.rng, view.legal_actions))

    def encode(self, turn: Any) -> Any:
        raise AssertionError("not a PipelinedPlayer: never encoded")

    async def send(self, turn: Any, request: Any) -> None:
        raise AssertionError("not a PipelinedPlayer: never sent")

    def has_answer(self) -> bool:
        raise AssertionError("not a PipelinedPlayer")

    async def receive(self, turn: Any) -> Decision:
        raise AssertionError("not a PipelinedPlayer: never received")

    async def hand_end(self, result: HandResult) -> None:
        pass

    async def end_match(self, info: MatchEndInfo) -> None:
        raise RuntimeError("a broken notification")


def test_a_player_is_pipelined_by_class_not_by_its_method_names() -> None:
    players = [_LooksPipelined(s) for s in range(4)]
    errors: list[tuple[str, int, str]] = []
    result = play_match(players, MatchConfig(rules=Rules(), seed=2, max_hands=2, max_faults=0),
                        on_notify_error=lambda method, seat, exc: errors.append((method, seat, str(exc))), poll_us=0)
    assert result.faults == []
    assert sum(p.decided for p in players) == sum(s.decisions for s in result.seats) > 0
    # A notification that raises is reported with its method's name, and the match goes on.
    assert errors == [("end_match", s, "a broken notification") for s in range(4)]


def test_a_sync_player_seated_without_its_adapter_is_refused() -> None:
    """A player with plain methods passed as a Player would fault at every decision (its
    answer awaited) and lose by forfeit, saying nothing of the bot: the driver refuses it
    before the match, naming the fix."""
    players: list[Any] = [SyncAdapter(RandomPlayer(seed=s)) for s in range(3)] + [RandomPlayer(seed=3)]
    with pytest.raises(TypeError, match=r"seat 3: .* SyncAdapter\(player\)"):
        play_match(players, MatchConfig(rules=Rules(), seed=1, match_id="unwrapped", max_hands=1), poll_us=0)
