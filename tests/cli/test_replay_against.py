"""``mus replay --against`` with real bot processes (issue 15, items 4 and 17): the logged
time control, illegal and late answers reported as such, the bot's stderr on failure.

The log is a match of four test bots playing at random with one seed each; a fresh test
bot with the same seed, re-asked seat 0's requests, answers exactly as seat 0 did (its
random stream sees the same calls): that is the control run with no difference.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mus_core import Rules
from typer.testing import CliRunner

from arena.cli.main import app
from arena.driver.match import MatchConfig
from arena.remote.manifest import load_manifest
from arena.runner.match import Seating, run_match

REPO = Path(__file__).resolve().parents[2]
TESTBOT = REPO / "tests" / "remote" / "bots" / "testbot"
DECISION_MS = 400
SUMMARY = re.compile(r"^(\d+) decisions of S0 re-sent; (\d+) answered differently, (\d+) illegal, (\d+) late, (\d+) other faults")


def invoke(*args: str | Path):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def manifest_of_testbot(folder: Path, **env: str) -> Path:
    """A manifest of the test bot with ``env`` in its ``[env]``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "testbot.toml"
    lines = "".join(f'{k} = "{v}"\n' for k, v in env.items())
    path.write_text(f'name = "testbot"\ncommand = ["python", "{TESTBOT / "bot.py"}"]\n[env]\n{lines}',
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def hand_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished match of four test bot processes, with a 400 ms deadline."""
    out = tmp_path_factory.mktemp("against")
    spec = load_manifest(manifest_of_testbot(out / "bot", MUS_TEST_MODE="none", MUS_BOT_SEED="3"))
    rules = Rules.from_mapping({"target_points": 15, "games_to_win": 1})
    outcome = run_match([spec] * 4, Seating(("a", "b", "a", "b")),
                        MatchConfig(rules=rules, seed=11, match_id="m", decision_ms=DECISION_MS, time_bank_ms=60_000), out)
    assert outcome.result.reason.value == "completed", outcome.result
    assert not outcome.result.faults
    return outcome.log_path


def summary(stdout: str) -> tuple[int, ...]:
    m = SUMMARY.search(stdout.splitlines()[-1])
    assert m, stdout
    return tuple(int(g) for g in m.groups())


def seat0_steps(log: Path) -> list[str]:
    """Seat 0's decisions in the log, as ``hand H step I``."""
    recs = [json.loads(line) for line in log.read_text().splitlines()]
    return [f"hand {r['hand']} step {i}" for r in recs if r["type"] == "hand" for i, s in enumerate(r["steps"]) if s["seat"] == 0]


def seat0_decisions(log: Path) -> int:
    return len(seat0_steps(log))


def test_the_same_build_answers_the_same(hand_log: Path, tmp_path: Path) -> None:
    r = invoke("replay", hand_log, "--seat", "0", "--against", manifest_of_testbot(tmp_path, MUS_TEST_MODE="none", MUS_BOT_SEED="3"))
    assert r.exit_code == 0, r.output
    assert f"time control from the log: {DECISION_MS} ms a decision" in r.stdout
    assert summary(r.stdout) == (seat0_decisions(hand_log), 0, 0, 0, 0)


def test_a_slow_build_is_late_with_the_logged_deadline(hand_log: Path, tmp_path: Path) -> None:
    """The build answers its 2nd decision after 1.5 s: within the old fixed 5 s, but late
    for the logged 400 ms deadline."""
    bot = manifest_of_testbot(tmp_path, MUS_TEST_MODE="late", MUS_TEST_AT="2", MUS_TEST_DELAY_MS="1500", MUS_BOT_SEED="3")
    r = invoke("replay", hand_log, "--seat", "0", "--against", bot)
    assert r.exit_code == 1, r.output
    asked, differently, illegal, late, faults = summary(r.stdout)
    # The decisions sent while the bot still slept are late too, as they would be in a match.
    assert (asked, differently, illegal, faults) == (seat0_decisions(hand_log), 0, 0, 0), r.stdout
    assert 1 <= late <= 4, r.stdout
    lates = re.findall(rf"^(hand \d+ step \d+): LATE: no answer within {DECISION_MS} ms; logged ", r.stdout, re.M)
    assert len(lates) == late and lates[0] == seat0_steps(hand_log)[1], r.stdout


def test_illegal_answers_are_reported_as_illegal(hand_log: Path, tmp_path: Path) -> None:
    r = invoke("replay", hand_log, "--seat", "0", "--against", manifest_of_testbot(tmp_path, MUS_TEST_MODE="illegal"))
    assert r.exit_code == 1, r.output
    asked, differently, illegal, late, faults = summary(r.stdout)
    assert (differently, illegal, late, faults) == (0, asked, 0, 0), r.stdout
    assert re.search(r"^hand 0 step \d+: ILLEGAL: \S+ is not legal \(legal: ", r.stdout, re.M), r.stdout


def test_a_crash_shows_the_exit_code_and_the_bots_stderr(hand_log: Path, tmp_path: Path) -> None:
    bot = manifest_of_testbot(tmp_path, MUS_TEST_MODE="crash_mid", MUS_TEST_AT="2", MUS_BOT_SEED="3")
    r = invoke("replay", hand_log, "--seat", "0", "--against", bot)
    assert r.exit_code == 1, r.output
    asked, _, _, _, faults = summary(r.stdout)
    assert (asked, faults) == (2, 1), r.stdout
    assert re.search(rf"^{seat0_steps(hand_log)[1]}: FAULT crash: ", r.stdout, re.M), r.stdout
    assert "the bot's stream broke (the process exited with code 7; " in r.stdout
    assert "| testbot: crashing at request" in r.stdout  # its stderr
    assert f"{seat0_decisions(hand_log) - 2} not asked (the stream broke)" in r.stdout


def test_a_log_that_does_not_follow_from_its_seed_is_said_so(hand_log: Path, tmp_path: Path) -> None:
    """Another seed in the header: the first deal is not the match's, so no view of it
    is sent; every decision of the seat is counted as not asked, and the run fails."""
    lines = hand_log.read_text().splitlines()
    header = json.loads(lines[0])
    header["seed"] += 1
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    r = invoke("replay", edited, "--seat", "0", "--against", manifest_of_testbot(tmp_path / "b", MUS_TEST_MODE="none"))
    assert r.exit_code == 1, r.output
    assert "from hand 0, the log does not follow from its seed (see mus replay --verify): " in r.stdout, r.stdout
    assert f"{seat0_decisions(hand_log)} not asked" in r.stdout and summary(r.stdout)[0] == 0


def test_decisions_the_referee_did_not_ask_are_not_asked_again(tmp_path: Path) -> None:
    """Seat 0 spends its 150 ms bank in a few decisions: the referee then played its
    timeouts without asking, and the replay does not ask them either; it asks the others
    with the deadlines the session computes from the logged times."""
    import time

    from mus_core.random_play import random_action

    from arena.players.local import RandomPlayer
    from arena.referee.player import Decision, SyncAdapter

    class Slow(RandomPlayer):
        def decide(self, view, request_id, timing):  # type: ignore[no-untyped-def]
            time.sleep(0.04)
            return Decision(random_action(self._rng, view.legal_actions))

    players = [SyncAdapter(p) for p in (Slow(seed=1, name="slow"), RandomPlayer(seed=2), RandomPlayer(seed=3), RandomPlayer(seed=4))]
    config = MatchConfig(rules=Rules(games_to_win=6), seed=5, match_id="banks", decision_ms=1000,
                         time_bank_ms=150, max_faults=0)
    (tmp_path / "out").mkdir()
    outcome = run_match([], Seating(("s", "r", "s", "r")), config, tmp_path / "out", players=players)
    steps = [s for r in (json.loads(x) for x in outcome.log_path.read_text().splitlines()) if r["type"] == "hand"
             for s in r["steps"] if s["seat"] == 0]
    spent = sum(1 for s in steps if s.get("fault", {}).get("detail") == "time bank exhausted")
    assert spent > 0
    r = invoke("replay", outcome.log_path, "--seat", "0", "--against", manifest_of_testbot(tmp_path / "b", MUS_TEST_MODE="none"))
    assert f"{spent} not asked (the seat's bank was empty in the log)" in r.stdout, r.stdout
    assert summary(r.stdout)[0] == len(steps) - spent
