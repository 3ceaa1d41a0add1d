"""Rotation of dealer and mano (docs/rules.md §2.4, §2.6, TV-19) and the match structure (§7.4, §8)."""

from __future__ import annotations

import itertools
import random

import pytest
from helpers import deal
from mus_core import (
    MUS,
    NO_MUS,
    Action,
    DiscardRange,
    EnvidoRange,
    IllegalActionError,
    Lance,
    Phase,
    Rules,
    discard,
    envido,
)
from mus_core.state import MusState

TV07 = ["R R A A", "C C 4 4", "7 6 5 4", "S 5 A 6"]


def choose(state: MusState, rng: random.Random) -> Action:
    """A simple random legal policy: cuts the mus most of the time, never calls órdago
    (so that games last several hands)."""
    legal = [a for a in state.legal_actions() if a != Action.parse("ordago")]
    if state.phase == Phase.MUS:
        return NO_MUS if rng.random() < 0.7 else MUS
    entry = rng.choice(legal)
    if isinstance(entry, EnvidoRange):
        return envido(entry.min_amount)
    if isinstance(entry, DiscardRange):
        return discard(entry.cards[: rng.randint(1, 4)])
    return entry


def play_hand(state: MusState, rng: random.Random) -> None:
    n = len(state.hand_results)
    while len(state.hand_results) == n:
        state.apply(choose(state, rng))


def passing_hand(state: MusState) -> None:
    """Cut the mus and pass every lance."""
    n = len(state.hand_results)
    while len(state.hand_results) == n:
        state.apply(NO_MUS if state.phase == Phase.MUS else Action.parse("paso"))


def decline_win(state: MusState, actions: str) -> None:
    for step in actions.split(";"):
        seat, act = step.split()
        assert state.to_act == int(seat[1:])
        state.apply(Action.parse(act))


# ---------------------------------------------------------------------------- TV-19


def test_tv19_rotation_across_hands() -> None:
    s = MusState.new(Rules(), seed=11, first_dealer=3)
    seen = []
    for _ in range(6):
        seen.append((s.dealer, s.mano))
        assert s.to_act == s.mano  # mano speaks first
        assert s.view(2).mano == s.mano and s.view(2).dealer == s.dealer
        passing_hand(s)
    assert seen[0] == (3, 0)  # hand 1
    assert seen[1] == (0, 1)  # hand 2: the previous mano deals
    assert seen[4] == (3, 0)  # hand 5
    assert [(r.dealer, r.mano) for r in s.hand_results] == seen
    assert all(m == (d + 1) % 4 for d, m in seen)


def test_tv19_new_game_continues_rotation() -> None:
    # A game ends in a hand with dealer S1, mano S2: the next game starts with dealer S2, mano S3.
    s = MusState.from_deal(Rules(), deal(TV07), mano=2, scores=(0, 39))
    assert (s.dealer, s.mano) == (1, 2)
    # grande: S2 passes, S3 bets, S0 and S2 decline: deje 1, T1 reaches 40.
    decline_win(s, "S2 no-mus; S2 p; S3 e2; S0 nq; S2 nq")
    r = s.hand_results[-1]
    assert r.game_over and r.game_winner == 1 and r.ended_by == "deje:grande"
    assert (r.dealer, r.mano) == (1, 2)
    assert (s.dealer, s.mano) == (2, 3)
    assert s.game_no == 1 and s.scores == (0, 0) and s.games_won == (0, 1)
    assert s.phase == Phase.MUS and s.to_act == 3


def test_rotation_through_a_whole_match() -> None:
    rng = random.Random(5)
    s = MusState.new(Rules(), seed=5, first_dealer=0)
    while not s.is_terminal:
        play_hand(s, rng)
    results = s.hand_results
    assert len(results) >= 4
    for a, b in itertools.pairwise(results):
        assert b.dealer == (a.dealer + 1) % 4, (a.hand, b.hand)
        assert b.mano == (b.dealer + 1) % 4
        assert b.game == a.game + (1 if a.game_over else 0)
        if a.game_over:
            assert b.scores_before == (0, 0)
        else:
            assert b.scores_before == a.scores_after
    assert [r.hand for r in results] == list(range(len(results)))
    assert results[0].dealer == 0 and results[0].mano == 1
    wins = [r.game_winner for r in results if r.game_over]
    assert wins.count(s.match_winner) == 2 and len(wins) in (2, 3)
    assert results[-1].game_over and results[-1].game_winner == s.match_winner


def test_tv19_tie_with_mano_s2() -> None:
    s = MusState.from_deal(Rules(), deal(["R C 5 4", "7 6 5 A", "S 7 6 4", "R C 5 4"]), mano=2)
    assert s.to_act == 2
    passing_hand(s)
    r = s.hand_results[-1]
    assert r.lances[0].winner_seat == 3  # order S2 S3 S0 S1
    assert r.lances[3].lance is Lance.PUNTO and r.lances[3].winner_seat == 3


# ---------------------------------------------------------------------------- match end


def test_game_win_does_not_end_default_match() -> None:
    s = MusState.from_deal(Rules(), deal(TV07), mano=0, scores=(39, 0))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert not s.is_terminal and s.match_winner is None
    assert s.games_won == (1, 0) and s.scores == (0, 0) and s.to_act is not None


def test_second_game_win_ends_the_match() -> None:
    s = MusState.from_deal(Rules(), deal(TV07), mano=0, scores=(39, 0), games_won=(1, 0))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert s.is_terminal and s.match_winner == 0
    assert s.to_act is None and s.legal_actions() == ()
    assert s.view(1).phase == Phase.MATCH_OVER
    r = s.hand_results[-1]
    assert r.game_over and r.game_winner == 0 and r.scores_after == (40, 0)
    with pytest.raises(IllegalActionError) as info:
        s.apply(Action.parse("paso"))
    assert info.value.seat is None


def test_one_all_then_deciding_game() -> None:
    s = MusState.from_deal(Rules(), deal(TV07), mano=0, scores=(0, 39), games_won=(1, 1))
    decline_win(s, "S0 no-mus; S0 p; S1 e2; S2 nq; S0 nq")
    assert s.is_terminal and s.match_winner == 1


def test_games_to_win_one() -> None:
    s = MusState.from_deal(Rules(games_to_win=1), deal(TV07), mano=0, scores=(0, 39))
    decline_win(s, "S0 no-mus; S0 p; S1 e2; S2 nq; S0 nq")
    assert s.is_terminal and s.match_winner == 1


def test_games_to_win_three() -> None:
    s = MusState.from_deal(Rules(games_to_win=3), deal(TV07), mano=0, scores=(39, 0), games_won=(1, 2))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert not s.is_terminal and s.games_won == (2, 2)


def test_ordago_win_counts_as_a_game() -> None:
    s = MusState.from_deal(Rules(), deal(TV07), mano=0, games_won=(1, 0))
    decline_win(s, "S0 no-mus; S0 O; S1 q")
    assert s.is_terminal and s.match_winner == 0  # S0's R R A A wins grande


def test_vacas_to_win() -> None:
    s = MusState.from_deal(Rules(games_to_win=1, vacas_to_win=2), deal(TV07), mano=0, scores=(39, 0))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert not s.is_terminal
    rng = random.Random(1)
    while not s.is_terminal:
        play_hand(s, rng)
    assert s.match_winner in (0, 1)
    assert sum(1 for r in s.hand_results if r.game_over) in (2, 3)


def test_match_ends_with_random_play_and_is_deterministic() -> None:
    def run(seed: int) -> list:
        rng = random.Random(seed)
        s = MusState.new(Rules(), seed=seed)
        while not s.is_terminal:
            play_hand(s, rng)
        return [(r.dealer, r.scores_after, r.ended_by) for r in s.hand_results]

    assert run(42) == run(42)


# ---------------------------------------------------------------------------- target 30


def test_target_30_deje() -> None:
    rules = Rules(target_points=30)
    s = MusState.from_deal(rules, deal(TV07), mano=0, scores=(29, 0))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    r = s.hand_results[-1]
    assert r.game_over and r.scores_after == (30, 0) and r.ended_by == "deje:grande"


def test_target_30_count() -> None:
    rules = Rules(target_points=30)
    s = MusState.from_deal(rules, deal(TV07), mano=0, scores=(28, 20))
    passing_hand(s)
    r = s.hand_results[-1]
    # grande T0 +1 (29), chica T0 +1 (30): over at chica.
    assert r.game_over and r.game_winner == 0 and r.ended_by == "count:chica" and r.scores_after == (30, 20)


def test_target_30_below() -> None:
    rules = Rules(target_points=30)
    s = MusState.from_deal(rules, deal(TV07), mano=0, scores=(27, 0))
    decline_win(s, "S0 no-mus; S0 e2; S1 nq; S3 nq")
    assert not s.hand_results and s.scores == (28, 0)


def test_scores_must_be_below_target() -> None:
    with pytest.raises(ValueError):
        MusState.from_deal(Rules(target_points=30), deal(TV07), mano=0, scores=(30, 0))


@pytest.mark.parametrize("players", [2, 6])
def test_rotation_other_tables(players: int) -> None:
    s = MusState.new(Rules(players=players), seed=3, first_dealer=players - 1)
    seen = []
    for _ in range(players + 2):
        seen.append((s.dealer, s.mano))
        assert s.to_act == s.mano
        passing_hand(s)
    assert seen == [((players - 1 + i) % players, i % players) for i in range(players + 2)]
