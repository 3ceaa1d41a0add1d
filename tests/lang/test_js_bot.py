"""The JavaScript bot (bots/js): a bot in another language, built only from proto/.

It must pass ``mus check``, play a full match against the Python rulebot with no fault
(and a hand log that ``mus replay --verify`` accepts), and do the launch handshake of
docs/protocol.md itself. Node.js and npm are required: on a machine without them these
tests fail (never skip) and say what to install, because CI must run them.
``npm ci`` runs once per session when ``bots/js/node_modules`` is missing or older than
the lockfile.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lang_helpers import (
    check_exits_when_its_parent_goes_away,
    check_tcp_announce_info_sigint_sigterm,
    check_unix_socket_and_shutdown,
    launch_env,
    run,
    start,
)
from mus_sdk import handshake as hs

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "bots" / "js"
MUS = Path(sys.executable).parent / "mus"
INSTALL_HINT = "install Node.js (18 or newer) and npm, e.g. `apt-get install nodejs npm` on Debian/Ubuntu"


def test_mus_check_passes(js_bot: Path) -> None:
    out = run([str(MUS), "check", str(js_bot)])
    assert out.returncode == 0, (
        f"mus check bots/js failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    )
    assert "[FAIL]" not in out.stdout


def test_mus_check_passes_under_the_strict_sandbox(js_bot: Path) -> None:
    """As a tournament runs it: bubblewrap, no network, only its own folder. The check's
    full match plays four copies at once, each pid 2 of its own pid namespace: the socket
    name the bot makes from its pid is the same for all four, and no two collide, since
    each bot has a socket directory of its own (issue 15 item 19)."""
    out = run([str(MUS), "check", "--sandbox", "strict", str(js_bot)])
    assert out.returncode == 0, (
        f"mus check --sandbox strict bots/js failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    )
    assert "9 passed, 0 failed" in out.stdout and "[WARN]" not in out.stdout  # step 9: the same play after other matches


def test_strategy_unit_tests(js_bot: Path) -> None:
    out = run(["node", "--test", "test/"], cwd=js_bot)
    assert out.returncode == 0, f"npm test failed:\n{out.stdout[-4000:]}\n{out.stderr[-2000:]}"


def test_match_against_python_rulebot(js_bot: Path, tmp_path: Path) -> None:
    """JS at S0/S2, rulebot at S1/S3: the match completes with no fault, and its hand log
    replays through the engine."""
    out = run(
        [
            str(MUS),
            "match",
            str(js_bot),
            str(ROOT / "bots" / "rulebot"),
            "--seed",
            "5",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    assert out.returncode == 0, (
        f"mus match failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    )
    result = json.loads(out.stdout)
    assert result["start_error"] == ""
    assert result["reason"] == "completed", result
    assert result["faults"] == [], result["faults"]
    assert result["seating"] == ["jsbot", "rulebot", "jsbot", "rulebot"]
    assert result["winner_team"] in (0, 1)
    for seat in result["seats"]:
        assert seat["faults"] == 0
        assert seat["decisions"] > 0
    for seat in (0, 2):  # the JS seats answer fast (the deadline is 2,000 ms)
        assert result["seats"][seat]["max_decision_ms"] < 1000, result["seats"]
    log = tmp_path / result["log"]
    verify = run([str(MUS), "replay", "--verify", str(log)])
    assert verify.returncode == 0, (
        f"mus replay --verify failed:\n{verify.stdout[-3000:]}\n{verify.stderr[-2000:]}"
    )


# ---------------------------------------------------------------------- the handshake


def _start(env: dict[str, str], argv: list[str] | None = None) -> subprocess.Popen[str]:
    return start(argv or ["node", "bot.js"], JS, env)


def test_without_cookie_exits_with_a_message(js_bot: Path) -> None:
    env = launch_env()
    del env[hs.COOKIE_ENV]
    out = subprocess.run(["node", "bot.js"], cwd=js_bot, env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert out.stdout == ""
    assert "started by the arena" in out.stderr and "mus match" in out.stderr


def test_no_common_protocol_version_exits(js_bot: Path) -> None:
    out = subprocess.run(
        ["node", "bot.js"],
        cwd=js_bot,
        env=launch_env(**{hs.PROTOCOL_VERSIONS_ENV: "7,8"}),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 1
    assert "protocol version" in out.stderr


def test_tcp_announce_info_sigint_sigterm(js_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """Announces 127.0.0.1:PORT, answers GetInfo, ignores SIGINT, exits 0 on SIGTERM."""
    p = _start(launch_env(**{hs.PROTOCOL_VERSIONS_ENV: "1,2"}))
    procs.append(p)
    check_tcp_announce_info_sigint_sigterm(p, "jsbot")


def test_unix_socket_and_shutdown(js_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """With MUS_ARENA_SOCKET_DIR: a unix socket; Shutdown answers, then the bot exits and
    removes its socket."""
    check_unix_socket_and_shutdown(_start, procs, "jsbot")


def test_exits_when_its_parent_goes_away(js_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """The bot's parent (a shell standing in for the arena) is killed: the bot notices
    that it was reparented and exits within a few seconds."""
    check_exits_when_its_parent_goes_away(_start, procs, "node bot.js")
