"""The go-plugin style handshake between the arena and a bot process.

This module is the single source of truth for the constants both sides share; the arena
imports it, as go-plugin's host and plugin share one ``HandshakeConfig``.

The contract:

1. The arena starts the bot with :data:`COOKIE_ENV` set to :data:`COOKIE_VALUE`,
   :data:`PROTOCOL_VERSIONS_ENV` set to the app protocol versions it speaks (e.g. ``1``
   or ``1,2``) and, optionally, :data:`SOCKET_DIR_ENV` set to a directory in which the
   bot should bind a unix socket instead of TCP.
2. The bot binds ``127.0.0.1:0`` (a free port chosen by the kernel: no port races) or
   ``<socket dir>/<name>.sock``, starts serving, and prints exactly one line to stdout,
   then flushes::

       1|1|tcp|127.0.0.1:41234|grpc
       1|1|unix|/tmp/arena-x/bot-1234.sock|grpc

   The fields are core protocol version, app protocol version (the newest one both
   sides speak), network type, network address and RPC protocol.
3. The arena parses the line with :func:`parse_line`, connects, and calls ``GetInfo``
   until it answers.

The cookie is not a security measure, only a UX feature: a bot started by hand prints a
friendly message instead of waiting for a connection that never comes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CORE_PROTOCOL_VERSION = 1
"""Version of the handshake itself (the announce line's format and the env contract)."""

APP_PROTOCOL_VERSION = 1
"""Newest app protocol version this SDK speaks; version 1 is the ``mus.v1`` package."""

SUPPORTED_APP_PROTOCOL_VERSIONS: tuple[int, ...] = (1,)
"""Every app protocol version this SDK speaks, oldest first."""

COOKIE_ENV = "MUS_ARENA_COOKIE"
"""Environment variable that marks a process as started by the arena."""

COOKIE_VALUE = "mus-arena-bot-7d3f0c9a2b1e4f56"
"""The fixed value of :data:`COOKIE_ENV`."""

PROTOCOL_VERSIONS_ENV = "MUS_ARENA_PROTOCOL_VERSIONS"
"""Environment variable with the app protocol versions the arena speaks, e.g. ``1,2``."""

SOCKET_DIR_ENV = "MUS_ARENA_SOCKET_DIR"
"""Optional environment variable: bind a unix socket in this directory instead of TCP."""

NETWORK_TCP = "tcp"
"""Network type of a TCP address (``host:port``)."""

NETWORK_UNIX = "unix"
"""Network type of a unix socket address (an absolute path)."""

RPC_PROTOCOL = "grpc"
"""The only RPC protocol of the announce line's last field."""


class HandshakeError(ValueError):
    """Raised when an announce line or a handshake environment value is malformed."""


class ProtocolVersionMismatch(HandshakeError):
    """Raised when the arena and the bot share no protocol version.

    Attributes:
        offered: the versions the other side offered.
        supported: the versions this side supports.
    """

    def __init__(self, message: str, offered: tuple[int, ...], supported: tuple[int, ...]) -> None:
        super().__init__(message)
        self.offered = offered
        self.supported = supported


@dataclass(frozen=True, slots=True)
class Announce:
    """A parsed announce line: where the bot listens and which versions it speaks."""

    core_version: int
    """The handshake (core) protocol version, :data:`CORE_PROTOCOL_VERSION`."""
    app_version: int
    """The app protocol version chosen by the bot."""
    network: str
    """:data:`NETWORK_TCP` or :data:`NETWORK_UNIX`."""
    address: str
    """``host:port`` for TCP, an absolute socket path for unix."""
    protocol: str = RPC_PROTOCOL
    """The RPC protocol, always ``grpc``."""

    @property
    def target(self) -> str:
        """The gRPC channel target for this address (``127.0.0.1:1234`` or ``unix:/p``)."""
        return self.address if self.network == NETWORK_TCP else f"unix:{self.address}"

    def line(self) -> str:
        """The announce line for this value (without a newline)."""
        return format_line(
            self.network, self.address, app_version=self.app_version, core_version=self.core_version
        )


def format_line(
    network: str,
    address: str,
    *,
    app_version: int = APP_PROTOCOL_VERSION,
    core_version: int = CORE_PROTOCOL_VERSION,
) -> str:
    """Format the announce line, e.g. ``1|1|tcp|127.0.0.1:41234|grpc`` (no newline).

    Raises:
        HandshakeError: the network is unknown or the address contains ``|`` or a newline.
    """
    if network not in (NETWORK_TCP, NETWORK_UNIX):
        raise HandshakeError(f"unknown network {network!r} (expected tcp or unix)")
    if not address or any(ch in address for ch in "|\r\n"):
        raise HandshakeError(f"bad address {address!r}")
    return f"{core_version}|{app_version}|{network}|{address}|{RPC_PROTOCOL}"


def parse_line(line: str) -> Announce:
    """Parse a bot's announce line.

    Extra trailing fields are ignored, so later handshake versions can add fields
    without breaking this parser (go-plugin's ``SplitN`` lesson). Leading and trailing
    whitespace (including the newline) is ignored.

    Raises:
        HandshakeError: fewer than 5 fields, a non-integer version, an unsupported core
            version, an unknown network or RPC protocol, or a malformed address. The
            message quotes the line.
    """
    text = line.strip()
    fields = text.split("|")
    if len(fields) < 5:
        raise HandshakeError(
            f"malformed announce line {text[:200]!r}: expected "
            "CORE|APP|NETWORK|ADDRESS|grpc, e.g. '1|1|tcp|127.0.0.1:41234|grpc'"
        )
    core_text, app_text, network, address, protocol = (f.strip() for f in fields[:5])
    try:
        core, app = int(core_text), int(app_text)
    except ValueError:
        raise HandshakeError(f"malformed announce line {text[:200]!r}: versions must be integers") from None
    if core != CORE_PROTOCOL_VERSION:
        raise HandshakeError(
            f"announce line {text[:200]!r} uses core protocol {core}, this side speaks "
            f"{CORE_PROTOCOL_VERSION}: update the bot's SDK or the arena"
        )
    if network not in (NETWORK_TCP, NETWORK_UNIX):
        raise HandshakeError(
            f"announce line {text[:200]!r}: unknown network {network!r} (expected tcp or unix)"
        )
    if protocol != RPC_PROTOCOL:
        raise HandshakeError(
            f"announce line {text[:200]!r}: unknown RPC protocol {protocol!r} (expected grpc)"
        )
    if network == NETWORK_TCP:
        host, sep, port = address.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise HandshakeError(
                f"announce line {text[:200]!r}: bad tcp address {address!r} (expected host:port)"
            )
    elif not address.startswith("/"):
        raise HandshakeError(
            f"announce line {text[:200]!r}: unix address must be an absolute path, got {address!r}"
        )
    return Announce(core, app, network, address, protocol)


def parse_versions(text: str | None) -> tuple[int, ...]:
    """Parse :data:`PROTOCOL_VERSIONS_ENV` (``"1,2"``); ``None`` or blank gives ``(APP_PROTOCOL_VERSION,)``.

    Raises:
        HandshakeError: an item is not a positive integer.
    """
    if text is None or not text.strip():
        return (APP_PROTOCOL_VERSION,)
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item.isdigit() or int(item) < 1:
            raise HandshakeError(
                f"{PROTOCOL_VERSIONS_ENV}={text!r}: expected positive integers separated by commas"
            )
        out.append(int(item))
    return tuple(out)


def negotiate(offered: Iterable[int], supported: Iterable[int] = SUPPORTED_APP_PROTOCOL_VERSIONS) -> int:
    """Pick the newest app protocol version in both ``offered`` and ``supported``.

    Raises:
        ProtocolVersionMismatch: no common version; the message says how to fix it.
    """
    offered_t, supported_t = tuple(offered), tuple(supported)
    common = set(offered_t) & set(supported_t)
    if not common:
        raise ProtocolVersionMismatch(
            f"no common protocol version: the arena offers {list(offered_t)}, the bot speaks "
            f"{list(supported_t)}; upgrade whichever side is older",
            offered_t,
            supported_t,
        )
    return max(common)


def handshake_env(
    socket_dir: str | None = None, versions: Iterable[int] = SUPPORTED_APP_PROTOCOL_VERSIONS
) -> dict[str, str]:
    """The environment variables the arena sets when it launches a bot."""
    env = {COOKIE_ENV: COOKIE_VALUE, PROTOCOL_VERSIONS_ENV: ",".join(str(v) for v in versions)}
    if socket_dir is not None:
        env[SOCKET_DIR_ENV] = socket_dir
    return env
