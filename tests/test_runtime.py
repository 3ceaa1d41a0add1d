"""The runtime seam (arena/runtime/settings.py): one object, validated when built, one ``run``
object in the hand log's header; and the settings it replaced, still accepted with one
deprecation warning each (a manifest's share_cpu, --affinity, --bot-cpus, --spin-us; a
league file's bot_cpus and spin_us are in tests/league/test_league.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog

from arena.common import deprecation
from arena.common.deprecation import DEPRECATED_IN, REMOVED_IN
from arena.remote.manifest import load_manifest
from arena.runtime.settings import DEFAULT_POLL_US, MAX_POLL_US, Runtime, command_line

REPO = Path(__file__).resolve().parents[1]
GRPC = {"grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}
"""What every ``run`` records of the gRPC tuning: this process's (arena.remote tuned it)."""


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test sees the warnings "once per process" would have given already."""
    monkeypatch.setattr(deprecation, "_WARNED", set())
    yield


def deprecations(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in logs if e["event"] == "setting.deprecated"]


def test_the_default_polls() -> None:
    rt = Runtime()
    assert rt.poll_us == DEFAULT_POLL_US
    assert rt.header() == GRPC | {"poll_us": DEFAULT_POLL_US}
    assert rt.to_json() == {"poll_us": DEFAULT_POLL_US}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"poll_us": -1}, "poll_us: the polling window must be a whole number of µs from 0 to 10000, not -1"),
        ({"poll_us": MAX_POLL_US + 1}, "poll_us: the polling window"),
        ({"poll_us": True}, "poll_us: the polling window"),
        ({"poll_us": 0.5}, "poll_us: the polling window"),
    ],
)
def test_a_bad_value_is_refused_when_built_in_one_line(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Runtime(**kwargs)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_a_manifest_with_share_cpu_loads_with_one_warning(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        f'name = "old"\ncommand = ["python", "{REPO / "bots" / "random" / "bot.py"}"]\nshare_cpu = true\n',
        encoding="utf-8",
    )
    with structlog.testing.capture_logs() as logs:
        first, second = load_manifest(tmp_path), load_manifest(tmp_path / "bot.toml")
    assert first == second and first.name == "old"
    (warned,) = deprecations(logs)
    assert (warned["setting"], warned["source"]) == ("share_cpu", str(tmp_path / "bot.toml"))
    assert "remove the line" in warned["instead"]


def test_the_bundled_bots_no_longer_say_share_cpu() -> None:
    for folder in ("bots/random", "bots/rulebot", "bots/cpp", "bots/js", "bench/bots/trivial"):
        assert "share_cpu" not in (REPO / folder / "bot.toml").read_text(encoding="utf-8"), folder


def test_each_warning_names_the_release_that_removes_it_as_the_policy_says() -> None:
    """The warnings say when the retired settings go (``removed_in``), and the table of
    docs/compatibility.md gives each of them the same releases as arena.common.deprecation."""
    with structlog.testing.capture_logs() as logs:
        command_line("auto", "2-3", 0)
    assert [e["removed_in"] for e in deprecations(logs)] == [REMOVED_IN] * 3
    doc = (REPO / "docs" / "compatibility.md").read_text(encoding="utf-8")
    for setting in ("--affinity", "--bot-cpus", "--spin-us", "bot_cpus", "spin_us", "share_cpu"):
        rows = [line for line in doc.splitlines() if line.startswith(f"| `{setting}` |")]
        assert len(rows) == 1, setting
        assert f"| {DEPRECATED_IN} | {REMOVED_IN} |" in rows[0], rows[0]


def test_the_old_flags_are_ignored_or_kept_with_one_warning_each() -> None:
    """--affinity and --bot-cpus are ignored (the system places the bots), --spin-us
    still sets the window; each warns once per process."""
    with structlog.testing.capture_logs() as logs:
        assert command_line("auto", "2-3", 0) == 0
        assert command_line("auto", "2-3", 0) == 0  # once per flag
        assert command_line() is None
    assert [(e["setting"], e["source"]) for e in deprecations(logs)] == [
        ("--affinity", "command line"), ("--bot-cpus", "command line"), ("--spin-us", "command line")]
    assert all(e["instead"].startswith("nothing: the system places the bots") for e in deprecations(logs)[:2])
    assert "polls 0 µs" in deprecations(logs)[2]["instead"]


def test_a_match_with_every_old_setting_runs(tmp_path: Path) -> None:
    """A manifest with share_cpu, --affinity, --bot-cpus and --spin-us: the match is played, each
    setting warned about once, on one line, and the header's ``run`` says what was done."""
    bot = tmp_path / "old"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        f'name = "old"\ncommand = ["python", "{REPO / "bots" / "random" / "bot.py"}"]\nshare_cpu = true\n',
        encoding="utf-8",
    )
    out = tmp_path / "m"
    r = subprocess.run(
        [sys.executable, "-m", "arena", "match", str(bot), str(REPO / "bots" / "random"), "--out", str(out),
         "--games", "1", "--target", "10", "--match-id", "m", "--affinity", "auto", "--bot-cpus", "any", "--spin-us", "0"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "setting.deprecated" in line]
    assert len(lines) == 4, r.stderr
    for setting in ("share_cpu", "--affinity", "--bot-cpus", "--spin-us"):
        assert sum(setting in line for line in lines) == 1, (setting, lines)
    header = json.loads((out / "m.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["run"] == {"poll_us": 0, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}


def test_a_league_file_with_the_old_keys_runs(tmp_path: Path) -> None:
    """bot_cpus and spin_us in a league file: one warning each, and the league is played
    with the system's placement (bot_cpus, even naming CPUs this machine lacks, is
    ignored) and the window spin_us asks for (no polling)."""
    league = tmp_path / "old.toml"
    league.write_text(
        f'name = "old"\nseed = 5\nmatches_per_pairing = 1\nbot_cpus = "0-4095"\nspin_us = 0\n'
        f'[rules]\ngames_to_win = 1\ntarget_points = 10\n'
        f'[[entry]]\nname = "a"\nbot = "{REPO / "bots" / "random"}"\n'
        f'[[entry]]\nname = "b"\nbot = "{REPO / "bots" / "rulebot"}"\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "arena", "league", str(league), "--out", str(out), "--no-progress"],
                       cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "setting.deprecated" in line]
    assert len(lines) == 2 and any("bot_cpus" in x for x in lines) and any("spin_us" in x for x in lines), r.stderr
    (log,) = (out / "logs").glob("*.jsonl")
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[0])["run"] == {
        "poll_us": 0, "grpc_experiments": os.environ.get("GRPC_EXPERIMENTS")}
    assert json.loads((out / "league.json").read_text(encoding="utf-8"))["run"] == {"poll_us": 0}


def test_the_header_records_the_grpc_tuning_in_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run`` says which gRPC experiments the arena ran with (grpc_tuning's, the user's,
    or none: MUS_GRPC_TUNING=0 leaves GRPC_EXPERIMENTS unset)."""
    monkeypatch.delenv("GRPC_EXPERIMENTS", raising=False)
    assert Runtime().header()["grpc_experiments"] is None
    monkeypatch.setenv("GRPC_EXPERIMENTS", "-event_engine_client")
    assert Runtime().header()["grpc_experiments"] == "-event_engine_client"
