"""The C++ bot (bots/cpp): a compiled bot built only from proto/ and Debian's packages.

It must build with its one documented command, pass ``mus check``, play a full match
against the JavaScript bot with no fault (and a hand log that ``mus replay --verify``
accepts), and do the launch handshake of docs/protocol.md itself.

The toolchain is CMake, make, g++, pkg-config, protoc, grpc_cpp_plugin and the gRPC/
protobuf development files. On a machine without them these tests fail (never skip) and
print the apt-get line, because CI must run them. ``bots/cpp/build.sh`` runs once per
session when ``bots/cpp/build/cppbot`` is missing or older than its sources or the protos.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
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
CPP = ROOT / "bots" / "cpp"
BIN = CPP / "build" / "cppbot"
SELF_TEST = CPP / "build" / "strategy_test"
JS = ROOT / "bots" / "js"
MUS = Path(sys.executable).parent / "mus"
APT_PACKAGES = (
    "cmake make g++ pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev"
)
APT_HINT = f"apt-get update && apt-get install -y --no-install-recommends {APT_PACKAGES}"


def _missing_toolchain() -> list[str]:
    """What is missing to build bots/cpp, as 'package (what)' items."""
    missing = [
        f"{package} ({tool})"
        for tool, package in (
            ("cmake", "cmake"),
            ("make", "make"),
            ("g++", "g++"),
            ("pkg-config", "pkg-config"),
            ("protoc", "protobuf-compiler"),
            ("grpc_cpp_plugin", "protobuf-compiler-grpc"),
        )
        if shutil.which(tool) is None
    ]
    if shutil.which("pkg-config") is not None:
        for module, package in (("protobuf", "libprotobuf-dev"), ("grpc++", "libgrpc++-dev")):
            if subprocess.run(["pkg-config", "--exists", module], timeout=30).returncode != 0:
                missing.append(f"{package} (pkg-config {module})")
    return missing


def _sources() -> list[Path]:
    return [
        *sorted((CPP / "src").glob("*")),
        CPP / "CMakeLists.txt",
        CPP / "build.sh",
        *sorted((ROOT / "proto" / "mus" / "v1").glob("*.proto")),
    ]


STAMP = CPP / "build" / ".built-by-tests"


def _up_to_date() -> bool:
    """Whether build.sh succeeded after the last change to the sources (make itself does
    not relink a binary whose inputs did not change, so a stamp keeps the time)."""
    if not (BIN.exists() and SELF_TEST.exists() and STAMP.exists()):
        return False
    built = STAMP.stat().st_mtime
    return all(p.stat().st_mtime <= built for p in _sources())


@pytest.fixture(scope="session")
def cpp_bot() -> Path:
    """bots/cpp with build/cppbot built: ``build.sh`` at most once per session, under a file
    lock so that parallel test workers do not build at the same time."""
    missing = _missing_toolchain()
    if missing:
        pytest.fail(
            "the C++ bot (bots/cpp) needs a C++ gRPC toolchain; missing: "
            + ", ".join(missing)
            + f".\nInstall it (Debian/Ubuntu): {APT_HINT}",
            pytrace=False,
        )
    digest = hashlib.sha1(str(CPP).encode()).hexdigest()[:12]
    lock_path = Path(tempfile.gettempdir()) / f"mus-arena-cppbot-build-{digest}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _up_to_date():
                out = subprocess.run(
                    [str(CPP / "build.sh")], cwd=ROOT, capture_output=True, text=True, timeout=1800
                )
                if out.returncode == 0:
                    STAMP.touch()
                else:
                    pytest.fail(
                        f"bots/cpp/build.sh failed (exit {out.returncode}):\n"
                        f"{out.stdout[-3000:]}\n{out.stderr[-5000:]}",
                        pytrace=False,
                    )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    assert BIN.exists(), f"{BIN} was not built"
    return CPP


# ---------------------------------------------------------------------- build, check, play


def test_strategy_self_test(cpp_bot: Path) -> None:
    """The evaluation agrees with docs/rules.md §13's vectors; sample decisions are legal."""
    out = run([str(SELF_TEST)])
    assert out.returncode == 0, f"strategy_test failed:\n{out.stdout[-4000:]}\n{out.stderr[-2000:]}"


def test_mus_check_passes(cpp_bot: Path) -> None:
    out = run([str(MUS), "check", str(cpp_bot)])
    assert out.returncode == 0, f"mus check bots/cpp failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    assert "[FAIL]" not in out.stdout


def test_mus_check_passes_under_the_strict_sandbox(cpp_bot: Path) -> None:
    """As a tournament runs it: bubblewrap, no network, only its own folder. The check's
    full match plays four copies at once, each pid 2 of its own pid namespace: the socket
    name the bot makes from its pid is the same for all four, and no two collide, since
    each bot has a socket directory of its own (issue 15 item 19)."""
    out = run([str(MUS), "check", "--sandbox", "strict", str(cpp_bot)])
    assert out.returncode == 0, (
        f"mus check --sandbox strict bots/cpp failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    )
    assert "9 passed, 0 failed" in out.stdout and "[WARN]" not in out.stdout  # step 9: the same play after other matches


def test_match_against_js_bot(cpp_bot: Path, js_bot: Path, tmp_path: Path) -> None:
    """C++ at S0/S2, JavaScript at S1/S3: the match completes with no fault, and its hand
    log replays through the engine."""
    out = run(
        [str(MUS), "match", str(cpp_bot), str(js_bot), "--seed", "11", "--out", str(tmp_path), "--json"]
    )
    assert out.returncode == 0, f"mus match failed (exit {out.returncode}):\n{out.stdout}\n{out.stderr[-3000:]}"
    result = json.loads(out.stdout)
    assert result["start_error"] == ""
    assert result["reason"] == "completed", result
    assert result["faults"] == [], result["faults"]
    assert result["seating"] == ["cppbot", "jsbot", "cppbot", "jsbot"]
    assert result["winner_team"] in (0, 1)
    for seat in result["seats"]:
        assert seat["faults"] == 0
        assert seat["decisions"] > 0
    for seat in (0, 2):  # the C++ seats answer fast (the deadline is 2,000 ms)
        assert result["seats"][seat]["max_decision_ms"] < 1000, result["seats"]
    verify = run([str(MUS), "replay", "--verify", str(tmp_path / result["log"])])
    assert verify.returncode == 0, f"mus replay --verify failed:\n{verify.stdout[-3000:]}\n{verify.stderr[-2000:]}"


# ---------------------------------------------------------------------- the handshake


def _start(env: dict[str, str], argv: list[str] | None = None) -> subprocess.Popen[str]:
    return start(argv or [str(BIN)], CPP, env)


def test_without_cookie_exits_with_a_message(cpp_bot: Path) -> None:
    env = launch_env()
    del env[hs.COOKIE_ENV]
    out = subprocess.run([str(BIN)], cwd=cpp_bot, env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert out.stdout == ""
    assert "started by the arena" in out.stderr and "mus match" in out.stderr


def test_no_common_protocol_version_exits(cpp_bot: Path) -> None:
    env = launch_env(**{hs.PROTOCOL_VERSIONS_ENV: "7,8"})
    out = subprocess.run([str(BIN)], cwd=cpp_bot, env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 1
    assert out.stdout == ""
    assert "protocol version" in out.stderr


def test_tcp_announce_info_sigint_sigterm(cpp_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """Announces 127.0.0.1:PORT, answers GetInfo, ignores SIGINT, exits 0 on SIGTERM."""
    p = _start(launch_env(**{hs.PROTOCOL_VERSIONS_ENV: "2, 1"}))
    procs.append(p)
    check_tcp_announce_info_sigint_sigterm(p, "cppbot")


def test_unix_socket_and_shutdown(cpp_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """With MUS_ARENA_SOCKET_DIR: a unix socket; Shutdown answers, then the bot exits and
    removes its socket."""
    check_unix_socket_and_shutdown(_start, procs, "cppbot")


def test_exits_when_its_parent_goes_away(cpp_bot: Path, procs: list[subprocess.Popen[str]]) -> None:
    """The bot's parent (a shell standing in for the arena) is killed: the bot notices
    that it was reparented and exits within a few seconds."""
    check_exits_when_its_parent_goes_away(_start, procs, f"'{BIN}'")
