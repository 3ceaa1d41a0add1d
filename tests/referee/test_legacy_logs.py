"""Hand logs of schema 1 stay readable after schema 2 changed where a hand is dealt under
``mus_corrido`` (issue 15 item 14): replay re-deals them from mano, as they were dealt."""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import pytest
from mus_core import HandResult, MusCorrido, Observation, Rules
from mus_core.random_play import random_action
from mus_core.state import MusState

from arena.driver.match import MatchConfig, play_match
from arena.records.handlog import HandLog
from arena.referee.player import Decision, DecisionTiming, MatchEndInfo, MatchStartInfo, SyncAdapter
from arena.tools.replay import verify


class _Random:
    def __init__(self, seed: int) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def start_match(self, info: MatchStartInfo) -> None:
        pass

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        return Decision(random_action(self.rng, view.legal_actions))

    def hand_end(self, result: HandResult) -> None:
        pass

    def end_match(self, info: MatchEndInfo) -> None:
        pass


def test_schema_1_logs_replay_with_their_own_dealing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches refereed with the old dealing (always from mano), logged as schema 1,
    verify; one whose deal moved (a cut shifted the mano by one seat) would not verify
    under the new dealing, which shows the legacy path is what reads it."""
    rules = Rules(mus_corrido=MusCorrido.FIRST_HAND_OF_EACH_GAME, target_points=15)
    old_new = MusState.new
    monkeypatch.setattr(MusState, "new", functools.partial(old_new, deal_from_mano=True))
    logs = []
    for seed in range(30):
        hands: list[dict[str, Any]] = []
        result = play_match([SyncAdapter(_Random(seed * 4 + s)) for s in range(4)], MatchConfig(rules=rules, seed=seed),
                            on_hand=hands.append)
        header = {"type": "header", "schema": 1, "seed": seed, "rules": rules.to_mapping(), "first_dealer": None}
        for h in hands:  # as schema 1 wrote them
            h.pop("finished")
        logs.append(HandLog(Path(f"m{seed}.jsonl"), header, hands, {"type": "footer", "result": result.to_json()}))
    monkeypatch.setattr(MusState, "new", old_new)
    assert all(verify(log) == [] for log in logs)
    as_new = [verify(HandLog(log.path, {**log.header, "schema": 2}, log.hands, log.footer)) for log in logs]
    assert any(any("the deal differs from the seed's" in p for p in problems) for problems in as_new)
