"""A league stops starting an entry whose bot did not start in three matches in a row
(issue 29, item 4: a bot that hangs at start cost 10 s in every one of its matches, and
each failure was printed twice): its other matches are not tried, count as start
failures in the standings, are said once, and ``--resume`` plays them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.league.config import load_league
from arena.league.runner import run_league

REPO = Path(__file__).resolve().parents[2]


def league(path: Path) -> Path:
    path.write_text(f"""
name = "breaker"
seed = 3
matches_per_pairing = 5
jobs = 1
[rules]
target_points = 10
games_to_win = 1
[[entry]]
name = "a"
bot = "{REPO / 'bots' / 'random'}"
[[entry]]
name = "b"
bot = "{REPO / 'tests' / 'cli' / 'bots' / 'broken'}"
""", encoding="utf-8")
    return path


def mus(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)


def test_an_entry_that_keeps_failing_to_start_is_given_up_and_resume_tries_it_again(tmp_path: Path) -> None:
    config, out = league(tmp_path / "league.toml"), tmp_path / "out"
    run = mus("league", config, "--out", out)
    assert run.returncode == 1, run.stderr
    # The header says what process reuse means for reproducibility (issue 29, item 1).
    assert "processes kept across matches: results reproduce for bots that play a match the same" in run.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    # b's 5 matches: three tried (and failed) and saved, the two others neither.
    assert len(records) == 3 and all(r["start_failed"] for r in records)
    standings = {e["name"]: e for e in json.loads((out / "standings.json").read_text())["standings"]}
    assert standings["b"]["start_failures"] == 5 and standings["b"]["losses"] == 5
    # Said once while it runs, and at the end with what to do; each failure printed once.
    assert run.stderr.count("did not start in 3 matches in a row") == 2, run.stderr
    assert "its 2 other matches were not tried" in run.stderr and "--resume" in run.stderr
    assert run.stdout.count("b did not start") == 3 and "bot.start_failed" not in run.stderr
    # A resume is a fresh run: it tries b again, and plays the two matches left.
    resumed = run_league(load_league(config), out, resume=True)
    assert resumed.played_now == 2 and not resumed.not_tried
    assert len((out / "results.jsonl").read_text().splitlines()) == 5


def test_the_report_shows_the_entry_that_never_started(tmp_path: Path) -> None:
    """The HTML report has the console's "no start" column and a line saying who did not
    start (issue 29, item 3: it showed a plain loser with 0 faults)."""
    config, out = league(tmp_path / "league.toml"), tmp_path / "out"
    run_league(load_league(config), out)
    written = CliRunner().invoke(app, ["report", str(out), "--no-open"])
    assert written.exit_code == 0, written.output
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    table = page[page.index('id="standings"'):page.index("</table>", page.index('id="standings"'))]
    assert "<th>no start</th>" in table
    row_b = table[table.index('entry-link">b<'):]
    row_b = row_b[:row_b.index("</tr>")]
    assert '<td class="num bad">5</td>' in row_b, row_b
    assert "b: never started, in 5 of 5 matches" in " ".join(page.split())
    # Two of b's matches were not tried (nor saved): the standings are not the league's last.
    assert "The league has not finished" in page
