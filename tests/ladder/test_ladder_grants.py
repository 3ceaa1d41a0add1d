"""The ladder's settings, not a version's manifest, decide what its bot may have under
strict (issue 28): the same grants as a league file's (``[sandbox] allow_env``, ``[limits]``).
The ladder loads its versions' manifests itself, so it must apply them itself."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from ladder_helpers import TRIVIAL, mus, ok

from arena.ladder.folder import open_ladder
from arena.ladder.runner import Limits, _Loop
from arena.remote.manifest import BotManifest

STRICT = "duplicate = false\n\n[rules]\nplayers = 2\ntarget_points = 10\ngames_to_win = 1\n"


def greedy_bot(tmp_path: Path) -> Path:
    """The trivial bot whose manifest asks for HOME and for no memory limit at all."""
    bot = tmp_path / "greedy"
    shutil.copytree(TRIVIAL, bot)
    text = (bot / "bot.toml").read_text()
    (bot / "bot.toml").write_text('inherit_env = ["HOME"]\n' + text + "\n[limits]\nmemory_mb = 0\n")
    return bot


def test_an_ungranted_variable_is_refused_when_the_version_is_added(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(STRICT)  # no [sandbox]: strict, nothing granted
    ok("ladder", "create", tmp_path / "ladder", "--settings", tmp_path / "s.toml")
    result = mus("ladder", "add", tmp_path / "ladder", "greedy", greedy_bot(tmp_path))
    assert result.exit_code != 0
    assert "HOME is not granted" in result.output and "Traceback" not in result.output


def test_the_settings_grants_and_ceilings_are_what_the_bot_runs_with(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(STRICT + '\n[sandbox]\nmode = "strict"\nallow_env = ["HOME"]\n\n'
                                     "[limits]\nmemory_mb = 512\n")
    ladder_dir = tmp_path / "ladder"
    ok("ladder", "create", ladder_dir, "--settings", tmp_path / "s.toml")
    ok("ladder", "add", ladder_dir, "greedy", greedy_bot(tmp_path))
    ladder = open_ladder(ladder_dir)
    try:
        loop = _Loop(ladder, Limits(matches=1), 1, threading.Event(), None)
        loop.load_specs(ladder.store.active())
        spec = loop.specs["greedy.v1"]
        assert isinstance(spec, BotManifest)
        assert spec.inherit_env == ("HOME",)
        assert spec.limits.memory_mb == 512  # the manifest's 0 (none) is the settings' ceiling
    finally:
        ladder.close()
