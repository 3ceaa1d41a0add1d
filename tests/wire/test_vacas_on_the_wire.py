"""Vacas and games on the wire (issue 15 item 15), checked against real bot processes.

Before the fix the requests never carried ``vacas_won`` (the request builder took it
with a default no caller overrode), ``MatchEnd.vacas_won`` was never set, and
``HandEnd.games_won`` was counted by each player adapter and never went back to 0–0
when a vaca was won. Now all three come from the engine: ``Observation.vacas_won``,
``HandResult.games_won`` / ``vacas_won`` and ``MatchEndInfo.vacas_won``.
"""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

from mus_core import Action, Rules, Sena
from mus_core.state import MusState
from mus_sdk import HandResult, MatchEnd, Observation

from arena.driver.match import MatchConfig, play_match
from arena.remote.client import RemoteBot
from arena.remote.manifest import load_manifest
from arena.wire import convert as wire

OBSERVER = Path(__file__).resolve().parent / "bots" / "observer"


def _untimed(obs: Observation) -> Observation:
    return dataclasses.replace(obs, deadline_ms=0, time_bank_ms=0)


def test_vacas_and_games_reach_real_bots(tmp_path: Path) -> None:
    """Four observer processes play a match of three vacas of one game each. Every
    observation they received equals ``observation_for`` on the engine (``vacas_won``
    included, and it is not always 0–0); every hand end says the engine's games won
    after the hand (0–0 again after each game, since a game wins a vaca); the match end
    says the engine's vacas (one team has 3)."""
    out = tmp_path / "observed"
    out.mkdir()
    base = load_manifest(OBSERVER)
    bots = [
        RemoteBot(dataclasses.replace(base, env={"MUS_BOT_SEED": str(s), "MUS_TEST_OUT": str(out)}),
                  tmp_path / "logs", f"obs{s}")
        for s in range(4)
    ]
    rules = Rules(games_to_win=1, vacas_to_win=3, target_points=15)
    cfg = MatchConfig(rules=rules, seed=9, match_id="vacas-test", decision_ms=5000)
    hands: list[dict[str, Any]] = []
    try:
        for b in bots:
            b.connect()
        result = play_match(bots, cfg, on_hand=hands.append)
    finally:
        for b in bots:
            b.close()
    assert (result.reason.value, result.faults) == ("completed", [])

    received: dict[int, Observation] = {}
    for f in out.glob("observer-*.txt"):
        for line in f.read_text().splitlines():
            obs = pickle.loads(bytes.fromhex(line))
            received[obs.request_id] = obs
    summaries: dict[int, list[HandResult]] = {s: [] for s in range(4)}
    ends: dict[int, MatchEnd] = {}
    for f in out.glob("ends-*.txt"):
        for line in f.read_text().splitlines():
            seat, item = pickle.loads(bytes.fromhex(line))
            if isinstance(item, HandResult):
                summaries[seat].append(item)
            else:
                ends[seat] = item

    state = MusState.new(cfg.rules, seed=cfg.seed, first_dealer=cfg.first_dealer)
    vacas_seen: set[tuple[int, ...]] = set()
    for rec in hands:
        for step in rec["steps"]:
            built = wire.observation_for(state, request_id=step["id"], match_id=cfg.match_id)
            got = received.pop(step["id"])
            assert _untimed(got) == _untimed(built), f"request {step['id']}"
            assert got.vacas_won == (state.vacas[0], state.vacas[1])
            vacas_seen.add(got.vacas_won)
            if step.get("sena"):
                state.give_sena(step["seat"], Sena[step["sena"].upper()])
            state.apply(Action.parse(step["action"]))
    assert state.is_terminal and received == {}
    assert len(vacas_seen) >= 3, vacas_seen  # the count moved, as the bots saw it

    engine_games = [r.games_won for r in state.hand_results]
    assert all(g == (0, 0) for g in engine_games)  # one game wins a vaca: back to 0–0
    for seat in range(4):
        assert [s.games_won for s in summaries[seat]] == engine_games, f"S{seat}'s hand ends"
        assert ends[seat].vacas_won == (state.vacas[0], state.vacas[1]), f"S{seat}'s match end"
    assert max(state.vacas) == 3 and sum(state.vacas) == sum(1 for r in state.hand_results if r.game_over)


def test_hand_end_games_reset_after_a_vaca_with_two_games_a_vaca() -> None:
    """In process (the same notification builder): with two games a vaca, a hand end's
    games go 1–0 style within a vaca and back to 0–0 when the vaca is won."""
    import random

    from mus_core.random_play import random_action

    state = MusState.new(Rules(games_to_win=2, vacas_to_win=2, target_points=10), seed=3)
    rng = random.Random(4)
    while not state.is_terminal:
        state.apply(random_action(rng, state.legal_actions()))
    games, vacas = [0, 0], [0, 0]
    for r in state.hand_results:
        if r.game_over and r.game_winner is not None:
            games[r.game_winner] += 1
            if games[r.game_winner] == 2:
                vacas[r.game_winner] += 1
                games = [0, 0]
        msg = wire.hand_end_pb(r)
        assert tuple(msg.games_won) == tuple(games) == r.games_won
        assert r.vacas_won == tuple(vacas)
    assert max(vacas) == 2
