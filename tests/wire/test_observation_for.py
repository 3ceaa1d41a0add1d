"""``wire.observation_for``: the Observation a bot's ``decide`` gets, built from an engine
state, equals what real bot processes received in a real match."""

from __future__ import annotations

import dataclasses
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from mus_core import Action, Rules, Sena, SignalMode, parse_cards
from mus_core.random_play import random_action
from mus_core.state import MusState
from mus_sdk import NO_QUIERO, QUIERO, EventKind, Lance, Observation, Phase

from arena.driver.match import MatchConfig, play_match
from arena.remote.client import RemoteBot
from arena.remote.manifest import load_manifest
from arena.wire import convert as wire

OBSERVER = Path(__file__).resolve().parent / "bots" / "observer"


def untimed(obs: Observation) -> Observation:
    """``obs`` without the two fields that carry real elapsed time."""
    return dataclasses.replace(obs, deadline_ms=0, time_bank_ms=0)


def test_observation_for_equals_what_bot_processes_received(tmp_path: Path) -> None:
    """Four observer processes (SDK bots) play a match with señas, not all seen by every
    seat; replaying the hand log
    on the engine, ``observation_for`` gives, for every request, the very observation the
    asked process's ``decide`` received (but for the deadline and the time bank)."""
    out = tmp_path / "observed"
    out.mkdir()
    base = load_manifest(OBSERVER)
    bots = [
        RemoteBot(dataclasses.replace(base, env={"MUS_BOT_SEED": str(s), "MUS_TEST_OUT": str(out)}),
                  tmp_path / "logs", f"obs{s}")
        for s in range(4)
    ]
    # Señas seen by partners always and by each opponent at random: each seat's history
    # is its own.
    rules = Rules(games_to_win=2, signals=SignalMode.PARTNER_WITH_INTERCEPTION, interception_p=0.5)
    cfg = MatchConfig(rules=rules, seed=5, match_id="obs-test", decision_ms=5000)
    hands: list[dict[str, Any]] = []
    try:
        for b in bots:
            b.connect()
        result = play_match(bots, cfg, on_hand=hands.append)
    finally:
        for b in bots:
            b.close()  # waits for the process: every file is complete
    assert (result.reason.value, result.faults) == ("completed", [])

    received: dict[int, Observation] = {}
    for f in out.glob("observer-*.txt"):
        for line in f.read_text().splitlines():
            obs = pickle.loads(bytes.fromhex(line))
            assert obs.request_id not in received
            received[obs.request_id] = obs

    state = MusState.new(cfg.rules, seed=cfg.seed, first_dealer=cfg.first_dealer)
    compared = senas = answered_after_partner = 0
    for rec in hands:
        for step in rec["steps"]:
            seat = step["seat"]
            assert state.to_act == seat
            built = wire.observation_for(state, request_id=step["id"], match_id=cfg.match_id)
            assert untimed(received.pop(step["id"])) == untimed(built), f"request {step['id']} to S{seat}"
            compared += 1
            senas += any(e.kind is EventKind.SIGNAL for e in built.history)
            answered_after_partner += built.partner_said_quiero
            if step.get("sena"):
                state.give_sena(seat, Sena[step["sena"].upper()])
            state.apply(Action.parse(step["action"]))
    assert received == {}, "a bot received a request the log does not hold"
    assert state.is_terminal
    # What makes the comparison worth something: many requests, over several hands and
    # both games, with señas in the history and a partner's quiero before an answer.
    assert compared > 50 and len(hands) >= 4 and {0, 1} <= {h["game"] for h in hands}, (compared, len(hands))
    assert senas > 0 and answered_after_partner > 0, (senas, answered_after_partner)


def _after_bet(answers: list[tuple[int, str]], seat: int = 2) -> Observation:
    """An observation for ``seat`` in a grande where S1 bet envido 2 and ``answers``
    (seat, action) followed, the seat to act being ``seat``."""
    hands = [parse_cards(h) for h in ("Ro Rc Re Rb", "Ao Ac Ae Ab", "Co Cc Ce Cb", "So Sc Se Sb")]
    state = MusState.from_deal(Rules(), hands, mano=1)
    state.apply(Action.parse("no-mus"))  # S1, mano, cuts the mus: betting starts
    state.apply(Action.parse("envido 2"))  # S1 opens grande
    for s, a in answers:
        assert state.to_act == s
        state.apply(Action.parse(a))
    assert state.to_act == seat
    return wire.observation_for(state)


def test_observation_for_in_a_known_spot_and_partner_said_quiero() -> None:
    """A position set up with the engine, as a bot author would in a unit test: S1 opens
    grande, S2 answers first; then S0, whose partner S2 said quiero, answers."""
    first = _after_bet([], seat=2)
    assert (first.seat, first.phase, first.lance) == (2, Phase.BETTING, Lance.GRANDE)
    assert first.bet is not None and (first.bet.seat, first.bet.stake, first.bet.is_ordago) == (1, 2, False)
    assert first.bet_answers == () and not first.partner_said_quiero
    assert first.cards == tuple(sorted(first.cards)) and len(first.cards) == 4

    after_quiero = _after_bet([(2, "quiero")], seat=0)
    assert after_quiero.seat == 0 and after_quiero.partner_said_quiero
    assert [(e.seat, e.action) for e in after_quiero.bet_answers] == [(2, QUIERO)]
    assert QUIERO in after_quiero.legal_actions and NO_QUIERO in after_quiero.legal_actions

    after_decline = _after_bet([(2, "no-quiero")], seat=0)
    assert not after_decline.partner_said_quiero
    assert [(e.seat, e.action) for e in after_decline.bet_answers] == [(2, NO_QUIERO)]


def test_observation_for_needs_a_seat_once_the_match_is_over() -> None:
    state = MusState.new(Rules(games_to_win=1), seed=1)
    to_act = state.to_act
    assert to_act is not None and wire.observation_for(state).seat == to_act
    assert len(wire.observation_for(state, (to_act + 1) % 4).legal_actions) == 0  # not its turn
    rng = random.Random(0)
    while not state.is_terminal:
        state.apply(random_action(rng, state.legal_actions()))
    with pytest.raises(ValueError, match="no seat is to act"):
        wire.observation_for(state)
    final = wire.observation_for(state, 1)
    assert (final.seat, final.phase, len(final.legal_actions)) == (1, Phase.MATCH_OVER, 0)
