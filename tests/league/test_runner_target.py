"""The runner completes a game won by órdago up to the league's own target, not the
rules' default (40): in a league to 20, a game won with 12 on the scoreboard counts 20."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from mus_core import MatchEndReason, Rules

from arena.driver.match import MatchResult
from arena.league import loop, runner
from arena.league.config import load_league
from arena.runner.match import MatchOutcome

SMALL = Path(__file__).resolve().parent / "data" / "small.toml"


def test_standings_complete_ordago_games_to_the_leagues_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_league(SMALL)
    config = dataclasses.replace(config, rules=dataclasses.replace(config.rules, target_points=20))
    assert Rules().target_points != 20

    def fake_run_match(specs, seating, mc, out_dir, **kwargs):  # type: ignore[no-untyped-def]
        result = MatchResult(mc.match_id, mc.seed, 0, (1, 0), MatchEndReason.COMPLETED, 3, (12, 15), seats=[])
        out = MatchOutcome(mc.match_id, seating, result, out_dir / f"{mc.match_id}.jsonl")
        record: dict[str, Any] = out.to_json()
        # A one-game match won by an accepted órdago: team 0 won with 12 of 20.
        record["games"] = [{"game": 0, "winner": 0, "scores": [12, 15], "ended_by": "ordago"}]
        monkeypatch.setattr(out, "to_json", lambda: record)
        return out

    monkeypatch.setattr(loop, "run_match", fake_run_match)
    run = runner.run_league(config, tmp_path / "out", jobs=1)
    rows = {r["name"]: r for r in json.loads((tmp_path / "out" / "standings.json").read_text())["standings"]}
    for name, row in rows.items():
        mine = [(r, side) for r in run.results for side in (0, 1) if r[f"team{side}"] == name]
        assert row["stones_for"] == sum(20 if side == 0 else 15 for _, side in mine), name
        assert row["raw_stones_for"] == sum(12 if side == 0 else 15 for _, side in mine), name
