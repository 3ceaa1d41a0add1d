"""Bot manifests: how to start a bot (``bot.toml``), or where a running bot listens.

A manifest is a TOML file::

    name = "rulebot"
    command = ["python", "bot.py"]   # "python" becomes the arena's own interpreter
    workdir = "."                    # relative to the manifest; must stay inside its folder
    inherit_env = ["CUDA_HOME"]      # arena variables to pass on (none but PATH, HOME, LANG… by default;
                                     # under strict only those the league file grants)
    run_as = "nobody"                # optional: another user (the arena must run as root)
    fresh_process = true             # a new process for every match (default false: a league may reuse one)
    [env]
    MUS_BOT_SEED = "1"
    [limits]                         # per bot process; 0 = no limit (under strict: the league's ceiling)
    memory_mb = 8192                 # address space (RLIMIT_AS)
    cpu_seconds = 3600               # CPU time (RLIMIT_CPU)
    open_files = 1024                # RLIMIT_NOFILE
    processes = 4096                 # RLIMIT_NPROC (counts all processes of the user; root is exempt)

A bot spec on the command line is a manifest path, a directory holding ``bot.toml``, or
``host:port`` / ``unix:/path`` of a bot already running elsewhere.

The manifest is written by the bot's author: what it may decide, and what the league file
decides instead, is in docs/reliability.md ("Who decides each manifest key");
:mod:`arena.remote.grants` applies the league file's word.

``share_cpu``, which earlier manifests carry, is accepted and ignored, with a deprecation
warning: the operating system places the bots.
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.common.deprecation import deprecated


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (0 = none). Defaults are generous for a bot and
    still stop a runaway one long before it hurts the machine."""

    memory_mb: int = 8192
    cpu_seconds: int = 3600
    open_files: int = 1024
    processes: int = 4096


@dataclass(frozen=True)
class BotManifest:
    """How to launch one bot."""

    name: str
    command: tuple[str, ...]
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    source: Path | None = None
    limits: Limits = field(default_factory=Limits)
    inherit_env: tuple[str, ...] = ()
    """Names of the arena's environment variables the bot receives."""
    run_as: str | None = None
    """A user (name or uid) to run the bot as: it then cannot read the arena's files nor
    touch its processes. Needs an arena running as root."""
    fresh_process: bool = False
    """The bot must start afresh for every match: a league then never gives one of its
    processes a second match (see :mod:`arena.runner.pool`)."""
    folder: Path | None = None
    """The bot's own folder: the manifest's (symlinks followed). :attr:`workdir` is in it;
    None for a manifest made in code (its workdir is then its folder)."""

    @property
    def home(self) -> Path:
        """The folder the bot owns: :attr:`folder`, else :attr:`workdir`."""
        return self.folder if self.folder is not None else self.workdir


@dataclass(frozen=True)
class TlsConfig:
    """TLS towards a remote bot; with ``cert`` and ``key`` also mutual TLS."""

    ca: Path
    """PEM root certificate(s) that signed the bot's server certificate."""
    cert: Path | None = None
    """PEM client certificate chain (mutual TLS)."""
    key: Path | None = None
    """PEM private key of the client certificate (mutual TLS)."""
    server_name: str | None = None
    """Expected name in the server certificate, if not the target's host."""


@dataclass(frozen=True)
class BotAddress:
    """A bot already running: the arena only connects to it."""

    name: str
    target: str
    """A gRPC target: ``host:port`` or ``unix:/path``."""
    tls: TlsConfig | None = None


BotSpec = BotManifest | BotAddress

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ADDRESS = re.compile(r"^(unix:/.+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")



_KEYS = ("name", "command", "workdir", "env", "inherit_env", "limits", "run_as", "fresh_process")


def _did_you_mean(key: str) -> str:
    """``; did you mean 'command'?`` for a key close to a known one (a typo), else ""."""
    close = difflib.get_close_matches(key, _KEYS, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _misspelt(data: dict[str, object]) -> str:
    """For a missing ``command``: the key that looks like it (``comand = [...]``), if any."""
    typo = next((k for k in data if k not in _KEYS and _did_you_mean(k) == "; did you mean 'command'?"), None)
    return f" (missing; {typo!r} is not a field: did you mean 'command'?)" if typo else " (missing)"

def load_manifest(path: Path) -> BotManifest:
    """Read a ``bot.toml`` that launches a bot (see :func:`load_spec` for addresses too).

    Raises:
        ManifestError: missing file, bad TOML, a bad field, or a manifest of a remote bot.
    """
    spec = load_spec(path)
    if not isinstance(spec, BotManifest):
        raise ManifestError(f"{path}: describes a remote bot at {spec.target}, not a command to launch")
    return spec


def load_spec(path: Path) -> BotSpec:
    """Read a ``bot.toml`` (or the ``bot.toml`` in a directory): a command to launch, or,
    with ``address = "host:port"``, a bot running elsewhere (optionally over TLS)::

        name = "far-bot"
        address = "bots.example.org:50051"
        [tls]
        ca = "ca.pem"                 # paths relative to this file
        cert = "client.pem"           # cert and key: mutual TLS
        key = "client.key"
        server_name = "bots.example.org"


    Raises:
        ManifestError: missing file, bad TOML, or a bad field.
    """
    if path.is_dir():
        path = path / "bot.toml"
    data = _read_toml(path)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ManifestError(f"{path}: field name: must be a non-empty string")
    if "address" in data:
        return _remote_spec(path, name.strip(), data)
    command = _command(path, data)
    folder = path.parent.resolve()
    workdir = _workdir(path, folder, data.get("workdir", "."))
    env = _env(path, data)
    unknown = set(data) - {"name", "command", "workdir", "env", "limits", "inherit_env", "run_as", "share_cpu", "fresh_process",
                               "description"}
    if unknown:
        raise ManifestError(
            f"{path}: field {sorted(unknown)[0]}: unknown{_did_you_mean(sorted(unknown)[0])} (known: name, command, "
            "workdir, env, inherit_env, limits, run_as, fresh_process)"
        )
    if "share_cpu" in data:  # read by arenas before the system placed every bot
        deprecated("share_cpu", str(path), "nothing: it is ignored, the system places the bots; remove the line")
    fresh_process = data.get("fresh_process", False)
    if not isinstance(fresh_process, bool):
        raise ManifestError(f"{path}: field fresh_process: must be true or false, not {fresh_process!r}")
    limits = _limits(path, data)
    inherit = data.get("inherit_env", [])
    if not isinstance(inherit, list) or not all(isinstance(v, str) and _ENV_NAME.match(v) for v in inherit):
        raise ManifestError(f"{path}: field inherit_env: must be a list of variable names")
    run_as = data.get("run_as")
    if run_as is not None and not ((isinstance(run_as, str) and run_as.strip()) or isinstance(run_as, int)):
        raise ManifestError(f"{path}: field run_as: must be a user name or a uid")
    return BotManifest(name.strip(), tuple(command), workdir, env, path.resolve(), limits, tuple(inherit),
                       None if run_as is None else str(run_as), fresh_process, folder)


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML table in ``path``.

    Raises:
        ManifestError: missing or unreadable file, or bad TOML.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such bot manifest") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML: {exc}") from None


def _command(path: Path, data: dict[str, Any]) -> list[str]:
    """The manifest's ``command`` as a list (``python`` as the first word: the arena's own
    interpreter)."""
    command = data.get("command")
    if isinstance(command, str):
        command = command.split()
    if not isinstance(command, list) or not command or not all(isinstance(c, str) for c in command):
        raise ManifestError(f"{path}: field command: must be a non-empty list of strings"
                            + ("" if "command" in data else _misspelt(data)))
    return [sys.executable if (i == 0 and c in ("python", "python3")) else c for i, c in enumerate(command)]


def _env(path: Path, data: dict[str, Any]) -> dict[str, str]:
    """The manifest's ``[env]`` table, checked: variable names, values without NUL."""
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str | int | float | bool) for v in env.values()):
        raise ManifestError(f"{path}: field env: must be a table of strings")
    for key, value in env.items():
        if not _ENV_NAME.match(key) or "\0" in str(value):
            raise ManifestError(f"{path}: field env.{key[:60]!r}: a variable name is letters, digits and _ "
                                "(not starting with a digit), its value a string without NUL")
    return {str(k): str(v) for k, v in env.items()}


def _limits(path: Path, data: dict[str, Any]) -> Limits:
    """The manifest's ``[limits]`` over the defaults: known keys, integers >= 0."""
    raw_limits = data.get("limits", {})
    if not isinstance(raw_limits, dict):
        raise ManifestError(f"{path}: field limits: must be a table")
    known_limits = {f: getattr(Limits(), f) for f in ("memory_mb", "cpu_seconds", "open_files", "processes")}
    for key, value in raw_limits.items():
        if key not in known_limits:
            raise ManifestError(f"{path}: field limits.{key}: unknown (known: {', '.join(known_limits)})")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ManifestError(f"{path}: field limits.{key}: must be an integer >= 0 (0 = no limit)")
    return Limits(**{**known_limits, **raw_limits})


def _workdir(path: Path, folder: Path, raw: object) -> Path:
    """The manifest's ``workdir``, resolved (symlinks followed): a directory inside the
    bot's own ``folder``, under every profile. The strict sandbox shows a bot its workdir,
    so a workdir above its folder (``..``, ``/``, a link out) would show it the league's
    secret and the host's files.

    Raises:
        ManifestError: not a string, not a directory, or outside ``folder``.
    """
    if not isinstance(raw, str) or not raw or "\0" in raw:
        raise ManifestError(f"{path}: field workdir: must be a folder path relative to the manifest, not {raw!r}")
    workdir = (folder / raw).resolve()
    if workdir != folder and folder not in workdir.parents:
        raise ManifestError(f"{path}: field workdir: {raw!r} resolves to {workdir}, outside the bot's folder {folder} "
                            "(symlinks followed); a bot runs in its own folder or one below it: put the manifest in "
                            "the bot's folder")
    if not workdir.is_dir():
        raise ManifestError(f"{path}: field workdir: {workdir} is not a directory")
    return workdir


def _remote_spec(path: Path, name: str, data: dict[str, object]) -> BotAddress:
    address = data.get("address")
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise ManifestError(f"{path}: field address: must be host:port or unix:/path, not {address!r}")
    unknown = set(data) - {"name", "address", "tls", "description"}
    if unknown:
        raise ManifestError(f"{path}: field {sorted(unknown)[0]}: unknown for a remote bot (known: name, address, tls)")
    raw = data.get("tls")
    if raw is None:
        return BotAddress(name, address)
    if not isinstance(raw, dict):
        raise ManifestError(f"{path}: field tls: must be a table")

    def pem(key: str, required: bool) -> Path | None:
        value = raw.get(key)
        if value is None:
            if required:
                raise ManifestError(f"{path}: field tls.{key}: required")
            return None
        file = (path.parent / str(value)).resolve()
        if not file.is_file():
            raise ManifestError(f"{path}: field tls.{key}: {file} is not a file")
        return file

    cert, key = pem("cert", False), pem("key", False)
    if (cert is None) != (key is None):
        raise ManifestError(f"{path}: field tls: give both cert and key (mutual TLS), or neither")
    server_name = raw.get("server_name")
    if server_name is not None and not isinstance(server_name, str):
        raise ManifestError(f"{path}: field tls.server_name: must be a string")
    ca = pem("ca", True)
    assert ca is not None
    return BotAddress(name, address, TlsConfig(ca, cert, key, server_name))


def parse_bot_spec(spec: str, base: Path | None = None) -> BotSpec:
    """A bot from a CLI or league entry: a manifest path, a directory, or an address.

    Raises:
        ManifestError: neither an existing manifest nor an address.
    """
    path = (base / spec) if base is not None and not Path(spec).is_absolute() else Path(spec)
    if path.exists():
        return load_spec(path)
    if _ADDRESS.match(spec):
        return BotAddress(spec, spec)
    raise ManifestError(f"{spec}: no such bot manifest or directory, and not an address (host:port or unix:/path)")
