"""Helpers of the ladder tests: the bots, the settings and ``mus`` in this process.

A module of its own name (not ``conftest``): a test that imported ``conftest`` got
whichever folder's conftest a test worker had imported first.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from arena.cli.main import app
from tests.league.test_procs import workers_of as referee_workers  # noqa: F401  (the one scan of /proc)

REPO = Path(__file__).resolve().parents[2]
TRIVIAL = REPO / "bench" / "bots" / "trivial"
RANDOM = REPO / "bots" / "random"
RULEBOT = REPO / "bots" / "rulebot"

SETTINGS = """\
seed = 17
duplicate = true
jobs = 2

[rules]
players = 2
target_points = 20
games_to_win = 1

[time]
decision_ms = 2000
time_bank_ms = 60000
max_faults = 5

[sandbox]
mode = "default"
"""
"""Small games at a table of two (two bot processes a match, not four); the default
sandbox (a strict bot costs a second more to start: the strict default is tested on
its own)."""


def mus(*args: str | Path) -> Result:
    """``mus ARGS`` in this process."""
    return CliRunner().invoke(app, [str(a) for a in args])


def ok(*args: str | Path) -> str:
    result = mus(*args)
    assert result.exit_code == 0, f"mus {' '.join(map(str, args))}: exit {result.exit_code}\n{result.output}"
    return result.output


def make_ladder(root: Path, settings: str = SETTINGS) -> Path:
    """A ladder with trivial, random and rulebot, nothing played."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "settings.toml").write_text(settings)
    ladder = root / "ladder"
    ok("ladder", "create", ladder, "--settings", root / "settings.toml")
    for name, bot in (("trivial", TRIVIAL), ("random", RANDOM), ("rulebot", RULEBOT)):
        ok("ladder", "add", ladder, name, bot)
    return ladder


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
