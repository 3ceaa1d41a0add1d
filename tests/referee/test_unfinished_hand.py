"""The hand a forfeit stops is logged, marked unfinished (issue 15 item 3).

Before, a match that ended by faults in the middle of hand N left hand N out of the log
while the footer listed its faults: ``mus replay --hand N`` said there was no hand N.
Now every hand in which a decision was asked is logged; the one a forfeit stopped has
``"finished": false``, its deal, the steps played (faults included) and ``stopped``
(why and where), and ``mus replay`` shows it and ``--verify`` checks it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from mus_core import Rules
from typer.testing import CliRunner

from arena.cli.main import app
from arena.driver.match import MatchConfig
from arena.records.handlog import SCHEMA_VERSION, read_log
from arena.remote.manifest import load_manifest
from arena.runner.match import Seating, run_match
from arena.tools.replay import replay, verify

TESTBOT = Path(__file__).resolve().parents[1] / "remote" / "bots" / "testbot"


def _forfeited_log(tmp_path: Path, crash_at: int) -> Path:
    """A match of four real testbot processes in which S1 crashes at its decision
    ``crash_at``: every later decision of S1 is a fault, and the second forfeits."""
    base = load_manifest(TESTBOT)
    specs = [
        dataclasses.replace(base, env={**base.env, "MUS_BOT_SEED": str(s),
                                       "MUS_TEST_MODE": "crash_mid" if s == 1 else "none",
                                       "MUS_TEST_AT": str(crash_at)})
        for s in range(4)
    ]
    config = MatchConfig(rules=Rules(games_to_win=2), seed=21, match_id="forfeit", decision_ms=3000, max_faults=2)
    outcome = run_match(specs, Seating(("a", "b", "a", "b")), config, tmp_path)
    assert outcome.result.reason.value == "forfeit" and outcome.result.winner_team == 0
    return outcome.log_path


def test_the_stopped_hand_is_logged_replayed_and_verified(tmp_path: Path) -> None:
    path = _forfeited_log(tmp_path, crash_at=10)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    header, hands, footer = records[0], records[1:-1], records[-1]
    assert header["schema"] == SCHEMA_VERSION == 2
    faults = footer["result"]["faults"]
    fault_hand = faults[-1]["hand"]
    assert fault_hand > 0, "the crash should come after the first hand"
    last = hands[-1]
    # The hand the faults were in is in the log, and it is the stopped one.
    assert last["hand"] == fault_hand and last["finished"] is False and "result" not in last
    assert all(h["finished"] is True for h in hands[:-1])
    assert last["stopped"]["reason"] == "forfeit" and "S1" in last["stopped"]["detail"]
    assert [s["fault"]["kind"] for s in last["steps"] if "fault" in s][-1] == "crash"
    assert len(last["deal"]["hands"]) == 4
    # The footer counts finished hands; its games say the game in play is unfinished.
    assert footer["result"]["hands"] == len(hands) - 1
    games = footer["result"]["games"]
    assert games[-1]["game"] == last["game"] and games[-1]["winner"] is None and games[-1]["ended_by"] is None

    log = read_log(path)
    assert verify(log) == []
    replayed = list(replay(log))
    assert [h.number for h in replayed] == [h["hand"] for h in hands]
    assert not replayed[-1].finished and replayed[-1].mismatches == []

    runner = CliRunner()
    shown = runner.invoke(app, ["replay", str(path), "--hand", str(fault_hand)])
    assert shown.exit_code == 0, shown.output
    assert f"hand {fault_hand}" in shown.output and "UNFINISHED" in shown.output and "FAULT crash" in shown.output
    checked = runner.invoke(app, ["replay", str(path), "--verify"])
    assert checked.exit_code == 0, checked.output
    assert f"hand {fault_hand} unfinished" in checked.output


def test_verify_catches_a_tampered_unfinished_hand(tmp_path: Path) -> None:
    """``--verify`` re-plays the stopped hand: a step removed from it, or the record
    dropped (the old logs' gap), is reported."""
    path = _forfeited_log(tmp_path, crash_at=10)
    lines = path.read_text().splitlines()
    last: dict[str, Any] = json.loads(lines[-2])
    assert last["finished"] is False
    changed = dict(last, stopped=dict(last["stopped"], to_act=(last["stopped"]["to_act"] + 1) % 4))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:-2], json.dumps(changed), lines[-1]]) + "\n")
    assert any("where it stopped differs in to_act" in p for p in verify(read_log(bad)))
    gone = tmp_path / "gone.jsonl"
    gone.write_text("\n".join([*lines[:-2], lines[-1]]) + "\n")
    assert any("which the log does not hold" in p for p in verify(read_log(gone)))
