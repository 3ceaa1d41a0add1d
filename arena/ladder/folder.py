"""A ladder's folder: creating it, opening it, and adding versions of entries.

::

    LADDER/                 private to the arena's user (0700)
      ladder.toml           the settings (a league file without entries), fixed at creation
      ladder.sqlite         the database (arena/ladder/store.py), with its -wal file
      secret.json           the secret seed and the results key (0600; the league's format)
      entries/<e>/v<n>/     each version's snapshot of the bot folder it was added from
      logs/<match>.jsonl    every match's hand log
      botlogs/              the bot processes' stdout and stderr
      report/               mus ladder report

A version is a **copy** of the folder the organiser adds, taken when it is added
(symbolic links followed, ``.git`` and ``__pycache__`` left out), its files made
read-only and its content digest recorded: a student who edits their folder afterwards
changes nothing that was rated; a new submission is a new version.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from arena.ladder.settings import granted, load_settings
from arena.ladder.store import DB_FILE, BadRow, LadderError, LadderStore, Version, now
from arena.league.config import LeagueConfig, LeagueConfigError
from arena.league.runner import LeagueError
from arena.league.secret import SECRET_FILE, LeagueSecret, read_secret, write_secret
from arena.remote.manifest import BotManifest, ManifestError, load_spec

SETTINGS_FILE = "ladder.toml"
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024
"""Largest bot folder a version copies (a folder beyond it is refused: a link to a large tree)."""
ENTRY_NAME = re.compile(r"[A-Za-z0-9_\-]{1,64}")
"""No dot: a version plays as ``<entry>.v<n>``."""
_IGNORED = shutil.ignore_patterns(".git", "__pycache__")

log = structlog.get_logger()


@dataclass
class Ladder:
    """An opened ladder: its folder, database, settings and secret."""

    path: Path
    store: LadderStore
    config: LeagueConfig
    secret: LeagueSecret
    identity: str
    """The ladder's id: what each match record's MAC binds it to."""

    def close(self) -> None:
        """Close the database."""
        self.store.close()

    def results(self) -> tuple[list[dict[str, Any]], list[BadRow]]:
        """The checked match records, and the rows that fail their check."""
        return self.store.results(self.secret.results_key, self.identity)


def _settings_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def create_ladder(path: Path, settings: Path | None, default_text: str) -> Ladder:
    """Make a new ladder in ``path`` (a new or empty folder) with the settings file
    ``settings`` (``default_text`` without one).

    Raises:
        LadderError: the folder is not empty or cannot be written.
        LeagueConfigError: the settings are not a valid ladder file.
    """
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise LadderError(f"{path}: exists and is not an empty folder; choose another")
    try:
        text = settings.read_text(encoding="utf-8") if settings is not None else default_text
    except OSError as exc:
        raise LadderError(f"{settings}: cannot read: {exc.strerror or exc}") from None
    if settings is not None:
        load_settings(settings)  # checked before anything is made: the error names the organiser's file
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path, 0o700)  # the secret, the logs and the database are the organiser's alone
        (path / SETTINGS_FILE).write_text(text, encoding="utf-8")
        config = load_settings(path / SETTINGS_FILE, path.resolve().name)
        for sub in ("entries", "logs", "botlogs"):
            (path / sub).mkdir(exist_ok=True)
        secret = LeagueSecret.draw(config.seed)
        write_secret(path / SECRET_FILE, secret.to_json())
        store = LadderStore(path / DB_FILE)
    except OSError as exc:
        raise LadderError(f"{path}: cannot write: {exc.strerror or exc}") from None
    identity = uuid.uuid4().hex
    store.set_meta({"ladder_id": identity, "name": config.name, "created_at": now(),
                    "settings_sha256": _settings_digest(path / SETTINGS_FILE)})
    return Ladder(path, store, config, secret, identity)


def open_ladder(path: Path) -> Ladder:
    """Open the ladder in ``path``: its settings (unchanged since its creation), secret and database.

    Raises:
        LadderError: not a ladder, its settings changed, its secret missing or bad.
    """
    if not (path / DB_FILE).is_file():
        raise LadderError(f"{path}: not a ladder (no {DB_FILE}); make one with mus ladder create")
    try:
        config = load_settings(path / SETTINGS_FILE, path.resolve().name)
        secret = read_secret(path)
    except (LeagueConfigError, LeagueError) as exc:
        raise LadderError(str(exc)) from None
    store = LadderStore(path / DB_FILE)
    identity = store.get_meta("ladder_id")
    if identity is None:
        store.close()
        raise LadderError(f"{path / DB_FILE}: has no ladder_id: not a ladder's database")
    if store.get_meta("settings_sha256") != _settings_digest(path / SETTINGS_FILE):
        store.close()
        raise LadderError(f"{path / SETTINGS_FILE}: changed since the ladder was created: its results were played "
                          "under the settings it had; put them back, or start a new ladder for new settings")
    return Ladder(path, store, config, secret, identity)


def tree_digest(folder: Path) -> str:
    """SHA-256 over every file of ``folder`` (relative path and content), in path order."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _folder_size(folder: Path) -> int:
    total = 0
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for f in files:
            try:
                total += os.stat(os.path.join(root, f)).st_size
            except OSError:
                continue
            if total > MAX_SNAPSHOT_BYTES:
                return total
    return total


def _read_only(folder: Path) -> None:
    """Every file of the snapshot read-only (the folders stay writable, so it can be deleted)."""
    for p in folder.rglob("*"):
        if p.is_file() and not p.is_symlink():
            mode = p.stat().st_mode
            p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def add_version(ladder: Ladder, entry: str, source: Path, note: str = "",
                keep_previous: bool = False) -> tuple[Version, list[str]]:
    """Snapshot the bot folder ``source`` as the next version of ``entry`` (a new entry
    if it has none); the version, and warnings for the organiser.

    Raises:
        LadderError: a bad entry name, or a folder that is not a bot's (no bot.toml
            launching a command), too large, or unreadable.
    """
    if not ENTRY_NAME.fullmatch(entry):
        raise LadderError(f"entry name {entry!r}: letters, digits, _ and - only (at most 64)")
    try:
        spec = load_spec(source)
    except ManifestError as exc:
        raise LadderError(f"{source}: not a bot folder: {exc}") from None
    try:  # what the settings do not grant is refused now, not at every match of the run
        granted(ladder.config, spec)
    except ManifestError as exc:
        raise LadderError(f"{entry}: {exc}") from None
    if not isinstance(spec, BotManifest):
        raise LadderError(f"{source}: its bot.toml names a bot at an address; a ladder's entries are folders it "
                          "runs itself (under its sandbox)")
    folder = source if source.is_dir() else source.parent
    if _folder_size(folder) > MAX_SNAPSHOT_BYTES:
        raise LadderError(f"{folder}: more than {MAX_SNAPSHOT_BYTES >> 20} MiB: not copied as a version")
    previous = ladder.store.versions(entry)
    number = previous[-1].number + 1 if previous else 1
    rel = Path("entries") / entry / f"v{number}"
    dest = ladder.path / rel
    try:
        shutil.copytree(folder, dest, symlinks=False, ignore=_IGNORED)
        _read_only(dest)
        digest = tree_digest(dest)
        copied = load_spec(dest)
    except (OSError, shutil.Error, ManifestError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise LadderError(f"{folder}: cannot copy it into the ladder: {exc}") from None
    warnings = []
    if isinstance(copied, BotManifest) and not copied.workdir.resolve().is_relative_to(dest.resolve()):
        warnings.append(f"{entry}.v{number}: its workdir {copied.workdir} is outside its folder: that is not in "
                        "the snapshot, and editing it changes this version")
    version = Version(f"{entry}.v{number}", entry, number, str(folder.resolve()), rel.as_posix(), digest, now(),
                      previous[-1].id if previous else None, True, note)
    ladder.store.add_version(version, keep_previous)
    log.info("ladder.version_added", version=version.id, digest=digest[:16])
    return version, warnings
