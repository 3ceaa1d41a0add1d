"""A league's output folder: made, locked, prepared (or checked, resuming), and its secret.

The folder (private to the arena's user) holds ``secret.json`` (the league's secret
seed and the key of the results' MACs, mode 0600), ``league.json`` (the configuration,
without the secret), ``results.jsonl`` (:mod:`arena.league.results_file`),
``logs/<match>.jsonl`` (hand logs), ``bots/`` (each bot process's stdout and stderr)
and, at the end, ``standings.json`` and ``standings.csv``; a run holds an exclusive
lock on the folder (:func:`league_lock`). A resume checks that the folder holds this
league (:func:`prepare_output`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.common import boundedjson
from arena.league.config import LeagueConfig
from arena.league.results_file import RESULTS_FILE, LeagueError, ResultsCheck, canonical, read_results
from arena.league.schedule import ScheduledMatch, schedule
from arena.league.secret import SECRET_BITS as SECRET_BITS
from arena.league.secret import SECRET_FILE, LeagueSecret, read_secret, write_secret
from arena.remote import sandbox


def seed_line(seed: int, where: Path) -> str:
    """The line printed after a run, so that it can be reproduced."""
    return f"seed: {hex(seed)} (reproduce with --seed {hex(seed)}; kept in {where})"


def config_snapshot(config: LeagueConfig) -> dict[str, Any]:
    """league.json: the configuration as run. The seed only when the user gave it (a
    drawn secret stays in secret.json)."""
    return {
        "name": config.name,
        "seed_given": config.seed is not None,
        "seed": config.seed,
        "matches_per_pairing": config.matches_per_pairing,
        "duplicate": config.duplicate,
        "rules": config.rules.to_mapping(),
        "time": {"decision_ms": config.decision_ms, "time_bank_ms": config.time_bank_ms, "max_faults": config.max_faults},
        "run": config.runtime.to_json(),
        "sandbox": sandbox.protections(config.sandbox),
        "fresh_processes": config.fresh_processes,
        "cluster": config.cluster.to_json() if config.cluster is not None else None,
        # The standings' scale ([standings] anchor): what mus report needs to compute them
        # as the league does while it runs (no standings.json yet).
        "standings": {"anchor": config.anchor, "anchor_rating": config.anchor_rating},
        "entries": [
            {"name": e.name, "pair": list(e.pair) if e.pair else None, "bot": getattr(e.spec, "name", None)}
            for e in config.entries
        ],
        "source": str(config.source) if config.source else None,
    }


_IDENTITY_KEYS = ("seed_given", "seed", "matches_per_pairing", "duplicate", "rules", "entries", "time")
"""What a resume checks against league.json, and what the results' MACs bind."""


def league_identity(config: LeagueConfig, matches: list[ScheduledMatch]) -> str:
    """A digest of what makes the league this league: its configuration (as compared on
    resume) and its schedule (every match id with the entry at each side, and its deal)."""
    snap = config_snapshot(config)
    ident = {k: snap[k] for k in _IDENTITY_KEYS}
    ident["schedule"] = [[m.match_id, m.team0, m.team1, m.deal] for m in matches]
    return hashlib.sha256(canonical(ident)).hexdigest()


@contextlib.contextmanager
def folder_lock(folder: Path, fail: Callable[[str], Exception], busy: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` itself for the ``with`` block, so that
    taking it adds nothing to the folder (a refused run leaves it as it was). Not
    inherited by bots (close-on-exec), and released by the system if the arena dies.

    Raises:
        Exception: ``fail(message)``: the folder cannot be opened, or another run holds
            the lock (the message then ends with ``busy``).
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise fail(f"{folder}: cannot open the folder to lock it: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise fail(f"{folder}: {busy}") from None
        yield
    finally:
        os.close(fd)


def league_lock(out_dir: Path) -> contextlib.AbstractContextManager[None]:
    """The exclusive lock of the league in ``out_dir`` (:func:`folder_lock`).

    Raises:
        LeagueError: another run holds it, or the folder cannot be opened.
    """
    return folder_lock(out_dir, LeagueError, "another league is running in this folder (it holds the folder's "
                                             "lock); wait until it ends, or choose another --out")


def prepare_output(out_dir: Path, config: LeagueConfig,
                   resume: bool) -> tuple[LeagueConfig, LeagueSecret, list[dict[str, Any]]]:
    """Create (or, resuming, check) the output folder; return the configuration as run,
    the league's secret and the results already there (every line checked:
    :func:`read_results`). Call it with the folder's lock held (:func:`league_lock`).

    Resuming without a seed continues with the seed in ``secret.json`` (drawn, or given
    when the league started); a seed given on resume must be that one.

    Raises:
        LeagueError: the folder exists and is not empty (without resume), cannot be
            written, holds a different league, lacks its secret, or has a bad line in
            results.jsonl (with resume).
    """
    snap = config_snapshot(config)
    meta = out_dir / "league.json"
    if resume:
        if out_dir.exists() and not out_dir.is_dir():
            raise LeagueError(f"{out_dir}: exists and is not a folder")
        if not meta.exists():
            raise LeagueError(f"{out_dir}: nothing to resume (no league.json); run without --resume")
        try:
            old = boundedjson.read_file(meta)
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            raise LeagueError(f"{meta}: unreadable ({exc}); cannot resume") from None
        secret = read_secret(out_dir)
        if config.seed is None and secret.given:
            config = replace(config, seed=secret.seed)
            snap = config_snapshot(config)
        for key in _IDENTITY_KEYS:
            if old.get(key) != snap[key]:
                raise LeagueError(resume_mismatch(out_dir, key, old, snap))
        old_profile = (old.get("sandbox") or {}).get("profile", "default")
        if old_profile != config.sandbox:
            raise LeagueError(f"{out_dir}: the league started with sandbox {old_profile!r}, not {config.sandbox!r}: "
                              "every match of a league runs under the same protections; cannot resume")
        if secret.given != (config.seed is not None) or (config.seed is not None and secret.seed != config.seed):
            raise LeagueError(f"{out_dir / SECRET_FILE}: does not match league.json's seed; cannot resume")
        matches = schedule(config, secret.seed)
        check = ResultsCheck(secret.results_key, league_identity(config, matches), {m.match_id: m for m in matches})
        return config, secret, read_results(out_dir / RESULTS_FILE, check)
    if out_dir.exists() and not out_dir.is_dir():
        raise LeagueError(f"{out_dir}: exists and is not a folder; choose another --out")
    if out_dir.exists() and any(out_dir.iterdir()):
        raise LeagueError(f"{out_dir}: exists and is not empty; choose another --out, or add --resume to continue it")
    secret = LeagueSecret.draw(config.seed)
    try:
        (out_dir / "logs").mkdir(parents=True, exist_ok=True)
        # Private to the arena's user: bots run as another user (run_as) cannot read the
        # secret, the logs or the results of a league in progress.
        os.chmod(out_dir, 0o700)
        (out_dir / "bots").mkdir(exist_ok=True)
        write_secret(out_dir / SECRET_FILE, secret.to_json())
        tmp = meta.with_suffix(".tmp")
        tmp.write_text(json.dumps(snap, indent=2), encoding="utf-8")
        os.replace(tmp, meta)
    except OSError as exc:
        raise LeagueError(f"{out_dir}: cannot write: {exc.strerror or exc}") from None
    return config, secret, []


_KEY_WORDS = {"matches_per_pairing": "matches_per_pairing", "duplicate": "duplicate", "rules": "the [rules] table",
              "entries": "the entries ([[entry]]: their names, pairs or bots)",
              "time": "the [time] table (decision_ms, time_bank_ms, max_faults)"}


def resume_mismatch(out_dir: Path, key: str, old: dict[str, Any], now: dict[str, Any]) -> str:
    """Why a resume is refused, in the user's terms: what they gave now (the league file,
    or ``--seed``) against what the league in ``out_dir`` started with, and what to do."""
    if key in ("seed_given", "seed"):
        then = f"seed {hex(old['seed'])}" if old.get("seed_given") and isinstance(old.get("seed"), int) else \
            "a secret seed drawn at random"
        given = f"seed {hex(now['seed'])} (--seed, or the league file's seed)" if now.get("seed_given") else "no seed"
        return (f"{out_dir}: the league started with {then}; this resume gives {given}. A league is resumed with "
                "the seed it started with: leave --seed out (and the league file's seed as it was), or start a new "
                "league in another folder; cannot resume")
    what = _KEY_WORDS.get(key, key)
    return (f"{out_dir}: {what} in the league file differs from when the league started ({out_dir / 'league.json'} "
            "keeps what it started with): resume with the league file as it was, or start the changed league in "
            "another folder; cannot resume")


def make_folder(out_dir: Path, resume: bool) -> None:
    """The output folder, so that its lock can be taken before anything is read."""
    if resume:
        if not out_dir.is_dir():
            raise LeagueError(f"{out_dir}: nothing to resume (no such folder); run without --resume")
        return
    if out_dir.exists() and not out_dir.is_dir():
        raise LeagueError(f"{out_dir}: exists and is not a folder; choose another --out")
    try:
        out_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise LeagueError(f"{out_dir}: cannot create: {exc.strerror or exc}") from None
