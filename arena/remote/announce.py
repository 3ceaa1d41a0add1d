"""The address a bot announces, checked before the arena connects to it.

A bot prints its address on stdout (``1|1|unix|PATH|grpc`` or ``1|1|tcp|HOST:PORT|grpc``);
the arena connects only where it allows: a socket in the bot's own private socket
directory, or a loopback IP literal. What a bot names elsewhere is refused, never
followed or resolved.
"""

from __future__ import annotations

import os
import stat

from mus_sdk import handshake

from arena.remote.sandbox import Confinement, SandboxError
from arena.remote.untrusted import AddressRefused, loopback_host


def checked_target(announce: handshake.Announce, jail: Confinement, *, unix_socket: bool, strict: bool) -> str:
    """The gRPC target to reach the bot at ``announce``, if the arena may connect there
    (``jail``: the bot's confinement; ``unix_socket``: whether it was offered a socket
    directory; ``strict``: the strict sandbox, where it has no network).

    A unix socket must be a plain name directly in the bot's private socket
    directory, and a socket there (not a link): the arena connects to the path it
    built, never to one the bot chose. A TCP address must be a loopback IP literal
    (or ``localhost``, taken as 127.0.0.1): a name is never resolved, so a bot cannot
    make the arena reach another machine (``localhost.attacker.example``).

    Raises:
        SandboxError: an address the arena refuses; the message says why.
    """
    if announce.network == handshake.NETWORK_UNIX:
        if not unix_socket:
            raise SandboxError("a unix socket, but the arena offered none (MUS_ARENA_SOCKET_DIR is unset)")
        path = jail.socket_path(announce.address)
        try:
            mode = os.lstat(path).st_mode
        except OSError as exc:
            raise SandboxError(f"no socket at {announce.address}: {exc.strerror or exc}") from None
        if not stat.S_ISSOCK(mode):
            raise SandboxError(f"{announce.address} is not a socket (a link or a file)")
        return f"unix:{path}"
    if strict:
        raise SandboxError(
            f"a TCP address under the strict sandbox, where bots have no network: serve on a unix socket in "
            f"${handshake.SOCKET_DIR_ENV} ({jail.socket_dir_inside})"
        )
    host, _, port = announce.address.rpartition(":")
    try:
        return f"{loopback_host(host)}:{port}"
    except AddressRefused as exc:
        raise SandboxError(str(exc)) from None
