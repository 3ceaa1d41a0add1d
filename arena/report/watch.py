"""Watching a match in the terminal as it is played: its hand log, followed like ``tail -f``.

A match writes each hand to its log the moment the hand ends (flushed: docs/handlog.md),
so following the file shows every hand as the referee recorded it, whoever plays the
match (``mus match --watch``, or ``mus watch`` on a league's log from another terminal).
Each hand is shown as ``mus replay`` shows it (:func:`arena.tools.replay.format_hand`),
re-played through the engine, with a seat's view if asked.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from arena.common.boundedjson import MAX_LINE_BYTES
from arena.records.handlog import HandLog, HandLogError, parse_record, too_long
from arena.tools.replay import format_hand, replay

POLL_S = 0.1
"""How often a followed log is read again when nothing new is in it."""

IDLE_S = 300.0
"""How long ``mus watch`` waits for a log to grow before it says the match is not being
played (``--idle-timeout``). A hand of a match with the default time control (2 s a
decision) takes seconds; only a seat spending minutes of its time bank in one hand
leaves its log still longer."""


class WatchError(ValueError):
    """A followed log that cannot be watched: a line no arena writes, or a log that
    stopped growing (the message names the file, and the line or how long)."""


def follow(path: Path, stop: threading.Event | None = None, poll_s: float = POLL_S,
           idle_s: float | None = None) -> Iterator[dict[str, Any]]:
    """Each record of the log at ``path`` as its line is complete, waiting for the file to
    appear and for more lines, until the footer (or ``stop`` is set). A line being
    written is read once its newline is there; a line that is not JSON is skipped.
    Nothing is held but one line of at most :data:`arena.common.boundedjson.MAX_LINE_BYTES`.

    Raises:
        HandLogError: a line over the limits or with fields of the wrong types.
        WatchError: with ``idle_s``, the log did not grow for ``idle_s`` seconds.
    """
    last = time.monotonic()
    while not path.exists():
        if _wait(stop, poll_s):
            return
        _check_idle(path, last, idle_s)
    with open(path, "rb") as f:
        partial, number = b"", 0
        while True:
            chunk = f.readline(MAX_LINE_BYTES + 1 - len(partial))
            if chunk:
                last = time.monotonic()
                partial += chunk
                if len(partial) > MAX_LINE_BYTES:
                    raise too_long(path, number + 1)
                if not partial.endswith(b"\n"):
                    continue  # the rest of the line is still being written
                line, partial, number = partial, b"", number + 1
                rec = parse_record(path, number, line)[0] if line.strip() else None
                if rec is not None:
                    yield rec
                    if rec.get("type") == "footer":
                        return
                continue
            if stop is not None and stop.is_set():
                return  # after every complete line written so far
            _wait(stop, poll_s)
            _check_idle(path, last, idle_s)


def _check_idle(path: Path, since: float, idle_s: float | None) -> None:
    """Raise :class:`WatchError` when the log has not grown for ``idle_s`` seconds."""
    if idle_s is not None and time.monotonic() - since > idle_s:
        state = "does not exist" if not path.exists() else "is empty" if path.stat().st_size == 0 else "has not grown"
        raise WatchError(f"{path}: {state} for {idle_s:g} s: no match is being written to it "
                         "(wait longer with --idle-timeout)")


def _wait(stop: threading.Event | None, seconds: float) -> bool:
    """Wait ``seconds``, or less if ``stop`` is set; whether it is."""
    if stop is None:
        time.sleep(seconds)
        return False
    return stop.wait(seconds)


def newest_log(folder: Path) -> Path | None:
    """The log of a folder (a league's ``logs/``, or a match folder) written to last, its
    match unfinished if one is; None if there is none."""
    logs = folder / "logs" if (folder / "logs").is_dir() else folder
    found = sorted(logs.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    playing = [p for p in found if not _has_footer(p)]
    return (playing or found)[0] if found else None


def _has_footer(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, path.stat().st_size - 4096))
            return b'"type":"footer"' in f.read()
    except OSError:
        return False


class HandPrinter:
    """Prints a followed log: the match's seats, each hand as it lands, the result."""

    def __init__(self, path: Path, echo: Callable[[str], None], seat: int | None = None) -> None:
        self.log = HandLog(path)
        self.echo = echo
        self.seat = seat

    def record(self, rec: dict[str, Any]) -> None:
        """Show one record of the log."""
        kind = rec.get("type")
        if kind == "header":
            self.log.header = rec
            seats = ", ".join(f"S{s.get('seat')}={s.get('entry') or s.get('bot')}" for s in rec.get("seats", []))
            self.echo(f"match {rec.get('match_id')} · {seats}")
        elif kind == "hand" and self.log.header:
            # One hand alone: replay() re-plays it from its logged deal (or, hand 0, from the seed).
            one = HandLog(self.log.path, self.log.header, [rec])
            for hand in replay(one):
                format_hand(hand, self.seat, self.echo)
        elif kind == "footer":
            r = rec.get("result", {})
            self.echo(f"result: winner team {r.get('winner_team')}, games {r.get('games_won')}, {r.get('reason')}"
                      + (f" ({r.get('detail')})" if r.get("detail") else ""))


def watch(path: Path, echo: Callable[[str], None], seat: int | None = None,
          stop: threading.Event | None = None, idle_s: float | None = None) -> None:
    """Print the match of the log at ``path`` hand by hand as it is played, to its end.

    Raises:
        HandLogError: a line no arena writes (:func:`follow`).
        WatchError: with ``idle_s``, the log stopped growing before its footer.
    """
    printer = HandPrinter(path, echo, seat)
    for rec in follow(path, stop, idle_s=idle_s):
        printer.record(rec)


class Watching:
    """``with Watching(path, echo):`` prints the log's hands from a thread while the
    block plays the match; on leaving, the hands already written are printed too."""

    def __init__(self, path: Path, echo: Callable[[str], None], seat: int | None = None) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(path, echo, seat), name="mus-watch", daemon=True)

    def _watch(self, path: Path, echo: Callable[[str], None], seat: int | None) -> None:
        try:
            watch(path, echo, seat, self._stop)
        except (HandLogError, WatchError) as exc:  # the match's own log: only another writer could do this
            echo(f"watch stopped: {exc}")

    def __enter__(self) -> Watching:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # The footer ends the thread; without one (an interrupted match) what is written is shown.
        self._thread.join(timeout=2.0)
        self._stop.set()
        self._thread.join()
