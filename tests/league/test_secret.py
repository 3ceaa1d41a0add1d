"""The one writer of secret files (arena/league/secret.py): mus match's, a league's and a
ladder's seed, private from the first byte, never overwritten."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from arena.league.results_file import LeagueError
from arena.league.secret import SECRET_FILE, LeagueSecret, read_secret, write_secret


def test_a_secret_is_private_never_overwritten_and_read_back(tmp_path: Path) -> None:
    secret = LeagueSecret.draw(None)
    write_secret(tmp_path / SECRET_FILE, secret.to_json())
    assert stat.S_IMODE((tmp_path / SECRET_FILE).stat().st_mode) == 0o600
    assert read_secret(tmp_path) == secret and not secret.given
    with pytest.raises(FileExistsError):
        write_secret(tmp_path / SECRET_FILE, {"seed": "0x1"})
    assert read_secret(tmp_path) == secret  # the first one is kept
    assert LeagueSecret.draw(7).seed == 7 and LeagueSecret.draw(7).given


def test_a_match_secret_is_written_by_the_same_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.secret.json"
    write_secret(path, {"seed": hex(5), "seed_given": True})
    assert json.loads(path.read_text(encoding="utf-8")) == {"seed": "0x5", "seed_given": True}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_malformed_secret_is_one_clear_error(tmp_path: Path) -> None:
    write_secret(tmp_path / SECRET_FILE, {"seed": "0x5", "seed_given": "yes", "results_key": "00" * 32})
    with pytest.raises(LeagueError, match="malformed"):
        read_secret(tmp_path)
