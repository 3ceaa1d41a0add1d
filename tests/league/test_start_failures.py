"""A league entry whose bot cannot start (issue 15 items 2 and 10): a counted fault in
the standings, one log event per failure, a summary at the end with the bot's exit code
and stderr, and exit 1 when an entry never started. Through the real ``mus`` command with
real bot processes: ``tests/cli/bots/broken`` exits with code 3 at start, after one line
on stderr.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.league.runner import start_failures
from arena.league.standings import compute_standings

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "cli" / "bots" / "broken"
RANDOM = REPO / "bots" / "random"
BROKEN_STDERR = "broken-bot: cannot load its model file weights.bin"


def league_file(tmp_path: Path, entries: dict[str, Path]) -> Path:
    """A two-match-per-pairing league of one-game matches to 10 between ``entries``."""
    text = ('name = "startfail"\nmatches_per_pairing = 2\nduplicate = true\njobs = 2\n\n'
            "[rules]\ntarget_points = 10\ngames_to_win = 1\n")
    for name, bot in entries.items():
        text += f'\n[[entry]]\nname = "{name}"\nbot = "{bot}"\n'
    path = tmp_path / "league.toml"
    path.write_text(text, encoding="utf-8")
    return path


def mus_league(config: Path, out: Path, *global_opts: str) -> subprocess.CompletedProcess[str]:
    """The real command, stdout and stderr pipes (not terminals)."""
    return subprocess.run([sys.executable, "-m", "arena", *global_opts, "league", str(config), "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300, check=False)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_an_entry_that_never_starts(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = mus_league(league_file(tmp_path, {"random": RANDOM, "broken": BROKEN}), out, "--log-format", "json", "-v")
    assert r.returncode == 1, f"{r.stdout}\n{r.stderr}"

    # The results say which seats did not start; the standings count it per entry.
    results = jsonl(out / "results.jsonl")
    assert len(results) == 2
    for rec in results:
        broken_side = [rec["team0"], rec["team1"]].index("broken")
        assert rec["start_failed"] == [broken_side, broken_side + 2]
        assert rec["reason"] == "forfeit" and rec["winner_team"] == 1 - broken_side
    rows = {row["name"]: row for row in json.loads((out / "standings.json").read_text())["standings"]}
    assert (rows["broken"]["start_failures"], rows["broken"]["matches"]) == (2, 2)
    assert rows["random"]["start_failures"] == 0
    csv_lines = (out / "standings.csv").read_text().splitlines()
    assert csv_lines[0].split(",")[-1] == "start_failures"

    # One structured event per failure (a match), not one per seat nor per retry.
    events = [json.loads(line) for line in r.stderr.splitlines() if line.startswith("{")]
    failed = [e for e in events if e["event"] == "bot.start_failed"]
    assert sorted(e["match_id"] for e in failed) == sorted(rec["match_id"] for rec in results)
    assert all(e["entry"] == "broken" and len(e["seats"]) == 2 for e in failed)

    # One plain line per match on stdout (not a terminal: no bar, no colour).
    match_lines = [line for line in r.stdout.splitlines() if re.match(r"^\d+/2 ", line)]
    assert len(match_lines) == 2, r.stdout
    assert all("broken did not start: bot broken exited with code 3" in line for line in match_lines)
    assert "\x1b[" not in r.stdout
    assert "no start" in r.stdout  # the standings table's column

    # The summary at the end: the entry, how often, the exit code, the stderr's lines, its log.
    summary = r.stderr[r.stderr.index("start failures:"):]
    assert "broken: never started in 2 of 2 matches" in summary
    assert "exited with code 3" in summary and BROKEN_STDERR in summary
    assert re.search(r"bots/random--broken--00\d\.s\d\.stderr\.log", summary)
    assert summary.count(BROKEN_STDERR) == 1, "the first error only"
    assert "error: broken never started" in r.stderr


def test_a_league_in_which_no_entry_starts(tmp_path: Path) -> None:
    """It used to say "played now: 2" and exit 0."""
    out = tmp_path / "out"
    r = mus_league(league_file(tmp_path, {"broken": BROKEN, "alsobroken": BROKEN}), out, "-v")
    assert r.returncode == 1, f"{r.stdout}\n{r.stderr}"
    assert all(rec["reason"] == "aborted" and rec["start_failed"] == [0, 1, 2, 3]
               for rec in jsonl(out / "results.jsonl"))
    assert "broken: never started in 2 of 2 matches" in r.stderr
    assert "alsobroken: never started in 2 of 2 matches" in r.stderr
    assert "error: broken, alsobroken never started" in r.stderr
    # The default log format: readable lines, one per failed entry and match (at info
    # level, -v: without it the match lines say it, once).
    events = [line for line in r.stderr.splitlines() if "bot.start_failed" in line]
    assert len(events) == 4 and not any(line.startswith("{") for line in events)


def record(match_id: str, team0: str, team1: str, failed: list[int] | None, error: str = "") -> dict[str, Any]:
    rec: dict[str, Any] = {"match_id": match_id, "team0": team0, "team1": team1, "winner_team": 0, "games_won": [0, 0],
                           "stones": [0, 0], "hands": 0, "faults": [], "start_error": error}
    if failed is not None:
        rec["start_failed"] = failed
    return rec


def test_start_failures_are_counted_per_entry_and_match() -> None:
    """An entry that failed in some matches only did start (no exit 1); a record written
    before ``start_failed`` existed is read from its ``start_error``; the first error is
    the first match's (results order), its first failed seat's."""
    results = [
        record("m1", "a", "b", [], ""),
        record("m2", "b", "a", [0, 2], "S0: bot b exited with code 1; its stderr (x.s0.stderr.log):\n  boom\n"
                                       "S2: bot b exited with code 1; its stderr (x.s2.stderr.log):\n  boom"),
        record("m3", "a", "c", None, "S1: bot c timed out\nS3: bot c timed out"),  # an older record
        record("m4", "c", "b", [0, 1], "S0: c first\nS1: b later"),
    ]
    found = {f.entry: f for f in start_failures(results)}
    assert sorted(found) == ["b", "c"]
    assert (found["b"].failed, found["b"].matches, found["b"].never_started) == (2, 3, False)
    assert found["b"].match_id == "m2"
    assert found["b"].error == "bot b exited with code 1; its stderr (x.s0.stderr.log):\n  boom"
    assert (found["c"].failed, found["c"].matches, found["c"].never_started) == (2, 2, True)
    assert found["c"].error == "bot c timed out"
    rows = {e.name: e for e in compute_standings(["a", "b", "c"], {}, results).entries}
    assert {n: e.start_failures for n, e in rows.items()} == {"a": 0, "b": 2, "c": 2}
