"""What ``mus league`` shows while it runs (issue 15 item 7): the total before the first
match, a line per finished match with faults and start failures highlighted, leaders, an
ETA counted from this run's matches only (after --resume too), plain lines when stdout
is not a terminal, and the line printed on Ctrl-C."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest
from mus_core import MatchEndReason
from rich.console import Console

from arena.cli.progress import LeagueProgress, _EtaColumn, match_line, resume_command
from arena.driver.match import MatchResult
from arena.referee.player import FaultKind, FaultRecord, SeatStats
from arena.runner.match import MatchOutcome, Seating


def outcome(mid: str, team0: str, team1: str, winner: int | None, *, faults: list[FaultRecord] | None = None,
            start_failed: tuple[int, ...] = (), reason: str = "completed") -> MatchOutcome:
    seats = [SeatStats() for _ in range(4)]
    for f in faults or []:
        seats[f.seat].faults.append(f)
    error = "\n".join(f"S{s}: bot {team1} exited with code 3 before announcing its address; its stderr (x.log):\n"
                      "  boom" for s in start_failed)
    result = MatchResult(mid, 1, winner, (1, 0) if winner == 0 else (0, 1), MatchEndReason(reason), 0 if start_failed else 7,
                         (30, 12), seats, detail=error)
    return MatchOutcome(mid, Seating((team0, team1, team0, team1)), result, Path(f"{mid}.jsonl"), error, start_failed)


def saved(team0: str, team1: str, winner: int) -> dict[str, Any]:
    return {"team0": team0, "team1": team1, "winner_team": winner}


def terminal() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=160, color_system="truecolor")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(time, "monotonic", c)  # the progress module reads time.monotonic at each call
    return c


def eta(shown: LeagueProgress) -> str:
    return _EtaColumn().render(shown.bar.tasks[0]).plain


def test_the_total_is_known_before_the_first_match(clock: Clock) -> None:
    shown = LeagueProgress("l", terminal())
    assert not shown.bar.tasks[0].visible  # no "0/?" while the schedule is read
    shown.on_start(12, [])
    task = shown.bar.tasks[0]
    assert (task.total, task.completed, task.visible) == (12, 0, True)
    assert eta(shown) == "ETA –"


def test_eta_after_resume_counts_only_this_runs_matches(clock: Clock) -> None:
    """8 of 10 matches were saved before; this run plays one in 30 s: 30 s left for
    the last one (rich's own column, fed with the resumed matches, said 3 s)."""
    shown = LeagueProgress("l", terminal())
    shown.on_start(10, [saved("a", "b", 0)] * 8)
    assert shown.bar.tasks[0].completed == 8
    clock.now += 30
    shown.on_match(outcome("m9", "a", "b", 0), 9, 10)
    assert eta(shown) == "ETA 0:00:30"
    clock.now += 10  # counts down between matches
    assert eta(shown) == "ETA 0:00:20"
    clock.now += 10
    shown.on_match(outcome("m10", "b", "a", 1), 10, 10)
    assert eta(shown) == "ETA 0:00:00"


def test_leaders_by_wins_minus_losses(clock: Clock) -> None:
    shown = LeagueProgress("l", terminal())
    shown.on_start(6, [saved("a", "b", 0)])
    assert shown.bar.tasks[0].fields["leaders"] == "leader: a 1-0"
    shown.on_match(outcome("m2", "c", "b", 0), 2, 6)
    assert shown.bar.tasks[0].fields["leaders"] == "leaders: a 1-0, c 1-0"


def test_a_line_per_match_with_faults_in_yellow_and_start_failures_in_red() -> None:
    fault = FaultRecord(seat=1, kind=FaultKind.TIMEOUT, detail="late", game=0, hand=3, request_id=9)
    line = match_line(outcome("m1", "rulebot", "slow", 0, faults=[fault, fault]), 3, 12)
    assert line.plain == " 3/12 rulebot vs slow: rulebot wins 1-0 (completed, 7 hands); faults slow: 2 timeout"
    assert [str(s.style) for s in line.spans if "faults" in line.plain[s.start:s.end]] == ["yellow"]
    line = match_line(outcome("m2", "random", "broken", 0, start_failed=(1, 3), reason="forfeit"), 12, 12)
    assert line.plain == ("12/12 random vs broken: random wins (forfeit, 0 hands); broken did not start: "
                          "bot broken exited with code 3 before announcing its address")
    assert [str(s.style) for s in line.spans if "did not start" in line.plain[s.start:s.end]] == ["bold red"]


def test_on_a_terminal_lines_print_above_the_bar() -> None:
    console = terminal()
    shown = LeagueProgress("l", console)
    with shown.shown():
        shown.on_start(2, [])
        shown.on_match(outcome("m1", "a", "b", 0), 1, 2)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "1/2 a vs b: \x1b[1ma wins\x1b[0m 1-0 (completed, 7 hands)\n" in text  # the winner in bold
    assert "league l" in text and "leader: a 1-0" in text  # the bar, redrawn below the line


def test_not_a_terminal_plain_lines_and_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    console = Console(file=io.StringIO(), force_terminal=False, width=80)
    shown = LeagueProgress("l", console)
    assert not shown.bar_shown
    long_name = "x" * 70  # wider than the console: one line all the same
    with shown.shown():
        shown.on_start(2, [saved("a", "b", 0)])
        shown.on_match(outcome("m2", long_name, "b", 1), 2, 2)
    out = capsys.readouterr().out.splitlines()
    assert out == ["resuming: 1 of 2 matches already played",
                   f"2/2 {long_name} vs b: b wins 0-1 (completed, 7 hands)"]
    assert console.file.getvalue() == ""  # type: ignore[attr-defined]


def test_no_progress_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    shown = LeagueProgress("l", Console(file=io.StringIO(), force_terminal=False), enabled=False)
    shown.on_start(2, [])
    shown.on_match(outcome("m1", "a", "b", 0), 1, 2)
    assert capsys.readouterr().out == ""


def test_the_interrupted_line() -> None:
    shown = LeagueProgress("l", Console(file=io.StringIO(), force_terminal=False), enabled=False)
    shown.on_start(60, [saved("a", "b", 0)] * 4)
    shown.on_match(outcome("m5", "a", "b", 0), 5, 60)
    command = resume_command(Path("my league.toml"), Path("out/l"), "strict")
    assert command == "mus league 'my league.toml' --out out/l --resume --sandbox strict"
    line = shown.interrupted_line(Path("out/l"), command)
    assert line.startswith("interrupted: 5 of 60 matches finished and saved in out/l (1 in this run;")
    assert line.endswith(f"continue with: {command}")
