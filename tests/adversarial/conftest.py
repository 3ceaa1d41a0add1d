"""Fixtures of the adversarial tests: a pool of healthy partner bots and a factory of zoo
bots. Every process a test starts carries a tag in its environment; at teardown its bots
are closed and the test fails if any tagged process (a bot or a child of one) is alive."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from adversarial_helpers import ZOO
from remote_helpers import Pool, close_all, manifest, tagged_pids, wait_gone
from remote_helpers import new_tag as remote_new_tag
from unprivileged import Runner, root_runner, unprivileged_runner

from arena.remote.client import RemoteBot
from arena.remote.manifest import Limits


def new_tag() -> str:
    return remote_new_tag("adv-")


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pool]:
    p = Pool(tmp_path_factory.mktemp("adv-pool-logs"), new_tag())
    yield p
    p.close()


@pytest.fixture
def tag() -> str:
    return new_tag()


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "logs"


Spawn = Callable[..., RemoteBot]


@pytest.fixture
def spawn(tag: str, log_dir: Path, tmp_path: Path) -> Iterator[Spawn]:
    """``spawn(mode, connect=True, path=ZOO, label=..., limits=None, **env)``: a RemoteBot
    for the zoo bot in ``mode`` (or the bot at ``path``), with this test's tag,
    ``MUS_ZOO_OUT`` = the test's tmp_path, and ``limits`` (a dict of [limits] fields)
    replacing the defaults. At teardown every bot is closed and no process may remain."""
    bots: list[RemoteBot] = []

    def make(mode: str | None = None, *, connect: bool = True, path: Path = ZOO, label: str | None = None,
             limits: dict[str, int] | None = None, start_timeout_s: float = 10.0, **env: str) -> RemoteBot:
        if mode is not None:
            env["MUS_ZOO_MODE"] = mode
        env.setdefault("MUS_ZOO_OUT", str(tmp_path))
        m = manifest(path, tag, **env)
        if limits is not None:
            m = dataclasses.replace(m, limits=Limits(**{**dataclasses.asdict(Limits()), **limits}))
        bot = RemoteBot(m, log_dir, label or f"bot{len(bots)}", start_timeout_s=start_timeout_s)
        bots.append(bot)
        if connect:
            bot.connect()
        return bot

    yield make
    pids = [b.process.pid for b in bots if b.process is not None and b.process.pid]
    close_all(bots)
    left = wait_gone(tag, pids, timeout_s=3.0)
    assert left == [], f"processes left behind: {left}"
    assert tagged_pids(tag) == []


@pytest.fixture(params=["root", "user"])
def runner(request: pytest.FixtureRequest) -> Iterator[Runner]:
    """``mus`` as root, and as an unprivileged user (created by the test when it runs as
    root; when the tests themselves run as a normal user, that user)."""
    home = Path(tempfile.mkdtemp(prefix="mus-adv-test-"))
    os.chmod(home, 0o755)
    try:
        if request.param == "root":
            if os.geteuid() != 0:
                pytest.skip("the root case needs the tests to run as root")
            yield root_runner(home)
        else:
            yield unprivileged_runner(home) if os.geteuid() == 0 else root_runner(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
