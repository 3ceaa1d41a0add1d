"""A bot's folder as bytes, so that it reaches the workers of a cluster without a shared
file system (docs/cluster.md), and what a worker checks before it plays with it.

The driver packs each bot entry's folder (the folder of its ``bot.toml``, build outputs
included: compiled bots ship as the artefacts built on the driver) into a deterministic
gzip'd tar, refused over a size limit. A worker unpacks it once per node into a cache
named by the bytes' SHA-256 (checked), reads the manifest there (so ``python`` is the
worker's interpreter), and checks that the node can run the bot: its command exists and
is executable, and a native executable finds its shared libraries. A node that cannot is
a fault of the cluster, not of the bot: the league stops and says what the node lacks,
instead of forfeiting the bot's matches.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.remote.manifest import BotManifest, load_spec

MIB = 1024 * 1024

_SKIPPED = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders never shipped: caches a bot does not need to play, and that differ per machine."""


class BundleError(ValueError):
    """A bot folder that cannot be shipped (too large, a workdir outside it, unreadable)."""


@dataclass(frozen=True)
class BotBundle:
    """One bot folder, packed."""

    digest: str
    """SHA-256 of :attr:`data`: the bundle's name in a worker's cache, and its check."""
    data: bytes
    manifest: str
    """The manifest's path inside the folder (``bot.toml``)."""
    size: int
    """Bytes of the files, uncompressed."""


def pack(spec: BotManifest, max_bytes: int, entry: str) -> BotBundle:
    """The folder of ``spec``'s manifest, packed.

    Raises:
        BundleError: over ``max_bytes`` of files, a workdir outside the folder, or a file
            that cannot be read; the message names the entry, the folder and what to do.
    """
    if spec.source is None:
        raise BundleError(f"entry {entry}: bot {spec.name} has no manifest file to ship")
    root = spec.source.parent.resolve()
    workdir = spec.workdir.resolve()
    if workdir != root and root not in workdir.parents:
        raise BundleError(f"entry {entry}: bot {spec.name}'s workdir {workdir} is outside its folder {root}: "
                          "only the manifest's folder ships to the workers; move the bot's files under it")
    files: list[Path] = []
    size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            files.append(path)
            if not path.is_symlink():
                size += path.stat().st_size
        if size > max_bytes:
            break
    if size > max_bytes:
        raise BundleError(
            f"entry {entry}: bot folder {root} holds over {size / MIB:.0f} MiB, more than the {max_bytes / MIB:.0f} "
            "MiB a bot may ship to the workers ([cluster] max_bot_mb); remove what it does not need to play "
            "(build trees, data, caches), or raise max_bot_mb")
    buf = io.BytesIO()
    try:
        # Deterministic bytes (no times, owners or order of the file system): the same folder
        # gives the same digest, so each node unpacks it once whatever the league.
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
            for path in files:
                info = tar.gettarinfo(str(path), arcname=str(path.relative_to(root)))
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                if info.isreg():
                    with open(path, "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
    except OSError as exc:
        raise BundleError(f"entry {entry}: cannot pack bot folder {root}: {exc.strerror or exc}") from None
    data = buf.getvalue()
    return BotBundle(hashlib.sha256(data).hexdigest(), data, str(spec.source.resolve().relative_to(root)), size)


def cache_root() -> Path:
    """Where a worker keeps unpacked bots: ``$MUS_ARENA_BOT_CACHE``, else
    ``<tmp>/mus-arena-bots-<uid>``."""
    env = os.environ.get("MUS_ARENA_BOT_CACHE")
    return Path(env) if env else Path(tempfile.gettempdir()) / f"mus-arena-bots-{os.getuid()}"


def unpacked(digest: str, root: Path) -> Path | None:
    """The folder of bundle ``digest`` if this node has unpacked it already."""
    folder = root / digest
    return folder if folder.is_dir() else None


def unpack(digest: str, data: bytes, root: Path) -> Path:
    """Unpack a bundle into ``root/<digest>`` (once per node: a finished folder is never
    rewritten, and a half-written one is never seen, being renamed into place whole).

    Raises:
        BundleError: the bytes are not the bundle ``digest`` names.
    """
    if hashlib.sha256(data).hexdigest() != digest:
        raise BundleError(f"bot bundle {digest[:12]}: its bytes do not match their digest (damaged in transit)")
    done = unpacked(digest, root)
    if done is not None:
        return done
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=root))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(tmp, filter="data")  # no absolute paths, no links out of the folder
        # Readable by every user: a strict sandbox's bot may run as a uid of its own.
        for dirpath, dirnames, filenames in os.walk(tmp):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                if not p.is_symlink():
                    p.chmod(p.stat().st_mode | 0o444 | (0o111 if p.is_dir() else 0))
        tmp.chmod(0o755)
        try:
            os.rename(tmp, root / digest)
        except OSError:
            if unpacked(digest, root) is None:  # not another worker's rename that won
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return root / digest


def load_unpacked(folder: Path, manifest: str) -> BotManifest:
    """The manifest of an unpacked bot, read on this node (``python`` is this node's
    interpreter, the workdir this node's folder)."""
    spec = load_spec(folder / manifest)
    if not isinstance(spec, BotManifest):
        raise BundleError(f"{folder / manifest}: not a bot to launch")
    return spec


def missing(spec: BotManifest) -> str | None:
    """What this machine lacks to run ``spec``'s command (None: nothing): the program
    itself, its execute permission, or a shared library of a native executable."""
    cmd = spec.command[0]
    if os.sep in cmd:
        path = Path(cmd) if os.path.isabs(cmd) else spec.workdir / cmd
        if not path.exists():
            return f"{cmd} does not exist (a compiled bot ships the files built on the driver: build it there first)"
    else:
        found = shutil.which(cmd)
        if found is None:
            return f"{cmd!r} is not on the PATH of this node (install it on every worker)"
        path = Path(found)
    if not os.access(path, os.X_OK):
        return f"{path} is not executable"
    try:
        with open(path, "rb") as f:
            native = f.read(4) == b"\x7fELF"
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror or exc}"
    if native and shutil.which("ldd") is not None:
        try:
            out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.TimeoutExpired):
            return None
        libs = [line.split("=>")[0].strip() for line in out.splitlines() if "not found" in line]
        if libs:
            return f"{path} needs shared libraries this node lacks: {', '.join(libs)}"
    return None
