"""The exec wrappers a bot's command goes through, and the environment it gets.

Every wrapper is a util-linux program (or ``env``) that sets something up and execs the
next one in the same process: ``setpriv`` (the parent-death signal, another user),
``unshare`` (a pid namespace), ``prlimit`` (resource limits) and ``env`` (the manifest's
own variables, set last, for the bot alone). Unlike a ``preexec_fn`` they are safe in a
threaded arena. The ``default`` profile (:mod:`arena.remote.sandbox`) is these wrappers
alone; the ``strict`` one puts them inside bubblewrap (:mod:`arena.remote.bwrap`).
"""

from __future__ import annotations

import os
import shutil
import sys

from arena.remote import grpc_tuning
from arena.remote.manifest import BotManifest, Limits

BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")
"""The only variables of the arena's environment a ``default`` bot receives unasked. A
Python bot run with the arena's interpreter also gets its gRPC tuning
(:func:`arena.remote.grpc_tuning.bot_environment`)."""


class WrapperError(RuntimeError):
    """A wrapper cannot be set up as asked (``run_as`` names no user, or needs root)."""


def own_env(manifest: BotManifest) -> list[str]:
    """The manifest's ``[env]``, set by ``env`` right before the bot's command: the bot
    author's variables reach the bot only, never a wrapper that runs before it as the
    arena's user or as root (``LD_PRELOAD`` there would run the author's code outside
    the sandbox or with the arena's privileges)."""
    if not manifest.env:
        return []
    from mus_sdk import handshake

    arena_keys = set(handshake.handshake_env("/"))  # the arena's word on how to reach it wins
    pairs = [f"{k}={v}" for k, v in manifest.env.items() if k not in arena_keys]
    # /usr/bin/env: what a strict bot sees of the host is /usr (a PATH's /usr/local is not).
    env = "/usr/bin/env" if os.path.exists("/usr/bin/env") else shutil.which("env") or "env"
    return [env, "--", *pairs] if pairs else []


def user_ids(user: str) -> tuple[int, int]:
    """uid and gid of a user name or number.

    Raises:
        WrapperError: no such user.
    """
    import pwd

    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, ValueError):
        raise WrapperError(f"run_as: no user {user!r} on this machine") from None
    return entry.pw_uid, entry.pw_gid


def limits_wrapper(limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    args = []
    if limits.memory_mb:
        args.append(f"--as={limits.memory_mb * 1024 * 1024}")
    if limits.cpu_seconds:
        args.append(f"--cpu={limits.cpu_seconds}")
    if limits.open_files:
        args.append(f"--nofile={limits.open_files}")
    if limits.processes:
        args.append(f"--nproc={limits.processes}")
    return [prlimit, *args, "--"] if args else []


def default_wrapper(limits: Limits, run_as: str | None = None, pid_namespace: bool = False) -> list[str]:
    """The exec wrappers of a ``default`` bot: they apply the limits and tie the bot's life
    to the arena's.

    ``setpriv --pdeathsig KILL`` makes the kernel kill the bot if the arena dies (even
    by SIGKILL); ``prlimit`` sets the resource limits. Both are util-linux programs that
    exec the bot in the same process, and unlike a ``preexec_fn`` they are safe in a
    threaded arena. Where they are missing, the bot runs without them.
    """
    out: list[str] = []
    setpriv = shutil.which("setpriv")
    if setpriv and sys.platform.startswith("linux"):
        out += [setpriv, "--pdeathsig", "KILL", "--"]
    if pid_namespace:
        # Its own pid namespace: when the bot (the namespace's init) dies, the kernel
        # kills every process it left, even one that escaped its process group; and the
        # bot cannot name any process outside (no kill() of another seat's bot).
        out += [shutil.which("unshare") or "unshare", "--fork", "--pid", "--kill-child=SIGKILL", "--"]
    if run_as is not None:
        # After unshare, which needs root: the bot itself runs as the other user.
        if os.geteuid() != 0 or not setpriv:
            raise WrapperError(f"run_as {run_as!r} needs an arena running as root, with setpriv (util-linux)")
        uid, gid = user_ids(run_as)
        out += [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    return out + limits_wrapper(limits)


def default_env(manifest: BotManifest, socket_dir: str) -> dict[str, str]:
    from mus_sdk import handshake

    keep = {*BASE_ENV, *manifest.inherit_env}
    env = {k: v for k, v in os.environ.items() if k in keep}
    if manifest.command and manifest.command[0] == sys.executable:
        env.update(grpc_tuning.bot_environment())
    env.update(handshake.handshake_env(socket_dir))
    env["PYTHONUNBUFFERED"] = "1"
    return env
