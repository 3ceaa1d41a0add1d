"""Bot manifests: how to start a bot (``bot.toml``), or where a running bot listens.

A manifest is a TOML file::

    name = "rulebot"
    command = ["python", "bot.py"]   # "python" becomes the arena's own interpreter
    workdir = "."                    # relative to the manifest
    [env]
    MUS_BOT_SEED = "1"

A bot spec on the command line is a manifest path, a directory holding ``bot.toml``, or
``host:port`` / ``unix:/path`` of a bot already running elsewhere.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class BotManifest:
    """How to launch one bot."""

    name: str
    command: tuple[str, ...]
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    source: Path | None = None


@dataclass(frozen=True)
class BotAddress:
    """A bot already running: the arena only connects to it."""

    name: str
    target: str
    """A gRPC target: ``host:port`` or ``unix:/path``."""


BotSpec = BotManifest | BotAddress

_ADDRESS = re.compile(r"^(unix:/.+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")


def load_manifest(path: Path) -> BotManifest:
    """Read a ``bot.toml`` (or the ``bot.toml`` in a directory).

    Raises:
        ManifestError: missing file, bad TOML, or a bad field.
    """
    if path.is_dir():
        path = path / "bot.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such bot manifest") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ManifestError(f"{path}: field name: must be a non-empty string")
    command = data.get("command")
    if isinstance(command, str):
        command = command.split()
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise ManifestError(f"{path}: field command: must be a non-empty list of strings")
    command = [sys.executable if (i == 0 and c in ("python", "python3")) else c for i, c in enumerate(command)]
    workdir = (path.parent / str(data.get("workdir", "."))).resolve()
    if not workdir.is_dir():
        raise ManifestError(f"{path}: field workdir: {workdir} is not a directory")
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str | int | float | bool) for v in env.values()):
        raise ManifestError(f"{path}: field env: must be a table of strings")
    return BotManifest(name.strip(), tuple(command), workdir, {str(k): str(v) for k, v in env.items()}, path.resolve())


def parse_bot_spec(spec: str, base: Path | None = None) -> BotSpec:
    """A bot from a CLI or league entry: a manifest path, a directory, or an address.

    Raises:
        ManifestError: neither an existing manifest nor an address.
    """
    path = (base / spec) if base is not None and not Path(spec).is_absolute() else Path(spec)
    if path.exists():
        return load_manifest(path)
    if _ADDRESS.match(spec):
        return BotAddress(spec, spec)
    raise ManifestError(f"{spec}: no such bot manifest or directory, and not an address (host:port or unix:/path)")
