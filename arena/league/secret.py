"""Secret files: a match's or a league's seed kept beside its logs, readable by the
arena's user alone.

One writer for every such file (:func:`write_secret`): ``mus match``'s
``<match>.secret.json``, a league's and a ladder's ``secret.json``
(:class:`LeagueSecret`, read back by :func:`read_secret`).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.common import boundedjson
from arena.league.config import parse_seed
from arena.league.results_file import LeagueError

SECRET_FILE = "secret.json"
"""A league's (and a ladder's) secret, in its output folder."""
SECRET_BITS = 128
"""Bits of the secret drawn when no seed is given: out of reach of any search."""


def write_secret(path: Path, content: Mapping[str, Any]) -> None:
    """Create ``path`` with ``content`` as JSON, mode 0600 from its creation (never
    readable by another user, even for a moment), and on disk before returning (data
    and size: fdatasync; a league's results depend on it).

    Raises:
        FileExistsError: ``path`` exists (it is never overwritten: it may be the only
            copy of an earlier run's seed).
        OSError: it cannot be written.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(dict(content), f, indent=2)
        f.flush()
        os.fdatasync(f.fileno())


@dataclass(frozen=True)
class LeagueSecret:
    """What ``secret.json`` keeps: the league's seed (drawn, or given by the user) and
    the key of the MACs that bind the lines of ``results.jsonl`` to the league."""

    seed: int
    given: bool
    """The user gave the seed (guessable); otherwise it was drawn at random."""
    results_key: bytes

    def to_json(self) -> dict[str, Any]:
        """The content of ``secret.json``."""
        return {"seed": hex(self.seed), "seed_given": self.given, "results_key": self.results_key.hex()}

    @staticmethod
    def draw(seed: int | None) -> LeagueSecret:
        """``seed`` if the user gave one, else a fresh 128-bit secret; a fresh key."""
        given = seed is not None
        return LeagueSecret(seed if seed is not None else secrets.randbits(SECRET_BITS), given, secrets.token_bytes(32))


def read_secret(out_dir: Path) -> LeagueSecret:
    """The secret of the league in ``out_dir`` (``secret.json``).

    Raises:
        LeagueError: missing, unreadable or malformed.
    """
    path = out_dir / SECRET_FILE
    try:
        data = boundedjson.read_file(path)
        seed = parse_seed(data["seed"])
        given = data["seed_given"]
        key = bytes.fromhex(data["results_key"])
        if not isinstance(given, bool) or len(key) != 32:
            raise ValueError("bad seed_given or results_key")
    except FileNotFoundError:
        raise LeagueError(f"{path}: missing: the league's secret seed and results key are lost, so its "
                          "results cannot be checked nor its matches dealt again; start the league anew in "
                          "another folder") from None
    except OSError as exc:
        raise LeagueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise LeagueError(f"{path}: malformed ({exc}); restore it from a backup, or start the league anew "
                          "in another folder") from None
    return LeagueSecret(seed, given, key)
