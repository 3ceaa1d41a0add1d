"""Preparing ahead (arena/driver/match.py): while a seat thinks, the driver builds the
next request for the answer the seat gave last time in the same situation, and uses it
only when that answer comes. It must never change what happens in a match."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from mus_core import PASO, Action, Observation, Rules, SignalMode
from remote_helpers import RANDOM_BOT, TRIVIAL_BOT, close_all, config, play

from arena.driver.match import MatchConfig, play_match
from arena.records.handlog import untimed
from arena.referee.player import (
    BotFault,
    Decision,
    DecisionTiming,
    FaultKind,
    PipelinedPlayer,
    SyncAdapter,
    Turn,
)
from arena.runtime import eventloop

REPO = Path(__file__).resolve().parents[2]
RULEBOT = REPO / "bots" / "rulebot"


class Preparing(PipelinedPlayer):
    """An in-process pipelined player (encode, send, receive): answers as a seeded
    policy (mostly the passive answer, sometimes another legal one, a seña or a fault),
    and checks that whatever request it is sent is exactly the one of its turn (a
    request prepared for a guessed answer included)."""

    waiting = False
    """Whether some seat was sent a request and not yet received (class-wide: the
    driver prepares only then)."""

    def __init__(self, seat: int, seed: int) -> None:
        self.name = f"p{seat}"
        self.rng = random.Random(seed * 10 + seat)
        self.encodes = self.asks = self.prepares = self.waits = 0
        self.seen: list[Observation] = []
        self.timings: list[tuple[int, float, float]] = []

    async def start_match(self, info: Any) -> None:
        pass

    async def hand_end(self, result: Any) -> None:
        pass

    async def end_match(self, info: Any) -> None:
        pass

    @staticmethod
    def _request(turn: Turn) -> tuple[Any, ...]:
        return (turn.seat, turn.request_id, turn.view, turn.timing.deadline_s, turn.timing.bank_left_s)

    def encode(self, turn: Turn) -> tuple[Any, ...]:
        self.encodes += 1
        if Preparing.waiting:
            self.prepares += 1  # built ahead, for a guessed answer of the seat that thinks
        return self._request(turn)

    async def send(self, turn: Turn, request: tuple[Any, ...]) -> None:
        # Built for exactly this decision: the same view and timing.
        assert request == self._request(turn)
        self.asks += 1
        self.seen.append(turn.view)
        self.timings.append((turn.request_id, turn.timing.deadline_s, turn.timing.bank_left_s))
        Preparing.waiting = True

    def has_answer(self) -> bool:
        self.waits += 1
        return False

    async def receive(self, turn: Turn) -> Decision:
        await asyncio.sleep(0)
        Preparing.waiting = False
        view = turn.view
        draw = self.rng.random()
        if draw < 0.03:
            raise BotFault(FaultKind.MALFORMED, "a test fault")
        legal = view.legal_actions
        passive = [a for a in legal if isinstance(a, Action) and a.kind.name in ("NO_MUS", "PASO", "NO_QUIERO")]
        if passive and draw < 0.8:
            action = passive[0]
        else:
            action = self.rng.choice([a for a in legal if isinstance(a, Action)] or [PASO])
        sena = view.legal_senas[0] if view.legal_senas and draw > 0.95 else None
        return Decision(action, sena)

    async def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        raise AssertionError("a pipelined player is asked in two phases")


def _match(prepare_ahead: bool, seed: int, rules: Rules, **cfg: Any) -> tuple[list[dict[str, Any]], list[Preparing], Any]:
    players = [Preparing(s, seed) for s in range(rules.players)]
    hands: list[dict[str, Any]] = []
    config = MatchConfig(rules=rules, seed=seed, max_faults=0, prepare_ahead=prepare_ahead, **cfg)
    ticks = iter(range(10**9))
    # A clock that moves 4 ms at each reading: decision times, and so time banks, are
    # the same in both runs. The arena's stall meter reads the real clock: on a busy
    # machine (two busy loops) a real 150 ms gap of the event loop was credited to one run
    # and not the other, and timings differed; no real stall is counted here.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(eventloop, "STALL_MIN_GAP_S", float("inf"))
        result = play_match(players, config, on_hand=hands.append, clock=lambda: next(ticks) * 0.004, poll_us=0)
    return hands, players, result


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rules", [Rules(games_to_win=3), Rules(games_to_win=3, signals=SignalMode.PARTNER_WITH_INTERCEPTION)])
def test_preparing_ahead_changes_nothing(seed: int, rules: Rules) -> None:
    """The same seeds and players give the same hands, steps, faults and result with and
    without it; some prepared requests were used and others not, and each one used was
    exactly the request of its decision (checked by the player)."""
    off, off_players, off_result = _match(False, seed, rules)
    on, on_players, on_result = _match(True, seed, rules)
    assert untimed(on) == untimed(off)
    # What each seat was shown (its cards, the history with its señas, the legal actions).
    assert [p.seen for p in on_players] == [p.seen for p in off_players]
    assert on_result.to_json()["faults"] == off_result.to_json()["faults"]
    assert (on_result.winner_team, on_result.games_won, on_result.stones) == (
        off_result.winner_team, off_result.games_won, off_result.stones)
    assert sum(s.prepared for s in off_result.seats) == sum(p.prepares for p in off_players) == 0  # off: never
    used, prepares = sum(s.prepared for s in on_result.seats), sum(p.prepares for p in on_players)
    assert 0 < used < prepares  # some prepared requests were used, others not (another answer came)
    # Every request sent was either prepared and used, or encoded for its turn.
    assert sum(p.encodes for p in on_players) == prepares + sum(p.asks for p in on_players) - used


@pytest.mark.parametrize("players", [4, 2])
def test_deadlines_and_time_banks_are_the_same_either_way(players: int) -> None:
    """Each request's deadline and time bank are what they would be without preparing
    ahead, also when a seat acts twice in a row and when banks run out (small banks: some
    decisions get "time bank exhausted")."""
    rules = Rules(games_to_win=2, players=players)
    for bank_ms in (100, 300):  # banks that run out early, and later
        off, off_players, off_result = _match(False, 3, rules, time_bank_ms=bank_ms, decision_ms=40)
        on, on_players, on_result = _match(True, 3, rules, time_bank_ms=bank_ms, decision_ms=40)
        assert [p.timings for p in on_players] == [p.timings for p in off_players], bank_ms
        assert untimed(on) == untimed(off)
        assert on_result.to_json()["faults"] == off_result.to_json()["faults"]
        if bank_ms == 100:
            assert any("time bank exhausted" in f.detail for f in on_result.faults)
        assert sum(s.prepared for s in on_result.seats) > 0


def test_a_player_with_only_some_pipelined_methods_is_asked_with_decide() -> None:
    """A player that has ``encode`` of its own but not the rest of the two phases is a
    plain player: only its ``decide`` is called."""
    from arena.players.local import RandomPlayer

    class Unrelated(RandomPlayer):
        def encode(self, turn: Turn) -> object:
            raise AssertionError("not a pipelined player")

    players = [SyncAdapter(Unrelated(seed=s)) for s in range(4)]
    result = play_match(players, MatchConfig(rules=Rules(games_to_win=1), seed=1, max_faults=0), poll_us=0)
    assert result.faults == [] and result.reason.value == "completed"


def test_a_player_without_prepare_is_asked_as_before() -> None:
    """A plain player's decide never receives the extra arguments."""
    from arena.players.local import RandomPlayer

    result = play_match([SyncAdapter(RandomPlayer(seed=s)) for s in range(4)], MatchConfig(rules=Rules(games_to_win=1), seed=5))
    assert result.reason.value == "completed"


def test_a_failing_preparation_does_not_touch_the_decision() -> None:
    """A player whose encode raises when it is asked ahead: the driver drops the
    preparation; the match is as it would be without any."""

    class Failing(Preparing):
        def encode(self, turn: Turn) -> tuple[Any, ...]:
            if Preparing.waiting:
                self.prepares += 1
                raise RuntimeError("cannot build")
            return super().encode(turn)

    rules = Rules(games_to_win=1)
    hands: list[dict[str, Any]] = []
    players = [Failing(s, 4) for s in range(4)]
    result = play_match(players, MatchConfig(rules=rules, seed=4, max_faults=0), on_hand=hands.append, poll_us=0)
    off, _, off_result = _match(False, 4, rules)
    assert untimed(hands) == untimed(off) and result.winner_team == off_result.winner_team
    assert sum(p.prepares for p in players) > 0 and sum(s.prepared for s in result.seats) == 0


@pytest.mark.parametrize("bot", [TRIVIAL_BOT, RULEBOT, RANDOM_BOT], ids=["trivial", "rulebot", "random"])
def test_bot_processes_play_the_same_match_either_way(spawn, bot: Path) -> None:
    """Deterministic bot processes (fresh ones for each match: a bot's random stream runs
    on from match to match): identical hand logs with and without preparing ahead; the
    trivial bot, which always answers alike, gets most of its requests prepared."""
    cfg = config(rules=Rules(games_to_win=2), seed=9, decision_ms=2000)
    logs = []
    for on in (False, True):
        bots = [spawn(path=bot, label=f"s{s}-{on}", MUS_BOT_SEED=str(s)) for s in range(4)]
        played = play(bots, dataclasses.replace(cfg, prepare_ahead=on))
        assert played.result.faults == []
        used = sum(s.prepared for s in played.result.seats)
        decisions = sum(s.decisions for s in played.result.seats)
        if not on:
            assert used == 0
        elif bot == TRIVIAL_BOT:
            # Most of them on a quiet machine (86%); fewer when the bots answer before the
            # referee gets to prepare (busy machines: 24% and 4% seen), never none. The share
            # is the bench's to measure (bench/polling.py); here, that the path is taken.
            assert 0 < used <= decisions
        elif bot == RULEBOT:
            assert used > 0  # random bots may not repeat a situation in so short a match
        logs.append(untimed(played.hands))
        close_all(bots)
    assert logs[0] == logs[1]


def test_bot_processes_receive_the_same_requests_either_way(spawn, tmp_path: Path) -> None:
    """Byte for byte, but for the deadline and time bank fields (which carry real
    elapsed time): every request each bot process received is the same with and without
    preparing ahead, and many were prepared (the recording test bot answers mostly the
    passive answer, otherwise at random: the referee's guesses are often right, not always)."""
    import json

    received = []
    for on in (False, True):
        out = tmp_path / f"record-{on}"
        out.mkdir()
        bots = [spawn("record", label=f"r{s}-{on}", MUS_BOT_SEED=str(s), MUS_TEST_OUT=str(out)) for s in range(4)]
        played = play(bots, config(rules=Rules(games_to_win=2), seed=21, decision_ms=2000, prepare_ahead=on))
        assert played.result.faults == []
        used, decisions = sum(s.prepared for s in played.result.seats), sum(s.decisions for s in played.result.seats)
        # Many on a quiet machine; fewer on a busy one (the answers come first), never none.
        assert (used == 0) if not on else (0 < used < decisions), (used, decisions)
        close_all(bots)
        records = [json.loads(line) for f in sorted(out.glob("record-*.jsonl")) for line in f.read_text().splitlines()]
        assert len(records) == decisions
        received.append(sorted((r["id"], r["seat"], r["request"]) for r in records))
    assert received[0] == received[1]
