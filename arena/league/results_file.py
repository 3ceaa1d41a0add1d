"""``results.jsonl``: one sealed line per finished match, written so that a crash loses
nothing but the line being written, and read back checked.

Each line is bound to its league by an HMAC (:func:`seal`) with the league's results key
(kept in ``secret.json``), so a resume can tell an edited, forged or foreign line from
the league's own (:func:`read_results`), naming the first bad line and dropping nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.common import boundedjson
from arena.league.schedule import ScheduledMatch

RESULTS_FILE = "results.jsonl"


class LeagueError(RuntimeError):
    """A league that cannot run (output folder problems, a resume that does not match)."""


_INTEGRITY_FIELDS = ("league", "mac")


def canonical(value: Any) -> bytes:
    """The canonical JSON of ``value`` (sorted keys, no spaces, ASCII): what a MAC covers."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def seal(record: dict[str, Any], key: bytes, identity: str) -> dict[str, Any]:
    """``record`` with ``league`` (the league's identity) and ``mac``: HMAC-SHA256 with
    the results key over the canonical JSON of the rest (sorted keys, no spaces)."""
    out = {k: v for k, v in record.items() if k not in _INTEGRITY_FIELDS}
    out["league"] = identity
    out["mac"] = hmac.new(key, canonical(out), hashlib.sha256).hexdigest()
    return out


@dataclass(frozen=True)
class ResultsCheck:
    """What every line of ``results.jsonl`` must agree with on resume."""

    key: bytes
    identity: str
    matches: dict[str, ScheduledMatch]


def read_results(path: Path, check: ResultsCheck | None = None) -> list[dict[str, Any]]:
    """The finished matches in ``results.jsonl``, the file left untouched: each line's
    record without its integrity fields (``league``, ``mac``), so that two runs of one
    seed give equal records (timing fields aside: :func:`arena.records.handlog.untimed`).

    Every line must be a whole JSON object with a ``match_id``, and not repeat a match;
    with ``check``, also carry a valid MAC for this league and name a match of its
    schedule with the teams and deal the schedule gives. Nothing is skipped: the first
    bad line stops the reading.

    Raises:
        LeagueError: a bad line; the message names the file, the line, what is wrong,
            and what to do.
    """
    if not path.exists():
        return []
    good: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    with open(path, "rb") as f:
        # Split on "\n" only (binary lines): a stray "\r" inside a damaged line must not
        # make two lines of it. Each line is read within arena.common.boundedjson's limits.
        for line in boundedjson.lines(f):
            problem = _line_problem(line, check, seen)
            if problem is not None:
                what, advice = problem
                total = line.number + sum(1 for _ in boundedjson.lines(f))
                raise LeagueError(
                    f"{path}:{line.number}: {what}. Nothing was played and the file is left as it is "
                    f"({total} lines). {advice}"
                )
            rec = json.loads(line.data)
            seen[rec["match_id"]] = line.number
            good.append({k: v for k, v in rec.items() if k not in _INTEGRITY_FIELDS})
    return good


_DROP_ADVICE = ("If you know where it comes from, restore the original line; otherwise delete this line (its "
                "match is then played again; the lines after it are kept) and run --resume again")


def _line_problem(line: boundedjson.Line, check: ResultsCheck | None,
                  seen: dict[str, int]) -> tuple[str, str] | None:
    """What is wrong with one line of results.jsonl, and what to do; None if nothing."""
    if line.too_long:
        return (f"longer than {boundedjson.MAX_LINE_BYTES // (1024 * 1024)} MiB (not read): no arena writes such "
                "a line", _DROP_ADVICE)
    if not line.complete:  # only the last line can lack its "\n"
        return ("the last line is incomplete (the arena was stopped while writing it, or the disk filled up)",
                "Delete this partial line (its match is then played again) and run --resume again")
    try:
        rec = boundedjson.loads(line.data)
    except boundedjson.JSONLimitError as exc:
        return f"{exc}: no arena writes such a line", _DROP_ADVICE
    except ValueError:  # not JSON, not UTF-8
        return "not a JSON line (garbage, or a line damaged on disk)", _DROP_ADVICE
    if not isinstance(rec, dict) or not isinstance(rec.get("match_id"), str):
        return "not a match result (a JSON object with a match_id)", _DROP_ADVICE
    match_id = rec["match_id"]
    if check is not None:
        mac = rec.get("mac")
        expected = seal(rec, check.key, check.identity)["mac"]
        if not isinstance(mac, str) or not hmac.compare_digest(mac, expected):
            what = ("its MAC is missing" if mac is None else "its MAC does not match its content")
            return (f"match {match_id!r}: {what}: the line was edited or forged, or comes from another league "
                    "(or an arena version before the MACs)", _DROP_ADVICE)
        if rec.get("league") != check.identity:
            return f"match {match_id!r}: the line belongs to another league", _DROP_ADVICE
        scheduled = check.matches.get(match_id)
        if scheduled is None:
            return f"match {match_id!r} is not in this league's schedule", _DROP_ADVICE
        if (rec.get("team0"), rec.get("team1"), rec.get("deal")) != (scheduled.team0, scheduled.team1, scheduled.deal):
            return (f"match {match_id!r}: teams {rec.get('team0')!r} and {rec.get('team1')!r} (deal {rec.get('deal')!r}) "
                    f"are not the schedule's ({scheduled.team0!r}, {scheduled.team1!r}, deal {scheduled.deal})",
                    _DROP_ADVICE)
    if match_id in seen:
        return (f"match {match_id!r} is already on line {seen[match_id]}: a duplicated line",
                "Delete one of the two lines and run --resume again")
    return None

class ResultsWriter:
    """Appends sealed lines to ``results.jsonl``, each flushed and fsync'd before
    :meth:`append` returns, so a line that returned is on disk."""

    def __init__(self, path: Path, key: bytes, identity: str) -> None:
        self.path, self._key, self._identity = path, key, identity
        self._file: IO[str] = open(path, "a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record``, sealed, as one line.

        Raises:
            OSError: the write or the fsync failed; a partly written line was dropped.
        """
        line = json.dumps(seal(record, self._key, self._identity), separators=(",", ":")) + "\n"
        try:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError:
            _truncate_torn_line(self.path)
            raise

    def close(self) -> None:
        """Close the file (what was appended is already on disk)."""
        self._file.close()


def _truncate_torn_line(path: Path) -> None:
    """Drop a partly written last line (this run's own write that failed), so the file
    stays valid JSON Lines. Only the bytes after the last newline go: a whole line
    whose fsync failed stays, and is counted as saved."""
    try:
        with open(path, "r+b") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
    except OSError:
        pass
