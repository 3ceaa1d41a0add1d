"""A refused resume says what the user did and what to do, in the user's terms (issue 29:
it blamed "the league file" for a --seed given on resume, and named the internal field
``seed_given``). Checked on the output folder alone: no match is played."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from arena.league.config import load_league
from arena.league.folder import prepare_output
from arena.league.runner import LeagueError

REPO = Path(__file__).resolve().parents[2]


def refusal(tmp_path: Path, seed: int | None, change: dict[str, object]) -> str:
    path = tmp_path / "league.toml"
    path.write_text(f"""
name = "r"
matches_per_pairing = 2
[[entry]]
name = "a"
bot = "{REPO / 'bots' / 'random'}"
[[entry]]
name = "b"
bot = "{REPO / 'bots' / 'random'}"
""", encoding="utf-8")
    config = replace(load_league(path), seed=seed)
    out = tmp_path / "out"
    out.mkdir()
    prepare_output(out, config, resume=False)
    with pytest.raises(LeagueError) as caught:
        prepare_output(out, replace(config, **change), resume=True)  # type: ignore[arg-type]
    return str(caught.value)


def test_a_seed_on_resume_is_named_as_such(tmp_path: Path) -> None:
    text = refusal(tmp_path, None, {"seed": 5})
    assert "started with a secret seed drawn at random; this resume gives seed 0x5" in text, text
    assert "leave --seed out" in text and "seed_given" not in text and "league file changed" not in text


def test_another_seed_on_resume_names_both(tmp_path: Path) -> None:
    text = refusal(tmp_path, 3, {"seed": 4})
    assert "started with seed 0x3; this resume gives seed 0x4" in text, text


def test_a_changed_league_file_names_what_changed_and_what_to_do(tmp_path: Path) -> None:
    text = refusal(tmp_path, 3, {"matches_per_pairing": 4})
    assert "matches_per_pairing in the league file differs from when the league started" in text, text
    assert "league.json keeps what it started with" in text and "another folder" in text
