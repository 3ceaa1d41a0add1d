"""``MatchResult.games``: one record per game begun, from the engine's hand results.

The standings need, per game, its winner, its final scores and how it ended (a game won
by an accepted órdago ends short of the target: arena/league/standings.py).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mus_core import HandResult, Observation, Rules
from mus_core.random_play import random_action
from mus_core.state import MusState

from arena.driver.match import MatchConfig, games_record, play_match
from arena.referee.player import Decision, DecisionTiming, MatchEndInfo, MatchStartInfo, SyncAdapter


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64), play=st.integers(0, 2**32), games_to_win=st.integers(1, 3),
       vacas=st.integers(1, 2), target=st.integers(5, 40), players=st.sampled_from([2, 4, 6]))
def test_one_record_per_game_agreeing_with_the_hands(
    seed: int, play: int, games_to_win: int, vacas: int, target: int, players: int
) -> None:
    """Whole matches at random: games numbered 0, 1, …; each won by the team of the hand
    that ended it, with that hand's final scores and ended_by; winners add up to the
    games each team won, and the last game's winner won the match."""
    rules = Rules(players=players, games_to_win=games_to_win, vacas_to_win=vacas, target_points=target)
    state = MusState.new(rules, seed=seed)
    rng = random.Random(play)
    while not state.is_terminal:
        state.apply(random_action(rng, state.legal_actions()))
    games = games_record(state.hand_results)
    assert [g["game"] for g in games] == list(range(len(games)))
    enders = [r for r in state.hand_results if r.game_over]
    assert len(enders) == len(games)
    for g, r in zip(games, enders, strict=True):
        assert (g["winner"], g["scores"], g["ended_by"]) == (r.game_winner, list(r.scores_after), r.ended_by)
        assert g["scores"][g["winner"]] >= target or g["ended_by"].startswith("ordago:")
    assert games[-1]["winner"] == state.match_winner
    won = [sum(1 for g in games if g["winner"] == t) for t in (0, 1)]
    assert state.match_winner is not None and won[state.match_winner] >= games_to_win * vacas


def test_unfinished_games() -> None:
    """A match stopped inside a game: that game has no winner and the scores of its last
    finished hand; a game begun whose first hand did not finish is listed with 0–0."""
    state = MusState.new(Rules(target_points=40), seed=1)
    rng = random.Random(1)
    while not state.hand_results or not state.hand_results[-1].game_over:
        state.apply(random_action(rng, state.legal_actions()))
    results = state.hand_results[:-1]  # the first game, stopped before the hand that ended it
    assert results, "the first game lasted more than one hand"
    games = games_record(results, begun=0)
    assert games == [{"game": 0, "winner": None, "scores": list(results[-1].scores_after), "ended_by": None}]
    assert games_record([], begun=0) == [{"game": 0, "winner": None, "scores": [0, 0], "ended_by": None}]


class _Faulty:
    """Faults (raises) from its ``after``-th decision on; plays at random before."""

    def __init__(self, seed: int, after: int) -> None:
        self.name = "faulty"
        self.rng = random.Random(seed)
        self.after = after
        self.decisions = 0

    def start_match(self, info: MatchStartInfo) -> None:
        pass

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        self.decisions += 1
        if self.decisions >= self.after:
            raise RuntimeError("boom")
        return Decision(random_action(self.rng, view.legal_actions))

    def hand_end(self, result: HandResult) -> None:
        pass

    def end_match(self, info: MatchEndInfo) -> None:
        pass


def test_match_result_and_its_json_carry_the_games() -> None:
    """Through the referee: completed matches list every game; a forfeit leaves the game
    in play unfinished; ``to_json`` holds the same list."""
    players: list[Any] = [_Faulty(s, 10**9) for s in range(4)]
    done = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=Rules(games_to_win=2, target_points=15), seed=3))
    assert done.reason.value == "completed" and done.games and done.games[-1]["winner"] == done.winner_team
    assert done.to_json()["games"] == done.games
    assert sum(1 for g in done.games if g["winner"] is not None) == sum(done.games_won)
    players = [_Faulty(s, 10**9 if s else 2) for s in range(4)]
    stopped = play_match([SyncAdapter(p) for p in players], MatchConfig(rules=Rules(games_to_win=2, target_points=15), seed=3, max_faults=1))
    assert stopped.reason.value == "forfeit"
    last = stopped.games[-1]
    assert last["winner"] is None and last["ended_by"] is None
