"""The match session alone (arena/referee/session.py): fed answers by hand, no driver,
no transport, no clock."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mus_core import PASO, Action, MatchEndReason, Rules
from mus_core.random_play import random_action

from arena.driver.match import play_match
from arena.players.local import RandomPlayer
from arena.records.handlog import untimed
from arena.referee.player import Decision, FaultKind, SyncAdapter
from arena.referee.session import Faulted, HandEnded, HandStopped, MatchConfig, MatchSession, SessionEvent


def _feed(session: MatchSession, answer: Any, predict: Any = None) -> list[SessionEvent]:
    """Play the session to its end: ``answer(turn)`` gives (decision or fault kind, elapsed_s)."""
    events: list[SessionEvent] = []
    while (turn := session.turn) is not None:
        if predict is not None:
            predict(session, turn)
        outcome, elapsed = answer(turn)
        if isinstance(outcome, Decision):
            session.answer(outcome, elapsed)
        else:
            session.fault(outcome, "test", elapsed)
        events.extend(session.events())
    return events


def _records(events: list[SessionEvent]) -> list[dict[str, Any]]:
    return [e.record for e in events if isinstance(e, HandEnded | HandStopped)]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64), players=st.sampled_from([2, 4]))
def test_fed_by_hand_it_plays_the_match_the_driver_plays(seed: int, players: int) -> None:
    """The same random policy: the session fed answers in a loop writes the hand records
    the driver writes with in-process players."""
    config = MatchConfig(rules=Rules(players=players, games_to_win=1), seed=seed % 1000, max_faults=0)
    rngs = [random.Random(s) for s in range(players)]
    session = MatchSession(config, [f"s{s}" for s in range(players)])
    events = _feed(session, lambda t: (Decision(random_action(rngs[t.seat], t.view.legal_actions)), 0.0))
    hands: list[dict[str, Any]] = []
    played = play_match([SyncAdapter(RandomPlayer(seed=s)) for s in range(players)], config, on_hand=hands.append, poll_us=0)
    assert untimed(_records(events)) == untimed(hands)
    assert session.result().to_json()["games"] == played.to_json()["games"]
    assert session.result().reason is MatchEndReason.COMPLETED


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), guess_seed=st.integers(0, 2**32))
def test_predictions_never_change_the_match(seed: int, guess_seed: int) -> None:
    """Predicting any legal answer (right or wrong) before each answer changes nothing."""
    config = MatchConfig(rules=Rules(games_to_win=1), seed=seed, max_faults=0)

    def play(predict: Any) -> list[dict[str, Any]]:
        rngs = [random.Random(s) for s in range(4)]
        session = MatchSession(config, ["a", "b", "c", "d"])
        return _records(_feed(session, lambda t: (Decision(random_action(rngs[t.seat], t.view.legal_actions)), 0.001),
                              predict))

    guesses = random.Random(guess_seed)
    predicted = play(lambda s, t: s.predict(random_action(guesses, t.view.legal_actions)))
    assert predicted == play(None)


def test_late_and_illegal_answers_are_faults_and_the_default_is_played() -> None:
    config = MatchConfig(rules=Rules(games_to_win=1), seed=3, decision_ms=100, max_faults=0)
    session = MatchSession(config, ["a", "b", "c", "d"])
    first = session.turn
    assert first is not None
    session.answer(Decision(random_action(random.Random(1), first.view.legal_actions)), 0.25)  # 250 ms > 100 ms
    second = session.turn
    assert second is not None
    legal = {str(a) for a in second.view.legal_actions}
    illegal = next(a for a in ("paso", "mus", "no-mus", "quiero") if a not in legal)
    session.answer(Decision(Action.parse(illegal)), 0.01)
    faults = [e.fault for e in session.events() if isinstance(e, Faulted)]
    assert [(f.kind, f.request_id) for f in faults] == [(FaultKind.TIMEOUT, 1), (FaultKind.ILLEGAL_ACTION, 2)]
    assert "answered after 250 ms (deadline 100 ms)" in faults[0].detail
    # Both charged to the banks (the mano speaks first in the mus and in the Grande).
    used = [0.0] * 4
    used[first.seat] += 0.25
    used[second.seat] += 0.01
    assert [s.time_used_s for s in session.result().seats] == pytest.approx(used)


def test_spent_time_banks_end_the_match_without_asking() -> None:
    """Every answer takes a whole second against 50 ms banks: each seat is asked once,
    then the session plays every later turn's timeout itself, to the match's end (a
    loop, not a recursion), and the driver is asked nothing more."""
    config = MatchConfig(rules=Rules(games_to_win=2), seed=5, decision_ms=50, time_bank_ms=50, max_faults=0)
    session = MatchSession(config, ["a", "b", "c", "d"])
    asked: list[int] = []

    def answer(turn: Any) -> tuple[Any, float]:
        asked.append(turn.seat)
        return FaultKind.TIMEOUT, 1.0

    events = _feed(session, answer)
    assert sorted(asked) == [0, 1, 2, 3]
    exhausted = [e.fault for e in events if isinstance(e, Faulted) and e.fault.detail == "time bank exhausted"]
    assert len(exhausted) > 100 and session.is_over
    assert session.result().reason is MatchEndReason.COMPLETED
    with pytest.raises(RuntimeError):
        session.answer(Decision(PASO), 0.0)


def test_a_forfeit_stops_the_hand_and_records_it_unfinished() -> None:
    config = MatchConfig(rules=Rules(games_to_win=1), seed=8, max_faults=2)
    session = MatchSession(config, ["a", "b", "c", "d"])
    events = _feed(session, lambda t: (FaultKind.MALFORMED, 0.0) if t.seat == 1 else
                   (Decision(random_action(random.Random(t.request_id), t.view.legal_actions)), 0.0))
    result = session.result()
    assert result.reason is MatchEndReason.FORFEIT and result.winner_team == 0
    assert "S1 (b) reached 2 faults" == result.detail
    stopped = [e for e in events if isinstance(e, HandStopped)]
    assert len(stopped) <= 1 and all(e.record["finished"] is False for e in stopped)
    assert session.end_info().reason is MatchEndReason.FORFEIT

