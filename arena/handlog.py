"""Hand logs: one JSON Lines file per match (schema in docs/handlog.md).

Line 1 is the header (``"type": "header"``), then one ``"type": "hand"`` record per
finished hand, written and flushed the moment the hand ends (a killed run keeps every
finished hand), and one for the hand a forfeit stopped (``"finished": false``), then a
``"type": "footer"`` with the result, after which the file is fsync'd. A reader
tolerates a corrupt line: it reports the line number and goes on; it reads every
schema so far (:data:`SCHEMA_VERSION`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena import __version__

SCHEMA_VERSION = 2
"""Bumped on any incompatible change to the records (docs/handlog.md). 2: a hand record
may be unfinished (``"finished": false``, ``stopped``, no ``result``), and a hand is
dealt from the seat before mano after a ``mus_corrido`` cut moved the mano by an odd
number of seats (schema 1 logs are re-played with the old dealing)."""

TIMING_FIELDS = frozenset({"ms", "time_used_ms", "max_decision_ms", "run", "bot_cpus", "referee_cpus", "spin_us"})
"""The fields that differ between two runs of the same seed and deterministic bots: the
times, and how the match was run for speed (the header's ``run``,
:meth:`arena.runtime.Runtime.header`). ``bot_cpus``, ``referee_cpus`` and ``spin_us``
are the header fields ``run`` replaced: a log written before it compares equal to one
written after."""


def untimed(value: Any) -> Any:
    """``value`` (a record, or any JSON value) without its timing fields, at any depth:
    what must be identical between two runs of the same seed (docs/handlog.md)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


class HandLogWriter:
    """Writes one match's log; use as a context manager."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self._f: IO[str] | None = open(path, "w", encoding="utf-8")
        self.write({"type": "header", "schema": SCHEMA_VERSION, "arena_version": __version__, **header})

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and flush it to the operating system."""
        assert self._f is not None, "log already closed"
        self._f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._f.flush()

    def hand(self, record: dict[str, Any]) -> None:
        """Append a hand record (finished, or stopped by a forfeit)."""
        self.write(record)

    def close(self, footer: dict[str, Any] | None = None) -> None:
        """Write the footer (if any), fsync and close."""
        if self._f is None:
            return
        if footer is not None:
            self.write({"type": "footer", **footer})
        os.fsync(self._f.fileno())
        self._f.close()
        self._f = None

    def __enter__(self) -> HandLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class HandLog:
    """A parsed log: header, hands, footer (if the match finished), and bad lines."""

    path: Path
    header: dict[str, Any] = field(default_factory=dict)
    hands: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)
    """One message per line that could not be read: ``line N: why``."""


class HandLogError(ValueError):
    """A log that cannot be read at all (missing, unreadable, no header)."""


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """Yield ``(line number, record or None, error)`` for each non-empty line."""
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise HandLogError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with f:
        for no, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                yield no, None, f"line {no}: not valid JSON ({exc.msg} at column {exc.colno})"
                continue
            if not isinstance(rec, dict) or "type" not in rec:
                yield no, None, f"line {no}: not a log record (no 'type')"
                continue
            yield no, rec, ""


def read_log(path: Path) -> HandLog:
    """Read a hand log, keeping every readable record.

    Raises:
        HandLogError: the file cannot be read, or holds no header.
    """
    log = HandLog(path)
    for _no, rec, err in iter_records(path):
        if rec is None:
            log.errors.append(err)
        elif rec["type"] == "header":
            log.header = rec
        elif rec["type"] == "hand":
            log.hands.append(rec)
        elif rec["type"] == "footer":
            log.footer = rec
        else:
            log.errors.append(f"unknown record type {rec['type']!r}")
    if not log.header:
        raise HandLogError(f"{path}: no header record: not a mus-arena hand log" + (f" ({log.errors[0]})" if log.errors else ""))
    return log
