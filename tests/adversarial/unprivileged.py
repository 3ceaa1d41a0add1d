"""Run the arena as a normal user, from a test running as root.

The protections of the sandbox must hold whoever runs the arena, so the sandbox tests run
each league twice: as root, and as an unprivileged user this module creates. That user
cannot read this checkout or the project's venv wherever they live (CI clones into a
folder of root's; the venv's interpreter lives under /root), so the arena is given a
world-readable copy of its code, a folder of its dependencies installed with pip's
cache, and an interpreter the user may run; its bots and league files are copied too.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import pwd
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

USER = "mus-arena-test"
REPO = Path(__file__).resolve().parents[2]
DEPENDENCIES = tuple(
    re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0]
    for spec in tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["dependencies"]
    if not spec.startswith("mus-sdk")
)
"""The arena's run-time dependencies, read from pyproject.toml (so a new one is never
missed), pinned below to the versions of this venv; the SDK is copied from sdk/."""


@dataclass(frozen=True)
class Runner:
    """How to run ``mus`` as some user: the command and environment, and the folder in
    which that user may write."""

    user: str
    uid: int
    gid: int
    command: tuple[str, ...]
    env: dict[str, str]
    home: Path
    """A folder owned by the user (leagues, outputs)."""

    def mus(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run ``mus ARGS`` as this user; output captured as text."""
        return subprocess.run([*self.command, *args], env=self.env, cwd=self.home, capture_output=True, text=True,
                              timeout=timeout, check=False)

    def popen(self, *args: str) -> subprocess.Popen[bytes]:
        """Start ``mus ARGS`` as this user (its pid is the arena's: setpriv execs it);
        stdout and stderr piped."""
        return subprocess.Popen([*self.command, *args], env=self.env, cwd=self.home, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    def copy_in(self, source: Path, name: str) -> Path:
        """A copy of ``source`` (a folder or file) in :attr:`home`, readable by the user."""
        dest = self.home / name
        if source.is_dir():
            shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        else:
            shutil.copy2(source, dest)
        _chown_tree(dest, self.uid, self.gid)
        return dest


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    if path.is_dir():
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)


def root_runner(home: Path) -> Runner:
    """``mus`` as this (root) process runs it: the venv's entry point."""
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items()}
    return Runner("root", 0, 0, (str(Path(sys.executable).parent / "mus"),), env, home)


def _others_can_run(path: Path) -> bool:
    """Whether a user who is not root can execute ``path`` (every folder above it searchable)."""
    path = path.resolve()
    if not os.stat(path).st_mode & 0o001:
        return False
    return all(os.stat(p).st_mode & 0o001 for p in path.parents)


def _interpreter() -> str:
    """A Python 3.11+ of the same minor version that another user may run (the wheels of
    this venv's dependencies must fit it)."""
    own = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    if _others_can_run(own):
        return str(own)
    for candidate in (f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}", "/usr/bin/python3"):
        if os.path.exists(candidate) and _others_can_run(Path(candidate)):
            out = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                                 text=True, check=False)
            if out.stdout.strip() == str(tuple(sys.version_info[:2])):
                return candidate
    raise RuntimeError(f"no Python {sys.version_info.major}.{sys.version_info.minor} that a normal user may run "
                       f"(this one is {own}); install Debian's python3")


def _ensure_user() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True,
                       capture_output=True)
        entry = pwd.getpwnam(USER)
    return entry.pw_uid, entry.pw_gid


def _dependencies(cache_root: Path) -> Path:
    """A folder with the arena's dependencies, pinned to this venv's versions, installed
    once (pip's cache makes a later install fast) and kept between runs."""
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in DEPENDENCIES]
    key = hashlib.sha256(" ".join([*pins, sys.version.split()[0]]).encode()).hexdigest()[:16]
    folder = cache_root / f"mus-arena-test-deps-{key}"
    if not (folder / ".complete").exists():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--target", str(folder), *pins], check=True, capture_output=True, timeout=600)
        (folder / ".complete").touch()
        for root, dirs, files in os.walk(folder):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644 | (os.stat(os.path.join(root, name)).st_mode & 0o111))
        os.chmod(folder, 0o755)
    return folder


def unprivileged_runner(home: Path, cache_root: Path = Path("/var/tmp")) -> Runner:
    """``mus`` run as :data:`USER` (created if missing), from a world-readable copy of
    the arena and the SDK under ``home``; ``home`` (whose parents other users may
    search, e.g. a folder of /tmp) becomes the user's. Needs root."""
    assert os.geteuid() == 0, "only root can run the arena as another user"
    # Tests run in parallel (pytest-xdist): one worker at a time creates the user and
    # installs the dependencies; the others wait, then find them done.
    with open(cache_root / "mus-arena-test-setup.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        uid, gid = _ensure_user()
        deps = _dependencies(cache_root)
    python = _interpreter()
    home.mkdir(parents=True, exist_ok=True)
    code = home / "code"
    shutil.copytree(REPO / "arena", code / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    for package in ("mus_core", "mus_sdk", "mus"):
        shutil.copytree(REPO / "sdk" / package, code / package, ignore=shutil.ignore_patterns("__pycache__"))
    _chown_tree(home, uid, gid)
    if not all(os.stat(p).st_mode & 0o001 for p in home.parents):
        raise RuntimeError(f"{home}: a folder above it is closed to other users; use one under /tmp")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONPATH": f"{code}:{deps}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    setpriv = shutil.which("setpriv") or "setpriv"
    command = (setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", python, "-m", "arena")
    return Runner(USER, uid, gid, command, env, home)
