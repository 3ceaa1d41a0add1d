"""A hand that would never end ends the match (aborted), logged and replayable: before the
guard, four always-mus bots discarded and reshuffled for ever, and two teams that raise
every bet raised for ever, keeping the referee, ``mus check`` and a league busy."""

from __future__ import annotations

import random
from pathlib import Path

from mus_core import Rules
from mus_sdk import NO_MUS, Action, Bot, Observation
from typer.testing import CliRunner

from arena.cli.main import app
from arena.driver.match import MatchConfig, play_match
from arena.players.inprocess import InProcessBot
from arena.records.handlog import read_log
from arena.referee.player import SyncAdapter
from arena.remote.manifest import load_manifest
from arena.runner.match import Seating, run_match
from arena.tools.replay import verify

ALWAYS_MUS = Path(__file__).resolve().parent / "bots" / "always_mus"


def test_four_bots_that_never_cut_the_mus_are_stopped(tmp_path: Path) -> None:
    spec = load_manifest(ALWAYS_MUS)
    config = MatchConfig(rules=Rules(), seed=3, match_id="endless")
    assert config.max_decisions_per_hand == 500
    outcome = run_match([spec] * 4, Seating(("a", "b", "a", "b")), config, tmp_path)
    result = outcome.result
    assert result.reason.value == "aborted" and result.winner_team is None and result.hands == 0
    assert result.detail == "stopped after 500 decisions in hand 1, 62 rounds of discards: no seat cut the mus"
    assert result.faults == []  # every answer was legal: the guard is the referee's, not a fault
    log = read_log(outcome.log_path)
    (hand,) = log.hands
    assert hand["finished"] is False and len(hand["steps"]) == 500
    assert hand["stopped"]["reason"] == "aborted"
    assert verify(log) == []


def test_mus_check_says_why(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", str(ALWAYS_MUS)], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    fail = [line for line in result.output.splitlines() if line.startswith("[FAIL]")]
    assert fail == ["[FAIL] 6. answers only legal actions across a full match: the match ended aborted: "
                    "stopped after 500 decisions in hand 1, 62 rounds of discards: no seat cut the mus"], fail


class _AlwaysRaise(Bot):
    """Cuts the mus, then raises every bet by 2: without ``max_stake`` two teams of it
    raise for ever."""

    def decide(self, obs: Observation) -> Action:
        legal = obs.legal_actions
        if NO_MUS in legal:
            return NO_MUS
        raised = legal.envido(2)
        return raised if raised is not None else legal.sample(random.Random(0))


def test_a_raise_war_without_end_is_stopped_too() -> None:
    result = play_match([SyncAdapter(InProcessBot(_AlwaysRaise())) for _ in range(4)],
                        MatchConfig(rules=Rules(), seed=3, match_id="raises"))
    assert result.reason.value == "aborted" and result.winner_team is None and result.faults == []
    assert result.detail.startswith("stopped after 500 decisions in hand 1, the betting on grande never ended (stake ")
    assert result.detail.endswith("): every answer raised")
