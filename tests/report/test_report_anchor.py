"""A league anchored to an entry (``[standings] anchor``, issue 29) in the report while it
runs (no standings.json yet: the report computes them from results.jsonl): on the
league's anchored scale, as its standings.json will be, not centred on 1500."""

from __future__ import annotations

from pathlib import Path

from arena.league.config import load_league
from arena.league.runner import run_league
from arena.report.data import league_data

REPO = Path(__file__).resolve().parents[2]


def test_the_provisional_standings_are_anchored_as_the_leagues(tmp_path: Path) -> None:
    (tmp_path / "l.toml").write_text(f"""
seed = 5
matches_per_pairing = 2
jobs = 1
[rules]
players = 2
target_points = 10
games_to_win = 1
[standings]
anchor = "t"
anchor_rating = 1000
[[entry]]
name = "t"
bot = "{REPO / 'bench' / 'bots' / 'trivial'}"
[[entry]]
name = "r"
bot = "{REPO / 'bots' / 'random'}"
""")
    out = tmp_path / "out"
    run_league(load_league(tmp_path / "l.toml"), out)
    final = {e["name"]: e["rating"] for e in league_data(out)["standings"]}  # type: ignore[index]
    (out / "standings.json").unlink()  # as while the league runs
    data = league_data(out)
    assert data is not None and not data["final"]
    provisional = {e["name"]: e["rating"] for e in data["standings"]}
    assert provisional["t"] == 1000.0 == final["t"]
    assert provisional == final
