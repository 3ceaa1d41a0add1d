"""Shared by the tests of the bots in other languages: launch environment, process
checks, GetInfo, the handshake checks every bot must pass, and bots/js installed once
per session (``npm ci`` under a file lock)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from mus.v1 import bot_service_pb2 as svc_pb
from mus.v1 import bot_service_pb2_grpc as svc_grpc
from mus_sdk import handshake as hs

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "bots" / "js"
JS_INSTALL_HINT = "install Node.js (18 or newer) and npm, e.g. `apt-get install nodejs npm` on Debian/Ubuntu"


def launch_env(**extra: str) -> dict[str, str]:
    """The environment the arena gives a bot (cookie, protocol versions), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUS_ARENA_")}
    env.update({hs.COOKIE_ENV: hs.COOKIE_VALUE, hs.PROTOCOL_VERSIONS_ENV: "1"})
    env.update(extra)
    return env


def gone(pid: int, timeout_s: float) -> bool:
    """Whether process ``pid`` has exited (a zombie counts as exited) within the time."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def info(target: str) -> svc_pb.GetInfoResponse:
    """GetInfo of the bot at ``target``."""
    with grpc.insecure_channel(target) as channel:
        return svc_grpc.BotServiceStub(channel).GetInfo(
            svc_pb.GetInfoRequest(protocol_versions=[1]), timeout=5, wait_for_ready=True
        )


def start(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """Start a bot (or a shell around one) in its own session, with piped output."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


Start = Callable[..., subprocess.Popen[str]]
"""``start(env, argv=None)``: a bot under test, started by its test module."""


def check_tcp_announce_info_sigint_sigterm(p: subprocess.Popen[str], name: str) -> None:
    """The bot ``p`` (started offering versions 1 and 2) announces 127.0.0.1:PORT, answers
    GetInfo as ``name`` with version 1, ignores SIGINT and exits 0 on SIGTERM."""
    assert p.stdout is not None
    line = p.stdout.readline()
    ann = hs.parse_line(line)
    assert (ann.core_version, ann.app_version, ann.network) == (1, 1, "tcp")
    assert ann.address.startswith("127.0.0.1:") and line.strip().endswith("|grpc")
    got = info(ann.target)
    assert (got.name, list(got.protocol_versions)) == (name, [1])
    assert got.version and got.author
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    assert p.poll() is None, "SIGINT must be ignored (the arena owns the bot's lifetime)"
    assert info(ann.target).name == name
    p.send_signal(signal.SIGTERM)
    assert p.wait(5) == 0


def check_unix_socket_and_shutdown(start_bot: Start, procs: list[subprocess.Popen[str]], name: str) -> None:
    """With MUS_ARENA_SOCKET_DIR: a unix socket in that directory; Shutdown answers, then
    the bot exits and removes its socket."""
    sock_dir = Path(tempfile.mkdtemp(prefix=f"mus-{name}-"))
    try:
        p = start_bot(launch_env(**{hs.SOCKET_DIR_ENV: str(sock_dir)}))
        procs.append(p)
        assert p.stdout is not None
        ann = hs.parse_line(p.stdout.readline())
        assert ann.network == "unix" and Path(ann.address).parent.resolve() == sock_dir.resolve()
        assert Path(ann.address).exists()
        with grpc.insecure_channel(ann.target) as channel:
            stub = svc_grpc.BotServiceStub(channel)
            assert stub.GetInfo(svc_pb.GetInfoRequest(), timeout=5, wait_for_ready=True).name == name
            stub.Shutdown(svc_pb.ShutdownRequest(), timeout=5)
        assert p.wait(5) == 0
        assert not Path(ann.address).exists()
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)


def check_exits_when_its_parent_goes_away(start_bot: Start, procs: list[subprocess.Popen[str]], command: str) -> None:
    """The bot's parent (a shell running ``command`` in the background, standing in for
    the arena) is killed: the bot notices that it was reparented and exits within a few
    seconds."""
    shell = start_bot(launch_env(), ["/bin/sh", "-c", f"{command} & echo $!; wait"])
    procs.append(shell)
    assert shell.stdout is not None
    bot_pid = int(shell.stdout.readline())
    hs.parse_line(shell.stdout.readline())  # the bot is up and serving
    shell.kill()  # SIGKILL to the shell only; the bot is reparented
    shell.wait(5)
    assert gone(bot_pid, 5.0), "the bot kept running after its parent died"


def run(args: list[str], timeout: float = 180, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing its output as text."""
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _js_toolchain() -> None:
    """Fail (not skip) with what to install when node or npm is missing or too old."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"the JavaScript bot needs {' and '.join(missing)}, not found on PATH: {JS_INSTALL_HINT}", pytrace=False)
    out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30)
    version = out.stdout.strip().lstrip("v")
    try:
        major = int(version.split(".")[0])
    except ValueError:
        major = 0
    if major < 18:
        pytest.fail(
            f"the JavaScript bot needs Node.js 18 or newer, found {version or out.stderr.strip()!r}: {JS_INSTALL_HINT}",
            pytrace=False,
        )


def _js_installed() -> bool:
    """Whether ``npm ci`` has run since the lockfile last changed (npm writes the marker)."""
    marker = JS / "node_modules" / ".package-lock.json"
    if not marker.exists() or not (JS / "node_modules" / "@grpc" / "grpc-js" / "package.json").exists():
        return False
    return marker.stat().st_mtime >= (JS / "package-lock.json").stat().st_mtime


def install_js_bot() -> Path:
    """bots/js with its dependencies: ``npm ci`` once, under a file lock so that parallel
    test processes do not install at the same time."""
    _js_toolchain()
    digest = hashlib.sha1(str(JS).encode()).hexdigest()[:12]
    lock_path = Path(tempfile.gettempdir()) / f"mus-arena-npm-ci-{digest}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _js_installed():
                out = subprocess.run(
                    ["npm", "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True, timeout=600
                )
                if out.returncode != 0:
                    pytest.fail(
                        f"`npm ci` in {JS} failed (exit {out.returncode}); it needs the npm registry.\n"
                        f"{out.stdout[-2000:]}\n{out.stderr[-4000:]}",
                        pytrace=False,
                    )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return JS
