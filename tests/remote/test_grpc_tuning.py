"""The transport tuning set before grpcio starts (arena/remote/grpc_tuning.py): in the
arena's process, and in the environment of the Python bots it launches; never by the SDK
in its host process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.remote import grpc_tuning as tuning

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def grpc_not_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "grpc")
    monkeypatch.setattr(tuning, "_grpcio_version", lambda: (1, 85))


@pytest.mark.usefixtures("grpc_not_imported")
def test_sets_the_experiments_when_nothing_is_set() -> None:
    env: dict[str, str] = {}
    assert tuning.tune(env) is True
    assert env == {"GRPC_EXPERIMENTS": tuning.EXPERIMENTS}


@pytest.mark.usefixtures("grpc_not_imported")
@pytest.mark.parametrize(
    "env",
    [{"GRPC_EXPERIMENTS": "mine"}, {"GRPC_EXPERIMENTS": ""}, {tuning.OPT_OUT_ENV: "0"}],
    ids=["user-value", "user-empty", "opt-out"],
)
def test_a_users_choice_wins(env: dict[str, str]) -> None:
    before = dict(env)
    assert tuning.tune(env) is False
    assert env == before


@pytest.mark.usefixtures("grpc_not_imported")
@pytest.mark.parametrize("version", [(1, 79), (1, 86), (2, 0), None])
def test_other_grpcio_versions_are_left_alone(version: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tuning, "_grpcio_version", lambda: version)
    env: dict[str, str] = {}
    assert tuning.tune(env) is False
    assert env == {}


def test_too_late_once_grpc_is_imported() -> None:
    import grpc  # noqa: F401  # the state of every process that already uses gRPC

    env: dict[str, str] = {}
    assert tuning.tune(env) is False
    assert env == {}


def experiments_seen_by(code: str, **extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("GRPC_EXPERIMENTS", tuning.OPT_OUT_ENV)}
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "sdk"), str(REPO)])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


SHOW = "import os; print(os.environ.get('GRPC_EXPERIMENTS', '-'))"


def expected_in_a_fresh_process() -> str:
    """What a fresh process importing the SDK should get with the installed grpcio:
    tuned on the grpcio lines it was measured on, any other grpcio left alone."""
    installed = tuning._grpcio_version()
    assert installed is not None
    return tuning.EXPERIMENTS if tuning.TESTED[0] <= installed <= tuning.TESTED[1] else "-"


def test_the_sdk_changes_nothing_in_its_hosts_environment() -> None:
    """Importing the SDK (what a bot does first) leaves the environment alone: a library
    does not configure its host process (issue 16)."""
    assert experiments_seen_by(f"import mus_sdk; {SHOW}") == "-"


def test_the_arena_starts_grpc_tuned() -> None:
    """``arena.remote`` tunes before its client imports grpc; the opt-out works."""
    assert experiments_seen_by(f"import arena.remote.client; {SHOW}") == expected_in_a_fresh_process()
    assert experiments_seen_by(f"import arena.remote.client; {SHOW}", **{tuning.OPT_OUT_ENV: "0"}) == "-"


@pytest.mark.usefixtures("grpc_not_imported")
def test_a_python_bot_the_arena_launches_gets_the_tuning(tmp_path: Path) -> None:
    """The arena's Python bots run its interpreter and grpcio: they get the same setting
    (the arena's own value wins, and the opt-out gives nothing); other bots get none."""
    from arena.remote import sandbox
    from arena.remote.manifest import BotManifest

    python_bot = BotManifest("py", (sys.executable, "bot.py"), tmp_path)
    other_bot = BotManifest("js", ("node", "bot.js"), tmp_path)
    for manifest, environ, want in (
        (python_bot, {}, tuning.EXPERIMENTS),
        (python_bot, {"GRPC_EXPERIMENTS": "mine"}, "mine"),
        (python_bot, {tuning.OPT_OUT_ENV: "0"}, None),
        (other_bot, {}, None),
    ):
        clean = {k: v for k, v in os.environ.items() if k not in ("GRPC_EXPERIMENTS", tuning.OPT_OUT_ENV)}
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(os, "environ", {**clean, **environ})
            jail = sandbox.confine("default", manifest, "tuning")
        try:
            assert jail.env.get("GRPC_EXPERIMENTS") == want, (manifest.name, environ)
        finally:
            jail.release()
