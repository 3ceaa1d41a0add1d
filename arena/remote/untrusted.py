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


ERROR_TYPE_CHARS = 100
"""Characters of a ``BotError``'s type shown in a fault's detail."""
ERROR_MESSAGE_CHARS = 500
"""Characters of a ``BotError``'s message shown in a fault's detail."""
TRACEBACK_LINES = (2, 4)
"""Lines of a ``BotError``'s traceback shown in a fault's detail: all of them up to
the sum plus one, else the first ones (the bot's own entry point, e.g. ``decide``) and
the last ones (where it failed), with a line that counts those left out between."""
TRACEBACK_LINE_CHARS = 200
"""Characters of each traceback line shown."""


def error_report(error_type: str, message: str, traceback: str) -> str:
    """The detail of the BOT_ERROR fault a bot's ``BotError`` answer (its type, message
    and traceback) is charged as:
    ``Type: message`` on one line, then a few lines of its traceback, indented by four
    spaces. Text from a bot: made printable (no control characters, one line per line)
    and capped, so that it can go into the hand log and on the operator's terminal."""
    kind = printable(error_type, ERROR_TYPE_CHARS) or "error"
    # One line: a message's own line breaks become spaces (printable would escape them).
    message = printable(message[:ERROR_MESSAGE_CHARS].replace("\r\n", " ").replace("\n", " "))
    head = f"{kind}: {message}" if message else kind
    # A bot's text is untrusted: only its two ends are split into lines, never more
    # than can be shown (its message may be up to 1 MiB).
    first, last = TRACEBACK_LINES
    text = traceback
    budget = (first + last + 1) * TRACEBACK_LINE_CHARS * 4
    if len(text) <= 2 * budget:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > first + last + 1:
            lines = [*lines[:first], f"… ({len(lines) - first - last} lines left out)", *lines[-last:]]
    else:
        head_lines = [line for line in text[:budget].splitlines() if line.strip()][:first]
        tail_lines = [line for line in text[-budget:].splitlines()[1:] if line.strip()][-last:]  # [0] may be cut
        left_out = text.count("\n") + 1 - len(head_lines) - len(tail_lines)  # blank lines counted
        lines = [*head_lines, f"… (about {left_out} lines left out)", *tail_lines]
    shown = [printable(line, TRACEBACK_LINE_CHARS) for line in lines]
    return "\n".join([head, *("    " + line for line in shown)])
