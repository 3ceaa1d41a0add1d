"""The bots' private socket directories (arena/remote/sandbox.py): made by the arena,
named after it, removed by it — and by the next arena when a killed one could not."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arena.remote import sandbox
from arena.remote.manifest import BotManifest


def test_a_directory_is_named_after_its_arena_and_removed_with_its_bot(tmp_path: Path) -> None:
    jail = sandbox.confine("default", BotManifest("b", (sys.executable, "bot.py"), tmp_path), "m.s0")
    assert jail.socket_dir.name.startswith(f"{os.getpid()}-m.s0-") and jail.socket_dir.is_dir()
    assert oct(jail.socket_dir.stat().st_mode & 0o777) == oct(0o700)
    (jail.socket_dir / "link").symlink_to(tmp_path / "precious")  # a bot's link: removed, not followed
    (tmp_path / "precious").write_text("kept")
    jail.release()
    assert not jail.socket_dir.exists() and (tmp_path / "precious").read_text() == "kept"


def test_directories_of_arenas_that_are_gone_are_swept(tmp_path: Path) -> None:
    """An arena killed with SIGKILL leaves its bots' directories; the next one removes
    them, and nothing of a live arena (nor anything not named by a pid)."""
    dead = tmp_path / "999999999-m.s0-abc"  # above any pid_max: no such process
    mine = tmp_path / f"{os.getpid()}-m.s1-def"
    alive = tmp_path / "1-m.s2-ghi"  # pid 1 always runs
    other = tmp_path / "not-a-pid"
    for folder in (dead, mine, alive, other):
        folder.mkdir()
        (folder / "bot.sock").write_text("")
    sandbox._sweep(tmp_path)
    assert not dead.exists()
    assert mine.exists() and alive.exists() and other.exists()


def test_a_bot_that_cannot_be_confined_leaves_no_directory(tmp_path: Path) -> None:
    """``run_as`` a user this machine does not have: a clear error, and its socket
    directory is gone with it."""
    import pytest

    root = sandbox._runtime_root()
    mine = f"{os.getpid()}-unconfinable-"
    manifest = BotManifest("b", (sys.executable, "bot.py"), tmp_path, run_as="no-such-user-mus-arena")
    with pytest.raises(sandbox.SandboxError, match="no-such-user-mus-arena"):
        sandbox.confine("default", manifest, "unconfinable")
    assert not [p for p in root.iterdir() if p.name.startswith(mine)]
