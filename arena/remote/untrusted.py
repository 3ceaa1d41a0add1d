"""Text and addresses that come from bots: made safe before the arena shows or uses them.

A bot's stderr, its announce line and the name it gives in ``GetInfo`` reach the
operator's terminal in error messages, ``mus check`` and the standings. Raw, they could
carry escape sequences that set the window title, write the clipboard (OSC 52) or rewrite
what the terminal shows; :func:`printable` keeps only printable text. An address a bot
announces is only ever a loopback IP literal (:func:`loopback_host`): a name is never
resolved, so no lookup or connection leaves the machine because a bot said so.
"""

from __future__ import annotations

import ipaddress
import unicodedata


class AddressRefused(ValueError):
    """A bot announced an address the arena does not connect to; the message says why."""


def printable(text: str, limit: int | None = None) -> str:
    """``text`` without control characters (C0, DEL, C1, and Unicode format characters
    such as bidirectional overrides), each shown as ``\\xNN`` / ``\\uNNNN``; tabs become
    a space. Cut to ``limit`` characters (before escaping) when given."""
    if limit is not None:
        text = text[:limit]
    out = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif ch.isprintable() or (ch == " "):
            out.append(ch)
        elif unicodedata.category(ch) in ("Zs",):
            out.append(" ")
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def loopback_host(host: str) -> str:
    """The host part of an announced TCP address, if it is a loopback IP literal
    (``127.x.y.z``, ``[::1]``) or ``localhost`` (returned as ``127.0.0.1``, so the arena's
    gRPC never resolves a name a bot gave).

    Raises:
        AddressRefused: anything else, without resolving it.
    """
    if host == "localhost":
        return "127.0.0.1"
    literal = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ip = ipaddress.ip_address(literal)
    except ValueError:
        raise AddressRefused(
            f"host {printable(host, 100)!r} is not a loopback IP address (bots announce 127.0.0.1, [::1] or localhost; "
            "names are not resolved)"
        ) from None
    if not ip.is_loopback:
        raise AddressRefused(f"host {host!r} is not on loopback: the arena only connects to bots on this machine")
    return host
