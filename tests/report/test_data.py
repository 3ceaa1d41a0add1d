"""The report's data of a match (no browser): the cards after each discard round come from
re-playing the log, a hand a forfeit stopped is shown as stopped, and a broken log is
shown as far as it goes, with what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mus_core import MUS, Observation, Rules

from arena.driver.match import MatchConfig, play_match
from arena.players.local import RandomPlayer
from arena.records.handlog import HandLogWriter, read_log
from arena.referee.player import BotFault, Decision, DecisionTiming, FaultKind, SyncAdapter
from arena.report import report_log
from arena.report.data import match_data


class Eager(RandomPlayer):
    """Asks for mus in a hand's first round (so hands have a discard round), else plays at random."""

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        if MUS in view.legal_actions and view.discard_round == 0:
            return Decision(MUS)
        return super().decide(view, request_id, timing)


class Walkaway(RandomPlayer):
    """Plays at random for its first decisions, then never answers."""

    def __init__(self, answers: int) -> None:
        super().__init__(0)
        self.answers = answers

    def decide(self, view: Observation, request_id: int, timing: DecisionTiming) -> Decision:
        self.answers -= 1
        if self.answers < 0:
            raise BotFault(FaultKind.TIMEOUT, "no answer")
        return super().decide(view, request_id, timing)


def logged(path: Path, players: list[Any], seed: int = 8, max_faults: int = 5) -> list[dict[str, Any]]:
    config = MatchConfig(rules=Rules(target_points=20, games_to_win=2), seed=seed, match_id=path.stem,
                         max_faults=max_faults)
    header = {"match_id": path.stem, "seed": seed, "rules": config.rules.to_mapping(), "first_dealer": None,
              "seats": [{"seat": s, "entry": "x", "bot": "random"} for s in range(4)]}
    with HandLogWriter(path, header) as log:
        result = play_match([SyncAdapter(p) for p in players], config, on_hand=log.hand, poll_us=0)
        log.close({"result": result.to_json()})
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_cards_after_the_discards_are_those_shown_at_the_count(tmp_path: Path) -> None:
    logged(tmp_path / "m.jsonl", [Eager(s) for s in range(4)])
    data = match_data(read_log(tmp_path / "m.jsonl"))
    discards = 0
    for hand in data["hands"]:
        assert hand["error"] is None and hand["finished"]
        held = hand["dealt"]
        for step in hand["steps"]:
            held = step.get("hands", held)
            discards += "hands" in step
        assert [sorted(h) for h in held] == [sorted(h.split()) for h in hand["result"]["hands"]]
        assert len(hand["count"]) == 4  # a line per lance
    assert discards, "no discard round in the match: change the seed"


def test_a_stopped_hand_and_a_broken_log(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    lines = logged(path, [Walkaway(3), *(RandomPlayer(s) for s in range(1, 4))], max_faults=2)
    assert lines[-1]["result"]["reason"] == "forfeit"
    # A corrupt line, and a step the rules refuse in the first hand.
    first = next(r for r in lines if r["type"] == "hand")
    first["steps"][1]["action"] = "envido 99999" if first["steps"][1]["action"] != "envido 99999" else "paso"
    second = [r for r in lines if r["type"] == "hand"][1]
    assert second.get("finished"), "the second hand is the stopped one: change the seed"
    second["steps"].append(dict(second["steps"][-1]))  # a step after the hand's end
    text = [json.dumps(r) for r in lines]
    text.insert(1, "{not json")
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    log = read_log(path)
    data = match_data(log)
    hands = data["hands"]
    assert hands[0]["error"].startswith("step 1: S")
    assert "p" not in hands[0]["steps"][2]  # after the break: the logged step, without the state it led to
    assert [s["a"] for s in hands[0]["steps"]] == [s["action"] for s in first["steps"]]
    assert hands[1]["error"] == f"step {len(second['steps']) - 2}: the hand is over, but 1 more step(s) are logged"
    assert len(hands[1]["steps"]) == len(second["steps"]) and hands[1]["count"]
    last = hands[-1]
    assert not last["finished"] and last["stopped"]["reason"] == "forfeit" and last["result"] is None
    assert data["errors"] == ["line 2: not valid JSON (Expecting property name enclosed in double quotes at column 2)"]
    report = report_log(path)
    assert report.matches == 1 and report.index.exists()
    script = (report.index.parent / "matches" / "m0.js").read_text(encoding="utf-8")
    assert script.startswith("MusReport.matchLoaded({") and script.endswith("});\n")


def test_a_league_report_marks_a_match_whose_result_was_not_saved(tmp_path: Path) -> None:
    """An organiser's trial: ``mus report`` on a league interrupted at the moment a match
    had written its hand log's footer but not yet its line in results.jsonl listed that
    match as won, while the standings (from the results) did not count it. Now it is
    listed as not saved (the resume plays it again)."""
    from arena.report import report_folder

    folder = tmp_path / "league"
    (folder / "logs").mkdir(parents=True)
    for mid in ("a--b--000", "a--b--001"):
        logged(folder / "logs" / f"{mid}.jsonl", [RandomPlayer(s) for s in range(4)])
    (folder / "league.json").write_text(json.dumps({"name": "cut", "entries": [{"name": "a"}, {"name": "b"}],
                                                    "rules": {"target_points": 20}}), encoding="utf-8")
    saved = {"match_id": "a--b--000", "team0": "a", "team1": "b", "winner_team": 0, "log": "a--b--000.jsonl",
             "games_won": [2, 0], "stones": [40, 10], "hands": 5, "faults": []}
    (folder / "results.jsonl").write_text(json.dumps(saved) + "\n", encoding="utf-8")
    report = report_folder(folder)
    page = report.index.read_text(encoding="utf-8")
    data = json.loads(page.split('id="report-data">', 1)[1].split("</script>", 1)[0])
    by_id = {m["id"]: m for m in data["matches"]}
    assert by_id["a--b--001"]["reason"] == "not saved: played again on --resume"
    assert by_id["a--b--001"]["winner"] is None
    assert by_id["a--b--000"]["reason"] == "completed" and by_id["a--b--000"]["winner"] is not None


def test_the_text_replay_shows_a_seats_cards_after_the_replacements(tmp_path: Path) -> None:
    """``mus replay LOG --seat S`` shows the seat's new cards once a discard round is
    served, and ``mus replay LOG`` every seat's (issue 29: only the dealt cards were
    shown); they are the cards the seat ends the hand with when no other round follows."""
    from arena.tools.replay import format_hand, replay

    logged(tmp_path / "m.jsonl", [Eager(s) for s in range(4)])
    shown: list[str] = []
    checked = 0
    for hand in replay(read_log(tmp_path / "m.jsonl")):
        format_hand(hand, seat=1, echo=shown.append)
        served = [st.hands_after for st in hand.steps if st.hands_after is not None]
        if served and hand.result is not None:
            last = served[-1]
            assert sorted(last[1].split()) == sorted(hand.logged_result["hands"][1].split())
            assert f"S1 (T1) now holds: {last[1]}" in [line.strip() for line in shown]
            assert not any(line.strip().startswith("S0 (T0) now holds") for line in shown)
            checked += 1
    assert checked, "no discard round in the match: change the seed"
