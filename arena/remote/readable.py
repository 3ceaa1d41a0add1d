"""Whether a strict bot can read its own folder, and the fix when it cannot.

Under the strict sandbox a bot sees its folder through bubblewrap, as a user that is not
the folder's owner when the arena runs as root (a uid of its own), or as the arena's
user otherwise. A folder it cannot read fails at the bot's start with an obscure error;
:func:`readability_problem` says which file and how to fix it before anything starts.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path


def _closed_to_others(folder: Path, most: int = 20_000) -> Path | None:
    """The first file or folder under ``folder`` that a user other than its owner cannot
    read (or search), if any; None when all are open. (The folders above it do not
    matter: the sandbox shows the folder at its path through folders of its own.) Looks
    at ``most`` entries at the most (a huge folder is not walked to the end)."""
    return _first_closed(folder, _open_to_others, most)


def _open_to_others(_path: str, st: os.stat_result) -> bool:
    need = 0o005 if stat.S_ISDIR(st.st_mode) else 0o004
    return st.st_mode & need == need


def _open_to_me(path: str, st: os.stat_result) -> bool:
    return os.access(path, os.R_OK | (os.X_OK if stat.S_ISDIR(st.st_mode) else 0))


def _closed_to_me(folder: Path, most: int = 20_000) -> Path | None:
    """The first file or folder under ``folder`` (or ``folder`` itself, or a folder above
    it) that this process's user cannot read (or search), if any."""
    if not os.access(folder, os.R_OK | os.X_OK):
        return folder
    return _first_closed(folder, _open_to_me, most)


def _first_closed(folder: Path, ok: Callable[[str, os.stat_result], bool], most: int) -> Path | None:
    """The first folder or file under ``folder`` that fails ``ok``; links are skipped."""
    seen = 0
    if not ok(str(folder), os.stat(folder)):
        return folder
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:  # a folder closed to this user is not walked: it is checked here
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                continue  # a link is followed inside the sandbox, where it names something else
            if not ok(path, st):
                return Path(path)
            seen += 1
        if seen > most:
            break
    return None


def readability_problem(folder: Path) -> str | None:
    """Why a strict bot could not read its folder ``folder``, with the fix; None if it can.

    As root the arena runs each strict bot as a uid of its own, which owns no file: every
    file must be readable by other users (and every folder searchable). A normal user's
    arena runs the bot as itself (mapped in a user namespace): what that user cannot read,
    the bot cannot either, and bubblewrap cannot even show a folder that user cannot reach.
    """
    if os.geteuid() == 0:
        closed = _closed_to_others(folder)
        if closed is None:
            return None
        return (f"{closed} is not readable by other users, and under the strict sandbox a root arena runs each bot "
                f"as a uid of its own: make the bot's folder readable (chmod -R a+rX {folder})")
    closed = _closed_to_me(folder)
    if closed is None:
        return None
    return (f"{closed} is not readable by the arena's user (uid {os.geteuid()}), and under the strict sandbox the bot "
            f"runs as that user: give it the bot's folder (chown -R {os.geteuid()} {folder}, or chmod -R a+rX "
            f"{folder} and a+x on the folders above it)")
