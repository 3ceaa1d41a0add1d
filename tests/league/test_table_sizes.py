"""Leagues at 2- and 6-player tables (issue 15 item 13), with real bot processes.

Before, ``players = 2`` or ``6`` in ``[rules]`` was accepted and every match then failed
("2 players needed, got 4"), the league exiting 0 with logs holding a header and no
hand. Now the entries fill the table's seats (docs/league.md, "Tables of 2 and 6"):
one seat each with 2 players; three each with 6, a ``pair`` as ``a, b, a``. A pair at
a 2-player table is refused before anything runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app

REPO = Path(__file__).resolve().parents[2]
MUS = [sys.executable, "-m", "arena"]


def mus(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MUS, *(str(a) for a in args)], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, check=False)


def league_file(tmp: Path, rules: str, entries: str, duplicate: bool = True) -> Path:
    path = tmp / "league.toml"
    path.write_text(f"""
name = "tables"
seed = 5
matches_per_pairing = 2
duplicate = {str(duplicate).lower()}
jobs = 1

[rules]
{rules}

[time]
decision_ms = 5000

{entries}
""", encoding="utf-8")
    return path


ENTRIES = f"""
[[entry]]
name = "rb"
bot = "{REPO / 'bots' / 'rulebot'}"

[[entry]]
name = "rnd"
bot = "{REPO / 'bots' / 'random'}"
"""
PAIR = """
[[entry]]
name = "mix"
pair = ["rb", "rnd"]
"""


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def play(tmp: Path, rules: str, entries: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp / "out"
    r = mus("league", league_file(tmp, rules, entries), "--out", out, "--no-progress")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return out, r


def check_league(out: Path, players: int) -> list[dict[str, Any]]:
    """Every match completed with hands of ``players`` seats; every log verifies."""
    results = jsonl(out / "results.jsonl")
    assert results and all(r["reason"] == "completed" and not r["faults"] for r in results), results
    for r in results:
        assert len(r["seating"]) == players and r["hands"] > 0 and r["games"]
        log = out / "logs" / r["log"]
        records = jsonl(log)
        hands = [h for h in records if h["type"] == "hand"]
        assert len(records[0]["seats"]) == players and len(hands) == r["hands"]
        assert all(len(h["deal"]["hands"]) == players for h in hands)
        # In this process (the command's own code, without an interpreter's start per log).
        v = CliRunner().invoke(app, ["replay", str(log), "--verify"])
        assert v.exit_code == 0, v.output
    return results


def twin_even_seat_cards(out: Path, results: list[dict[str, Any]]) -> int:
    """Duplicate twins (matches 000 and 001 of a pairing): in every hand both logged,
    the even seats were dealt the same cards. Returns how many hands were compared."""
    compared = 0
    by_id = {r["match_id"]: r for r in results}
    for mid in by_id:
        if not mid.endswith("--000"):
            continue
        twin = by_id[mid[:-3] + "001"]
        a = {h["hand"]: h["deal"]["hands"] for h in jsonl(out / "logs" / by_id[mid]["log"]) if h["type"] == "hand"}
        b = {h["hand"]: h["deal"]["hands"] for h in jsonl(out / "logs" / twin["log"]) if h["type"] == "hand"}
        for k in set(a) & set(b):
            cards = [sorted(" ".join(d[0::2]).split()) for d in (a[k], b[k])]
            assert cards[0] == cards[1], f"{mid} hand {k}"
            compared += 1
    return compared


def test_two_player_league_with_mus_corrido_duplicate(tmp_path: Path) -> None:
    """1 v 1: each entry one seat; under mus_corrido (the cutter becomes mano), the twins
    still deal each seat the same cards, and the league warns what duplicate cannot
    promise there."""
    out, run = play(tmp_path, 'players = 2\ntarget_points = 15\ngames_to_win = 2\nmus_corrido = "first_hand_of_each_game"',
                    ENTRIES)
    results = check_league(out, 2)
    assert {tuple(r["seating"]) for r in results} == {("rb", "rnd"), ("rnd", "rb")}
    assert twin_even_seat_cards(out, results) >= 2
    assert "duplicate_caveat" in run.stderr + run.stdout


def test_six_player_league_with_a_pair(tmp_path: Path) -> None:
    """3 v 3: each entry three seats; the pair [rb, rnd] sits as rb, rnd, rb."""
    out, _ = play(tmp_path, "players = 6\ntarget_points = 15\ngames_to_win = 1", ENTRIES + PAIR)
    results = check_league(out, 6)
    assert len(results) == 6
    for r in results:
        header = jsonl(out / "logs" / r["log"])[0]
        for side in (0, 1):
            seats = [s for s in header["seats"] if s["seat"] % 2 == side]
            entry = r[f"team{side}"]
            assert {s["entry"] for s in seats} == {entry}
            bots = [s["bot"] for s in seats]
            expected = {"rb": ["rulebot"] * 3, "rnd": ["random"] * 3, "mix": ["rulebot", "random", "rulebot"]}[entry]
            assert bots == expected, (r["match_id"], side, bots)
    assert twin_even_seat_cards(out, results) >= 3


def test_a_pair_at_a_two_player_table_is_refused_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = mus("league", league_file(tmp_path, "players = 2", ENTRIES + PAIR), "--out", out, "--no-progress")
    assert r.returncode == 2
    assert "entry[2].pair" in r.stderr and "2-player table" in r.stderr
    assert not out.exists()
