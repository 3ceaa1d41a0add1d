"""A league that keeps bot processes across matches stays reproducible: the same seed and
the same deterministic bots give the same hand logs (timing fields aside), whichever job
played which match and whichever matches a process played before (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.handlog import untimed
from arena.league.config import load_league
from arena.league.runner import run_league

REPO = Path(__file__).resolve().parents[2]


def league(tmp: Path) -> Path:
    path = tmp / "league.toml"
    path.write_text(f"""
name = "reuse"
seed = 9
matches_per_pairing = 6
[rules]
target_points = 15
games_to_win = 1
[[entry]]
name = "a"
bot = "{REPO / "bots" / "random"}"
[[entry]]
name = "b"
bot = "{REPO / "bots" / "random"}"
""", encoding="utf-8")
    return path


def logs(out: Path) -> dict[str, list[object]]:
    return {p.name: [untimed(json.loads(line)) for line in p.read_text(encoding="utf-8").splitlines()]
            for p in sorted((out / "logs").glob("*.jsonl"))}


def test_the_same_seed_gives_the_same_hand_logs_with_reused_processes(tmp_path: Path) -> None:
    """Six matches between two entries of the random bot, with one job and with two:
    processes are reused (the headers say so), each played other matches before in each
    run, and the hand logs are identical, because the random bot seeds itself at each
    match start (bots/random)."""
    config = load_league(league(tmp_path))
    first = run_league(config, tmp_path / "one", jobs=1)
    second = run_league(config, tmp_path / "two", jobs=2)
    assert first.played_now == second.played_now == 6
    reused = [seat for log in logs(tmp_path / "one").values() for seat in log[0]["seats"]  # type: ignore[index]
              if seat.get("process", {}).get("started") is False]
    assert reused, "no process was reused: the test shows nothing"
    one, two = logs(tmp_path / "one"), logs(tmp_path / "two")
    assert one.keys() == two.keys()
    for name in one:
        # The header's per-seat process record depends on which job played which match.
        for log in (one[name], two[name]):
            for seat in log[0]["seats"]:  # type: ignore[index]
                seat.pop("process", None)
        assert one[name] == two[name], name
