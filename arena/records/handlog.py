"""Hand logs: one JSON Lines file per match (schema in docs/handlog.md).

Line 1 is the header (``"type": "header"``), then one ``"type": "hand"`` record per
finished hand, written and flushed the moment the hand ends (a killed run keeps every
finished hand), and one for the hand a forfeit stopped (``"finished": false``), then a
``"type": "footer"`` with the result, after which the file is fsync'd. A reader
tolerates a corrupt line: it reports the line number and goes on; it reads every
schema so far (:data:`SCHEMA_VERSION`).

This module is the format's one home: the records are built here (:func:`match_header`,
:func:`deal_record`, :func:`step_record`, :func:`hand_record`,
:func:`unfinished_hand_record`; the match session calls them as the match goes), written
here (:class:`HandLogWriter`) and read here (:func:`read_log`). The builders are pure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mus_core import HandResult, Rules, format_cards
from mus_core.state import MusState

from arena import __version__
from arena.common.boundedjson import JSONLimitError, check_depth, limit_text, lines
from arena.records.results import result_to_json

SCHEMA_VERSION = 2
"""Bumped on any incompatible change to the records (docs/handlog.md). 2: a hand record
may be unfinished (``"finished": false``, ``stopped``, no ``result``), and a hand is
dealt from the seat before mano after a ``mus_corrido`` cut moved the mano by an odd
number of seats (schema 1 logs are re-played with the old dealing)."""

TIMING_FIELDS = frozenset({"ms", "time_used_ms", "max_decision_ms", "run", "bot_cpus", "referee_cpus", "spin_us"})
"""The fields that differ between two runs of the same seed and deterministic bots: the
times, and how the match was run for speed (the header's ``run``,
:meth:`arena.runtime.settings.Runtime.header`). ``bot_cpus``, ``referee_cpus`` and ``spin_us``
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


def match_header(*, match_id: str, seed: int, rules: Rules, first_dealer: int | None, decision_ms: int,
                 time_bank_ms: int, max_faults: int, run: dict[str, Any] | None, sandbox: Any,
                 seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The header's fields (docs/handlog.md) but ``type``, ``schema`` and
    ``arena_version``, which :class:`HandLogWriter` adds. ``run``: how the match was run
    for speed (:meth:`arena.runtime.settings.Runtime.header`); ``sandbox``: the isolation of the
    bot processes (None: none spawned); ``seats``: per seat ``seat``, ``entry``, ``bot``,
    ``version`` and ``process``."""
    return {
        "match_id": match_id,
        "seed": seed,
        "rules": rules.to_mapping(),
        "first_dealer": first_dealer,
        "decision_ms": decision_ms,
        "time_bank_ms": time_bank_ms,
        "max_faults": max_faults,
        "run": run,
        "sandbox": sandbox,
        "seats": seats,
    }


def deal_record(state: MusState) -> dict[str, Any]:
    """The deal of ``state``'s current hand as dealt: every seat's cards, the stock from
    the top, the scores before the hand."""
    return {
        "dealer": state.dealer,
        "mano": state.mano,
        "hands": [format_cards(h) for h in state.hands],
        "stock": format_cards(reversed(state.stock)),
        "scores": list(state.scores),
    }


def step_record(seat: int, request_id: int, action: str, elapsed_s: float, sena: str | None = None,
                fault: tuple[str, str] | None = None) -> dict[str, Any]:
    """One step of a hand: who acted, the request's id, the action in the log's notation,
    its time; the seña given with it and the fault (kind, detail), if any."""
    step: dict[str, Any] = {"seat": seat, "id": request_id, "action": action, "ms": round(elapsed_s * 1000, 3)}
    if sena:
        step["sena"] = sena
    if fault is not None:
        step["fault"] = {"kind": fault[0], "detail": fault[1]}
    return step


def hand_record(result: HandResult, deal: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The record of one finished hand."""
    return {
        "type": "hand",
        "game": result.game,
        "hand": result.hand,
        "finished": True,
        "deal": deal,
        "steps": steps,
        "result": result_to_json(result),
    }


def unfinished_hand_record(
    state: MusState, deal: dict[str, Any], steps: list[dict[str, Any]], reason: str, detail: str
) -> dict[str, Any]:
    """The record of a hand the match stopped in: its deal, the steps played (faults
    included), ``"finished": false`` and ``stopped``: why (``reason``, ``detail``) and
    where (the phase or lance, the seat that was to act next, the scores then, dejes of
    the hand included). No ``result``: nothing was counted."""
    lance = state.current_lance
    return {
        "type": "hand",
        "game": state.game_no,
        "hand": state.hand_no,
        "finished": False,
        "deal": deal,
        "steps": steps,
        "stopped": {
            "reason": reason,
            "detail": detail,
            "phase": lance.name.lower() if lance is not None else state.phase.name.lower(),
            "to_act": state.to_act,
            "scores": list(state.scores),
        },
    }


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
    """A log that cannot be read at all (missing, unreadable, no header), or that no
    arena wrote: a line over the readers' limits (:mod:`arena.common.boundedjson`), or a record
    whose fields have the wrong types. The message names the file and the line."""


_NUM = (int, float)
_OPT = type(None)
# The type of every field a reader uses, when it is there (older schemas lack some);
# a nested spec checks a dict, a one-spec list checks every item.
_Spec = dict[str, Any]
_FAULT: _Spec = {"kind": (str,), "detail": (str,)}
_STEP: _Spec = {"seat": (int,), "action": (str,), "sena": (str, _OPT), "ms": (*_NUM, _OPT), "id": (int, _OPT),
                "fault": (_FAULT, _OPT)}
_DEAL: _Spec = {"dealer": (int,), "mano": (int,), "hands": ([(str,)],), "stock": (str,), "scores": ([(int,)],)}
_STOPPED: _Spec = {"reason": (str,), "detail": (str,), "phase": (str,), "scores": ([(int,)], _OPT)}
_RECORDS: dict[str, _Spec] = {
    "header": {"schema": (int,), "seed": (int,), "rules": (dict,), "first_dealer": (int, _OPT), "match_id": (str,),
               "seats": ([({"seat": (int,), "entry": (str, _OPT), "bot": (str, _OPT), "version": (str, _OPT)},)],)},
    "hand": {"hand": (int,), "game": (int,), "finished": (bool,), "deal": (_DEAL,), "steps": ([(_STEP,)],),
             "result": (dict, _OPT), "stopped": (_STOPPED, _OPT)},
    "footer": {"result": ({"faults": ([(dict,)],)},)},
}


def _type_problem(value: Any, allowed: tuple[Any, ...], where: str) -> str | None:
    """What is wrong with ``value`` against ``allowed`` (types, a nested dict spec, a
    one-item list spec), or None."""
    for kind in allowed:
        if isinstance(kind, dict) and isinstance(value, dict):
            return _record_problem(value, kind, where)
        if isinstance(kind, list) and isinstance(value, list):
            return next((p for i, v in enumerate(value) if (p := _type_problem(v, kind[0], f"{where}[{i}]"))), None)
        if isinstance(kind, type) and isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return None
    return f"'{where}' has the wrong type ({type(value).__name__})"


def _record_problem(rec: dict[str, Any], spec: _Spec, where: str = "") -> str | None:
    for key, allowed in spec.items():
        if key in rec and (problem := _type_problem(rec[key], allowed, f"{where}.{key}" if where else key)):
            return problem
    return None


def parse_record(path: Path, no: int, data: bytes) -> tuple[dict[str, Any] | None, str]:
    """One line of a log (at most :data:`arena.common.boundedjson.MAX_LINE_BYTES`, non-empty):
    ``(record, "")``, or ``(None, why)`` for a line that is not JSON or not a record (a
    line cut by a kill, damage: a reader reports it and goes on).

    Raises:
        HandLogError: a line no arena writes (nested too deeply, fields of the wrong
            types), naming the file and the line.
    """
    try:
        check_depth(data)
        # Bytes that are not UTF-8 are replaced, as a text reader would: a damaged
        # character in a name does not lose the whole record.
        rec = json.loads(data.decode("utf-8", errors="replace"))
    except JSONLimitError as exc:
        raise HandLogError(f"{path}: line {no}: {exc}: not a mus-arena hand log") from None
    except json.JSONDecodeError as exc:
        return None, f"line {no}: not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(rec, dict) or "type" not in rec:
        return None, f"line {no}: not a log record (no 'type')"
    spec = _RECORDS.get(rec["type"]) if isinstance(rec["type"], str) else None
    if spec is not None and (problem := _record_problem(rec, spec)):
        raise HandLogError(f"{path}: line {no}: {rec['type']} record: {problem}: not a mus-arena hand log")
    return rec, ""


def too_long(path: Path, no: int) -> HandLogError:
    """The error of a line over :data:`arena.common.boundedjson.MAX_LINE_BYTES`."""
    return HandLogError(f"{path}: {limit_text(no)}: not a mus-arena hand log")


def iter_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """Yield ``(line number, record or None, error)`` for each non-empty line
    (:func:`parse_record`), each read within :mod:`arena.common.boundedjson`'s limits.

    Raises:
        HandLogError: the file cannot be read; a line over the limits; a record whose
            fields have the wrong types.
    """
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise HandLogError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with f:
        for line in lines(f):
            if line.too_long:
                raise too_long(path, line.number)
            if line.data.strip():
                rec, err = parse_record(path, line.number, line.data)
                yield line.number, rec, err


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
            log.errors.append(f"unknown record type {repr(rec['type'])[:60]}")
    if not log.header:
        raise HandLogError(f"{path}: no header record: not a mus-arena hand log" + (f" ({log.errors[0]})" if log.errors else ""))
    return log
