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
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from lang_helpers import gone, info, launch_env, run
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
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
    return subprocess.Popen(
        argv or ["node", "bot.js"],
        cwd=JS,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


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
    assert p.stdout is not None
    line = p.stdout.readline()
    ann = hs.parse_line(line)
    assert (ann.core_version, ann.app_version, ann.network) == (1, 1, "tcp")
    assert ann.address.startswith("127.0.0.1:") and line.strip().endswith("|grpc")
    got = info(ann.target)
    assert (got.name, list(got.protocol_versions)) == ("jsbot", [1])
    assert got.version and got.author
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    assert p.poll() is None, "SIGINT must be ignored (the arena owns the bot's lifetime)"
    assert info(ann.target).name == "jsbot"
    p.send_signal(signal.SIGTERM)
    assert p.wait(5) == 0


def test_unix_socket_and_shutdown(js_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """With MUS_ARENA_SOCKET_DIR: a unix socket; Shutdown answers, then the bot exits and
    removes its socket."""
    sock_dir = Path(tempfile.mkdtemp(prefix="mus-js-"))
    try:
        p = _start(launch_env(**{hs.SOCKET_DIR_ENV: str(sock_dir)}))
        procs.append(p)
        assert p.stdout is not None
        ann = hs.parse_line(p.stdout.readline())
        assert ann.network == "unix" and Path(ann.address).parent == sock_dir
        assert Path(ann.address).exists()
        with grpc.insecure_channel(ann.target) as channel:
            stub = svc_grpc.BotServiceStub(channel)
            assert stub.GetInfo(svc_pb.GetInfoRequest(), timeout=5, wait_for_ready=True).name == "jsbot"
            stub.Shutdown(svc_pb.ShutdownRequest(), timeout=5)
        assert p.wait(5) == 0
        assert not Path(ann.address).exists()
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)


def test_exits_when_its_parent_goes_away(js_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """The bot's parent (a shell standing in for the arena) is killed: the bot notices
    that it was reparented and exits within a few seconds."""
    shell = _start(launch_env(), ["/bin/sh", "-c", "node bot.js & echo $!; wait"])
    procs.append(shell)
    assert shell.stdout is not None
    bot_pid = int(shell.stdout.readline())
    hs.parse_line(shell.stdout.readline())  # the bot is up and serving
    shell.kill()  # SIGKILL to the shell only; the bot is reparented
    shell.wait(5)
    assert gone(bot_pid, 5.0), "the bot kept running after its parent died"
