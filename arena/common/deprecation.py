"""One warning per retired setting: a setting this arena no longer needs is accepted,
never refused, and said once (docs/league.md, "Settings of earlier versions"), with the
release that takes it away (docs/compatibility.md, "Deprecated names and when they go").

The retired settings, each read where its file or option is read (marked
``# retired (REMOVED_IN)`` in the arena's own modules, so that removing them is a search
for that and for ``share_cpu``):

* ``--affinity``, ``--bot-cpus``, ``--spin-us`` (``mus match``, ``mus league``):
  :func:`arena.runtime.settings.command_line`;
* ``bot_cpus`` and ``spin_us`` in league files: :mod:`arena.league.config`;
* ``share_cpu`` in manifests: :mod:`arena.remote.manifest`.
"""

from __future__ import annotations

import threading

import structlog

log = structlog.get_logger()

DEPRECATED_IN = "0.1.0"
"""The release whose documentation first called these settings deprecated (they were
retired while 0.1.0 was developed, and 0.1.0 shipped them, accepted with a warning)."""
REMOVED_IN = "0.3.0"
"""The release that removes them: two minor releases after :data:`DEPRECATED_IN`, and
not before 2027-03-04, three months after it (docs/compatibility.md)."""

_WARNED: set[tuple[str, str]] = set()
_WARNED_LOCK = threading.Lock()


def deprecated(setting: str, source: str, instead: str) -> None:
    """Log one warning (``setting.deprecated``) that ``setting`` of ``source`` (a file,
    or ``command line``) is deprecated, what to use ``instead``, and the release that
    removes it (``removed_in``); once per setting and source in a process, however often
    the file is read."""
    with _WARNED_LOCK:
        if (setting, source) in _WARNED:
            return
        _WARNED.add((setting, source))
    log.warning("setting.deprecated", setting=setting, source=source, instead=instead, removed_in=REMOVED_IN)
