"""One warning per retired setting: a setting this arena no longer needs is accepted,
never refused, and said once (docs/league.md, "Settings of earlier versions")."""

from __future__ import annotations

import threading

import structlog

log = structlog.get_logger()

_WARNED: set[tuple[str, str]] = set()
_WARNED_LOCK = threading.Lock()


def deprecated(setting: str, source: str, instead: str) -> None:
    """Log one warning (``setting.deprecated``) that ``setting`` of ``source`` (a file,
    or ``command line``) is deprecated, and what to use ``instead``; once per setting
    and source in a process, however often the file is read."""
    with _WARNED_LOCK:
        if (setting, source) in _WARNED:
            return
        _WARNED.add((setting, source))
    log.warning("setting.deprecated", setting=setting, source=source, instead=instead)
