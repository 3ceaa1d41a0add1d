"""Fixtures of the process tests: a pool of partner bots and a factory of test bots.

Every process a test starts carries a tag in its environment; after the test its bots
are closed and the test fails if any tagged process (a bot or a child of one) is
still alive.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from remote_helpers import TESTBOT, Pool, Spawn, close_all, manifest, new_tag, tagged_pids, wait_gone

from arena.remote.client import RemoteBot


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    p = Pool(tmp_path_factory.mktemp("pool-logs"), new_tag())
    yield p
    p.close()


@pytest.fixture
def tag() -> str:
    """This test's tag (see :data:`remote_helpers.TAG_ENV`)."""
    return new_tag()


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs"




@pytest.fixture
def spawn(tag: str, log_dir: Path, tmp_path: Path) -> Iterator[Spawn]:
    """``spawn(mode, connect=True, path=TESTBOT, label=..., **env)``: a RemoteBot for the
    test bot in ``mode`` (or the bot at ``path``), connected unless ``connect=False``.
    At teardown every bot is closed and no process of the test may remain."""
    bots: list[RemoteBot] = []

    def make(mode: str | None = None, *, connect: bool = True, path: Path = TESTBOT,
             label: str | None = None, start_timeout_s: float = 10.0, unix_socket: bool = True,
             **env: str) -> RemoteBot:
        if mode is not None:
            env["MUS_TEST_MODE"] = mode
        env.setdefault("MUS_TEST_OUT", str(tmp_path))
        bot = RemoteBot(manifest(path, tag, **env), log_dir, label or f"bot{len(bots)}",
                        start_timeout_s=start_timeout_s, unix_socket=unix_socket)
        bots.append(bot)
        if connect:
            bot.connect()
        return bot

    yield make
    pids = [b.process.pid for b in bots if b.process is not None and b.process.pid]
    close_all(bots)
    left = wait_gone(tag, pids)
    assert left == [], f"processes left behind: {left}"
    assert tagged_pids(tag) == []
